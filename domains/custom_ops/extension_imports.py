"""Imports of the CUDA extensions the project builds itself: InternImage's `import DCNv3` (ops_dcnv3/functions/
dcnv3_func.py:13, the module setup.py builds with CUDAExtension('DCNv3', ...)). On Ascend the extension is never
built, so an unconditional import stops every module that imports this one: the package does not import at all. An
import in a try whose handler falls back (import_fallbacks) is optional, with the fallback as the reason."""

from __future__ import annotations

import sys

from ascend_feasibility.analyzer.core.findings import Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import IMPORT_TABLE_QUERY, ProjectRun, Unit
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ImportSite

DETECTOR = "cuda-extension-import"
SKIPPED_ROOTS = frozenset(sys.stdlib_module_names) | {"torch", "numpy", "triton", "transformers", "einops", "setuptools"}


def import_sites(unit: Unit) -> list[ImportSite]:
    """The absolute imports of a Python unit by the dotted names they load (`from fairseq import libnat_cuda`:
    fairseq.libnat_cuda), read from the import table's share of the combined query; the standard library and the
    usual frameworks, never an extension of the project, are left out."""
    if unit.kind != "python" or "import" not in unit.source.text:
        return []
    found = unit.captures(IMPORT_TABLE_QUERY)
    sites = []
    for statement in found.get("import", []) + found.get("import_from", []):
        modules = []
        base = statement.child_by_field_name("module_name")
        if statement.type == "import_from_statement" and (base is None or base.type != "dotted_name"):
            continue  # relative imports name the project's own Python modules
        if base is not None and "".join(parsing.text(base).split()).split(".")[0] in SKIPPED_ROOTS:
            continue
        for name in statement.children_by_field_name("name"):
            dotted = name.child_by_field_name("name") if name.type == "aliased_import" else name
            if dotted is None:
                continue
            text = "".join(parsing.text(dotted).split())
            modules.append(text if base is None else "".join(parsing.text(base).split()) + "." + text)
        modules = [module for module in modules if module.split(".")[0] not in SKIPPED_ROOTS]
        if not modules:
            continue
        row = statement.start_point.row
        line = unit.source.line_text(row)
        for module in modules:
            sites.append(ImportSite(module, unit.path, row + 1, unit.source.char_column(row, statement.start_point.column),
                                    len(line) + 1, line.strip()[:200], unit.cell))
    return sites


def extension_import_findings(facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    built = {e.name: e for e in facts.extensions if e.cuda and e.name not in {"", "?"}}
    if not built:
        return []
    code = next(r.code for r in run.kb.rules.values() if r.match.detector == DETECTOR)
    modules = {f.path: f for f in run.modules}
    findings = []
    for site in facts.imports:
        name = next((n for n in built if site.module == n or site.module.startswith(n + ".")), None)
        if name is None:
            continue
        extension = built[name]
        place = run.context.of(site.path)
        reach, reason = place.reach, place.reason
        module_facts = modules.get(site.path)
        if reach == "runs" and module_facts is not None:
            fallback = module_facts.import_fallbacks.get(site.module)
            if fallback is not None:
                reach, reason = "optional", f"falls back to {fallback[1]} (line {fallback[0]}) where the import fails"
            elif site.module in module_facts.guarded_imports:
                reach = module_facts.guarded_imports[site.module]
        symbol = f"{site.module} (CUDA extension {extension.name}, built at {extension.path}:{extension.line})"
        located = Located(code, symbol, site.path, site.line, site.column, site.end_column, site.snippet, site.cell,
                          matched=site.module, role=place.role, reach=reach, reach_reason=reason)
        findings.append(run.factory.build_located(located, 0))
    return findings
