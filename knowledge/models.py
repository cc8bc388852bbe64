"""Pydantic models of the knowledge base records. Every data file under knowledge/ is validated by these."""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field, model_validator

from analyzer.models import Confidence, Domain, Migration, Phase, Severity


class _Record(BaseModel):
    model_config = ConfigDict(extra="forbid", frozen=True)


class BilingualText(_Record):
    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)


class Replacement(_Record):
    en: str = Field(min_length=1)
    zh: str = Field(min_length=1)
    code: str | None = None


class Match(_Record):
    """What a rule matches. Exactly one kind is set.

    - qualified_names: resolved Python names (``torch.compile``); a trailing ``.*`` matches a namespace.
    - torch_cuda_api: the rule reports the torch.cuda names whose entry in torch_cuda_api.toml names it.
    - env_vars: environment variable names, wherever they are set or read.
    - detector: a syntactic pattern implemented by the domain scanner under that name.
    """

    qualified_names: list[str] | None = None
    torch_cuda_api: bool | None = None
    env_vars: list[str] | None = None
    detector: str | None = None

    @model_validator(mode="after")
    def _exactly_one(self) -> "Match":
        kinds = [k for k in ("qualified_names", "torch_cuda_api", "env_vars", "detector") if getattr(self, k)]
        if len(kinds) != 1:
            raise ValueError(f"a match sets exactly one kind, got {kinds or 'none'}")
        return self


class Examples(_Record):
    """Code that must be flagged (invalid) and code that must not (valid), run by the rule meta-test."""

    invalid: list[str] = Field(min_length=1)
    valid: list[str] = Field(min_length=1)
    language: Literal["python", "shell", "dockerfile", "yaml", "requirements", "cuda", "cpp", "cmake"] = "python"


class Rule(_Record):
    code: str = Field(pattern=r"^(DEP|DEV|ATT|OPS|DST|PRC|TPM)\d{3}$")
    name: str = Field(pattern=r"^[a-z0-9]+(-[a-z0-9]+)*$")
    domain: Domain
    severity: Severity = Field(description="Severity when the target torch_npu does not handle it automatically")
    auto_severity: Severity = Field(default="info", description="Severity when transfer_to_npu handles it")
    migration: Migration = Field(description="Migration kind when not handled automatically")
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


class PackageRecord(_Record):
    name: str
    aliases: list[str] = Field(default_factory=list, description="glob patterns of other distribution names it covers")
    modules: list[str] = Field(default_factory=list)
    classification: Literal["compatible", "needs_replacement", "unsupported", "not_involved"] = Field(alias="class")
    confidence: Confidence
    references: list[str] = Field(min_length=1)
    replacement: BilingualText | None = None
    note: BilingualText
    npu_aware_since: str | None = None
    import_fails: bool = Field(
        default=False,
        description="importing it fails on an Ascend host: its modules load CUDA extensions that have no Ascend build",
    )

    @model_validator(mode="after")
    def _replacement_when_needed(self) -> "PackageRecord":
        if self.classification in {"needs_replacement", "unsupported"} and self.replacement is None:
            raise ValueError(f"{self.name}: a package that needs replacement or is unsupported names its replacement")
        return self


class KernelClass(_Record):
    name: str
    tokens: list[str]
    path: Literal["fused-op", "pytorch", "triton-ascend", "ascend-c"]
    tier: Literal["low", "medium", "high"]
    references: list[str] = Field(min_length=1)
    replacement: BilingualText


class ModelFamily(_Record):
    name: str = Field(min_length=1)
    tokens: list[str] = Field(min_length=1)


class PhaseModels(_Record):
    library: list[str] = Field(min_length=1)


class PhaseSignals(_Record):
    """knowledge/phases/signals.toml: what shows a phase, and which names point to a model family."""

    names: dict[Phase, list[str]]
    methods: dict[Phase, list[str]]
    name_hints: dict[Phase, list[str]]
    models: PhaseModels
    family: list[ModelFamily] = Field(min_length=1)
    attention_by_rule: dict[str, str]
