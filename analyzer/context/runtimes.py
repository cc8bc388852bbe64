"""Code that drives another inference runtime (TensorRT, ONNX Runtime, Paddle Inference, OpenVINO, TensorFlow): a
CUDA device string or a GPU switch there is that runtime's, not a torch_npu port item (`other-backend`).

- a site in a branch or function whose own statements import the runtime (yolov5's `elif engine:  # TensorRT` arm
  with `import tensorrt as trt`, `export_saved_model` importing tensorflow);
- a name assigned at the site that only such branches read (yolov5's `cuda = torch.cuda.is_available() and ...`,
  read only to pick ONNX Runtime's CUDAExecutionProvider and Paddle's GPU);
- a site in a branch or function whose own statements (through `with`, `for`, `try`, an assert; not the arms of an
  inner `if`) call a method only the runtime's objects have (the conventions' runtime_calls: a TensorRT context's
  `execute_async_v3`), wherever the runtime was imported: CosyVoice's `else` arm after `isinstance(self.estimator,
  torch.nn.Module)` runs the TensorRT engine another function loaded, and its `torch.cuda.current_stream()` is the
  stream handed to that engine, not a torch port item;
- a site in a class that wraps a runtime known by its objects' methods (TensorRT): half or more of its methods besides
  `__init__` use a name a module-level import of it binds, or one of those methods (mmyolo's easydeploy TRTWrapper,
  EngineBuilder).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from ascend_feasibility.analyzer.context import guards
from ascend_feasibility.analyzer.context.guards import Guard
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_DEPTH = 400
MAX_USES = 50
MAX_SCOPE_NODES = 20000
IMPORTS = {"import_statement", "import_from_statement"}
SCOPES = {"if_statement", "elif_clause", "else_clause", "function_definition"}


@dataclass(frozen=True)
class RuntimeGuard(Guard):
    runtime: str = ""
    readers: bool = False  # a name set here and read only by the runtimes' branches

    def reason(self) -> str:
        if self.readers:
            return (f"read only by code for another inference runtime ({self.runtime}), not torch: no torch_npu port "
                    f"item; {Guard.reason(self)}")
        return (f"code for another inference runtime ({self.runtime}), not torch: its CUDA settings are that runtime's, "
                f"no torch_npu port item; {Guard.reason(self)}")


class RuntimeReader:
    def __init__(self, runtimes: dict[str, str], calls: dict[str, str] | None = None,
                 import_statements: Callable[[Node], list[Node]] = guards.import_statements) -> None:
        self.runtimes = runtimes  # top-level package → the runtime's name
        self.calls = calls or {}  # a method only the runtime's objects have → the runtime's name
        self.import_statements = import_statements  # a tree's import statements (GuardReader.import_statements)
        self.memo: dict[tuple[str, int], object] = {}  # per unit: cleared by the owner's unit reset

    def guard(self, node: Node) -> RuntimeGuard | None:
        if not self._imports_a_runtime(node):
            return None  # both readings below find a runtime's import statement in a block, or nothing
        found = self._scope_of(node)
        if found is not None:
            return found
        return self._read_only_there(node)

    def _imports_a_runtime(self, node: Node) -> bool:
        """Whether any import statement of the unit imports a runtime's package: a unit that never spells one's name
        holds none, and most that do (`is_onnx_available`, a docstring) import none either."""
        root = parsing.root_of(node)
        key = ("imports", root.id)
        if key not in self.memo:
            spelled = root.text or b""
            self.memo[key] = any(name.encode() in spelled for name in self.runtimes) and any(
                name in self.runtimes for statement in self.import_statements(root)
                for name in _imported_roots(statement)) or any(f".{name}(".encode() in spelled for name in self.calls)
        return self.memo[key]

    def _scope_of(self, node: Node) -> RuntimeGuard | None:
        child, parent, depth = node, node.parent, 0
        while parent is not None and depth < MAX_DEPTH:
            body = None
            if parent.type == "if_statement" and child.type == "block":
                body = parent.child_by_field_name("consequence")
            elif parent.type in {"elif_clause", "else_clause", "function_definition"} and child.type == "block":
                body = child
            if body is not None and body.id == child.id:
                key = ("block", body.id)
                if key not in self.memo:
                    self.memo[key] = self._imports_runtime(body)
                found = self.memo[key]
                if found is not None:
                    return found
            if parent.type == "class_definition":
                key = ("class", parent.id)
                if key not in self.memo:
                    self.memo[key] = self._class_drives_runtime(parent)
                return self.memo[key]
            if parent.type == "module":
                return None
            child, parent, depth = parent, parent.parent, depth + 1
        return None

    def _imports_runtime(self, block: Node) -> RuntimeGuard | None:
        """An import of a runtime among the block's own statements (or those of a try/with directly in it)."""
        statements = list(block.named_children)
        for statement in list(statements):
            if statement.type in {"try_statement", "with_statement"}:
                inner = statement.child_by_field_name("body")
                statements.extend(inner.named_children if inner is not None else [])
        for statement in statements:
            if statement.type not in IMPORTS:
                continue
            for name in _imported_roots(statement):
                runtime = self.runtimes.get(name)
                if runtime is not None:
                    return RuntimeGuard("other-backend", statement, runtime=runtime)
        return self._calls_runtime(block) if self.calls else None

    def _calls_runtime(self, block: Node) -> RuntimeGuard | None:
        """A call of a method only a runtime's objects have among the block's own statements (inside `with`, `for`,
        `try` or an assert, not in the arms of an inner `if` nor in a nested definition: those are blocks of their
        own)."""
        for node in parsing.walk(block, limit=MAX_SCOPE_NODES, prune=_own_statements_only, enter_root=True,
                                 source_order=True):
            function = node.child_by_field_name("function") if node.type == "call" else None
            method = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else None
            runtime = self.calls.get(parsing.text(method)) if method is not None else None
            if runtime is not None:
                return RuntimeGuard("other-backend", node, runtime=runtime)
        return None

    def _class_drives_runtime(self, cls: Node) -> RuntimeGuard | None:
        """A class that is a wrapper of a runtime known by its objects' methods (TensorRT, the runtime_calls'
        runtimes): at least half of its methods besides `__init__`, and one or more, use it in their own statements
        (not an inner `if` arm): a name a module-level import of it binds (`trt.Logger`, `TRTModule()`) or one of
        those methods. mmyolo's easydeploy TRTWrapper (3 of 4) and EngineBuilder (1 of 2) (round 40) set a CUDA device
        in `__init__` for the engine their other methods build or run: the whole class is that runtime's, which has no
        Ascend build. A product class with one optional TensorRT loader among its methods (CosyVoice's model with
        load_trt), a class whose TensorRT use sits in one `if` arm, and runtimes with an Ascend route of their own
        (ONNX Runtime's CANN provider) keep their per-site findings."""
        object_runtimes = set(self.calls.values())
        bound = {}
        for statement in self.import_statements(parsing.root_of(cls)):
            runtime = next((self.runtimes[r] for r in _imported_roots(statement) if r in self.runtimes), None)
            if runtime not in object_runtimes or parsing.enclosing(statement, {"function_definition", "class_definition"}):
                continue
            for name in statement.children_by_field_name("name"):
                bound[parsing.import_bound_name(statement, name)] = runtime
        methods = [m for m in parsing.function_definitions(cls.child_by_field_name("body"))
                   if parsing.text(m.child_by_field_name("name")) != "__init__"]
        uses = [use for use in (self._method_use(m, bound) for m in methods) if use is not None]
        return uses[0] if uses and 2 * len(uses) >= len(methods) else None

    def _method_use(self, method: Node, bound: dict[str, str]) -> RuntimeGuard | None:
        for node in parsing.walk(method.child_by_field_name("body"), limit=MAX_SCOPE_NODES, prune=_own_statements_only,
                                 enter_root=True, source_order=True):
            if node.type == "identifier" and parsing.text(node) in bound and _read(node):
                return RuntimeGuard("other-backend", node, runtime=bound[parsing.text(node)])
            if node.type == "call":
                function = node.child_by_field_name("function")
                called = function.child_by_field_name("attribute") if function is not None and function.type == "attribute" else None
                runtime = self.calls.get(parsing.text(called)) if called is not None else None
                if runtime is not None:
                    return RuntimeGuard("other-backend", node, runtime=runtime)
        return None

    def _read_only_there(self, node: Node) -> RuntimeGuard | None:
        """`cuda = torch.cuda.is_available() and ...` whose every reader is in a runtime's branch."""
        assignment, depth = node.parent, 0
        while assignment is not None and assignment.type not in {"assignment", "block", "module"} and depth < 20:
            assignment, depth = assignment.parent, depth + 1
        if assignment is None or assignment.type != "assignment":
            return None
        key = ("readers", assignment.id)
        if key not in self.memo:
            self.memo[key] = self._readers_in_runtimes(assignment)
        return self.memo[key]

    def _reads_in(self, scope: Node) -> dict[str, list[Node]]:
        key = ("reads", scope.id)
        if key not in self.memo:
            self.memo[key] = _reads_by_name(scope)
        return self.memo[key]

    def _readers_in_runtimes(self, assignment: Node) -> RuntimeGuard | None:
        binding = parsing.named_binding(assignment)
        if binding is None or binding[1] is None:
            return None
        (name, scope), target = binding, assignment.child_by_field_name("left")
        uses = [use for use in self._reads_in(scope).get(name, ()) if use.id != target.id]
        if not uses or len(uses) > MAX_USES:
            return None
        found = [self._scope_of(use) for use in sorted(uses, key=lambda u: u.start_byte)]
        if any(f is None for f in found):
            return None
        runtimes = ", ".join(dict.fromkeys(f.runtime for f in found))
        return RuntimeGuard("other-backend", assignment, runtime=runtimes, readers=True)


def _own_statements_only(node: Node) -> bool:
    """Not entered: nested definitions, and the arms of an inner if (a scope of their own, read on the way up)."""
    if node.type in {"function_definition", "class_definition", "lambda", "decorated_definition"}:
        return True
    return node.type == "block" and node.parent is not None and node.parent.type in {"if_statement", "elif_clause", "else_clause"}


def _reads_by_name(scope: Node) -> dict[str, list[Node]]:
    """Every read of a name in the scope (its first MAX_SCOPE_NODES nodes, pre-order), by name."""
    reads: dict[str, list[Node]] = {}
    for current in parsing.walk(scope, limit=MAX_SCOPE_NODES, named=False):
        if current.type == "identifier" and _read(current):
            reads.setdefault(parsing.text(current), []).append(current)
    return reads


def _read(identifier: Node) -> bool:
    """A read of the variable, not `torch.cuda`'s attribute nor a keyword's name."""
    parent = identifier.parent
    if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") is not None \
            and parent.child_by_field_name("attribute").id == identifier.id:
        return False
    return not (parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("name") is not None
                and parent.child_by_field_name("name").id == identifier.id)


def _imported_roots(statement: Node) -> list[str]:
    if statement.type == "import_from_statement":
        module = statement.child_by_field_name("module_name")
        return [parsing.text(module).split(".")[0]] if module is not None else []
    roots = []
    for name in statement.children_by_field_name("name"):
        dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
        if dotted is not None:
            roots.append(parsing.text(dotted).split(".")[0])
    return roots
