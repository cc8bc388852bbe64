"""The models that cross a boundary: what scanners return, what the JSON report contains.

The report is the dashboard contract (schema_version "1"): fields may be added, never renamed or removed.
`schemas/report.v1.schema.json` is generated from `Report` and checked by a test.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

SCHEMA_VERSION = "1"

Domain = Literal["dependencies", "device", "attention", "custom_ops", "distributed", "precision", "phases"]
DOMAINS: tuple[str, ...] = ("dependencies", "device", "attention", "custom_ops", "distributed", "precision", "phases")

Severity = Literal["blocker", "high", "medium", "low", "info"]
SEVERITIES: tuple[str, ...] = ("blocker", "high", "medium", "low", "info")
PHASES: tuple[str, ...] = ("training", "inference", "evaluation", "data", "export")

Migration = Literal["auto", "rewrite", "manual", "unsupported"]
MIGRATIONS: tuple[str, ...] = ("auto", "rewrite", "manual", "unsupported")

Confidence = Literal["high", "medium", "low"]

Role = Literal["product", "test", "example", "docs", "build", "ci"]
ROLES: tuple[str, ...] = ("product", "build", "test", "example", "docs", "ci")
Reach = Literal["runs", "other-backend", "cuda-only-guarded", "optional", "npu-path", "dead-at-target", "cosmetic"]
REACHES: tuple[str, ...] = ("runs", "other-backend", "cuda-only-guarded", "optional", "npu-path", "dead-at-target", "cosmetic")


COUNTED_ROLES = frozenset({"product", "build"})


def severity_rank(severity: str) -> int:
    """0 for blocker, 4 for info: lower is worse."""
    return SEVERITIES.index(severity)


class _Contract(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True, json_schema_serialization_defaults_required=True)


# A hit's `npu` text in both languages (a kernel class's replacement): English, this separator, Chinese; the finding
# takes the side of each text's language (domains.base.bilingual writes it).
BILINGUAL = "\u241e"


class Text(_Contract):
    en: str
    zh: str


class ReplacementText(_Contract):
    en: str
    zh: str
    code: str | None = Field(default=None, description="Replacement code, when the change is mechanical")


class EffortHours(_Contract):
    low: float = Field(ge=0)
    high: float = Field(ge=0)


class Location(_Contract):
    """Where a finding is: 1-based lines, 1-based columns counted in characters, end column exclusive."""

    path: str = Field(description="POSIX path relative to the analyzed root")
    line: int = Field(ge=1)
    column: int = Field(ge=1)
    end_line: int = Field(ge=1)
    end_column: int = Field(ge=1)
    cell: int | None = Field(default=None, description="1-based notebook cell; lines then count within the cell")


class Finding(_Contract):
    rule: str = Field(pattern=r"^[A-Z]{3}\d{3}$")
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    domain: Domain
    path: str
    line: int = Field(ge=1)
    column: int = Field(ge=1)
    end_line: int = Field(ge=1)
    end_column: int = Field(ge=1)
    cell: int | None = None
    snippet: str
    symbol: str = Field(description="What matched: a qualified name, a literal or an environment variable")
    severity: Severity
    migration: Migration
    confidence: Confidence
    message: Text
    replacement: ReplacementText
    effort_hours: EffortHours
    references: list[str]
    fingerprint: str
    suppressed: bool
    phases: list[str] = Field(
        default_factory=list, description="The phases (training, inference, evaluation, data, export) that need it"
    )
    role: Role = Field(
        default="product", description="The file's role: product, build, test, example, docs or ci"
    )
    reach: Reach = Field(
        default="runs",
        description="Whether the code runs on Ascend: runs, other-backend (only another accelerator loads it), "
        "cuda-only-guarded (a CUDA check with a fallback guards it), optional (an optional feature or import), "
        "npu-path (the project already has an NPU branch here), dead-at-target (a branch that cannot run at the "
        "target torch: `if torch < 2.3`, a feature gate true there), cosmetic (only a message, a report, a timeout or "
        "a list of accepted names depends on it)",
    )
    reach_reason: str | None = Field(default=None, description="The code that decided the reach, with its line")
    sites: list[str] = Field(
        default_factory=list, description="A project-level finding: path:line of every site it stands for"
    )

    @property
    def counted(self) -> bool:
        """Counts toward severity ranking, effort and the verdict: unsuppressed, runs on Ascend, product code, and
        asks for something: an info site whose rule or variant gives it (0, 0) hours asks for no change ("keep it",
        "nothing to change", work other findings carry) and stays listed with its note. A site above info with no
        hours of its own (an operator a release within reach registers: the upgrade is the fix) still counts."""
        return not self.suppressed and self.reach == "runs" and self.role in COUNTED_ROLES and self.asks_for_change

    @property
    def asks_for_change(self) -> bool:
        """The advice asks for an edit: not an info site whose rule or variant gives it (0, 0) hours ("leave the test
        as it is", "keep the command as it is"); `port` rewrites no site whose advice says to leave it."""
        return self.effort_hours.high > 0 or self.severity != "info"


class RuleCalibration(BaseModel):
    """A probe's measured outcome for one rule's replacement, as the plan reads it (domains/phases/calibration.py)."""

    model_config = ConfigDict(extra="forbid")

    rule: str
    outcome: Literal["good", "slower", "missing", "wrong"]
    detail: str = ""


class SkippedFile(_Contract):
    path: str
    reason: str


class UnusedSuppression(_Contract):
    path: str
    line: int
    cell: int | None = None
    code: str
    reason: Literal["unused", "unknown-rule", "invalid"]  # invalid: a bare `ascend: ignore` that names no code


PackageClass = Literal["compatible", "needs_replacement", "unsupported", "not_involved", "unknown"]


class DependencyRow(_Contract):
    """One distribution the project declares or imports, and how it fares on Ascend."""

    package: str = Field(description="Canonical distribution name")
    declared: str = Field(description="The version specifiers as declared, joined; empty when unpinned or only imported")
    sources: list[str] = Field(description="path:line of each declaration")
    imported: bool = Field(description="Imported somewhere in the project's Python")
    classification: PackageClass
    replacement: Text | None = None
    notes: Text | None = None
    confidence: Confidence


class TorchFit(_Contract):
    """Which torch_npu releases (and CANN) fit the torch the project asks for."""

    declared: str = Field(description="The torch requirement as declared; empty when torch is not declared")
    releases: list[str] = Field(description="torch_npu releases whose torch version the requirement admits, newest first")
    recommended: str | None = Field(description="The newest fitting release: torch_npu (torch, CANN)")
    conflicts: list[str] = Field(default_factory=list, description="Other torch pins (path: requirement) that admit none of "
                                 "the releases the main manifest's requirement admits")


class OperatorFallback(_Contract):
    """One ATen operator the project calls that the target torch_npu does not run on the NPU."""

    operator: str = Field(description="aten::NAME.overload")
    outcome: Literal["cpu-fallback", "error"] = Field(
        description="cpu-fallback: torch_npu runs it on the host with copies both ways; error: no CPU kernel to fall back to")
    sites: list[str] = Field(description="path:line of each call")
    counted_sites: int = Field(description="Sites in product code that runs on Ascend")
    first_release: str | None = Field(description="The first torch_npu release that registers it for the project's torch, if any")
    first_branch: str | None = None


class OperatorCoverage(_Contract):
    """The ATen operators the project's Python calls reach and which of them run on the NPU at the target."""

    release: str
    called: int = Field(description="Distinct operators reached by calls the analyzer resolves")
    on_npu: int = Field(description="Of those, registered for the NPU at the target or composite (decomposed)")
    fallbacks: list[OperatorFallback]
    newest_release: str
    fixed_by_newest: list[str] = Field(description="Fallback operators the newest release registers")
    lost_by_newest: list[str] = Field(description="Operators that run at the target but not on the newest release")


class CustomOpRow(_Contract):
    """One custom kernel of the project and its cheapest credible Ascend path."""

    kernel: str
    path: str
    line: int
    kind: Literal["cuda", "triton", "cpp", "cupy", "numba"]
    lines_of_code: int
    classification: str = Field(description="What it computes: rms_norm, rope, attention, matmul, ... or other")
    features: list[str] = Field(description="What makes a port harder: shared memory, warp intrinsics, inline PTX ...")
    callers: list[str] = Field(description="Host functions that launch it, and path:line of Python call sites")
    replacement_path: Literal["fused-op", "pytorch", "triton-ascend", "ascend-c"]
    replacement: Text
    effort_tier: Literal["low", "medium", "high"]
    ub_estimate_bytes: int | None = Field(default=None, description="Triton: estimated on-chip bytes per program")
    same_code_as: str | None = Field(default=None, description="path:line of the first kernel of the same name and the "
                                     "same code (comments and spacing aside) in another file: one port, counted once")


Phase = Literal["training", "inference", "evaluation", "data", "export"]
Hours = EffortHours


class PhaseEntry(_Contract):
    path: str
    phases: list[Phase]
    evidence: list[str] = Field(description="Why: signals in the entry and its name")
    script: bool = Field(True, description="False for a library's training path (a module defining autograd Functions): "
                         "nothing runs it directly, so it is no place to load torch_npu")


class PhaseMatrixRow(_Contract):
    item: str = Field(description="A rule (CODE name) or a dependency (package NAME)")
    kind: Literal["rule", "dependency"]
    count: int
    cells: dict[str, Literal["P0", "P1", "-"]] = Field(description="P0 needed in every phase, P1 phase-specific")


class PhaseMatrix(_Contract):
    phases: list[Phase] = Field(description="The phases the project has")
    entries: list[PhaseEntry]
    rows: list[PhaseMatrixRow]
    minimal_sets: dict[str, list[str]] = Field(description="Per phase, the items that must change for it alone")


Bucket = Literal["required", "other-phases", "sub-project", "optional", "tests"]
ItemKind = Literal["adoption", "mechanical", "engineering", "kernel", "validation"]


class EffortItem(_Contract):
    item: str
    rule: str = Field(description="The rule, or adoption:ID for a one-time adoption item")
    domain: str
    count: int = Field(description="Sites (findings) the item stands for")
    migration: str
    confidence: str
    base_hours: EffortHours = Field(description="One site's estimate from the knowledge base (largest if sites differ)")
    scaling: str = Field(description="How the sites add up (English; `arithmetic` has both languages)")
    confidence_factor: float = Field(description="The spread of the range: low = centre / spread, high = centre × spread")
    hours: EffortHours
    kind: ItemKind = Field(default="engineering", description="adoption (once per project), mechanical (per file), "
                           "engineering (per API or call pattern), kernel (sized by its code), validation (an NPU path or fallback exists)")
    bucket: Bucket = Field(default="required", description="required (the main phase's work: the total and the verdict), "
                           "other-phases (required work only other phases need), sub-project (required work of a nested project "
                           "on its own torch line, priced apart: Effort.subprojects), optional, tests")
    step0: bool = Field(default=False, description="Part of Step 0: environment and entry points")
    files: int = Field(default=0, description="Distinct files of its sites")
    patterns: int = Field(default=0, description="Distinct APIs or call patterns (engineering) or kernels (kernel)")
    centre_hours: float = Field(default=0.0, description="The central estimate the range is spread around")
    arithmetic: Text | None = Field(default=None, description="The item's arithmetic, in both languages")
    replacement: Text | None = Field(default=None, description="What the item changes to (its replacement class)")
    sites: list[str] = Field(default_factory=list, description="path:line of its first sites (entry files for entry points)")
    share: float = Field(default=0.0, description="Share of the required total's high end (0 outside required)")
    severity: Severity | None = Field(default=None, description="The worst severity among its sites")


class DaysRange(_Contract):
    low_days: float
    high_days: float


class PortedSites(_Contract):
    """Sites of the code that runs on Ascend that already have an NPU path, out of all such sites."""

    npu_path: int
    total: int


class PricedGeneration(_Contract):
    """The generation of a model the estimate prices, where the project keeps several side by side (RWKV-LM's
    RWKV-v1 ... RWKV-v8 folders, each a full copy with its own entry points and kernels)."""

    priced: str = Field(description="The folder priced")
    why: Literal["readme", "launcher", "newest"] = Field(description="readme: the root README names it most; launcher: "
                                                          "a launch script outside the family runs it; newest: neither")
    others: list[str] = Field(description="The other generations' folders: their findings are optional, outside the total")


class Effort(_Contract):
    hours_per_day: float
    items: list[EffortItem] = Field(description="Required items first, by high-end cost; then optional; then tests")
    by_domain: dict[str, DaysRange] = Field(description="Required work per domain")
    by_phase: dict[str, DaysRange] = Field(description="Required work per phase")
    total: DaysRange = Field(description="Required work of the main phase: the total the verdict reads")
    main_phase: str | None = Field(default=None, description="The phase the total is for: training when an entry point "
                                   "trains, else inference; None: the project has neither, the total is all required work")
    whole: DaysRange | None = Field(default=None, description="All required work, every phase together (when the total "
                                    "is one phase's)")
    optional: DaysRange = Field(default=DaysRange(low_days=0, high_days=0),
                                description="Optional features, guarded code, fallbacks and examples, apart from the total")
    tests: DaysRange = Field(default=DaysRange(low_days=0, high_days=0), description="Test code, apart from the total")
    assumptions: list[Text] = Field(default_factory=list)
    ported: PortedSites | None = Field(default=None, description="Present when the project already has NPU paths")
    generation: PricedGeneration | None = Field(default=None, description="Present when the project keeps several "
                                                "generations of one model side by side: the one the total prices")
    subprojects: dict[str, DaysRange] = Field(default_factory=dict, description="Required work of each nested project "
                                              "on its own torch line (target.subprojects), apart from the total and the "
                                              "verdict")


class RouteNote(_Contract):
    """A route to Ascend that exists for the project (it IS the project) or for what it builds on
    (knowledge/routes/routes.toml)."""

    id: str
    project: str
    relation: Literal["is", "builds-on"]
    status: Literal["supported", "partial", "reference", "none"]
    route: Text
    note: Text
    source: str = Field(description="Where the facts were read: repository, commit, files")
    releases: Text
    estimate: DaysRange | None = Field(default=None, description="By the route (relation is): Step 0 and adopting it")
    outside: DaysRange | None = Field(default=None, description="Required work of the main phase in modules the route "
                                      "does not cover")
    pinned_below: str | None = Field(default=None, description="The project's pin of the package (`vllm==0.4.1`) when "
                                     "every release it admits is older than the first release the route supports: "
                                     "the route does not serve that version (status none)")


class Verdict(_Contract):
    verdict: Literal["feasible", "needs adaptation", "difficult", "infeasible", "not-applicable"]
    label: Text
    drivers: list[Text] = Field(description="The rules that decided it, with the items behind them")
    routes: list[RouteNote] = Field(default_factory=list, description="Routes to Ascend that exist for the project or "
                                    "what it builds on; for the project itself, with the estimate by the route")


class Bottleneck(_Contract):
    id: str = Field(description="Stable: BN- and the rule code (and the replacement class when a rule has several), "
                    "or BN-adoption-ID")
    rule: str
    title: Text
    domain: str
    severity: Severity
    count: int
    locations: list[str]
    replacement: Text
    plan: list[Text]
    estimate: DaysRange
    likelihood: Literal["high", "medium", "low"]
    impact: Literal["high", "medium", "low"]


class RoadmapStep(_Contract):
    step: int
    title: Text
    items: list[str] = Field(description="Bottleneck ids")


class ModelOverview(_Contract):
    name: str
    path: str
    line: int
    forward: str | None = Field(description="path:line of its forward")
    layers: dict[str, int]


class Architecture(_Contract):
    models: list[ModelOverview]
    family: str
    evidence: list[str]
    attention: list[str] = Field(description="Attention implementations in use")


class ToolInfo(_Contract):
    name: str
    version: str


class SubprojectTarget(_Contract):
    """A nested project's own target (analyzer/core/subprojects.py), chosen from its own build files."""

    folder: str = Field(description="The folder it is installed from, relative to the root")
    release: str = Field(description="The torch_npu release its findings are judged at")
    torch: str
    branch: str
    reason: Text = Field(description="Why: the torch its own build files pin")


class Target(_Contract):
    torch_npu: str = Field(description="The torch_npu version asked for")
    release: str = Field(description="The known torch_npu release whose behaviour is assumed")
    branch: str
    torch: str
    cann: str
    note: str | None = None
    chosen_by: Literal["requested", "project", "default"] = Field(
        default="requested",
        description="requested: --torch-npu; project: the newest release fitting the project's torch requirement; "
        "default: the knowledge base's default release")
    reason: Text | None = Field(default=None, description="Why this release is the target")
    subprojects: list[SubprojectTarget] = Field(
        default_factory=list, description="Nested projects installed from their own folder on another torch line: "
        "their files' findings are judged at their own target")


class ProjectRevision(_Contract):
    """The analyzed checkout's revision, when it is a git checkout (filled by the git reader)."""

    commit: str
    dirty: bool
    branch: str | None = None


class ChangedSince(_Contract):
    """`--changed-since REF`: the whole project was analysed, and only findings on lines changed since REF are listed."""

    ref: str = Field(description="The git revision as given")
    commit: str = Field(description="The commit it names")
    kept: int = Field(description="Findings on changed lines (listed, and counted in the summary)")
    left_out: int = Field(description="Findings elsewhere, left out of every output")


class ProjectInfo(_Contract):
    root: str
    name: str
    files_scanned: int
    lines_scanned: int
    npu_code: list[str] = Field(default_factory=list, description="Files that are the project's own NPU code, by their names")
    own_packages: list[str] = Field(default_factory=list, description="Top-level packages the project defines (never ported)")
    deployments: list[str] = Field(
        default_factory=list, description="Folders and files that are a separate deployment beside the project's own "
        "code (an NVIDIA serving kit, a hosted platform's predictor): their sites are listed, not ported, and the port "
        "leaves every file of them as it is")
    project_revision: ProjectRevision | None = Field(default=None, description="Git commit and dirty state, when a git checkout")


class Summary(_Contract):
    total: int
    suppressed: int
    counted: int = Field(default=0, description="Findings that count toward effort and verdict (product code that runs)")
    by_role: dict[str, int] = Field(default_factory=dict)
    by_reach: dict[str, int] = Field(default_factory=dict)
    by_domain: dict[str, int]
    by_severity: dict[str, int]
    by_migration: dict[str, int]


class CalibrationRow(_Contract):
    probe: str
    candidate: str
    shape: str
    dtype: str
    verdict: str = Field(description="good, slower, fallback, wrong, error, missing or skipped")
    max_abs: float | None
    speedup: float | None
    note: str


class RuleOutcome(_Contract):
    rule: str
    outcome: Literal["good", "slower", "missing", "wrong"]
    detail: str


class CalibrationSection(_Contract):
    """The probe measurements the estimate was calibrated with (analyze --calibration)."""

    source: str
    created: str
    device_type: str
    device_name: str
    device_count: int
    torch: str | None
    torch_npu: str | None
    cann: str | None
    compatibility: str
    compatibility_status: Literal["ok", "mismatch", "unknown", "not-applicable"] = "unknown"
    problems: list[str]
    rows: list[CalibrationRow]
    rules: list[RuleOutcome] = Field(description="The outcome each calibrated rule took into the effort model")
    applied: bool = Field(default=True, description="False when measured on a device that is not an NPU: shown, not applied")


class Report(_Contract):
    schema_version: Literal["1"] = SCHEMA_VERSION
    tool: ToolInfo
    generated: str | None = Field(default=None, description="The date the report was made (YYYY-MM-DD, UTC)")
    target: Target
    project: ProjectInfo
    findings: list[Finding]
    skipped: list[SkippedFile]
    unused_suppressions: list[UnusedSuppression]
    dependency_matrix: list[DependencyRow]
    torch_fit: TorchFit
    custom_ops: list[CustomOpRow]
    operator_coverage: OperatorCoverage | None = Field(default=None, description="Absent when the project's Python reaches no ATen operator")
    phase_matrix: PhaseMatrix
    effort: Effort
    verdict: Verdict
    bottlenecks: list[Bottleneck]
    risk_matrix: dict[str, dict[str, list[str]]] = Field(description="likelihood → impact → bottleneck ids")
    roadmap: list[RoadmapStep]
    architecture: Architecture
    summary: Summary
    calibration: CalibrationSection | None = Field(default=None, description="Present when probes were imported")
    changed_since: ChangedSince | None = Field(
        default=None, description="Present with --changed-since: findings are only those on lines changed since a git revision; "
        "effort, verdict and the other sections cover the whole project")
