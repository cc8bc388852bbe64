"""Build branches that choose the CUDA extension by availability.

`if torch.cuda.is_available() or os.getenv("FORCE_CUDA") == "1": extension = CUDAExtension` (with its sources and
include dirs), `elif ...mlu...: extension = MLUExtension`: the build picks its extension class by backend, and the
NPU needs its own arm. Reported once, at the condition of the branch that selects CUDAExtension, unless the chain
already has an NPU arm. A CUDAExtension(...) call is OPS020's; this is the branch that names the class without
calling it.

Nothing is reported where nothing is built (round 37 A2 class 2, B1 class 4: mmdetection3d's setup.py): the branch sits
in a module-level function of a build file that no code of the file names (`def make_cuda_ext(...)`, never called; a
setup.py is run, not imported), or every `setup(...)` of the file passes `ext_modules=[]`. Where the function holding
the branch first returns no extension when CUDA is missing (Mask2Former's `if not (FORCE_CUDA or
torch.cuda.is_available()) or CUDA_HOME is None: return []`), the Ascend host skips the build: facet `skipped`."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import chain_arms, lacks_npu_arm, selects_cuda_extension, words
from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts
from ascend_feasibility.domains.device.dispatch import backends_read
from ascend_feasibility.domains.phases.uncalled_functions import uncalled_functions
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from ascend_feasibility.knowledge import load_context_conventions

QUERY = r"""
(if_statement) @build_chain
"""


class _BuildBranchScan(PythonScan):
    QUERY = QUERY
    QUERY_ALONE = True  # its trigger is rare, and it captures every if statement

    def run(self) -> list[Hit]:
        backends = backends_read()
        chains = self.captures().get("build_chain", [])
        build = bool(chains) and file_role(self.unit.path, load_context_conventions().roles) == "build"
        if build and _builds_nothing(self.unit):
            return self.hits
        uncalled = None
        for chain in chains:
            for condition, body in chain_arms(chain):
                if not (words(condition) & backends.cuda and selects_cuda_extension(body)):
                    continue
                macros = _defined_macros(body)
                if macros:  # `define_macros += [("WITH_CUDA", None)]` beside `extension = CUDAExtension`
                    facts = self.unit.cache.setdefault("custom_ops", CustomOpFacts())
                    facts.cuda_macros += [(name, f"{self.unit.path}:{line}") for name, line in macros]
                if not lacks_npu_arm(chain, backends.npu):
                    continue
                holder = _module_function(chain)
                if holder is not None and build:
                    if uncalled is None:
                        uncalled = {name for name, _, _ in uncalled_functions(self.unit, [], True)}
                    if parsing.text(holder.child_by_field_name("name")) in uncalled:
                        break  # a build helper nothing calls: no extension comes of it
                facets = ("skipped",) if _skipped_before(chain, holder, backends.cuda) else \
                    ("raises",) if _else_raises(chain) else ()
                self.hit("cuda-extension-build-branch", " ".join(parsing.text(condition).split())[:100], condition,
                         facets=facets)
                break
        return self.hits


def _builds_nothing(unit) -> bool:
    """Does every `setup(...)` call of the file pass `ext_modules=[]` (one call at least)?"""
    if b"ext_modules" not in unit.source.data:
        return False
    calls = [node for node in parsing.walk(unit.tree()) if node.type == "call"
             and parsing.text(node.child_by_field_name("function")).rsplit(".", 1)[-1] == "setup"]
    return bool(calls) and all(_empty_ext_modules(call) for call in calls)


def _empty_ext_modules(call) -> bool:
    arguments = call.child_by_field_name("arguments")
    for argument in arguments.named_children if arguments is not None else ():
        if argument.type == "keyword_argument" and parsing.text(argument.child_by_field_name("name")) == "ext_modules":
            value = argument.child_by_field_name("value")
            return value is not None and value.type == "list" and not value.named_children
    return False


def _module_function(node):
    """The undecorated module-level function definition holding `node`, or None."""
    function = parsing.enclosing(node, {"function_definition"})
    while function is not None:
        if function.parent is not None and function.parent.type == "module":
            return function
        function = parsing.enclosing(function, {"function_definition"})
    return None


def _skipped_before(chain, holder, cuda: frozenset[str]) -> int:
    """The line of an `if <CUDA test>: return []` (no else, its body only a return of no extension) before the chain
    in the function holding it: without CUDA the function returns before it builds anything. 0 where there is none."""
    body = holder.child_by_field_name("body") if holder is not None else None
    for statement in body.named_children if body is not None else ():
        if statement.start_byte >= chain.start_byte:
            break
        if statement.type != "if_statement" or statement.children_by_field_name("alternative"):
            continue
        condition, consequence = statement.child_by_field_name("condition"), statement.child_by_field_name("consequence")
        steps = [c for c in consequence.named_children if c.type != "comment"] if consequence is not None else []
        if (condition is not None and words(condition) & cuda and len(steps) == 1 and steps[0].type == "return_statement"
                and _no_extension(steps[0])):
            return statement.start_point.row + 1
    return 0


def _no_extension(statement) -> bool:
    """`return`, `return None`, `return []`."""
    values = statement.named_children
    return not values or (values[0].type == "list" and not values[0].named_children) or values[0].type == "none"


def _defined_macros(body) -> list[tuple[str, int]]:
    """The preprocessor macros a build arm defines: tuples of a `define_macros` list (`define_macros += [("WITH_CUDA",
    None)]`, `CUDAExtension(..., define_macros=[...])`) and `-DNAME` compiler flags; with their lines."""
    found = []
    for current in parsing.walk(body):
        if current.type == "string":
            value = _plain(current)
            if value is not None and value.startswith("-D") and len(value) > 2:
                found.append((value[2:].split("=", 1)[0], current.start_point.row + 1))
        elif current.type == "tuple" and current.named_children and _names_macros(current):
            value = _plain(current.named_children[0])
            if value is not None and value.isidentifier():
                found.append((value, current.start_point.row + 1))
    return found


def _names_macros(node) -> bool:
    """Is the tuple an item of a list assigned to, or passed as, a name with `macro` in it?"""
    current, depth = node.parent, 0
    while current is not None and depth < 4:
        if current.type in {"assignment", "augmented_assignment"}:
            return "macro" in parsing.text(current.child_by_field_name("left")).lower()
        if current.type == "keyword_argument":
            return "macro" in parsing.text(current.child_by_field_name("name")).lower()
        current, depth = current.parent, depth + 1
    return False


def _plain(node) -> str | None:
    if node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return None
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def _else_raises(chain) -> bool:
    """The chain's `else:` arm raises before it does anything else (InternImage's ops_dcnv3/setup.py:
    `else: raise NotImplementedError('Cuda is not availabel')`): without CUDA the build stops, it builds no CPU variant."""
    other = next((c for c in chain.children_by_field_name("alternative") if c.type == "else_clause"), None)
    body = other.child_by_field_name("body") if other is not None else None
    statements = [c for c in body.named_children if c.type != "comment"] if body is not None else []
    return bool(statements) and statements[0].type == "raise_statement"


class BuildBranchScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("CUDAExtension",)
    scan_class = _BuildBranchScan
