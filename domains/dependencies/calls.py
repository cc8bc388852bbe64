"""Calls into a package the dependency matrix says needs replacement, flagged at the call
(`causal_conv1d_fn(x, weight, bias, activation="silu")`), not only at its import and requirement.

Which packages: every record of knowledge/dependencies/packages.toml classed needs_replacement whose calls change
(`calls_change`: no Ascend build, fork or plugin of the same package keeps them working), by the modules it
installs, except its plain-PyTorch functions (`plain_calls`); and calls of a compatible package's `calls` entries,
the parts of it with no Ascend path (DEP031), unless its literal arguments keep it off that part (cuda_free_calls.py). A call another rule already speaks for (flash_attn_func: ATT001) is left to that rule, and a call whose value
only goes into another such call (xformers' `Inputs(...)` / `Context(...)` objects passed to
`_memory_efficient_attention_backward`) is counted once, at the call it feeds.
The finding's replacement is the package's (its `calls` entry for that function, rendered from the call's
arguments, else its replacement text). A call inside a DataLoader collate function runs on CPU tensors in the
workers, where the package's CPU build serves it (collate_functions.py): `in-collate-fn`, low."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Hit, Span, Unit
from ascend_feasibility.domains.dependencies.collate_functions import enclosing_collate, passed_as_collate
from ascend_feasibility.domains.dependencies.cuda_free_calls import cuda_free_arguments, is_cuda_free
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference, unit_references
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.knowledge import load_knowledge
from tree_sitter import Node

REPLACED = frozenset({"needs_replacement"})
IN_COLLATE = "in-collate-fn"  # the call runs in a DataLoader collate function, on CPU tensors (collate_functions.py)
DETECTOR = "package-call"
CUDA_ONLY_DETECTOR = "package-cuda-only-call"


def replaced_modules(kb) -> frozenset[str]:
    """Top-level modules of the packages whose calls have to be rewritten on Ascend."""
    return frozenset(
        m.split(".")[0] for r in kb.packages.values() if r.classification in REPLACED and r.calls_change for m in r.modules
    )


def cuda_only_calls(kb) -> dict[str, str]:
    """Qualified name -> distribution, for the `calls` entries of packages that run on Ascend as a whole (class
    compatible): the parts of them that do not (lmdeploy's TurbomindEngineConfig, whose engine has no Ascend build)."""
    return {name: r.name for r in kb.packages.values() if r.classification == "compatible"
            for call in r.calls for name in call.names}


def replaced_part_calls(kb) -> dict[str, str]:
    """Qualified name -> distribution, for the `calls` entries of packages needing replacement whose other calls keep
    working once the package is rebuilt for Ascend (no calls_change): the parts that have no Ascend kernel even then
    (detectron2's DeformConv, whose kernels are CUDA-only while the rest of its _C builds without CUDA)."""
    return {name: r.name for r in kb.packages.values() if r.classification in REPLACED and not r.calls_change
            for call in r.calls for name in call.names}


def catalogued_calls(kb) -> dict[str, str]:
    """Qualified name -> distribution, for every `[[package.calls]]` entry of a package whose calls have to change:
    the CUDA-only parts of compatible packages, and the catalogued functions of packages needing replacement."""
    names = {name: r.name for r in kb.packages.values() if r.classification in REPLACED
             for call in r.calls for name in call.names}
    return names | cuda_only_calls(kb)


def handed_on_to_call(node: Node) -> bool:
    """A catalogued function or class used as a value that something calls: passed as an argument
    (`Trainer(optimizer_cls=bnb.optim.AdamW8bit)`), or bound to a plain name (maybe in one arm of `A if c else B`)
    that its function or module calls after the binding (`optimizer_cls = bnb.optim.AdamW8bit` ...
    `optimizer_cls(params, lr=lr)`). A name bound and never called (`fn = causal_conv1d_fn`) makes no call."""
    value = node
    while value.parent is not None and value.parent.type in {"conditional_expression", "parenthesized_expression"}:
        value = value.parent
    parent = value.parent
    if parent is None:
        return False
    if parent.type == "keyword_argument" and parent.child_by_field_name("value") == value:
        parent = parent.parent
    if parent is not None and parent.type == "argument_list":
        return True
    if parent is None or parent.type != "assignment" or parent.child_by_field_name("right") != value:
        return False
    left = parent.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return False
    uses = parsing.later_uses(parent, left) or []
    return any(use.parent is not None and use.parent.type == "call"
               and use.parent.child_by_field_name("function") == use for use in uses)


def _trigger_modules(kb) -> tuple[str, ...]:
    parts = cuda_only_calls(kb) | replaced_part_calls(kb)
    return tuple(sorted(replaced_modules(kb) | {name.split(".")[0] for name in parts}))


class _PackageCallScan(PythonScan):
    def __init__(self, index: RuleIndex, unit: Unit, every_rule: RuleIndex) -> None:
        super().__init__(index, unit)
        self.every_rule = every_rule  # the rules of every domain: a call one of them matches is theirs

    def run(self) -> list[Hit]:
        kb = self.index.kb
        modules = replaced_modules(kb)
        cuda_only = cuda_only_calls(kb)
        cuda_free = cuda_free_arguments(kb)
        found: list[tuple[Reference, str]] = []
        catalogued = catalogued_calls(kb)
        replaced_parts = replaced_part_calls(kb)
        for reference in unit_references(self.unit):
            root = reference.name.split(".")[0]
            if reference.call is None and reference.name in catalogued and handed_on_to_call(reference.node) \
                    and not self._spoken_for(reference):
                # `optimizer_cls = bnb.optim.AdamW8bit` ... `optimizer_cls(params)`: the catalogued call, made later
                package = catalogued[reference.name]
                detector = CUDA_ONLY_DETECTOR if reference.name in cuda_only else DETECTOR
                self.hits.append(Hit(self.index.code_for(detector), reference.name, Span.of(reference.node), package))
                continue
            if reference.call is not None and reference.name in cuda_only and not self._spoken_for(reference):
                if reference.name in cuda_free and is_cuda_free(reference.call, cuda_free[reference.name]):
                    continue  # its literal arguments keep it off the CUDA part (ConvLayer(..., activate=False))
                self.hits.append(Hit(self.index.code_for(CUDA_ONLY_DETECTOR), reference.name, Span.of(reference.node),
                                     cuda_only[reference.name]))
                continue
            if reference.call is not None and reference.name in replaced_parts and not self._spoken_for(reference):
                found.append((reference, replaced_parts[reference.name]))
                continue
            if reference.call is None or root not in modules or self._spoken_for(reference):
                continue
            record = kb.package(kb.distribution_of(root))
            if record is None or record.classification not in REPLACED or not record.calls_change \
                    or reference.name in record.plain_calls:
                continue
            if reference.name in cuda_free and is_cuda_free(reference.call, cuda_free[reference.name]):
                continue  # its literal arguments pick the package's plain part (torch_scatter's scatter(reduce="sum"))
            found.append((reference, record.name))
        calls = {reference.call.id for reference, _ in found}
        code = self.index.code_for(DETECTOR)
        passed = passed_as_collate(self.unit.tree()) if found and "collate" in self.unit.source.text else set()
        for reference, package in found:
            if feeds_another_call(reference.call, calls):
                continue  # an argument object (xformers' Inputs(...), Context(...)): the call it goes into is the site
            facets = (IN_COLLATE,) if enclosing_collate(reference.call, passed) else ()
            self.hits.append(Hit(code, reference.name, Span.of(reference.node), package, facets=facets))
        return self.hits

    def _spoken_for(self, reference: Reference) -> bool:
        return self.every_rule.match_name(reference.name) is not None


MAX_USE_NODES = 20000


def feeds_another_call(call: Node, calls: set[int]) -> bool:
    """Is this package call's value only an argument of other package calls: passed straight in
    (`backward(Context(lse, out), grad)`), or bound to a name whose every later use in its function is such an
    argument (`ctx = Context(lse, out)` ... `_memory_efficient_attention_backward(ctx, inp, grad, None)`)? One
    rewrite of the call it feeds replaces it."""
    if _argument_of(call, calls):
        return True
    assignment = parsing.assignment_of(call)
    left = assignment.child_by_field_name("left") if assignment is not None else None
    if left is None or left.type != "identifier":
        return False
    scope = parsing.enclosing(assignment, {"function_definition", "module"})
    name, nodes = parsing.text(left), list(parsing.walk(scope, limit=MAX_USE_NODES))
    uses = [current for current in nodes
            if current.type == "identifier" and current.start_byte >= assignment.end_byte and parsing.text(current) == name
            and not (current.parent is not None and current.parent.type == "keyword_argument"
                     and current.parent.child_by_field_name("name") == current)]
    return bool(uses) and len(nodes) < MAX_USE_NODES and all(_argument_of(use, calls) for use in uses)


def _argument_of(node: Node, calls: set[int]) -> bool:
    parent = node.parent
    if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("value") == node:
        node, parent = parent, parent.parent
    return (parent is not None and parent.type == "argument_list" and parent.parent is not None
            and parent.parent.id in calls and parent.parent.id != node.id)


class PackageCallScanner(PythonDomainScanner):
    domain = "dependencies"
    triggers = _trigger_modules(load_knowledge())
    scan_class = _PackageCallScan

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.every_rule = RuleIndex(kb)

    def scan(self, unit: Unit) -> list[Hit]:
        return _PackageCallScan(self.index, unit, self.every_rule).run()
