"""Pydantic models of the knowledge base records. Every data file under knowledge/ is validated by these."""

from __future__ import annotations

import re
from typing import Literal

from ascend_feasibility.analyzer.core.models import Confidence, Domain, Migration, Phase, Reach, Role, Severity
from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BilingualText(_Record):
    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)


PLACEHOLDER = re.compile(r"\{(\w+)\}")
OPTIONAL = re.compile(r"\[([?!])(\w+):(.*?)\1\]")  # [?param: text?] where the call passes param, [!param: text!] where not
FIXED_PLACEHOLDERS = {"npu", "symbol", "assigned", "rest", "receiver"}


class ValueConversion(_Record):
    """How a value written to a variable becomes its twin's value where their units or vocabularies differ, so that it
    is never copied blindly. A number (``divisor``: NCCL_BUFFSIZE counts bytes, HCCL_BUFFSIZE MB): ``{assigned}`` is
    the literal integer divided by ``divisor``, rounded up, at least 1; at or below the twin's ``default`` setting it
    would only shrink what the twin has unset, so the replacement says ``at_default`` and shows no code. A list of
    ``key:value`` options (``options``: PYTORCH_CUDA_ALLOC_CONF): copied only where every key is one the twin reads at
    every release; else the replacement says ``unknown_option`` and shows no code. A value that is no literal (a shell
    variable, an expression) cannot be converted here: the replacement says ``not_literal`` and shows no code (copying
    the expression would carry the old unit). ``{converted}`` in the texts is the converted value, ``{options}`` the
    keys the twin does not read."""

    divisor: int | None = Field(default=None, ge=1, description="the variable's unit over the twin's (bytes per MB)")
    default: int | None = Field(default=None, ge=0, description="the twin's value when unset, in its unit")
    at_default: BilingualText | None = None
    options: list[str] = Field(default_factory=list, description="option keys the twin reads at every release")
    unknown_option: BilingualText | None = None
    not_literal: BilingualText
    source: str = Field(min_length=1, description="release branch and path the twin's unit and default were read from")

    @model_validator(mode="after")
    def _one_kind(self) -> "ValueConversion":
        if (self.divisor is None) == (not self.options):
            raise ValueError("a conversion is by a divisor or by a list of options, one of them")
        if (self.default is None) != (self.at_default is None) or (self.default is not None and self.divisor is None):
            raise ValueError("a number conversion with a default says what to do at or below it (at_default)")
        if bool(self.options) != (self.unknown_option is not None):
            raise ValueError("an options conversion says what to do with an option the twin does not read")
        return self


class CallShape(_Record):
    """How a replacement's code is rendered at a site (analyzer/core/replacement_code.py). In ``code``,
    ``{param}`` is the call's argument for that parameter of ``params`` (its default when the call leaves it out),
    ``{rest}`` the call's other arguments as written, ``{receiver}`` the object a method is called on, ``{assigned}``
    the value assigned (an attribute set, an environment variable written), ``{npu}``/``{symbol}`` what the scanner
    found; ``[?param: text?]`` is the text only where the call passes ``param``, ``[!param: text!]`` only where not. An argument the code cannot carry is
    named in ``dropped`` with why, one it carries on a condition in ``notes`` (both said where the call passes it);
    a device argument the code rewrites is named in ``replaced``."""

    code: str | None = None
    params: list[str] = Field(default_factory=list, description="the matched call's parameters, in positional order")
    defaults: dict[str, str] = Field(default_factory=dict, description="parameter -> its value when the call omits it")
    dropped: dict[str, BilingualText] = Field(
        default_factory=dict, description="parameter -> why the code cannot carry it (said where the call passes it)"
    )
    notes: dict[str, BilingualText] = Field(
        default_factory=dict, description="parameter -> the condition under which the code carries it right"
    )
    replaced: list[str] = Field(default_factory=list, description="device parameters the code rewrites (\"cuda\")")
    convert: ValueConversion | None = Field(
        default=None, description="how {assigned} is converted to the twin's unit (units differ)"
    )

    @model_validator(mode="after")
    def _placeholders_known(self) -> "CallShape":
        names = set(PLACEHOLDER.findall(self.code or "")) | {m.group(2) for m in OPTIONAL.finditer(self.code or "")}
        unknown = sorted(names - FIXED_PLACEHOLDERS - set(self.params))
        if unknown:
            raise ValueError(f"replacement code names {unknown}, which are no parameters of the call")
        stray = sorted((set(self.defaults) | set(self.dropped) | set(self.notes) | set(self.replaced)) - set(self.params))
        if stray:
            raise ValueError(f"defaults/dropped/replaced name {stray}, which are not in params")
        if self.code and "{rest}" not in self.code:
            silent = sorted(set(self.params) - names - set(self.dropped) - set(self.replaced))
            if silent:
                raise ValueError(f"parameters {silent} are neither in the code, nor dropped with a reason, nor replaced")
        if self.convert is not None and "{assigned}" not in (self.code or ""):
            raise ValueError("a value conversion needs {assigned} in the code")
        return self

    def uses_site(self) -> bool:
        """Does the code need the site's arguments or value (not only the scanner's {npu}/{symbol})?"""
        return bool(self.code) and bool(set(PLACEHOLDER.findall(self.code)) - {"npu", "symbol"})


class NamedShape(CallShape):
    names: list[str] = Field(min_length=1, description="the matched names (symbols) this shape is for")


class Replacement(CallShape):
    """A replacement's texts and the code rendered at each site; `shapes` give the code of matched names whose
    call has another signature (flash_attn_qkvpacked_func beside flash_attn_func)."""

    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)
    shapes: list[NamedShape] = Field(default_factory=list)

    def shape_for(self, symbol: str) -> CallShape:
        return next((shape for shape in self.shapes if symbol in shape.names), self)


class ReleaseVariant(_Record):
    """What a rule says at the releases of a range of release lines, where that differs from its main text
    (SDPA before op-plugin registered an NPU kernel for it; an environment variable a line does not read yet)."""

    since_line: str | None = Field(default=None, description="first release line of the range (inclusive)")
    before_line: str | None = Field(default=None, description="first release line after the range")
    sources: list[str] = Field(min_length=1, description="release branch and path the difference was read from")
    message: BilingualText | None = None
    replacement: Replacement | None = None
    replacement_inference: Replacement | None = None
    variants: list["SiteVariant"] | None = Field(
        default=None, description="the site variants at these releases, in place of the rule's ([]: none; a site "
        "variant that says there is nothing to change does not hold where the rule's own premise differs)")

    @model_validator(mode="after")
    def _bounded(self) -> "ReleaseVariant":
        if self.since_line is None and self.before_line is None:
            raise ValueError("a release variant names since_line, before_line or both")
        return self


class SiteVariant(_Record):
    """What a rule says where its detector saw something about the site (facets such as `raises`: the test's other
    arm raises; `setting`: it compares a setting, not a device's type), where that differs from its main text."""

    when: list[str] = Field(min_length=1, description="facets the site must all show (the first variant that holds wins)")
    message: BilingualText | None = None
    replacement: Replacement | None = None
    replacement_inference: Replacement | None = Field(
        default=None, description="the replacement where the site runs without a backward (the rule's own "
                                  "replacement_inference, for this variant)"
    )
    severity: Severity | None = Field(
        default=None, description="the site's severity, with or without transfer_to_npu, where what the guarded code "
        "does there makes the rule's own wrong (a checkpoint's RNG snapshot beside a recompute's)"
    )
    effort_hours: tuple[float, float] | None = Field(
        default=None, description="the site's hours where the variant says there is no work of its own ((0, 0): a "
        "pin that runs as it is, a package whose work other findings carry, a call that runs as it is): the estimate "
        "leaves it out and the finding is not counted (models.Finding.counted)"
    )

    @model_validator(mode="after")
    def _says_something(self) -> "SiteVariant":
        if self.message is None and self.replacement is None:
            raise ValueError("a site variant gives a message, a replacement or both")
        return self


ReleaseVariant.model_rebuild()  # its `variants` are SiteVariants, defined after it


class Match(_Record):
    """What a rule matches. Exactly one kind is set.

    - qualified_names: resolved Python names (``torch.compile``); a trailing ``.*`` matches a namespace.
    - torch_cuda_api: the rule reports the torch.cuda names whose entry in torch_cuda_api.toml names it.
    - env_vars: environment variable names, wherever they are set or read.
    - detector: a syntactic pattern implemented by the domain scanner under that name.
    """

    qualified_names: list[str] | None = None
    except_names: list[str] = Field(default_factory=list, description="qualified names a namespace match leaves alone")
    calls_only: bool = Field(
        default=False, description="only calls of the names are findings (the rule judges a call's arguments)"
    )
    type_tests_are_uses: bool = Field(
        default=True, description="False: a name only tested against (isinstance(m, Name), a tuple of such classes "
        "kept for isinstance) is no finding: the rule is about constructing it"
    )
    not_decorators: list[str] = Field(
        default_factory=list,
        description="qualified names whose use as a function decorator (@torch.jit.script def helper) is no finding",
    )
    torch_cuda_api: bool | None = None
    env_vars: list[str] | None = None
    except_env: list[str] = Field(
        default_factory=list, description="env_vars: glob patterns of names a prefix pattern (NCCL_*) leaves alone, "
        "names that are not the library's settings (an installer's NCCL_VER)")
    env_defaults: dict[str, str] = Field(
        default_factory=dict, description="env_vars: the value a variable has when unset; a site that sets it to that "
        "value changes nothing (reach cosmetic)")
    env_logging: list[str] = Field(
        default_factory=list, description="env_vars: names that only set the library's log output (NCCL_DEBUG): "
        "setting or dropping them changes nothing on either platform (reach cosmetic)")
    detector: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "Match":
        kinds = [k for k in ("qualified_names", "torch_cuda_api", "env_vars", "detector") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError(f"a match sets exactly one kind, got {kinds or 'none'}")
        return self


TREE_FILES = ("other files of the one-file project the snippet lies in (path → text), for a rule a project pass "
              "judges from them: .gitmodules, README.md")


class Flagged(_Record):
    """Code the rule must flag. Pinned (``line`` set): the rule's finding on that line has these fields, written
    from the rule and the snippet, and its English replacement contains ``says``. A string in the TOML is an
    unpinned example (only that the rule fires)."""

    code: str = Field(min_length=1)
    line: int | None = Field(default=None, ge=1, description="1-based line of the finding the example pins")
    severity: Severity | None = None
    migration: Migration | None = None
    reach: Reach = "runs"
    says: str | None = Field(default=None, min_length=1, description="a word the English replacement contains")
    emits: str | None = Field(
        default=None, description="the replacement code the finding shows, exactly (\"\": none); for rules whose code "
        "carries the site's value"
    )
    path: str | None = Field(default=None, description="the path the snippet is scanned as (its role and reach)")
    files: dict[str, str] = Field(default_factory=dict, description=TREE_FILES)
    known_wrong: str | None = Field(
        default=None, description="why the tool's answer differs from the pinned one: a known bug, listed by a test"
    )

    @property
    def pinned(self) -> bool:
        return self.line is not None

    @model_validator(mode="after")
    def _pinned_whole(self) -> "Flagged":
        fields = (self.line, self.severity, self.migration, self.says)
        if any(f is not None for f in fields) and any(f is None for f in fields):
            raise ValueError("a pinned example states line, severity, migration and says")
        if self.known_wrong is not None and not self.pinned:
            raise ValueError("known_wrong belongs to a pinned example")
        return self


class NotFlagged(_Record):
    """Code the rule must not count. Without ``reach``/``role``: the rule makes no finding there. With them: a near
    miss the rule reports for information only, every finding of it with that reach (and role), none counted."""

    code: str = Field(min_length=1)
    path: str | None = Field(default=None, description="the path the snippet is scanned as (its role and reach)")
    files: dict[str, str] = Field(default_factory=dict, description=TREE_FILES)
    reach: Reach | None = None
    role: Role | None = None


class Examples(_Record):
    """Code that must be flagged (invalid) and code that must not (valid), run by the rule meta-test.
    In the TOML an entry is a string or a table (Flagged, NotFlagged); here every entry is the model."""

    invalid: list[Flagged] = Field(min_length=1)
    valid: list[NotFlagged] = Field(min_length=1)
    language: Literal["python", "shell", "dockerfile", "yaml", "requirements", "cuda", "cpp", "cmake"] = "python"

    @field_validator("invalid", "valid", mode="before")
    @classmethod
    def _strings_are_code(cls, entries: list) -> list:
        return [{"code": e} if isinstance(e, str) else e for e in entries]


Fix = Literal["safe", "unsafe", "display-only"]


class Edit(_Record):
    """How `port` rewrites one site of a rule whose fix is safe or unsafe (analyzer/port/edits.py applies it).

    Templates are filled per site: ``{dev}`` is the name the file imports the generated device module under,
    ``{api}`` the last part of the matched name, ``{lhs}`` an assignment's target, ``{container}`` the object a
    subscripted target indexes, ``{args}`` a call's keyword arguments, ``{index}`` a device index.

    - callee: the matched callable of a call is replaced (``torch.cuda.synchronize`` -> ``{dev}.synchronize``);
      only names in ``apis`` (what the device module offers); other names are left for a human.
    - name: the matched name itself is replaced (``torch.float64`` -> ``torch.float32``), names in ``apis`` only.
    - string: string literals in the match whose value is one of ``values`` (``cuda`` also as ``cuda:N``, then
      the ``*_indexed`` template) are replaced by an expression.
    - method: ``x.cuda(...)`` with keyword arguments only becomes the template, ``{object}`` being ``x``.
    - autocast: the whole call is rebuilt as the template with the original's positional arguments turned into
      keywords (``positional``) and the original's defaults made explicit (``defaults``), so the dtype is kept.
    - after: a statement assigning to the match gets the template as a new statement after it.
    - guard_import: a module-level import of a package that fails on Ascend goes into try/except ImportError, whose
      handler runs the template with ``{names}`` (the names it binds, as `a = b = None`).
    - device_test: a test for a CUDA device (`t == "cuda"`, `"cuda" in t`, `t in ("cuda", ...)`,
      `t.startswith("cuda")`, `"cuda" if "cuda" in t else "cpu"`) becomes the same test accepting "npu" too
      (templates in analyzer/port/edits.py's DEVICE_TESTS, agnostic style only).
    - attribute: the matched attribute access ``x.name`` becomes the template with ``{object}`` = ``x`` (reads only).
    - collection: a collection of accepted device types gets the template (``"npu"``) after its ``"cuda"``, only where
      it is the value of a keyword or assigned to a name containing one of ``only_in`` (argparse ``choices=``,
      ``SUPPORTED_DEVICES``): a list the code iterates over (the devices a test runs on) is left.
    """

    kind: Literal["callee", "name", "string", "method", "autocast", "after", "guard_import", "device_test", "attribute",
                  "collection"]
    agnostic: str = Field(min_length=1, description="Replacement in the device-agnostic style")
    npu: str = Field(description="Replacement in the npu style (torch.npu / \"npu\" written directly); empty: this rule "
                     "has no rewrite in the npu style")
    agnostic_indexed: str | None = None
    npu_indexed: str | None = None
    apis: list[str] = Field(default_factory=list)
    values: list[str] = Field(default_factory=list)
    positional: list[str] = Field(default_factory=list)
    defaults: dict[str, str] = Field(default_factory=dict)
    unpriced: bool = Field(default=False, description="port writes the edit where the site carries no hours too: a "
                           "safeguard the advice offers beside 'nothing is needed' (ASCEND_RT_VISIBLE_DEVICES beside a "
                           "leading CUDA_VISIBLE_DEVICES pin), not a 'leave it as it is'")
    argument_calls: dict[str, str] = Field(
        default_factory=dict, description="autocast edits: a call without arguments among the original's arguments, "
        "by its callee's qualified name, rebuilt as this template in the agnostic style (torch.get_autocast_gpu_dtype() "
        "reads CUDA's autocast dtype, never the NPU's)")
    npu_argument_calls: dict[str, str] = Field(default_factory=dict, description="argument_calls in the npu style")
    uses: list[str] = Field(default_factory=list, description="Device-module names the agnostic template needs")
    shell: str | None = Field(
        default=None,
        description="Shell scripts: a statement added after an assignment of the matched variable ({keyword} is "
        "`export ` when the original exports it)",
    )
    shell_prefix: str | None = Field(
        default=None, description="Shell scripts: an assignment put before `VAR=value command` ({value}: the value)"
    )
    formatted: str | None = Field(
        default=None, description='string edits: what replaces "cuda" at the start of a formatted device name '
        '(f"cuda:{rank}", "cuda:%d" % rank, "cuda:{}".format(rank), "cuda:" + str(rank)), which becomes an f-string')
    npu_formatted: str | None = None
    keep_in: list[str] = Field(
        default_factory=list, description="string edits: a literal passed to a call of one of these names (its last "
        "part: custom_op, register_kernel) is left, since it registers a CUDA kernel that the NPU cannot run")
    hold_keywords: list[str] = Field(default_factory=list, description="string edits: a literal passed as one of "
                                     "these keyword arguments is left (accelerator=: a framework's name, not a torch device)")
    only_in: list[str] = Field(default_factory=list, description="collection edits: words of the keyword or target "
                               "name that make a collection a set of accepted values")
    hold_paths: list[str] = Field(
        default_factory=list, description="a site in a file whose path has a part containing one of these words "
        "(numerics, debug) is left: the code is deliberate there")
    guard: Literal["stays", "selects", "branch"] | None = Field(
        default=None,
        description="stays: the site is left for a human when its statement keeps a \"cuda\" literal the patch does "
        "not rewrite (a comparison would stop matching). selects: a CUDA check, which turns true on NPU once "
        "rewritten: rewritten only where it selects a \"cuda\" literal the patch rewrites in the same statement "
        "(`\"cuda\" if check else \"cpu\"` gets the literal rewritten with it) and no \"cuda\" literal stays; a "
        "check that guards other CUDA-only code is left for a human, unless the code it guards runs on NPU after the "
        "patch (see branch). branch: a device test that decides which code runs; kept only where the code it guards "
        "runs on NPU after the patch (every site in it rewritten, no call that may be CUDA-only)",
    )

    @model_validator(mode="after")
    def _complete(self) -> "Edit":
        if self.kind in {"callee", "name"} and not self.apis:
            raise ValueError("a callee edit lists the apis the device module offers")
        if self.kind == "string" and not self.values:
            raise ValueError("a string edit lists the literal values it replaces")
        return self


class Rule(_Record):
    code: str = Field(pattern=r"^(DEP|DEV|ATT|OPS|DST|PRC|TPM)\d{3}$")
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    domain: Domain
    severity: Severity = Field(description="Severity when the target torch_npu does not handle it automatically")
    auto_severity: Severity = Field(default="info", description="Severity when transfer_to_npu handles it")
    migration: Migration = Field(description="Migration kind when not handled automatically")
    fix: Fix = Field(
        description="What `port` may do: safe (meaning-preserving on CUDA and correct on NPU: applied by default), "
        "unsafe (needs review: applied with --unsafe), display-only (a comment with the plan, no code change)"
    )
    edit: Edit | None = Field(default=None, description="How `port` rewrites a site (safe and unsafe rules)")
    auto_when: list[str] = Field(
        default_factory=list,
        description="transfer_to_npu capabilities, any of which makes the finding 'auto' at the target",
    )
    confidence: Confidence
    effort_hours: tuple[float, float]
    auto_effort_hours: tuple[float, float] = (0.0, 0.25)
    match: Match
    message: BilingualText
    replacement: Replacement
    replacement_inference: Replacement | None = Field(
        default=None, description="The replacement when the code runs without a backward (inference)"
    )
    references: list[str] = Field(min_length=1)
    examples: list[Examples] = Field(min_length=1)
    scope: Literal["site", "file", "symbol", "project"] = Field(
        default="site", description="project: a one-time step; its sites make one finding that lists them; file: one "
                                    "edit per file (deleting a pip freeze's nvidia-* lines), one finding per file; "
                                    "symbol: one piece of work per symbol (one CUDA extension imported by ten modules), "
                                    "its sites alike in reach, role and reason make one finding that lists them"
    )
    subsumes: list[str] = Field(
        default_factory=list, description="Rules whose finding on the same line says less: dropped beside this one"
    )
    subsumes_scope: Literal["line", "symbol"] = Field(
        default="line", description="symbol: only the subsumed findings about the same symbol on that line go (one "
                                    "pin of a pip line naming several: torch's own, not torchvision's beside it)"
    )
    needs_in_file: list[str] = Field(
        default_factory=list, description="Kept only where the same file has a finding of one of these rules"
    )
    at_release: list[ReleaseVariant] = Field(
        default_factory=list, description="texts that replace the rule's own at the releases of a range of lines"
    )
    variants: list[SiteVariant] = Field(
        default_factory=list, description="texts chosen by what the detector saw at the site (its facets); message "
        "and replacement are each taken from the first variant that holds and gives one"
    )
    satisfied_by: list[str] = Field(
        default_factory=list,
        description="qualified names whose call in the same file already does what the replacement asks: no finding",
    )
    yields: bool = Field(
        default=False, description="dropped where a finding of another rule is on the same line (it says more there)"
    )
    not_auto_in: list[Literal["training", "inference"]] = Field(
        default_factory=list, description="auto_when does not hold where the code shows one of these contexts (CUDA "
        "graphs: torch.npu.graph captures inference, not training)"
    )
    runs_on_npu: bool = Field(
        default=False, description="the construct runs on the NPU as written once the device values it is given name "
        "NPUs (DDP over HCCL): a branch `port` opens to the NPU may keep it without running CUDA-only code"
    )
    needs_in_project: list[str] = Field(
        default_factory=list, description="Rules one of which the project must have (a project-scoped reminder about "
        "a DeviceMesh means nothing where no mesh names CUDA): without them this rule's findings are dropped"
    )
    kernel_part: Literal["function", "contract", "launcher"] | None = Field(
        default=None, description="The rule's part in a custom kernel's port: function (an autograd Function around a "
        "compiled kernel), contract (a dtype pin or a tensor made on a device: where it only serves such a Function's "
        "kernel call it becomes one of that Function's sites, analyzer/context/kernel_contract.py), launcher (a call "
        "compiling a CUDA kernel outside torch, CuPy's: the device findings of its wrapper become its sites, "
        "analyzer/context/kernel_wrapper.py)"
    )
    same_fix_as: dict[str, str] = Field(
        default_factory=dict,
        description="symbol → symbol of this rule: a site of the first is dropped where the same file has a site of "
        "the second, whose rewrite covers it (torch.polar tables beside the view_as_complex that applies them)",
    )

    @model_validator(mode="after")
    def _fix_has_edit(self) -> "Rule":
        if self.fix == "display-only" and self.edit is not None:
            raise ValueError(f"{self.code}: a display-only rule has no edit")
        if self.fix != "display-only" and self.edit is None:
            raise ValueError(f"{self.code}: a {self.fix} fix needs an edit spec")
        return self

    @model_validator(mode="after")
    def _effort_ordered(self) -> "Rule":
        for low, high in (self.effort_hours, self.auto_effort_hours):
            if not 0 <= low <= high:
                raise ValueError(f"{self.code}: effort range must satisfy 0 <= low <= high")
        return self


class TorchCudaApi(_Record):
    rule: str
    npu: str | None = None
    alias: str | None = Field(default=None, description="capability that redirects it besides torch_npu.npu.__all__")
    defined_in: str | None = Field(
        default=None, description="the internal module it is re-exported from (torch.cuda.amp.grad_scaler for "
        "torch.cuda.amp.GradScaler): importing it from there names the same object, redirected the same way"
    )
    filled_fields: list[str] = Field(
        default_factory=list, description="attributes of what it returns that torch_npu's counterpart fills on every "
        "release (a read of only these needs nothing beyond the rename)"
    )
    none_fields: list[str] = Field(
        default_factory=list, description="attributes of what it returns that torch_npu's counterpart leaves None on "
        "the newest release: compared or computed with, they raise TypeError under transfer_to_npu"
    )


class TransferProfile(_Record):
    """What transfer_to_npu rewrites in one release branch of torch_npu."""

    features: list[str]
    torch_fns: list[str]
    tensor_fns: list[str]
    module_fns: list[str]
    cuda_fns: list[str]
    device_kwargs: list[str]
    npu_all: list[str]
    amp_all: list[str]
    random_all: list[str]

    def has(self, capability: str) -> bool:
        """``feature:X``, ``torch_fn:X``, ``tensor_fn:X``, ``module_fn:X``, ``cuda_fn:X`` or ``device_kwarg:X``."""
        kind, _, name = capability.partition(":")
        table = {
            "feature": self.features,
            "torch_fn": self.torch_fns,
            "tensor_fn": self.tensor_fns,
            "module_fn": self.module_fns,
            "cuda_fn": self.cuda_fns,
            "device_kwarg": self.device_kwargs,
        }.get(kind)
        if table is None:
            raise ValueError(f"unknown capability kind in {capability!r}")
        return name in table


class Release(_Record):
    torch_npu: str
    branch: str
    torch: str
    cann: str
    profile: str
    python: str = Field(default="", description="the Pythons its torch line supports, a PEP 440 specifier "
                        "(>=3.10,<3.13); empty where unknown")


class CudaFreeArguments(_Record):
    """Arguments with which a catalogued call builds none of its package's CUDA part (basicsr's `ConvLayer(...,
    activate=False)` builds no FusedLeakyReLU): such a call is no CUDA site. Every parameter of `when` must be given
    that literal (by keyword or position) or be left out where its default is that value; a call that unpacks
    arguments (`*args`, `**kwargs`) is never judged so. Several entries for one name are alternatives."""

    names: list[str] = Field(min_length=1, description="qualified names of the calls it covers (among the entry's names)")
    params: list[str] = Field(min_length=1, description="the call's parameters, in positional order")
    when: dict[str, str] = Field(min_length=1, description="parameter -> the literal, as written, that keeps the "
                                 "call off the CUDA part")
    defaults: dict[str, str] = Field(default_factory=dict, description="parameter -> its value when the call omits it")
    reference: str = Field(min_length=1, description="the package's own tagged source establishing it")

    @model_validator(mode="after")
    def _known_params(self) -> "CudaFreeArguments":
        unknown = (set(self.when) | set(self.defaults)) - set(self.params)
        if unknown:
            raise ValueError(f"cuda_free names parameters not in params: {sorted(unknown)}")
        return self


class PackageCall(Replacement):
    """The replacement of calls into a package (causal_conv1d.causal_conv1d_fn), rendered from each call's arguments."""

    names: list[str] = Field(min_length=1, description="qualified names of the package's functions this covers")
    cuda_free: list[CudaFreeArguments] = Field(default_factory=list, description="arguments with which a call of "
                                               "one of the names reaches none of the CUDA part")

    @model_validator(mode="after")
    def _covered_names(self) -> "PackageCall":
        stray = {name for entry in self.cuda_free for name in entry.names} - set(self.names)
        if stray:
            raise ValueError(f"cuda_free names calls the entry does not cover: {sorted(stray)}")
        return self


class VersionClass(_Record):
    """How a range of a package's releases fares on Ascend where it differs from the record's class (mmcv 1.x is the
    lite, pure-Python package; from 2.0.0 the same name carries the CUDA ops)."""

    specifier: str = Field(min_length=1, description="the releases it covers, as a PEP 440 specifier: <2.0.0rc0")
    classification: Literal["compatible", "needs_replacement", "unsupported", "not_involved"] = Field(alias="class")
    reference: str = Field(min_length=1, description="the package's own tagged source establishing it")
    note: BilingualText


class NpuRoute(_Record):
    """A choice the package itself routes to the NPU from a release on (transformers' attn_implementation=
    "flash_attention_2" → npu_fusion_attention): at a requirement whose floor is that release or later the choice runs
    on Ascend as written."""

    names: list[str] = Field(min_length=1, description="the values of the choice that are routed")
    since: str = Field(description="the first release that routes it")
    excluded: str = Field(default="", description="a specifier of releases reported to have lost the route: a pin "
                          "inside it is not routed")
    references: list[str] = Field(min_length=1)


class PackageRecord(_Record):
    name: str
    aliases: list[str] = Field(default_factory=list, description="glob patterns of other distribution names it covers")
    modules: list[str] = Field(default_factory=list)
    classification: Literal["compatible", "needs_replacement", "unsupported", "not_involved"] = Field(alias="class")
    runtime_only: bool = Field(default=False, description="a runtime a CUDA build of torch pulls in: its line is deleted "
                               "on Ascend (DEP014), no feature is rebuilt")
    confidence: Confidence
    references: list[str] = Field(min_length=1)
    replacement: BilingualText | None = None
    note: BilingualText
    npu_aware_since: str | None = None
    carried_by: list[str] = Field(
        default_factory=list,
        description="codes of the call-site rules that carry the package's one CUDA-only part (Lightning's accelerator "
        "choice: DEV701, DEV704): where the project holds one of their findings, the package's own (DEP001) is info",
    )
    plain_calls: list[str] = Field(
        default_factory=list,
        description="qualified names of a replaced package's functions that are plain PyTorch (no kernel of its own: "
        "nerfacc.accumulate_along_rays is an index_add_): a call of one runs on the NPU as it is (no DEP030)",
    )
    cuda_part_in: list[str] = Field(
        default_factory=list,
        description="the qualified names (a module covers what it holds) through which a project reaches the package's "
        "CUDA-only part (Lightning's accelerator: its Trainer, Fabric, CLI): a project whose code uses none of them "
        "keeps the package as it is (DEP001 at info)",
    )
    replacement_since: str | None = Field(
        default=None,
        description="the first release the replacement's API exists in (Lightning's Fabric and NPU-pluggable "
        "accelerator): a declaration below it needs the package upgraded first (DEP001 upgrade-first)",
    )
    npu_aware_for: list[str] = Field(
        default_factory=list,
        description="the qualified names (a module covers what it holds) in which npu_aware_since adds the NPU "
        "handling: a project whose code uses none of them runs an older release on Ascend as it is (DEP004 at info)",
    )
    older_releases_run: bool = Field(
        default=False,
        description="a release older than npu_aware_since still runs on Ascend: what the newer one adds is an NPU arm of "
        "a device choice whose older form falls back to the CPU or to a CUDA name transfer_to_npu maps (peft's "
        "infer_device); a pin below it is no Ascend reason to move (DEP004 at info)",
    )
    npu_fork: str | None = Field(
        default=None,
        description="the Ascend fork that installs the same module under its own distribution name and version line",
    )
    install: Literal["anywhere", "cuda-only"] | None = Field(
        default=None,
        description="whether installing it on an Ascend host succeeds: anywhere (pure Python, its requirements too: the "
        "NVML readers gpustat, nvidia-ml-py, pynvml, nvitop fail only when run) or cuda-only (only CUDA wheels, or a "
        "build that needs nvcc); unset where no reference says",
    )
    install_since: str | None = Field(
        default=None,
        description="the first release `install` holds for (bitsandbytes: manylinux x86_64 and aarch64 wheels from "
        "0.46.0): a declaration that admits no release from it on is left unjudged",
    )
    npu_routes: list[NpuRoute] = Field(default_factory=list)
    import_fails: bool = Field(
        default=False,
        description="importing it fails on an Ascend host: its modules load CUDA extensions that have no Ascend build",
    )
    calls_change: bool = Field(
        default=False,
        description="calls into it must be rewritten on Ascend (no Ascend build, fork or plugin of the same package keeps "
        "them working): each call is a finding (DEP030)",
    )
    calls: list[PackageCall] = Field(default_factory=list, description="replacements of calls into the package")
    port_hours: tuple[float, float] | None = Field(
        default=None,
        description="hours to move what the project builds on the package onto its replacement, where that is more "
        "than guarding a failing import (spconv: a sparse backbone moved onto mx_driving's sparse modules): the "
        "import's finding (DEP020) is priced so",
    )
    torch_pairs: dict[str, str] = Field(
        default_factory=dict,
        description="the release (or release line) of this package built for a torch version or major.minor "
        "(torchvision 0.16 for torch 2.1): a companion pin that moves with torch",
    )
    pins_torch: dict[str, str] = Field(
        default_factory=dict,
        description="each release's wheels require one exact torch (Requires-Dist torch==X): release -> that torch, for "
        "the releases the catalog knows (xformers 0.0.22 -> 2.0.1). Non-empty marks the package: an exact pin of it "
        "installs its torch over the one torch_npu needs, whether or not the code imports it",
    )
    versions: list[VersionClass] = Field(
        default_factory=list,
        description="release ranges classed otherwise than the record: a declaration whose every admitted release "
        "lies in one range takes that range's class",
    )
    cuda_modules: list[str] = Field(
        default_factory=list,
        description="the dotted modules that hold the package's CUDA part (mmcv.ops): a project importing none of them "
        "uses only its pure-Python parts, and the package is compatible for it",
    )
    cuda_modules_through: list[str] = Field(
        default_factory=list,
        description="top-level modules of libraries built on the package's CUDA part (mmdet, mmseg on mmcv.ops): "
        "a project importing one uses that part through it",
    )
    without_cuda_modules: BilingualText | None = Field(
        default=None, description="the note shown when the project imports none of cuda_modules")
    installs_modules_of: list[str] = Field(
        default_factory=list,
        description="distributions whose modules installing this one puts on the path (pynvml 12 requires nvidia-ml-py, "
        "which ships the `pynvml` module; mmcv-full ships mmcv's): with no modules of its own, the package is imported "
        "when one of theirs is, and unimported (a line to delete) when none is",
    )
    used_through: list[str] = Field(
        default_factory=list,
        description="names in the project's Python (identifiers, keywords, strings) through which another library "
        "loads this package for the project (transformers' BitsAndBytesConfig loads bitsandbytes): a declared package "
        "the project never imports is still in use where one of them appears",
    )
    required_by: list[str] = Field(
        default_factory=list,
        description="top-level modules of libraries whose own requirements name this package (mmpose 1.x and mmdet "
        "3.x require mmcv), or that import it themselves (insightface imports onnxruntime): a package the project's "
        "install documents name (`mim install mmcv==2.0.1`) and its code never imports is still installed for the "
        "project where it imports one of them, so it has a row; declared, it is in use, not a line to drop",
    )
    torch_since: str | None = Field(
        default=None,
        description="the oldest torch line (major.minor) the package's releases support (triton-ascend: 2.6, its "
        "installation guide's oldest PyTorch): a target torch below it cannot take the package; None: not known",
    )
    used_through_by: list[str] = Field(
        default_factory=list,
        description="top-level modules whose calls load this package for a used_through name (transformers, peft): "
        "a name passed as an argument of a call into another library the file imports (optimum.intel's "
        "OVModelForCausalLM, ITREX's AutoModelForCausalLM take load_in_8bit too) is that library's option, not a use "
        "of this package; empty: every occurrence is a use",
    )

    @model_validator(mode="after")
    def _replacement_when_needed(self) -> "PackageRecord":
        if self.classification in {"needs_replacement", "unsupported"} and self.replacement is None:
            raise ValueError(f"{self.name}: a package that needs replacement or is unsupported names its replacement")
        if bool(self.cuda_modules) != (self.without_cuda_modules is not None):
            raise ValueError(f"{self.name}: cuda_modules and without_cuda_modules come together")
        return self


class KernelClass(_Record):
    name: str
    tokens: list[str]
    # Names that say this class only as a whole word of the kernel's name (split at underscores, digits and camelCase):
    # `rms` is RMSNorm in fused_rms_kernel or RMSNormKernel, never inside `layer_norms`.
    words: list[str] = Field(default_factory=list)
    # The generic class this one narrows: a kernel classed so is this class where one of `tokens` appears in any of its
    # names (its own, its callers', its file's) or in its parameter list (a GEMM with int8_t operands or group scales
    # and zeros is a quantised GEMM). Such a class is never chosen by a name alone.
    narrows: str | None = None
    path: Literal["fused-op", "pytorch", "triton-ascend", "ascend-c"]
    tier: Literal["low", "medium", "high"]
    # The tl.* calls a Triton kernel's body (with the @triton.jit helpers it calls) makes when it computes this class:
    # "a|b" is either, a repeated entry needs as many calls. Its names classify a Triton kernel only when the body makes
    # them; where a name was refuted so, the first class whose calls the body makes decides (an empty list: any body).
    body: list[str] | None = None
    references: list[str] = Field(min_length=1)
    replacement: BilingualText
    # An NPU operator that computes the class, by its call name, where one exists outside torch_npu's own fused-op
    # route (a separate Ascend package): named as the fast path of a test whose other arm runs PyTorch code.
    npu_operator: str | None = None


class ModelFamily(_Record):
    name: str = Field(min_length=1)
    tokens: list[str] = Field(min_length=1)


class PhaseModels(_Record):
    library: list[str] = Field(min_length=1)


class EntryWords(_Record):
    hint_suffixes: list[str]
    launcher_words: list[str]
    demo_function_prefixes: list[str] = Field(
        default_factory=list, description="name prefixes of the functions a library module's `__main__` demo calls "
        "(demo_..., test_...): a module the project imports whose main block calls one is no entry point")
    smoke_inputs: list[str] = Field(
        default_factory=list, description="last names of the calls that make random inputs (torch.randn): a main "
        "block of a module the project imports that makes them is a smoke test of the module, no entry point")
    config_calls: list[str] = Field(
        default_factory=list, description="last names of the calls a config module's top level may make (dict, "
        "read_base, update): a module whose top level only imports, assigns and makes these calls is a config a "
        "framework loads by path (domains/phases/config_modules.py), no entry point")
    path_setup_calls: list[str] = Field(
        default_factory=list, description="dotted names of the calls that only edit the import path (sys.path.insert): "
        "a module whose only top-level calls are these, beside imports, assignments and definitions, does no work when "
        "run, so it is a module, no entry point (a twin of an imported module with a sys.path bootstrap)")


class TrainingLoop(_Record):
    defines: list[str] = Field(default_factory=list)
    base_suffixes: list[str] = Field(default_factory=list)
    library_trainers: list[str] = Field(
        default_factory=list, description="qualified names (fnmatch patterns) of libraries' trainer classes: a file that "
        "builds one and calls a run method of what it built trains through it")
    trainer_runs: list[str] = Field(default_factory=list, description="the methods that run a library trainer's loop")
    phase_runs: dict[str, list[str]] = Field(
        default_factory=dict, description="phase -> the methods of a library trainer that run its loop for that phase "
        "(mmengine `runner.test()`, Lightning `trainer.validate()`): a file that builds the trainer and calls one "
        "serves the phase")


class MetricClasses(_Record):
    """Classes that compute an evaluation metric: registered in a metrics registry, or derived from a metric base."""

    registries: list[str] = Field(default_factory=list, description="the last name of a registry whose "
        "`.register_module(...)`/`.register(...)` decorator registers a metric (`@METRICS.register_module()`)")
    base_suffixes: list[str] = Field(default_factory=list, description="how the last name of a metric base ends "
        "(`BaseMetric`, `GenerativeMetric`, `torchmetrics.Metric`)")
    function_words: list[str] = Field(default_factory=list, description="a word (the name split at `_`) that makes a "
        "function returning a value a metric (`calculate_psnr_pt`, `compute_metrics`)")
    trained_words: list[str] = Field(default_factory=list, description="a word that keeps a function out: its value "
        "is trained on (`ssim_loss`)")


class PhaseSignals(_Record):
    """knowledge/phases/signals.toml: what shows a phase, and which names point to a model family."""

    names: dict[Phase, list[str]]
    methods: dict[Phase, list[str]]
    name_hints: dict[Phase, list[str]]
    entries: EntryWords
    models: PhaseModels
    family: list[ModelFamily] = Field(min_length=1)
    attention_by_rule: dict[str, str]
    # Rules whose sites serve one phase whatever else their file serves: a KV-cache attention call (flash_attn_with_kvcache)
    # has no backward and runs only while decoding, though its model file also trains.
    site_phases: dict[Phase, list[str]] = Field(default_factory=dict)
    # The last word of a function's name (split at _) that says the phase its code serves: `_forward_inference`'s
    # findings are inference's where its file serves inference (nanotron llama.py, which the trainer imports too).
    function_phases: dict[Phase, list[str]] = Field(default_factory=dict)
    training_loop: TrainingLoop = Field(default_factory=TrainingLoop)
    # Metric classes: their code serves evaluation wherever the project evaluates (domains/metric_classes.py).
    metric_classes: MetricClasses = Field(default_factory=MetricClasses)


class RoleConventions(_Record):
    test_dirs: list[str]
    test_file_prefixes: list[str]
    test_file_suffixes: list[str]
    test_file_names: list[str]
    docs_dirs: list[str]
    ci_dirs: list[str]
    ci_file_names: list[str]
    example_dirs: list[str]
    tool_dirs: list[str]
    root_example_prefixes: list[str]
    build_file_names: list[str]
    build_file_prefixes: list[str]
    package_manifests: list[str] = Field(default_factory=list, description="root files that install the project's "
                                         "packages (setup.py, pyproject.toml): without one, a top-level package is "
                                         "the root scripts' helpers, and a root script the README runs is product")
    tool_file_stems: list[str] = Field(default_factory=list, description="file stems of developer tools at any depth "
                                       "(collect_env_details.py): examples, not product")
    test_script_stems: list[str] = Field(default_factory=list, description="file stems of a module that is a test when "
                                         "it imports a testing module (test.py beside a kernel)")
    testing_modules: list[str] = Field(default_factory=list, description="modules (or names in them) only tests import")
    reference_comparisons: list[str] = Field(default_factory=list, description="calls that compare a result with a "
                                             "reference (allclose, gradcheck): a check function makes one")
    check_function_prefixes: list[str] = Field(default_factory=list, description="name prefixes of a test script's "
                                               "module-level check functions (check_, test_)")
    complexity_counters: list[str] = Field(default_factory=list, description="modules (or names in them) that count a "
                                           "model's FLOPs or parameters: a script built around one is a diagnostic tool")
    release_dirs: list[str] = Field(default_factory=list, description="top-level folders that build release packages "
                                    "(packaging/, conda-recipe/): ci, not product")
    vendored_dirs: list[str] = Field(default_factory=list, description="folders of other projects' code a package "
                                     "ships inside it (third_party/, _vendor/): their public names are no API of the "
                                     "package, so one nothing in the project names is unreached (unreferenced.py)")
    vendored_packages: dict[str, str] = Field(default_factory=dict, description="import name → upstream repository "
                                              "of model packages commonly copied whole into other projects: their own "
                                              "scripts are no entry of a host that imports the package as a library")
    yaml_command_keys: list[str] = Field(default_factory=list, description="keys of a YAML document whose string a "
                                         "runner executes as a command line (CI `run`/`script`, compose `command`)")
    json_command_keys: list[str] = Field(default_factory=list, description="keys of a JSON document whose string a "
                                         "tool executes as a command line (package.json `scripts`, devcontainer "
                                         "`postCreateCommand`, tasks.json `tasks`)")


class CloudGpuImage(_Record):
    vendor: str = Field(min_length=1)
    hosts: list[str] = Field(min_length=1, description="substrings of the image's registry host")
    repositories: list[str] = Field(min_length=1, description="prefixes of the image's repository path")


class HostedPredictor(_Record):
    platform: str = Field(min_length=1, description="the hosting, as the reason names it: 'Replicate Cog'")
    manifest: str = Field(min_length=1, description="the manifest's file name (cog.yaml)")
    key: str = Field(min_length=1, description="its top-level key naming the predictor as FILE.py:Class")


class HostedNotebook(_Record):
    platform: str = Field(min_length=1, description="the hosting, as the reason names it: 'Google Colab'")
    module: str = Field(min_length=1, description="the module only that hosting provides (google.colab)")


class BackendConventions(_Record):
    other: list[str] = Field(min_length=1)
    exported_model_loaders: list[str] = Field(default_factory=list, description="calls that load an exported model "
                                              "(torch.jit.load, onnxruntime's InferenceSession), by their last dotted "
                                              "parts: a model so loaded runs where it was exported unless moved")
    dispatch: list[str] = Field(min_length=1, description="accelerators a per-backend dispatch chain tests beside CUDA")
    npu: list[str] = Field(min_length=1)
    housekeeping: list[str] = Field(default_factory=list, description="calls of a backend's own torch module, by "
                                    "their last part, that only release memory, wait for the device or reset or read "
                                    "memory statistics (empty_cache, synchronize, max_memory_allocated)")
    housekeeping_general: list[str] = Field(default_factory=list, description="housekeeping calls of no backend's "
                                            "module, by their dotted name (gc.collect)")
    twin: list[str]
    other_platforms: list[str] = Field(default_factory=list, description="tokens of a manifest's name that name "
                                       "another operating system (requirements_macOS.txt): beside the general "
                                       "manifest (requirements.txt) it is that platform's install, not Ascend's")
    cuda_engines: list[str] = Field(default_factory=list, description="engines that run on NVIDIA GPUs only")
    npu_engines: list[str] = Field(default_factory=list, description="engines with an Ascend build")
    nvidia_runtimes: list[str] = Field(default_factory=list, description="packages of NVIDIA-only runtimes (tensorrt): "
                                       "a folder of modules built on one, beside PyTorch code, is an NVIDIA-only kit")
    nvidia_serving_modules: list[str] = Field(default_factory=list, description="modules of an NVIDIA serving stack "
                                              "(triton_python_backend_utils): a folder importing one is a deployment")
    nvidia_serving_commands: list[str] = Field(default_factory=list, description="programs that serve on NVIDIA GPUs "
                                               "only (tritonserver, trtllm-serve), launched by a folder's scripts")
    nvidia_kit_commands: list[str] = Field(default_factory=list, description="programs that build NVIDIA-only engines "
                                           "(trtllm-build): a folder's scripts launching one are kit evidence")
    nvidia_serving_images: list[str] = Field(default_factory=list, description="container images of an NVIDIA "
                                             "serving stack (nvcr.io/nvidia/tritonserver), a Dockerfile's FROM")
    process_launchers: list[str] = Field(default_factory=list, description="programs that run the program their "
                                         "first non-option word names (mpirun -np 1 trtllm-serve)")
    nvidia_model_configs: list[str] = Field(default_factory=list, description="file names of a serving model "
                                            "repository's model configuration (config.pbtxt beside <model>/<version>/)")
    nvidia_serving_route: BilingualText | None = Field(default=None, description="how to serve on Ascend instead")
    engine_internals: list[str] = Field(default_factory=list, description="internal packages of a serving engine "
                                        "(vllm.worker, vllm.model_executor): a module importing one at its top level "
                                        "copies the engine's worker or model runner, which its Ascend route replaces")
    definition_names: list[str] = Field(default_factory=list, description="name parts that make a function or a "
                                        "binding another accelerator's code (def _ensure_rocm_torch, _MLX_ALIASES = ...)")
    images: list[str] = Field(default_factory=list, description="tokens of a Dockerfile's base image, package index "
                              "URL or build label that name another accelerator's image (a token starting so: rocm6.0)")
    npu_probes: list[str] = Field(default_factory=list, description="words of a shell test that asks whether the host "
                                  "is an Ascend one (`command -v npu-smi`, ASCEND_HOME_PATH): an install script's branch "
                                  "under it is the project's own NPU install")
    npu_packages: list[str] = Field(default_factory=list, description="packages that import wherever the project runs "
                                    "on Ascend and nowhere else: a try that imports one is the NPU arm, its except arm "
                                    "the other")
    cloud_gpu_images: list[CloudGpuImage] = Field(default_factory=list, description="cloud vendors' GPU training "
                                                  "images: a Dockerfile FROM one builds that cloud's GPU container")
    hosted_predictors: list[HostedPredictor] = Field(default_factory=list, description="hosted platforms' manifests "
                                                     "naming a predictor: a separate deployment of the model")
    hosted_notebooks: list[HostedNotebook] = Field(default_factory=list, description="modules only a hosted "
                                                   "notebook service provides: a notebook importing one is that "
                                                   "service's demo, not the project's setup")
    none_on_ascend: list[str] = Field(default_factory=list, description="build probes torch_npu leaves None "
                                      "(torch.version.cuda, torch.version.hip), transfer_to_npu included")
    platform_attributes: list[str] = Field(default_factory=list, description="class attributes in which a platform "
                                           "class names its accelerator (device_type = \"npu\", _enum = PlatformEnum.CUDA)")
    npu_calls: list[str] = Field(default_factory=list, description="namespaces whose calls make a platform class "
                                 "the NPU's (torch.npu, torch_npu)")
    tensorrt_plugin_words: list[str] = Field(default_factory=list, description="words of a TensorRT plugin's native "
                                             "code (IPluginV2DynamicExt, TRTPluginBase, NvInfer): its folder runs only "
                                             "inside a TensorRT engine")
    tensorrt_link_names: list[str] = Field(default_factory=list, description="TensorRT's libraries and CMake package "
                                           "(nvinfer, nvonnxparser, TensorRT): a CMake file linking one builds a "
                                           "TensorRT deployment")
    torch_link_names: list[str] = Field(default_factory=list, description="libtorch's CMake package and variables "
                                        "(Torch, TORCH_LIBRARIES): a CMake file naming one builds against PyTorch")
    path_calls: list[str] = Field(default_factory=list, description="calls whose string arguments name folders or "
                                  "files (os.path.join, glob.glob, pathlib.Path): a 'cuda' there is no device")
    path_methods: list[str] = Field(default_factory=list, description="methods whose string arguments name folders "
                                    "or files (Path.joinpath)")
    path_keywords: list[str] = Field(default_factory=list, description="keywords of an extension's build whose list "
                                     "names files or folders (sources=, include_dirs=)")
    build_names: list[str] = Field(default_factory=list, description="names of builds, prebuilt flavours and native "
                                   "backends that are never a torch device type (rocm, vulkan, metal): a 'cuda' beside "
                                   "one names a build, not a device")
    device_family_builds: list[str] = Field(default_factory=list, description="build names that projects also use "
                                            "as a device family beside cuda (rocm): a build name only beside another")
    platform_gates: list[str] = Field(default_factory=list, description="calls of known frameworks that test for a "
                                      "platform Ascend never is (is_sagemaker_dp_enabled, is_torch_tpu_available): "
                                      "their branch is other-backend code")


class GuardConventions(_Record):
    cuda: list[str] = Field(min_length=1)
    cuda_build: list[str]
    test_skips: list[str]
    broad_errors: list[str] = Field(default_factory=lambda: ["Exception", "BaseException", "RuntimeError"],
                                    description="exception classes a CUDA error class (torch.cuda.CudaError) is a kind of")
    cuda_error_texts: list[str] = Field(default_factory=list, description="lower-cased fragments of CUDA's error "
                                        "messages torch_npu never writes (\"cuda out of memory\"): code behind a test "
                                        "of an error's text for one never runs on Ascend (context/oom_text.py)")
    gate_prefixes: list[str]
    gate_suffixes: list[str]
    gate_upper_prefixes: list[str]
    always_available: list[str] = Field(default_factory=list, description="gate-shaped names that are true wherever the "
                                        "project runs on Ascend (is_torch_available): no gate")
    fallback_features: list[str] = Field(default_factory=list, description="keyword arguments of a fused attention "
                                         "call (window_size, alibi_slopes, softcap) whose meaning an import-gated call's "
                                         "fallback arm drops when it passes none of them: named in the site's reason")
    job_exported_variables: list[str] = Field(
        default_factory=list, description="environment variables a job's environment exports already (a scheduler's "
        "device list): a script's bare `NAME=value` changes what its programs see (analyzer/context/unexported.py)")
    flag_prefixes: list[str]
    flag_words: list[str]
    flag_rules: list[str]
    library_class_tokens: list[str]
    cuda_only_feature_domains: list[Domain]
    check_rules: list[str]
    cuda_only_rules: list[str]
    import_errors: list[str]
    cuda_only_packages: list[str]
    cuda_extension_packages: list[str] = Field(
        default_factory=list, description="packages that are only a CUDA extension build (apex, its amp_C): code a try "
                                          "body reaches only after importing one never runs on Ascend")
    cuda_extension_suffixes: list[str] = Field(
        default_factory=list, description="ends of a module name that a project gives its own CUDA extension "
                                          "(fused_adam_cuda, lightconv_cuda)")
    cuda_only_calls: list[str]
    cuda_only_name_tokens: list[str] = Field(description="name parts of NVIDIA-only features (nvlink, cuda_graph)")
    capability_calls: list[str]
    build_check_rules: list[str] = Field(
        default_factory=list, description="rules of CUDA-build reads (torch.version.cuda, torch.cuda.nccl): in the "
        "return of a function a caller asserts, they run at the caller's reach (domains/device/build_checks.py)")
    availability_checks: list[str] = Field(
        default_factory=list, description="calls that ask whether CUDA is there at all (cuda.is_available): an assert "
        "of one is the program's precondition, not a CUDA-only guard, and what follows is its main path")
    none_under_shim_rules: list[str] = Field(default_factory=list, description="rules of CUDA capability reads that "
                                             "torch_npu answers with None (get_device_capability, properties' major): "
                                             "a check transfer_to_npu makes true guards no read of their value")
    shim_false_probes: list[str] = Field(
        default_factory=list, description="build probes transfer_to_npu leaves to torch that are false on the CPU "
        "torch wheel torch_npu runs on (torch.backends.cudnn.is_available): a CUDA check and-ed with one stays "
        "false on the NPU under the shim (domains/device/cudnn_conjunct.py)")
    card_name_calls: list[str] = Field(default_factory=list, description="queries of a card's model name (get_device_name)")
    accelerator_calls: list[str]
    cuda_only_choices: list[str] = Field(description="config values naming a CUDA-only library: what they select is optional")
    display_rules: list[str] = Field(description="rules whose findings only read state: cosmetic in a message")
    display_symbols: list[str] = Field(description="torch.cuda queries that do not raise without CUDA")
    display_symbols_since: dict[str, str] = Field(
        default_factory=dict, description="torch.cuda queries that stopped raising without CUDA at a torch release: "
        "display symbols at a target torch at or after it")
    guarded_display_symbols: list[str] = Field(
        default_factory=list, description="torch.cuda queries that raise without CUDA: cosmetic where a "
        "torch.cuda.is_available() check guards them and their value is only shown")
    message_calls: list[str] = Field(min_length=1)
    message_call_prefixes: list[str] = Field(default_factory=list, description="name prefixes of calls that only show "
                                             "their arguments (log_message, print_rank0)")
    message_attributes: list[str] = Field(default_factory=list, description="attributes whose value is only shown "
                                          "(a progress bar's desc)")
    ui_keywords: list[str] = Field(default_factory=list, description="keyword arguments of a user-interface call that "
                                   "only decide how it looks or what it precomputes (Gradio's cache_examples)")
    release_rules: list[str] = Field(default_factory=list, description="rules of cache releases: a CUDA check guarding "
                                     "only these skips a release on Ascend, which their own finding reports")
    device_test_rules: list[str] = Field(default_factory=list, description="rules of a device comparison "
                                         "(`device == \"cuda\"`): a release only such a test guards never runs on an "
                                         "NPU device, and under transfer_to_npu a kept \"cuda\" string reaches the "
                                         "shim's release: no change either way (cuda-only-guarded)")
    release_calls: list[str] = Field(default_factory=list, description="APIs that release memory under a general rule "
                                     "(torch.cuda.ipc_collect is DEV100's): releases all the same")
    release_companions: list[str] = Field(default_factory=list, description="calls that only prepare a release beside "
                                          "it (torch.cuda.synchronize before empty_cache): a check guarding them "
                                          "with a release still guards only the release")
    backend_names: list[str] = Field(min_length=1)
    timing_symbols: list[str] = Field(default_factory=list, description="CUDA timing calls (events, synchronize, the "
                                      "check around a synchronize): cosmetic when they only time what a print shows")
    timing_words: list[str] = Field(default_factory=list, description="words of an environment variable or debug switch "
                                    "that turns timing on (TIME_BENCH)")
    environment_reads: list[str] = Field(default_factory=list, description="calls that read an environment variable")
    clock_calls: list[str] = Field(default_factory=list, description="calls that read a wall clock (time.perf_counter)")
    log_read_rules: list[str] = Field(default_factory=list, description="rules of an environment variable's name: a "
                                      "read of it whose value only fills a log or names a logger is cosmetic")
    logger_name_calls: list[str] = Field(default_factory=list, description="calls whose argument only names a logger "
                                         "or its log file (logging.getLogger, FileHandler)")
    diagnostic_calls: list[str] = Field(default_factory=list, description="calls that only help debug or profile "
                                        "(set_sync_debug_mode, nvtx, memory statistics; a trailing .* names a namespace): "
                                        "a CUDA test whose guarded code only calls these skips a debugging aid on Ascend")
    probe_factories: list[str] = Field(default_factory=list, description="tensor factories (torch.zeros) whose tensor, "
                                       "moved to the device and dropped (`torch.zeros((2, 2)).cuda()` as a statement), "
                                       "only proves the device answers: a device probe, a diagnostic like the calls above")


class VersionConventions(_Record):
    torch_features: dict[str, str]
    torch_version_helpers: list[str]
    library_flags: dict[str, str] = Field(default_factory=dict, description="a library's flag computed from torch's "
                                          "version (qualified name) → the versions it is true at, as a specifier")


class FrameworkOption(_Record):
    """An option of a known framework's arguments class that a project reads without declaring it (a vendored HF
    Trainer's `args.optim`): its default, read from the framework's source, not the project's."""

    option: str = Field(min_length=1, description="the field (`optim`)")
    classes: list[str] = Field(min_length=1, description="arguments classes declaring it; a project importing one "
                               "from `package` reads the option with this default")
    package: str = Field(min_length=1)
    defaults: list[str] = Field(min_length=1, description="values the default path holds, across the releases in "
                                "`versions` (adamw_hf, then adamw_torch)")
    choices: list[str] = Field(default_factory=list, description="every value an arm of the framework's own code "
                               "can see: the else arm of a chain takes those its conditions leave; empty: else arms "
                               "are not read")
    versions: str = Field(min_length=1, description="the framework releases this holds for")
    source: str = Field(min_length=1, description="file and release where the default and choices were read")


class OptInConventions(_Record):
    """Code that runs only when a user opts in: an integration of another framework, a configuration choice."""

    integration_packages: list[str] = Field(min_length=1, description="frameworks a project integrates as an option "
                                            "(accelerate's DeepSpeed and Megatron plugins)")
    integration_class_words: list[str] = Field(min_length=1, description="class-name words of an integration "
                                               "(MegatronLMPlugin)")
    default_choices: list[str] = Field(min_length=1, description="configuration values that name the default path "
                                       "(comm_backend == \"standard\"): a chain with one lets the others be options")
    extension_loaders: list[str] = Field(default_factory=list, description="functions that import a compiled "
                                         "extension by name when a module loads (mmcv's ext_loader.load_ext('_ext', "
                                         "[...])): the module needs the extension to import")
    extension_builds: list[str] = Field(default_factory=list, description="words a build file writes when it "
                                        "compiles an extension (setup.py's CUDAExtension, CMake's add_library)")
    shipping_keywords: list[str] = Field(default_factory=list, description="setup() keywords (and the names bound "
                                         "for them) whose strings list files the package ships, never compiles "
                                         "(package_data, data_files): a native source named only there is not built")
    user_only_methods: list[str] = Field(default_factory=list, description="regular expressions (whole name) of "
                                         "methods a library offers its users and never calls itself (diffusers "
                                         "pipelines' enable_model_cpu_offload): a project's own class defining one is "
                                         "reached there only where a project file names it")
    library_hooks: dict[str, list[str]] = Field(default_factory=dict, description="a library method (diffusers' "
                                                "enable_xformers_memory_efficient_attention) -> the method names it "
                                                "calls, by name, on the project's own modules")
    mode_choices: list[str] = Field(default_factory=list, description="values naming a mode or a data split "
                                    "(`mode == \"train\"`): never an option's module")
    disabled_values: list[str] = Field(min_length=1, description="values that switch a feature off: `x != NO` is an "
                                       "opt-in flag")
    type_check_calls: list[str] = Field(min_length=1)
    type_check_domains: list[Domain] = Field(min_length=1, description="domains whose class names in a type check are "
                                             "no use of the class (isinstance(model, DataParallel))")
    argument_objects: list[str] = Field(default_factory=list, description="names of the parsed command line "
                                        "(`args.xformers`): their options are switches the file may declare")
    config_recorders: list[str] = Field(default_factory=list, description="decorators of an `__init__` that record "
                                        "its arguments as the object's config and call it unchanged (diffusers' "
                                        "register_to_config): its defaults decide its arms where every construction "
                                        "is visible")
    config_factories: list[str] = Field(default_factory=list, description="class methods that build an object from a "
                                        "config or checkpoint (`Name.from_config(...)`, `Name.from_pretrained(...)`): "
                                        "its keywords come from data, not from a call in sight")
    mainstream_switch_tokens: list[str] = Field(default_factory=list, description="switch-name words of mainstream "
                                                "choices (use_cuda, use_amp): what they guard every port needs")
    process_group_initialisers: list[str] = Field(default_factory=list, description="calls that start a process "
                                                  "group (init_process_group, deepspeed's init_distributed): a "
                                                  "project calling none never runs a collective gated on "
                                                  "is_initialized() (analyzer/context/process_groups.py)")
    process_group_frameworks: list[str] = Field(default_factory=list, description="packages that start the process "
                                                "group for the code they run (accelerate's Accelerator, lightning's "
                                                "Trainer): a project importing one may be distributed")
    switch_feature_rules: list[str] = Field(default_factory=list, description="rules whose findings are opt-in "
                                            "features for off-by-default switches (not for guards' fallbacks)")
    feature_switch_tokens: list[str] = Field(default_factory=list, description="switch-name words of opt-in "
                                             "features (xformers, flash, fp8): such a switch makes any site optional")
    flash_attn_3_packages: list[str] = Field(default_factory=list, description="FlashAttention-3 packages")
    flash_attn_2_packages: list[str] = Field(default_factory=list, description="FlashAttention-2 packages: beside "
                                             "them FA3 is an alternative")
    sdpa_calls: list[str] = Field(default_factory=list, description="PyTorch SDPA call names")
    profiler_name_tokens: list[str] = Field(default_factory=list, description="class/function-name parts of a "
                                            "profiler (NsysProfiler)")
    other_runtimes: dict[str, str] = Field(default_factory=dict, description="top-level packages of other inference "
                                           "runtimes → their names (tensorrt → TensorRT)")
    runtime_calls: dict[str, str] = Field(default_factory=dict, description="methods only another inference "
                                          "runtime's objects have (a TensorRT execution context's execute_async_v3) → "
                                          "the runtime: a block calling one drives that runtime, wherever it was "
                                          "imported (analyzer/context/runtimes.py)")
    other_framework_tools: dict[str, str] = Field(default_factory=dict, description="modules (or packages above "
                                                  "them) and programs that run on another framework, not torch, as a "
                                                  "child process → that framework (analyzer/context/child_processes.py)")
    native_programs: dict[str, str] = Field(default_factory=dict, description="words (snake case) of a class or "
                                            "function name that names a native inference program the project starts "
                                            "as a child (llama_cpp, llama_server) → that program: a CUDA mask written "
                                            "into a child environment there is that program's")
    lazy_loader_markers: list[str] = Field(default_factory=list, description="text of a package __init__.py that "
                                           "loads its submodules by name (diffusers' _LazyModule and _import_structure): "
                                           "its strings naming submodules load them")
    framework_options: list[FrameworkOption] = Field(default_factory=list, description="options of known "
                                                     "frameworks' arguments classes, with their defaults")


class RouteGap(_Record):
    """A feature of the routed library that the route lacks, as the project's Python spells a use of it: a string
    value (transformers' `optim="paged_adamw_32bit"`), a keyword argument not set to a literal false (`load_in_8bit=`),
    or a keyword given one literal value (`bnb_4bit_quant_type="fp4"`); a call into the library itself is DEP030's.
    Each use is a finding (DEP032) whose texts are the rule's variant for `facet`."""

    facet: str = Field(pattern=r"^[a-z0-9-]+$")
    strings: list[str] = Field(default_factory=list)
    keywords: list[str] = Field(default_factory=list)
    keyword_values: dict[str, str] = Field(default_factory=dict)
    source: str = Field(min_length=1, description="where the route is read to lack it: repository, commit, file")


class Route(_Record):
    """One route to Ascend for a widely used project or library (knowledge/routes/routes.toml)."""

    id: str = Field(pattern=r"^[a-z0-9-]+$")
    project: str = Field(min_length=1)
    packages: list[str] = Field(min_length=1, description="top-level packages: a project defining one IS the project")
    modules: list[str] = Field(min_length=1, description="import prefixes: a project importing one BUILDS ON it")
    status: Literal["supported", "partial", "reference", "none"]
    hours: float = Field(ge=0, description="centre hours of adopting the route once, Step 0 apart")
    confidence: Literal["high", "medium", "low"]
    source: str = Field(min_length=1, description="where the facts were read: repository, commit, files (a citation)")
    releases: BilingualText
    route: BilingualText
    note: BilingualText
    first_releases: dict[str, str] = Field(
        default_factory=dict, description="distribution -> the first release of it that carries the route (the "
        "structured form of `releases`): a pin below it needs the upgrade (DEP004 route-release)")
    covers: list[str] = Field(default_factory=list, description="the project's modules the route replaces or patches")
    lacks: list[RouteGap] = Field(default_factory=list, description="features of the library the route does not provide")


class Routes(_Record):
    route: list[Route] = Field(min_length=1)


class CudnnConventions(_Record):
    """cuDNN's own switches change only the operators cuDNN runs (analyzer/context/cudnn_ops.py)."""

    rules: list[str] = Field(min_length=1, description="rules of switches that act on cuDNN's operators alone")
    operators: list[str] = Field(min_length=1, description="qualified-name prefixes of operators cuDNN runs")
    model_libraries: list[str] = Field(min_length=1, description="import roots of libraries that build whole models, "
                                       "whose layers the project's code does not show")
    dynamic_loaders: list[str] = Field(min_length=1, description="import prefixes of what loads code by name (hydra's "
                                       "instantiate, importlib): the import graph cannot see what it builds")
    not_models: list[str] = Field(min_length=1, description="words of what such a library's import names when it "
                                  "imports no model (a tokenizer, a config, transforms, utilities)")
    switch_namespaces: list[str] = Field(default_factory=list, description="modules whose attributes are CUDA "
                                         "backend switches with no NPU meaning (cudnn.benchmark, TF32): a CUDA check "
                                         "whose body only sets them guards nothing the NPU needs")


class ContextConventions(_Record):
    """knowledge/context/conventions.toml: file roles, per-backend code and guards."""

    roles: RoleConventions
    backends: BackendConventions
    guards: GuardConventions
    versions: VersionConventions
    opt_in: OptInConventions
    cudnn: CudnnConventions


class FusedOptimizer(_Record):
    names: list[str] = Field(min_length=1)
    kernel: str = Field(pattern=r"^_fused_\w+_$")
    decoupled_kernel: str | None = Field(default=None, description="the kernel with decoupled_weight_decay=True")
    npu: str = Field(min_length=1)


class AclCall(_Record):
    acl: str = Field(pattern=r"^acl\w+$")
    note: str


class AclRuntimeTable(_Record):
    """knowledge/custom_ops/acl_runtime.toml: the CUDA runtime API of host code and its AscendCL counterpart."""

    calls: dict[str, AclCall] = Field(min_length=1)
    types: dict[str, str] = Field(min_length=1)
    includes: dict[str, str] = Field(min_length=1)
    cuda_build_macros: list[str] = Field(min_length=1, description="macros only a CUDA build defines")


class FusedOptimizers(_Record):
    """knowledge/custom_ops/fused_optimizers.toml: torch.optim's fused=True kernels and torch_npu's alternatives."""

    wrappers: list[str]
    cuda_extension: list[str] = Field(min_length=1, description="third-party fused optimizers with no Ascend build")
    npu_builder: list[str] = Field(min_length=1, description="third-party fused optimizers with an NPU path")
    apex_norms: list[str] = Field(min_length=1, description="apex normalisation layers that load a CUDA extension")
    optimizer: list[FusedOptimizer] = Field(min_length=1)

    def find(self, name: str) -> FusedOptimizer | None:
        return next((o for o in self.optimizer if name in o.names), None)


class SourcedName(_Record):
    name: str = Field(min_length=1)
    source: str = Field(min_length=1)


class ModuleName(_Record):
    name: str = Field(pattern=r"^torch\.npu\.")
    since_line: str
    source: str = Field(min_length=1)


class EnvName(_Record):
    """An environment variable torch_npu itself reads, by the first release line whose every branch reads it (empty:
    no release reads it). HCCL_* variables that CANN's HCCL library reads are not listed: no torch_npu release gates them."""

    name: str = Field(pattern=r"^[A-Z][A-Z0-9_]+$")
    since_line: str
    source: str = Field(min_length=1)


class AutocastDtype(_Record):
    """A dtype NPU autocast accepts (torch_npu.npu.get_amp_supported_dtype), by the first release line whose every
    branch lists it; on older lines `autocast(dtype=...)` of it disables NPU autocast with a warning."""

    name: str = Field(pattern=r"^torch\.[a-z0-9]+$")
    since_line: str
    source: str = Field(min_length=1)


class OperatorTable(_Record):
    """knowledge/torch_npu/ops.toml (generated) and names.toml (hand-checked facts)."""

    source: str
    line_commit: dict[str, str]
    op: dict[str, dict[str, str]] = Field(description="operator -> op-plugin line -> torch versions, e.g. '2.1-2.8,2.10'")
    aten: dict[str, dict[str, str]] = Field(
        default_factory=dict,
        description="PyTorch fused optimizer kernel (_fused_adamw_) -> op-plugin line -> torch versions that register it",
    )
    signature: dict[str, list[str]] = Field(description="operator -> its parameters on the newest line that has it")
    param_since: dict[str, dict[str, str]] = Field(description="operator -> parameter -> first line of every line with it")
    training_only: list[SourcedName] = Field(default_factory=list)
    not_operator: list[SourcedName] = Field(default_factory=list)
    module_name: list[ModuleName] = Field(default_factory=list)
    env_name: list[EnvName] = Field(default_factory=list)
    autocast_dtype: list[AutocastDtype] = Field(default_factory=list)



class DeviceFunction(_Record):
    name: str = Field(pattern=r"^[A-Za-z_][A-Za-z0-9_]*$")
    code: str = Field(min_length=1)


class DeviceModuleTemplate(_Record):
    """knowledge/port/device_module.toml: the device module `port` writes, piece by piece."""

    header: str = Field(min_length=1)
    function: list[DeviceFunction] = Field(min_length=1)


class AcceleratorPlatform(_Record):
    """A device platform other than CUDA and the NPU, by the words code spells it with."""

    name: str = Field(pattern=r"^[a-z]+$")
    vendor: str = Field(min_length=1)
    accelerator: bool = Field(default=True, description="false: the host (CPU), named beside accelerators")
    words: list[str] = Field(default_factory=list, description="lower-case words naming it in names and values")
    collectives: list[str] = Field(default_factory=list, description="its torch.distributed backend names")
    source: str = Field(min_length=1)


class EnumerationKind(_Record):
    """One shape of an enumeration of accelerators (DEV221) and what it needs for the NPU."""

    kind: Literal["choices", "availability-helpers", "backend-constants", "device-subclasses"]
    min_items: int = Field(ge=2, description="items of the enumeration that name a platform")
    min_other: int = Field(ge=1, description="distinct accelerators other than CUDA and the NPU it must name")
    requires_cuda: bool = Field(description="it must name CUDA too")
    npu_word: str = Field(min_length=1, description="the NPU's word put in place of another accelerator's")
    add: str | None = Field(default=None, description="the code to add; none: an item of the enumeration respelled")
    prefer: list[str] = Field(default_factory=list, description="platforms whose item is the NPU's model, best first")


class OwnRuntime(_Record):
    """A library whose `device` argument names its own runtime's device, not torch's (CTranslate2): transfer_to_npu
    never sees it, and the runtime has no NPU device."""

    runtime: str = Field(min_length=1)
    callees: list[str] = Field(min_length=1, description="qualified names of the calls that take the device")
    device_position: int = Field(ge=0, description="the device's index among the positional arguments")
    devices: list[str] = Field(min_length=1, description="the device names the runtime accepts")
    npu_device: str = Field(description="the device to pass on an Ascend host")
    source: str = Field(min_length=1)


class AcceleratorNames(_Record):
    """knowledge/device/accelerators.toml: the accelerator platforms code enumerates, and the enumeration shapes."""

    cuda_words: list[str] = Field(min_length=1)
    npu_words: list[str] = Field(min_length=1)
    cuda_collectives: list[str] = Field(min_length=1)
    cuda_runtime_providers: list[str] = Field(
        min_length=1, description="ONNX Runtime execution providers for NVIDIA GPUs: an arm that picks one chooses "
        "another runtime's device, not torch's")
    own_runtime: list[OwnRuntime] = Field(default_factory=list, description="libraries whose device is their own runtime's")
    platform: list[AcceleratorPlatform] = Field(min_length=2)
    enumeration: list[EnumerationKind] = Field(min_length=1)

    def kind(self, name: str) -> EnumerationKind:
        return next(k for k in self.enumeration if k.kind == name)


class FusedOptimizerKeyword(_Record):
    """Optimizers whose keyword turns on a fused step the NPU also runs."""

    keyword: str = Field(min_length=1)
    optimizers: list[str] = Field(min_length=1, description="the optimizers' class names (torch.optim)")
    sources: list[str] = Field(min_length=1)


class HalfDtypes(_Record):
    names: list[str] = Field(min_length=1, description="qualified names of half-precision dtypes the NPU computes in")
    variant_names: list[str] = Field(
        default_factory=list, description="strings naming a half-precision weight set (`revision=\"fp16\"`, "
        "`variant=\"fp16\"`): a conditional value whose CUDA arm is one only picks a precision")


class CudaFeatures(_Record):
    """knowledge/device/cuda_features.toml: what a CUDA device test may only switch on, and whether the NPU has it."""

    feature_calls: list[str] = Field(min_length=1, description="qualified calls that turn a CUDA-only feature on")
    feature_methods: list[str] = Field(default_factory=list, description="method names that turn one on")
    feature_packages: list[str] = Field(default_factory=list, description="packages with no NPU build")
    wrapper_tokens: list[str] = Field(min_length=1, description="parts of a CUDA-only feature wrapper's name")
    compile_off_calls: list[str] = Field(default_factory=list, description="qualified calls that turn compilation off")
    compile_off_tokens: list[str] = Field(default_factory=list, description="parts of such a call's plain name")
    fused_optimizers: list[FusedOptimizerKeyword] = Field(min_length=1)
    half_dtypes: HalfDtypes
    flag_defaults: dict[str, bool] = Field(
        default_factory=dict, description="backend switches and PyTorch's default value for each (assigning it asks "
        "for nothing)")


REMOVED_API_NAME = r"^torch(vision|audio)?(\.[A-Za-z_][A-Za-z0-9_]*)+$"  # torch's, or a companion package's


class RemovedTorchApi(_Record):
    """One row of knowledge/dependencies/removed_torch_apis.toml: a torch API that old code uses and a later torch
    removed (or keeps as a stub that raises)."""

    name: str = Field(pattern=REMOVED_API_NAME, description="the qualified name (torch's, or a companion's: "
                      "torchvision.transforms.functional_tensor)")
    kind: Literal["module", "function", "backend"] = Field(
        description="module: importing it (or from it) fails; function: calling it raises; backend: the call still "
        "exists but runs on a library the environment must now provide (torchaudio.load through TorchCodec from 2.9), "
        "rule DEP053")
    removed_in: str = Field(pattern=r"^\d+\.\d+$", description="the first release (major.minor) of its package "
                            "(torch, torchvision, torchaudio: the name's first part) without it (backend: the first "
                            "on the new library)")
    replacement: BilingualText
    sources: list[str] = Field(min_length=1, description="the release notes or pull request that removed it")


class RemovedApiPin(_Record):
    """A release range of a package whose own code imports a torch API that a later torch removed: installing such a
    release on that torch succeeds, importing it fails (timm < 0.4.4: `from torch._six import container_abcs`)."""

    package: str = Field(min_length=1, description="the distribution (canonical name)")
    versions: str = Field(min_length=1, description="the releases that import the API, as a specifier (`<0.4.4`)")
    fixed_in: str | None = Field(default=None, pattern=r"^\d+(\.\d+)+$",
                                 description="the first release without the import (none: no release fixes it)")
    latest: str | None = Field(default=None, pattern=r"^\d+(\.\d+)+$", description="where no release fixes it: "
                               "the newest release read, which an unpinned declaration (or a floor) installs")
    workaround: BilingualText | None = Field(default=None, description="where no release fixes it: the sourced way "
                                             "round it (a patch of the import, an install from a fixing commit)")
    api: str = Field(pattern=REMOVED_API_NAME, description="the removed API it imports")
    removed_in: str = Field(pattern=r"^\d+\.\d+$", description="the first release (major.minor) of the API's package "
                            "(the name's first part) without the API")
    where: str = Field(min_length=1, description="the package's file and line that imports it")
    sources: list[str] = Field(min_length=1, description="the package's fix and the torch change that removed the API")

    @model_validator(mode="after")
    def _fixed_or_worked_round(self) -> RemovedApiPin:
        fixed = self.fixed_in is not None and self.latest is None and self.workaround is None
        unfixed = self.fixed_in is None and self.latest is not None and self.workaround is not None
        if not (fixed or unfixed):
            raise ValueError(f"{self.package} {self.versions}: fixed_in, or latest with a workaround (not both)")
        return self


class MmcvOp(_Record):
    """One row of knowledge/dependencies/mmcv_ops.toml (generated by knowledge/generate_mmcv_ops.py): an operator of
    mmcv's ops table, the mmcv.ops names that run its kernel, and whether its Ascend column ticks it on each line."""

    row: str = Field(min_length=1, description="the operator as docs/en/understand_mmcv/ops.md names it")
    names: list[str] = Field(min_length=1, description="the mmcv.ops names (mmcv/ops/__init__.py __all__)")
    npu: dict[Literal["1.x", "2.x"], bool] = Field(min_length=1, description="an Ascend tick, per mmcv line")
    references: list[str] = Field(min_length=1)


class MmcvOps(_Record):
    op: list[MmcvOp] = Field(min_length=1)


class RemovedTorchApis(_Record):
    api: list[RemovedTorchApi] = Field(min_length=1)
    pin: list[RemovedApiPin] = Field(default_factory=list, description="package releases that import a removed API")
