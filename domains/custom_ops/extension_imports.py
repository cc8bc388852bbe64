"""Imports of the CUDA extensions the project builds itself: InternImage's `import DCNv3` (ops_dcnv3/functions/
dcnv3_func.py:13, the module setup.py builds with CUDAExtension('DCNv3', ...)). On Ascend the extension is never
built, so an unconditional import stops every module that imports this one: the package does not import at all. An
import in a try whose handler falls back (import_fallbacks) is optional, with the fallback as the reason.

An import behind a CUDA test that transfer_to_npu makes true (OneFormer ms_deform_attn_func.py:21, `if
torch.cuda.is_available(): import MultiScaleDeformableAttention`, its handler re-raising) runs on Ascend under the shim:
the gate gets its own finding (OPS094), since DEV104's "skipped there" and its `auto` handling are wrong there.

A wrapper whose product importers all catch its ImportError (guarded_importers.py: Pointcept's pointgroup_ops) loads
nowhere it would stop a module: `importers-guarded`, the work named as the ops those importers bind."""

from __future__ import annotations

import functools
import sys

from ascend_feasibility.analyzer.context.cuda_arms import true_under_transfer
from ascend_feasibility.analyzer.context.import_fallbacks import caught_import
from ascend_feasibility.analyzer.context.unloaded import unloaded_modules
from ascend_feasibility.analyzer.core.findings import Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import IMPORT_TABLE_QUERY, ModuleFacts, ProjectRun, Unit
from ascend_feasibility.domains.custom_ops.guarded_importers import guarded_ops
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ExtensionRecord, ImportSite
from tree_sitter import Node

DETECTOR = "cuda-extension-import"
SHIM_GATE_DETECTOR = "cuda-extension-import-gate-true-under-transfer"
IN_FUNCTION = "in-function"  # the import runs when its function does, not when the module loads
IMPORTERS_GUARDED = "importers-guarded"  # every product importer of this module catches its ImportError
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
        function, gate, gate_line = _enclosing(statement)
        caught = caught_import(statement)
        shim_gate, shim_gate_line = _shim_gate(statement)
        for module in modules:
            sites.append(ImportSite(module, unit.path, row + 1, unit.source.char_column(row, statement.start_point.column),
                                    len(line) + 1, line.strip()[:200], unit.cell, function, gate, gate_line, caught,
                                    shim_gate, shim_gate_line))
    return sites


def _enclosing(statement: Node) -> tuple[str, str, int]:
    """(the function holding an import, the condition of the nearest `if` in it whose body holds the import, its line):
    `if model_uses_exllama: from exllama_kernels import prepare_buffers` in autogptq_post_init. Empty where the import
    runs when the module loads; no gate where no `if` body holds it (an else arm is no gate: it runs when a test fails)."""
    gate, gate_line = "", 0
    current = statement.parent
    while current is not None and current.type not in {"function_definition", "class_definition", "module"}:
        parent = current.parent
        if not gate and current.type == "block" and parent is not None and parent.type == "if_statement" \
                and parent.child_by_field_name("consequence") == current:
            condition = parent.child_by_field_name("condition")
            if condition is not None:
                gate, gate_line = " ".join(parsing.text(condition).split())[:120], condition.start_point.row + 1
        current = parent
    if current is None or current.type != "function_definition":
        return "", "", 0
    name = current.child_by_field_name("name")
    return (parsing.text(name) if name is not None else "?"), gate, gate_line


def _shim_gate(statement: Node) -> tuple[str, int]:
    """(the condition, its line) of the nearest `if` whose body holds the import and whose CUDA test transfer_to_npu
    makes true on Ascend: OneFormer's `if torch.cuda.is_available(): import MultiScaleDeformableAttention`."""
    child, current = statement, statement.parent
    while current is not None and current.type not in {"function_definition", "class_definition", "module"}:
        if current.type == "if_statement" and current.child_by_field_name("consequence") == child:
            condition = current.child_by_field_name("condition")
            if true_under_transfer(condition):
                return " ".join(parsing.text(condition).split())[:120], current.start_point.row + 1
        child, current = current, current.parent
    return "", 0


def extension_import_findings(facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    built = {e.name: e for e in facts.extensions if e.cuda and e.name not in {"", "?"}}
    if not built:
        return []
    code = next(r.code for r in run.kb.rules.values() if r.match.detector == DETECTOR)
    shim_code = next(r.code for r in run.kb.rules.values() if r.match.detector == SHIM_GATE_DETECTOR)
    modules = {f.path: f for f in run.modules}
    findings = []
    gates: set[tuple[str, int, str]] = set()  # one finding per test and extension
    unloaded = functools.cache(lambda: set(unloaded_modules(run.modules, run.context, packages=set(run.packages))))
    for site in facts.imports:
        name = next((n for n in built if site.module == n or site.module.startswith(n + ".")), None)
        if name is None:
            continue
        extension = built[name]
        place = run.context.of(site.path)
        reach, reason = site_reach(site, modules.get(site.path), place.reach, place.reason)
        symbol = f"{site.module} (CUDA extension {extension.name}, built at {extension.path}:{extension.line})"
        facets: tuple[str, ...] = (IN_FUNCTION,) if site.function else ()
        ops = None if site.function or site.caught else guarded_ops(site, extension, facts.imports, run.context, unloaded)
        if ops is not None:
            facets = (IMPORTERS_GUARDED,)
        located = Located(code, symbol, site.path, site.line, site.column, site.end_column, site.snippet, site.cell,
                          npu=(", ".join(f"`{op}`" for op in ops) if ops else "the package's ops") if ops is not None else None,
                          matched=site.module, role=place.role, reach=reach, reach_reason=reason, facets=facets)
        findings.append(run.factory.build_located(located, 0))
        if site.shim_gate and not site.caught and (site.path, site.shim_gate_line, name) not in gates:
            gates.add((site.path, site.shim_gate_line, name))
            findings.append(_shim_gate_finding(site, extension, shim_code, run))
    return findings


def _shim_gate_finding(site: ImportSite, extension: ExtensionRecord, code: str, run: ProjectRun) -> Finding:
    """At the test before an uncaught import of the extension: transfer_to_npu makes it true on Ascend, so the import
    runs there. The reach is the file's: the test is the guard whose skip the import's own reach counts on."""
    place = run.context.of(site.path)
    snippet = f"if {site.shim_gate}:"
    symbol = f"{site.module} (CUDA extension {extension.name}, built at {extension.path}:{extension.line})"
    located = Located(code, symbol, site.path, site.shim_gate_line, 1, len(snippet) + 1, snippet, site.cell,
                      matched=site.shim_gate, role=place.role, reach=place.reach, reach_reason=place.reason)
    return run.factory.build_located(located, 0)


def site_reach(site: ImportSite, module_facts: ModuleFacts | None, reach: str, reason: str | None) -> tuple[str, str | None]:
    """The reach of an import of an extension: its file's, unless the import is caught (a handler that falls back
    gives the fallback as the reason) or guarded."""
    if reach == "runs" and module_facts is not None:
        fallback = module_facts.import_fallbacks.get(site.module)
        if fallback is not None:
            return "optional", f"falls back to {fallback[1]} (line {fallback[0]}) where the import fails"
        if site.module in module_facts.guarded_imports:
            return module_facts.guarded_imports[site.module], reason
    return reach, reason
