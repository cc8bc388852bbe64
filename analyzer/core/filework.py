"""The work done on one file, in a worker process: read, split into units, scan, judge, suppress.

It returns plain data (pydantic models) and keeps no syntax tree once the file is done.
"""

from __future__ import annotations

import functools
import gc
import hashlib
from collections import Counter
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path

from ascend_feasibility.analyzer.context import ProjectContext
from ascend_feasibility.analyzer.context.cuda_gates import CudaGates
from ascend_feasibility.analyzer.context.default_built import built_by_default
from ascend_feasibility.analyzer.context.diagnostics import DebugAids
from ascend_feasibility.analyzer.context.display import DisplaySites
from ascend_feasibility.analyzer.context.feature_gates import (
    bound_names,
    only_sets_switches,
    only_turns_feature_on,
    sets_switch,
    unread_after,
)
from ascend_feasibility.analyzer.context.guards import (
    ASSIGNMENTS,
    GuardReader,
    exits_early,
    only_calls,
    only_raises_or_warns,
    returns_input_unchanged,
    test_function,
    tries_with_fallback,
)
from ascend_feasibility.analyzer.context.kernel_contract import contract_sites
from ascend_feasibility.analyzer.context.kernel_wrapper import wrapper_sites
from ascend_feasibility.analyzer.context.npu_arms import NpuArms
from ascend_feasibility.analyzer.context.nvidia_kits import nvidia_command
from ascend_feasibility.analyzer.context.opt_in import OptInReader
from ascend_feasibility.analyzer.context.predicate_helpers import CLASSES
from ascend_feasibility.analyzer.context.preprocessor import cuda_build_branch, npu_branch
from ascend_feasibility.analyzer.context.seeding import seeded_by_torch, seeded_for_every_device
from ascend_feasibility.analyzer.context.shim_none import shim_guard
from ascend_feasibility.analyzer.context.unexported import unexported_reason
from ascend_feasibility.analyzer.context.versions import (
    DECORATED_DEFINITIONS,
    VersionReader,
    companion_lines,
    legacy_triton_kernels,
)
from ascend_feasibility.analyzer.core import budget, replacement_code, transfer
from ascend_feasibility.analyzer.core.findings import PYTHON_STRING, FindingFactory, Place, is_native, occurrence_key
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding, SkippedFile, Text, UnusedSuppression
from ascend_feasibility.analyzer.core.subprojects import subproject_of
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.discovery import ProjectFile
from ascend_feasibility.analyzer.reading.generated import GENERATED_REASON, written_by_port
from ascend_feasibility.analyzer.reading.install_docs import shell_view
from ascend_feasibility.analyzer.reading.notebooks import code_sources, python_cells, shell_cells
from ascend_feasibility.analyzer.reading.python_names import ImportTable
from ascend_feasibility.analyzer.reading.source import SourceText, Unreadable, decode_python, decode_text, read_bytes
from ascend_feasibility.analyzer.reading.suppressions import by_row as suppressions_by_row
from ascend_feasibility.analyzer.reading.suppressions import collect as collect_suppressions
from ascend_feasibility.domains import FileFacts, build_domains, new_file_facts
from ascend_feasibility.domains.base import (
    CALLS_BY_NAME_QUERY,
    DEFINITIONS_QUERY,
    IMPORT_TABLE_QUERY,
    FileView,
    Hit,
    Unit,
    UnitUnreadable,
    register_query,
)
from ascend_feasibility.knowledge import load_acl_runtime, load_context_conventions, load_knowledge
from tree_sitter import Node

DECORATED_QUERY = register_query("decorated_definitions", DECORATED_DEFINITIONS, alone=True)  # read in few units
# every class's name, for the predicate helpers a condition calls (`Class.name(...)`: analyzer/context/predicate_helpers.py)
CLASS_NAMES_QUERY = register_query("class_names", CLASSES)
# every assignment, for the guard readers' method bindings and availability flags (GuardReader._assignments)
ASSIGNMENTS_QUERY = register_query("assignments", ASSIGNMENTS)


@dataclass
class FileResult:
    path: str
    scanned: bool = False
    lines: int = 0
    findings: list[Finding] = field(default_factory=list)
    skipped: list[SkippedFile] = field(default_factory=list)
    unused_suppressions: list[UnusedSuppression] = field(default_factory=list)
    facts: FileFacts = field(default_factory=new_file_facts)  # each room's facts of this file
    digest: str | None = None  # hash of the content analysed (the cache's key)
    cacheable: bool = True  # False when the result depends on timing or an analyzer error (never cached)
    generated: bool = False  # a file port wrote: no finding is reported in it, whichever pass makes it

    def __getstate__(self) -> dict:
        return {**self.__dict__, "findings": transfer.pack(self.findings)}

    def __setstate__(self, state: dict) -> None:
        self.__dict__.update(state, findings=transfer.unpack(state["findings"]))


class FileWorker:
    """Holds what a process builds once: the knowledge base, the target, the rooms and their scanners."""

    def __init__(self, torch_npu: str | None, context: ProjectContext | None = None,
                 read: dict[str, bytes] | None = None, nested: tuple[tuple[str, str], ...] = ()) -> None:
        self.context = context or ProjectContext()
        self.read = read or {}  # path → bytes of files read before the scan (the root README): not read again
        # (folder, torch_npu) of each nested project on a torch line of its own (core/subprojects.py): its files are
        # judged by a worker at its target, built when its first file comes
        self.nested = nested
        self._nested_workers: dict[str, FileWorker] = {}
        self._guarded_unit: Unit | None = None  # the unit the guard reader's per-unit memory is about
        conventions = load_context_conventions()
        self.guards = GuardReader(conventions.guards, conventions.backends, tuple(conventions.opt_in.disabled_values))
        self.gates = CudaGates(self.guards, self.context.npu_accelerator)
        self._none_under_shim = frozenset(conventions.guards.none_under_shim_rules)
        self.kb = load_knowledge()
        self.target = self.kb.resolve_target(torch_npu)
        self.display = DisplaySites(conventions.guards, self.target.release.torch)
        self.aids = DebugAids(conventions.guards, self.display, self.guards.condition)
        self.opt_in = OptInReader(conventions.opt_in, self.guards)
        self.npu_arms = NpuArms(self.guards)
        self.guards.versions = VersionReader(self.target.release.torch, conventions.versions.torch_features,
                                             conventions.versions.torch_version_helpers,
                                             conventions.versions.library_flags,
                                             companion_lines(self.kb, self.target.release.torch))
        self.domains = build_domains(self.kb, self.target)
        self.scanners = [scanner for domain in self.domains for scanner in domain.scanners()]
        self.factory = FindingFactory(self.kb, self.target)
        self.kinds = ({kind for scanner in self.scanners for kind in scanner.kinds} | {"notebook"}
                      | {kind for domain in self.domains for kind in domain.fact_kinds})

    def reads(self, kind: str) -> bool:
        return kind in self.kinds

    def process(self, project_file: ProjectFile) -> FileResult:
        folder = subproject_of(project_file.path, (folder for folder, _ in self.nested))
        if folder is not None:
            if folder not in self._nested_workers:
                version = dict(self.nested)[folder]
                self._nested_workers[folder] = FileWorker(version, self.context, self.read)
            return self._nested_workers[folder].process(project_file)
        result = FileResult(project_file.path)
        units: list[Unit] = []
        seconds = budget.FILE_SECONDS
        try:
            with budget.time_budget(seconds):
                try:
                    data = self.read.get(project_file.path)
                    if data is None:
                        data = read_bytes(Path(project_file.absolute), project_file.size)
                    result.digest = content_digest(data)
                    units = self._units(project_file, data, result)
                except Unreadable as exc:
                    result.skipped.append(SkippedFile(path=project_file.path, reason=str(exc)))
                    return result
                result.scanned = project_file.kind != "install-doc"  # a document is read for its install lines only
                # JSON fixtures and examples' data are no code to port: their lines are not counted as scanned
                counts = project_file.kind != "json" or self.context.of(project_file.path).role in COUNTED_ROLES
                counts = counts and result.scanned
                result.lines = _line_count(units) if counts else 0
                try:
                    self._analyze_units(project_file, units, result)
                    if written_by_port(project_file.path, data):  # context yes, findings no (reading/generated.py)
                        result.generated = True
                        result.skipped.append(SkippedFile(path=project_file.path, reason=GENERATED_REASON))
                except Exception as exc:  # noqa: BLE001 - an analyzer bug on one file must not lose the whole report
                    reason = f"analyzer error, file analysed partially (please report): {type(exc).__name__}: {exc}"
                    result.skipped.append(SkippedFile(path=project_file.path, reason=reason[:500]))
                    result.cacheable = False
        except (budget.OverBudget, RecursionError, MemoryError) as exc:
            result.skipped.append(SkippedFile(path=project_file.path, reason=_over_budget(exc, seconds)))
            result.cacheable = False
        for unit in units:
            unit.release_tree()
        self._guarded_unit = None
        self.guards.unit_calls = None
        self.guards.predicates.unit_definitions = None
        self.guards.unit_imports = None
        self.guards.unit_assignments = None
        return result

    def _analyze_units(self, project_file: ProjectFile, units: list[Unit], result: FileResult) -> None:
        for unit in units:
            self._start_unit(unit)
            self._scan_unit(unit, result)
        view = FileView(_root_of(project_file), project_file.path, project_file.kind, units, self._import_reach)
        for domain in self.domains:
            if domain.facts_type is not None:
                setattr(result.facts, domain.name, domain.collect(view))
        result.skipped += view.skipped

    def _units(self, project_file: ProjectFile, data: bytes, result: FileResult) -> list[Unit]:
        """The file's units whose syntax trees are within budget (the others are listed in `result`)."""
        kind = project_file.kind
        if kind == "python":
            return _within_budget([Unit(project_file.path, "python", decode_python(data))], result)
        if kind == "notebook":
            sources = code_sources(data)
            cells = _within_budget(
                [Unit(project_file.path, "python", SourceText.from_text(text), cell=n) for n, text in python_cells(sources)],
                result,
            )
            shared = ImportTable()
            for cell in cells:
                if any(scanner.wants(cell) for scanner in self.scanners) or "import" in cell.source.text:
                    shared.add_tree(cell.tree())
            for cell in cells:
                cell.shared_imports = shared
            shell = _within_budget(
                [Unit(project_file.path, "shell", SourceText.from_text(text), cell=n) for n, text in shell_cells(sources)],
                result,
            )
            return sorted(cells + shell, key=lambda unit: unit.cell)
        if kind == "install-doc":  # a document: its install lines only, on their own line numbers
            return _within_budget([Unit(project_file.path, kind, SourceText.from_text(shell_view(decode_text(data).text)))], result)
        return _within_budget([Unit(project_file.path, kind, decode_text(data))], result)  # shell, dockerfile, yaml, json, build

    def _scan_unit(self, unit: Unit, result: FileResult) -> None:
        occurrences: Counter = Counter()  # shared with the unit's `python -c` strings: one file, one count per match
        findings = self._unit_findings(unit, result, occurrences)
        for embedded in unit.python_strings():  # `python -c CODE` in a script: its findings sit on the script's lines
            self._start_unit(embedded)
            findings += self._unit_findings(embedded, result, occurrences)
            embedded.release_tree()
            self._start_unit(unit)
        self._apply_suppressions(unit, findings, result)

    def _unit_findings(self, unit: Unit, result: FileResult, occurrences: Counter) -> list[tuple[Hit, Finding]]:
        hits = self._hits(unit, result)
        findings = []
        kept = _in_own_interpreter(unit, self._distinct(hits, _called_names(unit, hits, self.kb.rules)), self.kb.rules)
        places = {hit: self._place(hit, unit) for hit in kept}
        self._cuda_only_checks(unit, kept, places)
        self._legacy_triton(unit, kept, places)
        folded = self._kernel_contracts(unit, kept, places)
        wrapped = self._kernel_wrappers(unit, kept, places)
        twins = _keyword_twins(unit, kept, places)
        for hit in kept:
            if hit in folded or hit in wrapped or hit in twins:
                continue
            key = occurrence_key(hit, unit)
            findings.append((hit, self.factory.build(hit, unit, occurrences[key], places[hit])))
            occurrences[key] += 1
        findings = _with_twin_sites(findings, twins) if twins else findings
        findings = _with_contract_sites(findings, folded, unit) if folded else findings
        return _with_contract_sites(findings, wrapped, unit, WRAPPER_WORDS) if wrapped else findings

    def _hits(self, unit: Unit, result: FileResult) -> list[Hit]:
        """Every scanner's matches in the unit, before any is merged or placed."""
        hits = []
        wanted = [scanner for scanner in self.scanners if scanner.wants(unit)]
        if unit.kind == "python":
            text = unit.source.text
            keys = {IMPORT_TABLE_QUERY} if "import" in text else set()
            keys.update(*(domain.query_keys(unit) for domain in self.domains))
            if "jit" in text:  # a Triton kernel's decorator: _legacy_triton may read the decorated definitions
                keys.add(DECORATED_QUERY)
            unit.plan_queries(keys.union(*(scanner.query_keys(unit) for scanner in wanted)))
        for scanner in wanted:
            try:
                hits.extend(scanner.scan(unit))
            except UnitUnreadable as exc:
                result.skipped.append(SkippedFile(path=_where(unit), reason=str(exc)))
            except Exception as exc:  # a scanner bug must not lose the rest of the report
                result.cacheable = False
                result.skipped.append(
                    SkippedFile(path=_where(unit), reason=f"{scanner.domain} scanner failed: {type(exc).__name__}: {exc}")
                )
        if unit.kind == "python" and unit.parsed and unit.embedded is None:
            error_row = parsing.first_error_row(unit.tree())
            if error_row is not None:
                result.skipped.append(
                    SkippedFile(path=_where(unit), reason=f"syntax error at line {error_row + 1}: analysed partially")
                )
        return hits

    def line_sites(self, path: str, data: bytes) -> list[tuple[str, str, int, int, int, int]]:
        """Each site of each rule in a Python module's text, several of one rule on a line kept apart: (rule, symbol,
        line, column, end line, end column), 1-based as findings give them. Port reads them to rewrite every site on
        a line the report names once, and to re-read the text it wrote (in memory: nothing is run or written). Sites
        an inline `# ascend: ignore[...]` covers are left out."""
        unit = Unit(path, "python", decode_python(data))
        self._start_unit(unit)
        try:
            hits = self._hits(unit, FileResult(path))
            kept = _in_own_interpreter(unit, self._distinct(hits, _called_names(unit, hits, self.kb.rules), False),
                                       self.kb.rules)
            # a site a `# ascend: ignore[...]` marker covers is suppressed, as analyze reads it (port's own markers)
            file_level, by_row = suppressions_by_row(collect_suppressions(unit))
            kept = [hit for hit in kept if not any(
                s.covers(hit.rule, hit.span.start_row) for s in file_level + by_row.get(hit.span.start_row, []))]
            source = unit.source
            return [(hit.rule, hit.symbol, hit.span.start_row + 1, source.char_column(hit.span.start_row, hit.span.start_col),
                     hit.span.end_row + 1, source.char_column(hit.span.end_row, hit.span.end_col)) for hit in kept]
        finally:
            unit.release_tree()
            self._guarded_unit = None
            self.guards.unit_calls = None
            self.guards.predicates.unit_definitions = None
            self.guards.unit_imports = None
            self.guards.unit_assignments = None

    def _kernel_contracts(self, unit: Unit, hits: list[Hit], places: dict[Hit, Place]) -> dict[Hit, Hit]:
        """Each dtype assert or device buffer that only serves a kernel call of an autograd Function, with the
        Function's own finding (kernel_contract.py), whose reach it takes: it runs exactly when the kernel does (a
        CUDA-guarded Function's buffers go with it). Only within one role."""
        return self._anchored_sites(unit, hits, places, "function",
                                    lambda hit: self.kb.rules[hit.rule].kernel_part == "contract", contract_sites)

    def _kernel_wrappers(self, unit: Unit, hits: list[Hit], places: dict[Hit, Place]) -> dict[Hit, Hit]:
        """Each device finding inside the wrapper of a launcher compiling a CUDA kernel outside torch (CuPy), with the
        launcher's own finding (kernel_wrapper.py): the kernel's port replaces the wrapper. Only within one role."""
        return self._anchored_sites(unit, hits, places, "launcher",
                                    lambda hit: self.kb.rules[hit.rule].domain == "device", wrapper_sites)

    def _anchored_sites(self, unit: Unit, hits: list[Hit], places: dict[Hit, Place], anchor_part: str,
                        is_site: Callable[[Hit], bool], finder: Callable) -> dict[Hit, Hit]:
        """The site hits `finder(root, anchor nodes, [(site hit, node)])` ties to an anchor hit (a rule whose
        kernel_part is `anchor_part`), each with its anchor, where both have one role."""
        anchors = [h for h in hits if self.kb.rules[h.rule].kernel_part == anchor_part]
        if not anchors or unit.kind != "python" or not unit.parsed:
            return {}
        root = unit.tree()

        def node(hit: Hit):
            span = hit.span
            return root.descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col))

        by_node = {n.id: h for h in anchors if (n := node(h)) is not None}
        sites = [(h, n) for h in hits if is_site(h) and (n := node(h)) is not None]
        found = finder(root, [n for h in anchors if (n := node(h)) is not None], sites)
        return {hit: by_node[anchor_node.id] for hit, anchor_node in found.items()
                if places[by_node[anchor_node.id]].role == places[hit].role}

    def _legacy_triton(self, unit: Unit, hits: list[Hit], places: dict[Hit, Place]) -> None:
        """A unit whose Triton kernels are all Triton 1.x code (`**meta` parameters): they cannot compile with the
        Triton of torch 2.x, so its kernel findings (the kernels and the autograd Functions launching them) are dead
        at a torch 2 target: the feature needs a rewrite, not a port (DeepSpeed's sparse attention, triton==1.0.0)."""
        kernels = [h for h in hits if self.kb.rules[h.rule].domain == "custom_ops" and places[h].reach == "runs"]
        if not kernels or unit.kind != "python" or not unit.parsed or self.guards.versions.torch.major < 2:
            return
        legacy, total = legacy_triton_kernels(unit.captures(DECORATED_QUERY).get("definition", []))
        if total == 0 or legacy != total:
            return
        reason = f"all {total} Triton kernels of this file take **meta (Triton 1.x); the Triton of torch 2.x rejects them"
        for hit in kernels:
            places[hit] = Place(places[hit].role, "dead-at-target", reason)

    def _cuda_only_checks(self, unit: Unit, hits: list[Hit], places: dict[Hit, Place]) -> None:
        """A CUDA check whose body does only CUDA-only things (captures a CUDA graph, sets cuDNN switches, builds a
        CUDA extension) is right as it is on Ascend: the body is skipped there."""
        conventions = self.guards.guards
        checks = [h for h in hits if h.rule in conventions.check_rules and places[h].reach == "runs"]
        if not checks or unit.kind != "python" or not unit.parsed:
            return
        cuda_only = set(conventions.cuda_only_rules)
        for check in checks:
            span = check.span
            node = unit.tree().descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col))
            named = self.gates.named_cuda_only(node) if node is not None else None
            if named is not None:  # `if x.device.type != "cuda": return False` in ActionCudaGraphManager.can_use
                reason = f"line {named.start_point.row + 1}: inside {parsing.text(named.child_by_field_name('name'))}, an NVIDIA-only feature"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
                continue
            statement = self.guards.checked_body(unit.tree(), (span.start_row, span.start_col), (span.end_row, span.end_col))
            body = statement.child_by_field_name("consequence") if statement is not None else None
            if body is None:
                gates = self.gates.assigned_checks(unit.tree().descendant_for_point_range(
                    (span.start_row, span.start_col), (span.end_row, span.end_col)))
                if gates and all(self.gates.name_gate(g) or self._gates_cuda_only_hits(g, hits, cuda_only) for g in gates):
                    reason = f"line {gates[0].start_point.row + 1}: the check's value gates only a CUDA-only feature"
                    places[check] = Place(places[check].role, "cuda-only-guarded", reason)
                else:
                    self._debug_aid(unit, check, node, None, hits, places)
                continue
            inside = [h for h in hits if body.start_point.row <= h.span.start_row <= body.end_point.row]
            settled = {places[h].reach for h in inside}
            if inside and only_calls(body) and self._releases_only(body, inside):
                # `if torch.cuda.is_available(): torch.cuda.empty_cache()`: on Ascend only the release is skipped,
                # and the release's own finding (torch.npu.empty_cache under an NPU check) is the whole fix; a
                # `with torch.cuda.device(...)` around it only picks the device to release on
                released = sorted({h.rule for h in inside if self._is_release(h)})
                reason = f"line {statement.start_point.row + 1}: the check guards only a cache release ({', '.join(released)} at its call)"
                places[check] = Place(places[check].role, "cosmetic", reason)
                for hit in inside:
                    if not self._is_release(hit) and places[hit].reach == "runs":
                        places[hit] = Place(places[hit].role, "cosmetic", f"{reason}; the device context only scopes it")
                    elif check.rule in conventions.device_test_rules and places[hit].reach == "runs":
                        places[hit] = Place(places[hit].role, "cuda-only-guarded", (
                            f"line {statement.start_point.row + 1}: the release runs only where the device compares "
                            "equal to CUDA's (an NPU device does not; a \"cuda\" string under transfer_to_npu reaches "
                            "the shim's release)"))
            elif inside and only_calls(body) and len(settled) == 1 and settled <= {"npu-path", "dead-at-target"}:
                # `torch.seed()` then `if torch.cuda.is_available(): torch.cuda.seed()`: the body is already covered
                # on Ascend (torch.seed() seeds every device), so skipping it there changes nothing
                reach = next(iter(settled))
                reason = f"line {statement.start_point.row + 1}: the check guards only code that is {reach} ({places[inside[0]].reason})"
                places[check] = Place(places[check].role, reach, reason)
            elif inside and (seeding := _seeding_beside_switches(body, inside, places, unit.imports())) is not None:
                # `torch.manual_seed(s)` then `if torch.cuda.is_available(): torch.cuda.manual_seed(s);
                # torch.backends.cudnn.deterministic = True` (round 32 A2 rows 51, 52, 58): the seeding is covered on
                # Ascend, and the switches act on CUDA kernels only, so skipping the body there changes nothing
                reason = (f"line {statement.start_point.row + 1}: the check guards only code that is npu-path "
                          f"({places[seeding].reason}) and CUDA backend switches, which nothing on the NPU reads")
                places[check] = Place(places[check].role, "npu-path", reason)
            elif inside and only_raises_or_warns(body):
                reason = f"line {statement.start_point.row + 1}: the check only guards a message"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif check.symbol == "torch.cuda.is_available" and statement.child_by_field_name("alternative") is None \
                    and (features := only_turns_feature_on(body, unit.imports())):
                # (a device-type test doing the same is DEV007's cuda-only-feature facet: its own text, reach runs)
                places[check] = Place(places[check].role, "cuda-only-guarded", _feature_reason(statement, body, features))
            elif check.symbol == "torch.cuda.is_available" and statement.child_by_field_name("alternative") is None \
                    and only_sets_switches(body, unit.imports()):
                # `if torch.cuda.is_available(): torch.backends.cudnn.benchmark = True` (round 30 A2 row 67): skipped
                # on Ascend, or run under transfer_to_npu, the switches act on CUDA kernels only
                reason = (f"line {statement.start_point.row + 1}: the check guards only CUDA backend switches (cuDNN, "
                          "TF32), which nothing on the NPU reads")
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif inside and all(h.rule in cuda_only or self.kb.rules[h.rule].domain in self.guards.feature_domains for h in inside):
                reason = f"line {statement.start_point.row + 1}: guards only CUDA-only code ({', '.join(sorted({h.rule for h in inside}))})"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif not inside and built_by_default(statement) is not None:
                pass  # the constructor of a class the default path builds raises without CUDA: a device check that runs
            elif not inside and only_raises_or_warns(body):
                reason = f"line {statement.start_point.row + 1}: the check only raises or warns (a CUDA-only feature's gate)"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif not inside and tries_with_fallback(body):
                reason = f"line {statement.start_point.row + 1}: the check only tries a CUDA path and falls back when it fails"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif not inside and returns_input_unchanged(body) and self._only_cuda_only_after(statement, hits, cuda_only):
                reason = f"line {statement.start_point.row + 1}: off CUDA the function returns its input unchanged (the eager path)"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif not inside and exits_early(body) and self.guards.condition(statement.child_by_field_name("condition")).negated \
                    and self._only_cuda_only_after(statement, hits, cuda_only, reads=True):
                # `if not torch.cuda.is_available(): return ""` before building TORCH_CUDA_ARCH_LIST from
                # get_device_capability: the early answer is right on Ascend; torch.npu.is_available() (or
                # transfer_to_npu) would run the CUDA-only part there, where the capability is None
                reason = f"line {statement.start_point.row + 1}: off CUDA the function returns early, and what follows does only CUDA-only things"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif all(h.rule in cuda_only or h.rule in conventions.check_rules for h in inside) and self.gates.gated_body(statement):
                reason = f"line {statement.start_point.row + 1}: guards a CUDA-only package or function"
                if check.symbol == "torch.cuda.is_available":
                    # transfer_to_npu makes it true on the NPU: the shim would open the gate there (round 21 A1 row 32)
                    reason += "; keep it CUDA-only: under transfer_to_npu torch.cuda.is_available() is true on the NPU"
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif (card := self.gates.card_model_test(body)) is not None:
                reason = (f"line {statement.start_point.row + 1}: the check only looks for one NVIDIA card model "
                          f"({parsing.text(card)}) to work around it; no Ascend NPU is that card")
                places[check] = Place(places[check].role, "cuda-only-guarded", reason)
            elif inside:
                self._debug_aid(unit, check, node, statement, hits, places)

    def _debug_aid(self, unit: Unit, check: Hit, node, statement, hits: list[Hit], places: dict[Hit, Place]) -> None:
        """A CUDA test whose guarded code is only a debugging aid (analyzer/context/diagnostics.py): the aids behind it
        run only on CUDA, and the test, where it decides nothing else, is cosmetic."""
        released = frozenset(h.span.start_row for h in hits if self._is_release(h))
        found = self.aids.guarded(node, statement, unit.imports(), released) if node is not None else None
        if found is None:
            return
        for gate in found.gates:
            body = gate.child_by_field_name("consequence")
            reason = f"line {gate.start_point.row + 1}: a debugging aid behind a test that holds only on CUDA"
            for hit in hits:
                if (body.start_point.row <= hit.span.start_row <= body.end_point.row and hit.span.start_row not in released
                        and places[hit].reach == "runs"):
                    places[hit] = Place(places[hit].role, "cuda-only-guarded", reason)
        if found.whole:
            places[check] = Place(places[check].role, "cosmetic", found.reason(node))

    def _gates_cuda_only_hits(self, test, hits: list[Hit], cuda_only: set[str]) -> bool:
        """`if HAS_CUDA:` whose body holds findings, all of CUDA-only things (NVTX, cuDNN switches, kernels): the
        flag's test keeps a CUDA-only path CUDA-only there."""
        condition, body = test.child_by_field_name("condition"), test.child_by_field_name("consequence")
        if condition is None or body is None or condition.type == "not_operator":
            return False
        inside = [h for h in hits if body.start_point.row <= h.span.start_row <= body.end_point.row]
        return bool(inside) and all(h.rule in cuda_only or self.kb.rules[h.rule].domain in self.guards.feature_domains
                                    for h in inside)

    def _releases_only(self, body, inside: list[Hit]) -> bool:
        """The findings in a body of calls are cache releases (DEV102) or their companions (a synchronize before the
        release), and any other one sits in the header of a `with torch.cuda.device(torch.cuda.current_device()):`
        that only picks the device for the release."""
        releases = [h for h in inside if self._is_release(h)]
        if not releases:
            return False
        headers = {row for statement in body.named_children if statement.type == "with_statement"
                   for clause in statement.named_children if clause.type == "with_clause"
                   for row in range(clause.start_point.row, clause.end_point.row + 1)}
        companions = self.guards.guards.release_companions
        return all(h in releases or h.span.start_row in headers or h.symbol in companions for h in inside)

    def _is_release(self, hit: Hit) -> bool:
        conventions = self.guards.guards
        return hit.rule in conventions.release_rules or hit.symbol in conventions.release_calls

    def _only_cuda_only_after(self, statement, hits: list[Hit], cuda_only: set[str], reads: bool = False) -> bool:
        """What follows an early exit in its function holds no findings but of CUDA-only things (graph capture, or
        nothing: a wrapper class built further down)."""
        function = statement.parent
        while function is not None and function.type not in {"function_definition", "module"}:
            function = function.parent
        if function is None:
            return False
        after = [h for h in hits if statement.end_point.row < h.span.start_row <= function.end_point.row]
        if reads:
            # at least one CUDA-only thing, beside which only reads of state (a check, the device count to loop
            # over the devices) are allowed
            conventions = self.guards.guards
            state = [h for h in after if h.rule in conventions.check_rules or h.symbol in conventions.display_symbols]
            after = [h for h in after if h not in state]
            if not after:
                return False
        return all(h.rule in cuda_only or self.kb.rules[h.rule].domain in self.guards.feature_domains for h in after)

    def _distinct(self, hits: list[Hit], called: frozenset[str] = frozenset(), per_line: bool = True) -> list[Hit]:
        """One hit per line and meaning: a rule once per line (each of its sites when per_line is False: port rewrites
        every one), none that another hit on its line subsumes, none whose rule needs a finding the unit does not
        have (Dynamo settings without a compile call), none whose advice the unit already follows (a `satisfied_by`
        name it calls), and none about the project's own packages (a project importing itself is nothing to port)."""
        rules = self.kb.rules
        ordered = sorted(set(hits), key=_hit_order)
        by_row: dict[int, set[str]] = {}
        for hit in ordered:
            by_row.setdefault(hit.span.start_row, set()).add(hit.rule)
        in_unit = {hit.rule for hit in ordered}
        symbols = {(hit.rule, hit.symbol) for hit in ordered}
        kept, seen = [], set()
        for hit in ordered:
            row = hit.span.start_row
            if per_line and (row, hit.rule) in seen:
                continue
            if any(hit.rule in rules[other].subsumes for other in by_row[row] if other != hit.rule):
                continue
            if rules[hit.rule].yields and len(by_row[row]) > 1:
                continue
            if rules[hit.rule].needs_in_file and not in_unit.intersection(rules[hit.rule].needs_in_file):
                continue
            if called.intersection(rules[hit.rule].satisfied_by):
                continue
            covering = rules[hit.rule].same_fix_as.get(hit.symbol)
            if covering is not None and (hit.rule, covering) in symbols:
                continue
            if not rules[hit.rule].match.env_vars and self.context.is_own(hit.symbol):
                continue
            seen.add((row, hit.rule))
            kept.append(hit)
        return kept

    def _start_unit(self, unit: Unit) -> None:
        """The guard readers remember what they learnt about one unit's tree: a new unit starts afresh."""
        self.guards.start_unit()
        self.gates.start_unit()
        self._guarded_unit = unit
        # the guard readers' calls by name come from the unit's combined query instead of a walk of their own
        self.guards.unit_calls = (lambda: unit.captures(CALLS_BY_NAME_QUERY)) if unit.kind == "python" else None
        self.guards.predicates.unit_definitions = (lambda: _unit_definitions(unit)) if unit.kind == "python" else None
        self.guards.unit_imports = (lambda: _unit_imports(unit)) if unit.kind == "python" else None
        self.guards.unit_assignments = (lambda: (unit.tree(), unit.captures(ASSIGNMENTS_QUERY).get("assignment", []))) \
            if unit.kind == "python" else None

    def _import_reach(self, unit: Unit, statement) -> str:
        """The reach of an import statement, read as a CUDA-only feature would be (what a guarded kernel module gets)."""
        if unit is not self._guarded_unit:
            self._start_unit(unit)
        guard = self.guards.guard_of_import(statement)
        return "runs" if guard is None else guard.reach

    def _place(self, hit: Hit, unit: Unit) -> Place:
        """The site's role and reach: the file's, unless the code around the site decides (Python only)."""
        file_context = self.context.of(unit.path)
        default = self.kb.rules[hit.rule].match.env_defaults.get(hit.symbol)
        if default is not None and file_context.reach == "runs" and _sets_to(unit, hit, default):
            return Place(file_context.role, "cosmetic", f"{hit.symbol}={default} is the value it has when unset: setting it changes nothing")
        if file_context.reach == "runs" and unit.kind == "shell" and unit.embedded is None and unit.parsed \
                and self.kb.rules[hit.rule].match.env_vars:
            reason = _unexported(unit, hit)
            if reason is not None:  # a shell variable no program of the script sees: it sets nothing
                return Place(file_context.role, "cosmetic", reason)
            program = _nvidia_program(unit, hit)
            if program is not None:  # `CUDA_VISIBLE_DEVICES=0 tritonserver ...`: GPUs for NVIDIA's server
                return Place(file_context.role, "other-backend", f"line {hit.span.start_row + 1}: the variable is set "
                             f"for {program}, an NVIDIA-only program with no Ascend build")
        if file_context.reach == "runs" and hit.symbol in self.kb.rules[hit.rule].match.env_logging:
            return Place(file_context.role, "cosmetic", f"{hit.symbol} only sets the library's log output, which the "
                         "Ascend collectives (HCCL) do not read: keeping or dropping it changes nothing")
        if file_context.reach == "runs" and unit.kind in NATIVE_KINDS and unit.parsed:
            span = hit.span
            node = unit.tree().descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col))
            branch = npu_branch(node) if node is not None else None
            if branch is not None:
                return Place(file_context.role, branch.reach, branch.reason())
            branch = cuda_build_branch(node, _cuda_build_macros()) if node is not None and hit.rule in HOST_RUNTIME_RULES else None
            if branch is not None:  # `#ifdef WITH_CUDA`: the build an Ascend host makes does not compile it
                return Place(file_context.role, branch.reach, branch.reason())
            builder = self._npu_native_builder()
            if builder is not None and hit.rule in HOST_RUNTIME_RULES:
                # DeepSpeed's op_builder/npu: the project builds its native ops for NPU itself; the CUDA runtime in
                # the sources only its CUDA builders compile is that side's code
                return Place(file_context.role, "npu-path", f"the project builds its native ops for NPU ({builder})")
        if file_context.reach != "runs" or unit.kind != "python" or not unit.parsed:
            return Place(file_context.role, file_context.reach, file_context.reason)
        span = hit.span
        domain = self.kb.rules[hit.rule].domain
        node = unit.tree().descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col))
        if node is None:
            return Place(file_context.role)
        role, role_reason = file_context.role, None
        test = test_function(node) if role in COUNTED_ROLES else None
        if test is not None:  # `def test_compare_both_data_analyzers():` in a product module is a test
            role, role_reason = "test", f"line {test.start_point.row + 1}: inside the test function {parsing.text(test.child_by_field_name('name'))}()"
        guard = (self.guards.guard_of(node, domain, hit.rule) or self._gate(node, hit.rule, domain, unit.imports())
                 or self.guards.guard_of_callers(node, domain, hit.rule) or self.npu_arms.guard(node)
                 or (self.display.cosmetic(node, hit.rule, hit.symbol) if _output_shown(unit) else None)
                 or self.opt_in.guard(node, domain, hit.symbol, hit.rule) or self.guards.fallback_definition(node))
        if guard is not None and guard.reach == "cuda-only-guarded" and hit.rule in self._none_under_shim:
            guard = shim_guard(guard, node, self.guards.predicates)  # `torch.cuda.is_available() and capability()[0] >= 8`: None[0] there
        if guard is None:
            return Place(role, "runs", role_reason)
        return Place(role, guard.reach, guard.reason())

    def _npu_native_builder(self) -> str | None:
        return next((p for p in self.context.npu_files if "builder" in p.lower()), None)

    def _gate(self, node, rule: str, domain: str, imports=None):
        """What only the code around a CUDA check shows (analyzer/context/cuda_gates.py). A CUDA-only feature itself
        (a kernel, a fused attention library) after a check that raises on NPU stays a finding: Ascend gets the raise."""
        conventions = self.guards.guards
        guard = self.gates.accelerator_choice(node)
        if guard is None and (rule in conventions.check_rules or rule in conventions.cuda_only_rules):
            guard = self.gates.capability_pair(node)
        elif guard is None:  # any site after the pair's first operand runs only where the operands before it hold
            guard = self.gates.capability_pair(node, later_only=True)
        if guard is None and domain not in self.guards.feature_domains:
            guard = self.gates.excluded_before(node)
        return (guard or self.gates.detection_cascade(node) or self.gates.class_npu_branch(node)
                or (seeded_for_every_device(node, imports) if rule == "DEV106" else None) or self.gates.users_guarded(node)
                or self.gates.device_off.guard(node))

    def _apply_suppressions(self, unit: Unit, findings: list, result: FileResult) -> None:
        suppressions = collect_suppressions(unit)
        file_level, by_row = suppressions_by_row(suppressions)
        for hit, finding in findings:
            candidates = file_level + by_row.get(hit.span.start_row, [])
            covering = [s for s in candidates if s.covers(finding.rule, hit.span.start_row)]
            for suppression in covering:
                suppression.used.add(finding.rule)
            result.findings.append(finding.model_copy(update={"suppressed": True}) if covering else finding)
        for suppression in suppressions:
            if not suppression.codes:  # a bare `# ascend: ignore`: codes must be named
                result.unused_suppressions.append(
                    UnusedSuppression(path=unit.path, line=suppression.row + 1, cell=unit.cell, code="", reason="invalid")
                )
            for code in suppression.codes:
                if code in suppression.used:
                    continue
                reason = "unused" if code in self.kb.rules else "unknown-rule"
                result.unused_suppressions.append(
                    UnusedSuppression(path=unit.path, line=suppression.row + 1, cell=unit.cell, code=code, reason=reason)
                )


def _unit_definitions(unit: Unit) -> tuple[Node, list[Node], list[Node]]:
    """The unit's tree, its function definitions and its class names, from its combined query (the predicate helpers'
    reading: analyzer/context/predicate_helpers.py)."""
    functions = [name.parent for name in unit.captures(DEFINITIONS_QUERY).get("function_name", [])]
    return unit.tree(), functions, unit.captures(CLASS_NAMES_QUERY).get("name", [])


def _unit_imports(unit: Unit) -> tuple[Node, list[Node]]:
    """The unit's tree and its import statements in source order, from its combined query (GuardReader.import_statements)."""
    return unit.tree(), unit.import_statements()


def _sets_to(unit: Unit, hit: Hit, value: str) -> bool:
    """Does the site write this literal value into its environment variable (`export CUDA_LAUNCH_BLOCKING=0`)?"""
    site = replacement_code.site_at(unit, hit.span)
    return site.literal and site.value is not None and site.value.strip() == value


def _unexported(unit: Unit, hit: Hit) -> str | None:
    """Why a shell assignment of the hit's variable reaches no program of the script (analyzer/context/unexported.py)."""
    span = hit.span
    node = unit.tree().descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col))
    if node is None:
        return None
    return unexported_reason(unit.tree(), node, _job_exported_variables())


def _nvidia_program(unit: Unit, hit: Hit) -> str | None:
    span = hit.span
    return nvidia_command(unit.tree().descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col)))


@functools.cache
def _job_exported_variables() -> frozenset[str]:
    return frozenset(load_context_conventions().guards.job_exported_variables)


NATIVE_KINDS = frozenset({"cpp", "cuda"})
HOST_RUNTIME_RULES = frozenset({"OPS067"})


@functools.cache
def _cuda_build_macros() -> frozenset[str]:
    return frozenset(load_acl_runtime().cuda_build_macros)


def _keyword_twins(unit: Unit, hits: list[Hit], places: dict[Hit, Place]) -> dict[Hit, Hit]:
    """Each keyword-argument hit repeated word for word inside a call that is itself an argument of the call holding
    its first copy (LLaVA-NeXT's `dict(load_in_8bit=training_args.bits == 8, quantization_config=
    BitsAndBytesConfig(load_in_8bit=training_args.bits == 8, ...))`): one setting passed twice, so one item, the
    copy a site of it. Same rule, same role."""
    if unit.kind != "python" or not unit.parsed or len(hits) < 2:
        return {}
    keyword = [h for h in hits if "=" in h.symbol]
    if len(keyword) < 2:
        return {}
    root = unit.tree()
    nodes = {}
    for hit in keyword:
        span = hit.span
        node = root.descendant_for_point_range((span.start_row, span.start_col), (span.end_row, span.end_col))
        if node is not None and node.type == "keyword_argument":
            nodes[hit] = node
    folded: dict[Hit, Hit] = {}
    for hit, node in nodes.items():
        call = node.parent.parent if node.parent is not None and node.parent.type == "argument_list" else None
        if call is None or hit in folded:
            continue
        for other, twin in nodes.items():
            if (other is not hit and other not in folded and other.rule == hit.rule and other.symbol == hit.symbol
                    and call.start_byte <= twin.start_byte and twin.end_byte <= call.end_byte
                    and twin.parent is not node.parent and places[other].role == places[hit].role):
                folded[other] = hit
    return folded


def _with_twin_sites(findings: list[tuple[Hit, Finding]], twins: dict[Hit, Hit]) -> list[tuple[Hit, Finding]]:
    """The first copy's finding lists its copies as sites (_keyword_twins)."""
    taken: dict[Hit, list[int]] = {}
    for hit, anchor in twins.items():
        taken.setdefault(anchor, []).append(hit.span.start_row)
    result = []
    for hit, finding in findings:
        rows = taken.get(hit)
        if rows:
            where = lambda row: f"{finding.path}:{row + 1}" + (f" (cell {finding.cell})" if finding.cell else "")
            finding = finding.model_copy(update={"sites": [where(hit.span.start_row)] + [where(r) for r in sorted(set(rows))]})
        result.append((hit, finding))
    return result


CONTRACT_WORDS = (
    "Its {n} dtype asserts, device buffers and AMP decorators ({rules}) only serve the kernel call: the replacement "
    "decides dtype and device, so they are sites of this finding, not counted on their own.",
    "其中 {n} 处 dtype 断言、设备缓冲区与 AMP 装饰器（{rules}）只服务于该 kernel 调用：由替换实现决定 dtype 与设备，因此作为本条的位置列出，不单独计数。")
WRAPPER_WORDS = (
    "Its wrapper's {n} device lines ({rules}: CUDA tests, the CUDA stream, the toolkit path) only serve this CUDA "
    "kernel and go with it when it is rewritten, so they are sites of this finding, not counted on their own; do not "
    "switch those tests to the NPU, which would hand NPU pointers to the CUDA kernel.",
    "其封装中的 {n} 处设备代码（{rules}：CUDA 判断、CUDA 流、工具链路径）只服务于该 CUDA 内核，随内核重写一并移除，因此作为本条的位置列出，"
    "不单独计数；不要把这些判断改为 NPU，否则会把 NPU 指针传给 CUDA 内核。")


def _with_contract_sites(findings: list[tuple[Hit, Finding]], folded: dict[Hit, Hit], unit: Unit,
                         words: tuple[str, str] = CONTRACT_WORDS) -> list[tuple[Hit, Finding]]:
    """The anchor's finding lists the sites that go with its kernel, and says so (`words`, English and Chinese,
    formatted with the count and the rules): they are not counted apart."""
    taken: dict[Hit, list[Hit]] = {}
    for hit, anchor in folded.items():
        taken.setdefault(anchor, []).append(hit)
    result = []
    for hit, finding in findings:
        parts = taken.get(hit)
        if parts:
            where = lambda row: f"{finding.path}:{row + 1}" + (f" (cell {finding.cell})" if finding.cell else "")
            rows = sorted({h.span.start_row for h in parts})
            rules = ", ".join(sorted({h.rule for h in parts}))
            finding = finding.model_copy(update={
                "sites": [where(hit.span.start_row)] + [where(row) for row in rows],
                "message": Text(en=f"{finding.message.en} {words[0].format(n=len(rows), rules=rules)}",
                                zh=f"{finding.message.zh} {words[1].format(n=len(rows), rules=rules)}")})
        result.append((hit, finding))
    return result


def content_digest(data: bytes) -> str:
    return hashlib.blake2b(data, digest_size=20).hexdigest()


def _called_names(unit: Unit, hits: list[Hit], rules) -> frozenset[str]:
    """The qualified names the unit calls, read only where a hit's rule is satisfied by some."""
    if unit.kind != "python" or not any(rules[hit.rule].satisfied_by for hit in hits):
        return frozenset()
    return unit.called_names()


def _hit_order(hit) -> tuple:
    """A total order: set iteration order depends on each process's string hashing, so ties on position and rule
    are broken by everything else a hit holds (output must not depend on which process read the file)."""
    span = hit.span
    return (span.start_row, span.start_col, hit.rule, span.end_row, span.end_col, hit.symbol, hit.npu or "",
            hit.auto_when or (), hit.context or "", hit.effort or (), hit.facets)


def _within_budget(units: list[Unit], result: FileResult) -> list[Unit]:
    """The units whose syntax trees are small and shallow enough to query; the others are listed as not analysed."""
    kept = []
    for unit in units:
        too_big = parsing.over_budget(unit.tree()) if unit.kind in _TREE_KINDS else None
        if too_big is None:
            kept.append(unit)
        else:
            unit.release_tree()
            result.skipped.append(SkippedFile(path=_where(unit), reason=too_big))
    return kept


def _over_budget(exc: BaseException, seconds: float) -> str:
    if isinstance(exc, budget.OverBudget):
        return f"over the {seconds:g} s time budget: analysed partially"
    if isinstance(exc, RecursionError):
        return "nested too deeply: analysed partially"
    return "out of memory: analysed partially"


def _root_of(project_file: ProjectFile) -> Path:
    absolute = Path(project_file.absolute)
    for _ in Path(project_file.path).parts:
        absolute = absolute.parent
    return absolute


def _line_count(units: list[Unit]) -> int:
    """A notebook cell can be both a Python and a shell unit: count each cell's lines once."""
    counted: dict[int | None, int] = {}
    total = 0
    for unit in units:
        if unit.cell is None:
            total += unit.source.line_count
        else:
            counted[unit.cell] = max(counted.get(unit.cell, 0), unit.source.line_count)
    return total + sum(counted.values())


def _output_shown(unit: Unit) -> bool:
    """A print is a report on the terminal, unless the unit is a `python -c` string whose output the script captures:
    there what it prints is the value the script goes on with (a device count that becomes a process count)."""
    return unit.embedded is None or unit.embedded.use == "shown"


def _in_own_interpreter(unit: Unit, hits: list[Hit], rules) -> list[Hit]:
    """A `python -c` string is an interpreter of its own: transfer_to_npu opted in at the project's entry points does
    not reach it, so what only the shim handles is a change to the string, unless the string imports the shim. Its
    hits carry the facet that says so in the finding's text."""
    if unit.embedded is None:
        return hits
    shimmed = "transfer_to_npu" in unit.source.text
    kept = []
    for hit in hits:
        capabilities = tuple(rules[hit.rule].auto_when if hit.auto_when is None else hit.auto_when)
        if not shimmed:
            capabilities = tuple(c for c in capabilities if is_native((c,)))
        kept.append(replace(hit, auto_when=capabilities, facets=(*hit.facets, PYTHON_STRING)))
    return kept


def _where(unit: Unit) -> str:
    return f"{unit.path} (cell {unit.cell})" if unit.cell is not None else unit.path


_TREE_KINDS = frozenset({"python", "shell", "dockerfile", "cuda", "cpp"})  # units that scanners query as syntax trees
_WORKER: FileWorker | None = None


def init_worker(torch_npu: str | None, context: ProjectContext | None = None,
                nested: tuple[tuple[str, str], ...] = ()) -> None:
    global _WORKER
    gc.enable()  # a forked worker inherits the parent's paused collector (pipeline.analyze)
    budget.arm_process()
    transfer.start_sending()
    _WORKER = FileWorker(torch_npu, context, nested=nested)


def process_in_worker(project_file: ProjectFile) -> FileResult:
    assert _WORKER is not None, "init_worker was not called in this process"
    return _WORKER.process(project_file)


def _seeding_beside_switches(body, inside: list[Hit], places: dict, imports) -> Hit | None:
    """The first seeding hit of a check's body that holds only call statements whose hits torch's own seeding covers
    (npu-path, analyzer/context/seeding.py) and CUDA backend switch assignments (at least one of each); None
    otherwise. The switches' own hits (DEV402 on `cudnn.deterministic`) are left aside."""
    statements = [c for c in body.named_children if c.type != "comment"]
    switches = [s for s in statements if sets_switch(s, imports)]
    calls = [s for s in statements if s not in switches]
    if not switches or not calls or not all(s.type == "expression_statement" and s.named_children
                                            and s.named_children[0].type == "call" for s in calls):
        return None
    seeding = []
    for statement in calls:  # each call is a seeding call torch's own call covers: none is skipped with a loss
        rows = range(statement.start_point.row, statement.end_point.row + 1)
        own = [h for h in inside if h.span.start_row in rows]
        if not own or any(not seeded_by_torch(places[h].reason) for h in own):
            return None
        seeding += own
    return seeding[0]


def _feature_reason(statement: Node, body: Node, features: list[str]) -> str:
    """Why a CUDA check whose body only turns on a CUDA-only feature is right as written (feature_gates)."""
    reason = (f"line {statement.start_point.row + 1}: the check only turns on a CUDA-only feature ({', '.join(features)}); "
              "on Ascend the code keeps its plain path, which is right; keep the check CUDA-only (torch.npu.is_available() "
              "there, or transfer_to_npu, which makes torch.cuda.is_available() true on the NPU, would send the NPU into it)")
    names = bound_names(body)
    if unread_after(statement, names):
        reason += f"; nothing in this module reads {', '.join(names)} afterwards: the value it binds is never used here (a dead store)"
    return reason
