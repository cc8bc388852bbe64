"""Calls into a package the dependency matrix says needs replacement, flagged at the call
(`causal_conv1d_fn(x, weight, bias, activation="silu")`), not only at its import and requirement.

Which packages: every record of knowledge/dependencies/packages.toml classed needs_replacement whose calls change
(`calls_change`: no Ascend build, fork or plugin of the same package keeps them working), by the modules it
installs. A call another rule already speaks for (flash_attn_func: ATT001) is left to that rule.
The finding's replacement is the package's (its `calls` entry for that function, rendered from the call's
arguments, else its replacement text)."""

from __future__ import annotations

from ascend_feasibility.domains.base import Hit, Span, Unit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference, unit_references
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.knowledge import load_knowledge

REPLACED = frozenset({"needs_replacement"})
DETECTOR = "package-call"


def replaced_modules(kb) -> frozenset[str]:
    """Top-level modules of the packages whose calls have to be rewritten on Ascend."""
    return frozenset(
        m.split(".")[0] for r in kb.packages.values() if r.classification in REPLACED and r.calls_change for m in r.modules
    )


class _PackageCallScan(PythonScan):
    def __init__(self, index: RuleIndex, unit: Unit, every_rule: RuleIndex) -> None:
        super().__init__(index, unit)
        self.every_rule = every_rule  # the rules of every domain: a call one of them matches is theirs

    def run(self) -> list[Hit]:
        kb = self.index.kb
        modules = replaced_modules(kb)
        for reference in unit_references(self.unit):
            root = reference.name.split(".")[0]
            if reference.call is None or root not in modules or self._spoken_for(reference):
                continue
            record = kb.package(kb.distribution_of(root))
            if record is None or record.classification not in REPLACED or not record.calls_change:
                continue
            code = self.index.code_for(DETECTOR)
            self.hits.append(Hit(code, reference.name, Span.of(reference.node), record.name))
        return self.hits

    def _spoken_for(self, reference: Reference) -> bool:
        return self.every_rule.match_name(reference.name) is not None


class PackageCallScanner(PythonDomainScanner):
    domain = "dependencies"
    triggers = tuple(sorted(replaced_modules(load_knowledge())))
    scan_class = _PackageCallScan

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.every_rule = RuleIndex(kb)

    def scan(self, unit: Unit) -> list[Hit]:
        return _PackageCallScan(self.index, unit, self.every_rule).run()
