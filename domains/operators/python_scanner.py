"""Calls whose ATen operator the target torch_npu does not run on the NPU (knowledge/operators/).

A call resolved through the unit's imports (`torch.X`, `torch.nn.functional.X`, `torch.linalg/fft/special.X`), a
Tensor method call (`x.lgamma()`, only for names some release lacks a kernel for) and the construction of an nn
module with a fast path (hand table) each reach an ATen overload (domains.operators.calls chooses it by the
arguments). When the target release neither registers it nor decomposes it, the call gets one finding: OPS070 where
it runs on every step (in forward/backward, a training step, a loop that calls backward), OPS071 elsewhere (data
preparation, evaluation, start-up), OPS072 for a module's fast path. A library operator of the hand table
(torchvision::deform_conv2d, reached by `torchvision.ops.deform_conv2d` or by building `DeformConv2d`) that nobody
registers for the NPU gets OPS073, with the torch_npu route its row names; one an Ascend package registers
(torchvision::nms through torchvision_npu) gets none. A release the project can move to that
registers it makes the finding cost nothing (the upgrade is the fix), and the replacement names it.

Every overload a unit reaches is kept in the unit's cache (``operators``) for the report's coverage section.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.host_values import BARE, on_host, tensor_arguments
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains import triggers
from ascend_feasibility.domains.base import Hit, Span, Unit
from ascend_feasibility.domains.operators import calls
from ascend_feasibility.domains.operators.fast_path_calls import can_take_fast_path
from ascend_feasibility.domains.python_refs import REFERENCES, PythonDomainScanner, PythonScan, in_message, unit_references
from ascend_feasibility.knowledge.aten_coverage import Call, Coverage, load_coverage
from tree_sitter import Node

FUNCTIONS = frozenset({"function_definition", "lambda"})
LOOPS = frozenset({"for_statement", "while_statement"})
TRAINING_CALLS = (b".backward(", b".step(")
NOT_TENSORS = frozenset({"self", "cls", "super"})


def _method_words(coverage: Coverage) -> tuple[str, ...]:
    names = {n for n, overloads in coverage.methods.items() if any(coverage.maybe_missing(o) for o in overloads)}
    names |= {m for m, call in coverage.method_calls.items() if _call_may_miss(coverage, call)}
    return tuple(sorted(names - coverage.untyped_methods))


def _call_may_miss(coverage: Coverage, call: Call) -> bool:
    return coverage.maybe_missing(call.overload) or (call.selector is not None and coverage.maybe_missing(call.selector[2]))

_COVERAGE = load_coverage()
METHOD_NAMES = _method_words(_COVERAGE)
METHOD_QUERY = (
    "(call function: (attribute object: (_) @object attribute: (identifier) @name"
    f" (#any-of? @name {' '.join(chr(34) + n + chr(34) for n in METHOD_NAMES)})))"
)
METHOD_TRIGGERS = tuple(f".{name}(" for name in METHOD_NAMES)


class _OperatorScan(PythonScan):
    QUERY = METHOD_QUERY
    QUERY_ALONE = True  # read only where a method some release lacks a kernel for is called (METHOD_TRIGGERS)
    target = None  # the scanner's target release

    def run(self) -> list[Hit]:
        coverage = load_coverage()
        self.coverage = coverage
        reached: set[str] = self.unit.cache.setdefault("operators", set())
        branch = self.target.release.branch
        for reference in unit_references(self.unit):
            call = reference.call
            if call is None or call.child_by_field_name("function") != reference.node:
                continue
            library_op = coverage.library_ops.get(reference.name)
            if library_op is not None:
                if not library_op.npu and not in_message(reference.node):
                    self.hits.append(Hit(self.index.code_for("library-op-no-npu-kernel"), library_op.operator,
                                         Span.of(reference.node), "—", facets=(library_op.route,)))
                continue
            if reference.name in coverage.modules:
                overload = coverage.modules[reference.name]
                reached.add(overload)
                if not coverage.runs(overload, branch) and can_take_fast_path(
                        reference.name, call, lambda node: qualified_name(node, self.imports)):
                    self._report("nn-fast-path-no-npu-kernel", overload, reference.node)
                continue
            overloads = self._overloads(reference.name, call, method=False)
            if overloads and self._missing(overloads, branch) and _on_cpu(tensor_arguments(call)):
                continue  # every tensor it is given was made on the CPU there: the op runs on the CPU
            if overloads:
                self._judge(overloads, reference.node, reached, branch)
        if not triggers.present(self.unit.source.text, self.unit.cache).isdisjoint(METHOD_TRIGGERS):
            found = self.captures()
            for obj, name in zip(found.get("object", []), found.get("name", [])):
                if self._not_a_tensor(obj):
                    continue
                overloads = self._overloads(name.text.decode(), name.parent.parent, method=True)
                if overloads and self._missing(overloads, branch) and _on_cpu([obj]):
                    continue
                if overloads:
                    self._judge(overloads, name, reached, branch)
        return self.hits

    def _not_a_tensor(self, receiver: Node) -> bool:
        """`self.f()`, `np.sort(…)`, `torch.linalg.cholesky(…)`: the class's own method or a module's function."""
        if receiver.type == "identifier":
            name = receiver.text.decode()
            return name in NOT_TENSORS or self.imports.resolve_root(name) is not None
        root = receiver
        while root.type == "attribute":
            root = root.child_by_field_name("object")
        return root.type == "identifier" and self.imports.resolve_root(root.text.decode()) is not None

    def _overloads(self, name: str, call: Node, method: bool) -> tuple[str, ...]:
        """The overloads a call of `name` (a function, or a Tensor method) selects: the hand table first, then the
        generated one."""
        coverage = self.coverage
        special = (coverage.method_calls if method else coverage.calls).get(name)
        if special is not None:
            return self._special(special, call, method=method)
        candidates = (coverage.methods if method else coverage.functions).get(name)
        return calls.select(coverage, candidates, call, method=method) if candidates else ()

    @staticmethod
    def _special(row, call: Node, method: bool) -> tuple[str, ...]:
        if row.selector is not None:
            name, position, overload = row.selector
            if calls.selected_by(call, name, position - 1 if method else position):
                return (overload,)
        return (row.overload,)

    def _missing(self, overloads: tuple[str, ...], branch: str) -> bool:
        return not any(self.coverage.runs(o, branch) for o in overloads)

    def _judge(self, overloads: tuple[str, ...], node: Node, reached: set[str], branch: str) -> None:
        if in_message(node):
            return
        running = [o for o in overloads if self.coverage.runs(o, branch)]
        reached.add(running[0] if running else overloads[0])
        if not running:  # one of the overloads the arguments allow runs on the NPU: never guess a fallback
            self._report("aten-op-no-npu-kernel-hot" if _hot(node) else "aten-op-no-npu-kernel", overloads[0], node,
                         _bound_facets(self.coverage, overloads[0], node))

    def _report(self, detector: str, overload: str, node: Node, facets: tuple[str, ...] = ()) -> None:
        kb, target = self.index.kb, self.target.release
        first = self.coverage.first_release(kb, overload, target)
        reachable = {r.branch for r in self.coverage.reachable(kb, target)}
        npu = f"torch_npu {first.torch_npu} ({first.branch})" if first is not None else "—"
        effort = (0.0, 0.0) if first is not None and first.branch in reachable else None
        self.hits.append(Hit(self.index.code_for(detector), f"aten::{overload}", Span.of(node), npu, effort=effort,
                             facets=facets))


def _bound_facets(coverage: Coverage, overload: str, node: Node) -> tuple[str, ...]:
    """("bound-max",) for `torch.fmin(x, 0.0)` / `x.fmin(torch.zeros_like(x))`, ("bound-min",) for fmax: an operator
    of calls.toml [bound] whose other operand is a single value, which clamp with that keyword computes."""
    keyword = coverage.bounds.get(overload.split(".")[0])
    if keyword is None:
        return ()
    call = node.parent if node.parent is not None and node.parent.type == "call" else node.parent.parent
    if call is None or call.type != "call" or call.child_by_field_name("function") not in (node, node.parent):
        return ()
    arguments = call.child_by_field_name("arguments")
    values = [a.child_by_field_name("value") if a.type == "keyword_argument" else a
              for a in (arguments.named_children if arguments is not None else ()) if a.type != "comment"]
    return (f"bound-{keyword}",) if any(_single_value(coverage, v) for v in values if v is not None) else ()


def _single_value(coverage: Coverage, node: Node) -> bool:
    """A number literal (-1.0 included), or a call of a factory that fills another tensor's shape with one value."""
    if node.type == "unary_operator":
        node = node.child_by_field_name("argument") or node
    if node.type in ("integer", "float"):
        return True
    if node.type != "call":
        return False
    function = node.child_by_field_name("function")
    if function is not None and function.type == "attribute":
        function = function.child_by_field_name("attribute")
    return function is not None and function.type == "identifier" and function.text.decode() in coverage.single_value_factories


def _on_cpu(tensors: list[Node]) -> bool:
    """Every tensor operand is shown on the CPU at the call (made by a factory without `device=`, or put there)."""
    return bool(tensors) and all(on_host(t) >= BARE for t in tensors)


def _hot(node: Node) -> bool:
    """Does the call run on every step: inside forward/backward or a training step, or a loop that trains?"""
    current, depth = node.parent, 0
    coverage = load_coverage()
    innermost = True
    while current is not None and depth < 200:
        if current.type in LOOPS and any(word in current.text for word in TRAINING_CALLS):
            return True
        if current.type == "function_definition":
            name_node = current.child_by_field_name("name")
            name = name_node.text.decode() if name_node is not None else ""
            if innermost and name in coverage.cold_functions:
                return False
            if name in coverage.hot_functions or name.endswith(coverage.hot_suffixes):
                return True
            innermost = False
        current, depth = current.parent, depth + 1
    return False


class OperatorCoverageScanner(PythonDomainScanner):
    domain = "custom_ops"
    triggers = ("torch", *METHOD_TRIGGERS)
    scan_class = _OperatorScan

    def query_keys(self, unit: Unit) -> set[str]:
        keys = {REFERENCES}
        if not triggers.present(unit.source.text, unit.cache).isdisjoint(METHOD_TRIGGERS):
            keys.add(_OperatorScan.query_key())
        return keys

    def scan(self, unit: Unit) -> list[Hit]:
        scan = self.scan_class(self.index, unit)
        scan.target = self.target
        return scan.run()
