"""The knowledge base: rule records, the torch.cuda API table and torch_npu's release profiles, as data.

Scanners read replacements from here; they never hard-code them.
"""

from __future__ import annotations

import functools
import re
import sys
from collections import Counter
from dataclasses import dataclass
from pathlib import Path

from ascend_feasibility.knowledge.models import (
    AcceleratorNames,
    AclRuntimeTable,
    ContextConventions,
    CudaFeatures,
    DeviceModuleTemplate,
    FusedOptimizers,
    KernelClass,
    MmcvOps,
    OperatorTable,
    PackageRecord,
    PhaseSignals,
    Release,
    RemovedTorchApis,
    Replacement,
    Routes,
    Rule,
    TorchCudaApi,
    TransferProfile,
)
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - exercised on Python 3.10 only
    import tomli as tomllib

KNOWLEDGE_DIR = Path(__file__).resolve().parent


class KnowledgeError(Exception):
    """A knowledge data file is missing, malformed or inconsistent."""


@dataclass(frozen=True)
class Target:
    """The torch_npu release whose transfer_to_npu behaviour decides what counts as automatic."""

    requested: str
    release: Release
    profile: TransferProfile
    note: str | None


@dataclass(frozen=True)
class KnowledgeBase:
    rules: dict[str, Rule]
    torch_cuda_api: dict[str, TorchCudaApi]
    releases: list[Release]
    profiles: dict[str, TransferProfile]
    default_release: str
    packages: dict[str, PackageRecord]
    not_involved: frozenset[str]
    module_to_distribution: dict[str, str]
    kernel_classes: list[KernelClass]
    effort_tiers: dict[str, tuple[float, float]]
    operators: OperatorTable

    def host_only(self, module: str) -> bool:
        """Is `module` (an import name, dots allowed) part of a package with no accelerator code (not_involved)?"""
        top = module.split(".")[0]
        return self.module_to_distribution.get(top, top.lower().replace("_", "-")) in self.not_involved

    def kernel_class(self, name: str) -> KernelClass:
        return next(c for c in self.kernel_classes if c.name == name)

    def classify_kernel(self, *names: str, body: Counter[str] | None = None, signature: str = "",
                        context: str = "") -> KernelClass:
        """The class of a kernel: its own name decides first, then the related names in the order given
        (callers, bound ops, the file's name); the catch-all when none says anything. With `body`, the tl.* calls of a
        Triton kernel, a class that says what its body computes is taken only where the body computes it (ring
        attention's `flatten_kernel`, a masked copy of the LSE, is no attention for its file's name), and where a name
        said something the body refutes, the body decides. A class found so is narrowed where a narrower class's
        tokens appear in any of the names or in `signature`, the kernel's parameter list (a GEMM over int8_t operands
        is a quantised GEMM), or in `context`, words of the kernel's module that only narrowing reads (the float8 dtypes
        it names: a dequantizer there is an FP8 one)."""
        found = self._classify_by_name(names, body)
        text = " ".join([*(name.lower() for name in names if name), signature.lower(), context.lower()])
        for kernel_class in self.kernel_classes:
            if kernel_class.narrows == found.name and any(token in text for token in kernel_class.tokens):
                return kernel_class
        return found

    def _classify_by_name(self, names: tuple[str, ...], body: Counter[str] | None) -> KernelClass:
        refuted = False
        named = [c for c in self.kernel_classes[:-1] if c.narrows is None]
        for name in names:
            text, words = (name or "").lower(), _name_words(name or "")
            for kernel_class in named:
                if any(token in text for token in kernel_class.tokens) or words & set(kernel_class.words):
                    if _computes(kernel_class, body):
                        return kernel_class
                    refuted = True
        if refuted:  # a name said what the body does not compute: the body says what it is
            shown = [c for c in named if c.body is not None]
            for kernel_class in sorted(shown, key=lambda c: not c.body):  # an empty list, any body, comes last
                if _computes(kernel_class, body):
                    return kernel_class
        return self.kernel_classes[-1]

    def package(self, name: str) -> PackageRecord | None:
        """The catalog record of a distribution, by name or by one of a record's alias patterns."""
        import fnmatch

        if name in self.packages:
            return self.packages[name]
        return next((r for r in self.packages.values() if any(fnmatch.fnmatch(name, a) for a in r.aliases)), None)

    def package_call(self, distribution: str, symbol: str) -> Replacement | None:
        """The replacement a package record gives for a call of `symbol` into it: its own call entry, else the
        package's replacement text (no code). None for a package that needs no replacement."""
        record = self.package(distribution)
        if record is None:
            return None
        entry = next((call for call in record.calls if symbol in call.names), None)
        if entry is not None:
            return entry
        if record.replacement is None:
            return None
        return Replacement(en=record.replacement.en, zh=record.replacement.zh)

    def distribution_of(self, module: str) -> str:
        """The distribution an import name comes from: the catalog's modules, its alias table, else the name."""
        from packaging.utils import canonicalize_name

        return self.module_to_distribution.get(module) or canonicalize_name(module)

    def rules_for(self, domain: str) -> list[Rule]:
        return [r for r in self.rules.values() if r.domain == domain]

    def resolve_target(self, requested: str | None) -> Target:
        """Map a torch_npu version to the known release whose behaviour applies (see README)."""
        wanted_text = requested or self.default_release
        by_version = sorted(self.releases, key=lambda r: Version(r.torch_npu))
        lines = {r.branch.split("-", 1)[1]: [] for r in by_version if "-" in r.branch}
        for r in by_version:
            if "-" in r.branch:
                lines[r.branch.split("-", 1)[1]].append(r)
        if wanted_text in lines:  # a release line (7.2.0): its newest release, the others named
            line = sorted(lines[wanted_text], key=lambda r: (Version(r.torch), Version(r.torch_npu)))
            release = line[-1]
            others = ", ".join(f"{r.torch_npu} (torch {r.torch})" for r in line[:-1])
            note = (f"release line {wanted_text}: torch_npu {release.torch_npu} (torch {release.torch}, {release.branch})"
                    + (f"; the line also has {others}" if others else ""))
            return Target(requested=release.torch_npu, release=release, profile=self.profiles[release.profile], note=note)
        try:
            wanted = Version(wanted_text)
        except InvalidVersion as exc:
            raise KnowledgeError(f"--torch-npu {wanted_text!r} is not a version (expected e.g. 2.6.0.post3) nor a release "
                                 f"line ({', '.join(sorted(lines, key=_line_order))})") from exc
        if wanted.major > 2 and wanted > Version(by_version[-1].torch_npu):  # 7.x, 26.x: not a torch_npu version
            raise KnowledgeError(f"--torch-npu {wanted_text!r} is neither a torch_npu version nor a known release line; "
                                 f"release lines: {', '.join(sorted(lines, key=_line_order))}")
        if len(wanted.release) == 2:  # `2.5`: the newest release for torch 2.5 (2.5.1.post1), not the one below 2.5.0
            same = [r for r in by_version if Version(r.torch).release[:2] == wanted.release]
            if same:
                release = max(same, key=lambda r: Version(r.torch_npu))
                note = f"torch_npu {wanted_text}: the newest release for torch {wanted_text}, {release.torch_npu} ({release.branch})"
                return Target(requested=release.torch_npu, release=release, profile=self.profiles[release.profile], note=note)
        exact = [r for r in by_version if Version(r.torch_npu) == wanted]
        if exact:
            release, note = exact[0], None
        elif wanted > Version(by_version[-1].torch_npu):
            release = max(by_version, key=lambda r: (Version(r.torch), Version(r.torch_npu)))
            note = (
                f"torch_npu {wanted_text} is newer than the compatibility table; "
                f"assuming the behaviour of {release.torch_npu} ({release.branch})"
            )
        else:
            older = [r for r in by_version if Version(r.torch_npu) <= wanted]
            release = older[-1] if older else by_version[0]
            note = f"torch_npu {wanted_text} is not in the compatibility table; assuming {release.torch_npu} ({release.branch})"
        return Target(requested=wanted_text, release=release, profile=self.profiles[release.profile], note=note)

    def cuda_api(self, qualified_name: str) -> TorchCudaApi | None:
        return self.torch_cuda_api.get(qualified_name)

    @functools.cached_property
    def _cuda_internal_names(self) -> dict[str, str]:
        return {f"{entry.defined_in}.{name.rpartition('.')[2]}": name
                for name, entry in self.torch_cuda_api.items() if entry.defined_in}

    def cuda_public_name(self, qualified_name: str) -> str:
        """The public torch.cuda name an internal module path re-exports (`torch.cuda.amp.grad_scaler.GradScaler` ->
        `torch.cuda.amp.GradScaler`); any other name as it is."""
        return self._cuda_internal_names.get(qualified_name, qualified_name)

    def cuda_internal_modules(self) -> frozenset[str]:
        """The internal modules public torch.cuda names are re-exported from (torch.cuda.amp.grad_scaler)."""
        return frozenset(name.rpartition(".")[0] for name in self._cuda_internal_names)

    def cuda_redirected(self, qualified_name: str, profile: TransferProfile) -> bool:
        """Does transfer_to_npu make this torch.cuda name the NPU one in that release?"""
        qualified_name = self.cuda_public_name(qualified_name)
        entry = self.torch_cuda_api.get(qualified_name)
        if entry is None:
            return False
        if entry.alias and profile.has(entry.alias):
            return True
        module, _, name = qualified_name.rpartition(".")
        if module == "torch.cuda":
            return name in profile.npu_all
        if module == "torch.cuda.amp":
            return name in profile.amp_all
        if module == "torch.cuda.random":
            return profile.has("feature:patch_cuda_random") and name in profile.random_all
        return False


def _name_words(name: str) -> set[str]:
    """The words of an identifier, lower-cased: `fusedRMSNorm_fwd2` -> {fused, rms, norm, fwd, 2}."""
    return {word.lower() for word in re.findall(r"[A-Z]+(?![a-z])|[A-Z]?[a-z]+|[0-9]+", name)}


def _computes(kernel_class: KernelClass, body: Counter[str] | None) -> bool:
    """Does a Triton body (its tl.* calls by name) make the calls that show the class? True where either is unknown."""
    if body is None or kernel_class.body is None:
        return True
    needed = Counter(kernel_class.body)
    return all(sum(body[name] for name in entry.split("|")) >= count for entry, count in needed.items())


def _line_order(name: str) -> tuple:
    try:
        return (0, Version(name))
    except InvalidVersion:
        return (1, name)


def _read_toml(path: Path) -> dict:
    try:
        with path.open("rb") as handle:
            return tomllib.load(handle)
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise KnowledgeError(f"{path.relative_to(KNOWLEDGE_DIR)}: {exc}") from exc


def _validate(model, data, where: str):
    try:
        return model.model_validate(data)
    except ValueError as exc:
        raise KnowledgeError(f"{where}: {exc}") from exc


@functools.lru_cache(maxsize=1)
def load_knowledge() -> KnowledgeBase:
    rules: dict[str, Rule] = {}
    for path in sorted(KNOWLEDGE_DIR.glob("*/rules*.toml")):
        for raw in _read_toml(path).get("rule", []):
            rule = _validate(Rule, raw, f"{path.name}: rule {raw.get('code', '?')}")
            if rule.code in rules:
                raise KnowledgeError(f"duplicate rule code {rule.code} in {path.name}")
            rules[rule.code] = rule
    names = [r.name for r in rules.values()]
    duplicated = {n for n in names if names.count(n) > 1}
    if duplicated:
        raise KnowledgeError(f"duplicate rule names: {sorted(duplicated)}")

    api_data = _read_toml(KNOWLEDGE_DIR / "device" / "torch_cuda_api.toml").get("api", {})
    torch_cuda_api = {name: _validate(TorchCudaApi, raw, f"torch_cuda_api.toml: {name}") for name, raw in api_data.items()}
    for name, entry in torch_cuda_api.items():
        if entry.rule not in rules:
            raise KnowledgeError(f"torch_cuda_api.toml: {name} names unknown rule {entry.rule}")

    release_data = _read_toml(KNOWLEDGE_DIR / "torch_npu" / "releases.toml")
    releases = [_validate(Release, raw, "releases.toml") for raw in release_data.get("release", [])]
    profiles = {
        name: _validate(TransferProfile, raw, f"releases.toml profile {name}")
        for name, raw in release_data.get("profile", {}).items()
    }
    for release in releases:
        if release.profile not in profiles:
            raise KnowledgeError(f"releases.toml: {release.torch_npu} names unknown profile {release.profile}")
    default = release_data.get("default_release", "")
    if not any(r.torch_npu == default for r in releases):
        raise KnowledgeError(f"releases.toml: default_release {default!r} is not a listed release")
    catalog = _read_toml(KNOWLEDGE_DIR / "dependencies" / "packages.toml")
    packages = {}
    for raw in catalog.get("package", []):
        record = _validate(PackageRecord, raw, f"packages.toml: {raw.get('name', '?')}")
        if record.name in packages:
            raise KnowledgeError(f"packages.toml: {record.name} listed twice")
        packages[record.name] = record
        unknown_carriers = sorted(set(record.carried_by) - set(rules))
        if unknown_carriers:
            raise KnowledgeError(f"packages.toml: {record.name} carried_by names unknown rules {unknown_carriers}")
    not_involved = frozenset(name for group in catalog.get("not_involved", []) for name in group.get("names", []))
    modules = dict(catalog.get("module_to_distribution", {}))
    for record in packages.values():
        for module in record.modules:
            modules.setdefault(module, record.name)
    kernels = _read_toml(KNOWLEDGE_DIR / "custom_ops" / "kernel_classes.toml")
    kernel_classes = [_validate(KernelClass, raw, f"kernel_classes.toml: {raw.get('name', '?')}") for raw in kernels.get("class", [])]
    if not kernel_classes or kernel_classes[-1].tokens or kernel_classes[-1].words:
        raise KnowledgeError("kernel_classes.toml: the last class must be the catch-all with no tokens")
    narrowing = [c for c in kernel_classes if c.narrows is not None]
    if any(c.narrows not in {k.name for k in kernel_classes if k.narrows is None} or not c.tokens for c in narrowing):
        raise KnowledgeError("kernel_classes.toml: a class that narrows another names a class found by name, and tokens")
    tiers = {name: tuple(bounds) for name, bounds in kernels.get("tiers", {}).items()}
    operators = _validate(
        OperatorTable,
        {**_read_toml(KNOWLEDGE_DIR / "torch_npu" / "ops.toml"), **_read_toml(KNOWLEDGE_DIR / "torch_npu" / "names.toml")},
        "ops.toml + names.toml",
    )
    return KnowledgeBase(
        rules, torch_cuda_api, releases, profiles, default, packages, not_involved, modules, kernel_classes, tiers, operators
    )


@functools.lru_cache(maxsize=1)
def load_phase_signals() -> PhaseSignals:
    """knowledge/phases/signals.toml, validated; its attention rules must be rules of the knowledge base."""
    signals = _validate(PhaseSignals, _read_toml(KNOWLEDGE_DIR / "phases" / "signals.toml"), "signals.toml")
    unknown = sorted(set(signals.attention_by_rule) - set(load_knowledge().rules))
    if unknown:
        raise KnowledgeError(f"signals.toml: attention_by_rule names unknown rules {unknown}")
    return signals


@functools.cache
def load_context_conventions() -> ContextConventions:
    """knowledge/context/conventions.toml, validated (read once per process)."""
    return _validate(ContextConventions, _read_toml(KNOWLEDGE_DIR / "context" / "conventions.toml"), "conventions.toml")


@functools.cache
def load_one_operator_classes() -> frozenset[str]:
    """The kernel classes whose kernels in one folder are one operator (knowledge/phases/plan.toml): the estimate
    prices them once and the custom-op findings list them once."""
    return frozenset(_plan_kernel().get("one_operator_classes", []))


@functools.cache
def load_extension_operator_classes() -> frozenset[str]:
    """The kernel classes whose kernels in one extension are one operator (knowledge/phases/plan.toml)."""
    return frozenset(_plan_kernel().get("extension_operator_classes", []))


@functools.cache
def _plan_kernel() -> dict:
    """knowledge/phases/plan.toml's kernel estimate table, parsed once for both readers above (read only)."""
    return _read_toml(KNOWLEDGE_DIR / "phases" / "plan.toml")["estimate"]["kernel"]


@functools.cache
def load_mmcv_ops() -> MmcvOps:
    """knowledge/dependencies/mmcv_ops.toml, validated: the mmcv.ops names with an Ascend kernel on each mmcv line."""
    table = _validate(MmcvOps, _read_toml(KNOWLEDGE_DIR / "dependencies" / "mmcv_ops.toml"), "mmcv_ops.toml")
    names = [name for op in table.op for name in op.names]
    if len(set(names)) != len(names):
        raise KnowledgeError("mmcv_ops.toml: a name is listed under two operators")
    return table


@functools.cache
def load_removed_torch_apis() -> RemovedTorchApis:
    """knowledge/dependencies/removed_torch_apis.toml, validated: torch APIs later torch releases removed."""
    table = _validate(RemovedTorchApis, _read_toml(KNOWLEDGE_DIR / "dependencies" / "removed_torch_apis.toml"),
                      "removed_torch_apis.toml")
    names = [api.name for api in table.api]
    if len(set(names)) != len(names):
        raise KnowledgeError("removed_torch_apis.toml: a name is listed twice")
    for pin in table.pin:
        try:
            SpecifierSet(pin.versions)
        except InvalidSpecifier as error:
            raise KnowledgeError(f"removed_torch_apis.toml: {pin.package} versions {pin.versions!r}: {error}") from error
        if pin.fixed_in is not None and Version(pin.fixed_in) in SpecifierSet(pin.versions):
            raise KnowledgeError(f"removed_torch_apis.toml: {pin.package} fixed_in {pin.fixed_in} lies in its versions")
        if pin.latest is not None and Version(pin.latest) not in SpecifierSet(pin.versions):
            raise KnowledgeError(f"removed_torch_apis.toml: {pin.package} latest {pin.latest} (unfixed) lies outside "
                                 "its versions")
    return table


@functools.cache
def load_acl_runtime() -> AclRuntimeTable:
    """knowledge/custom_ops/acl_runtime.toml, validated."""
    return _validate(AclRuntimeTable, _read_toml(KNOWLEDGE_DIR / "custom_ops" / "acl_runtime.toml"), "acl_runtime.toml")


@functools.cache
def load_fused_optimizers() -> FusedOptimizers:
    """knowledge/custom_ops/fused_optimizers.toml, validated; every kernel it names is a row of ops.toml's [aten]."""
    table = _validate(FusedOptimizers, _read_toml(KNOWLEDGE_DIR / "custom_ops" / "fused_optimizers.toml"), "fused_optimizers.toml")
    known = load_knowledge().operators.aten
    unknown = sorted({k for o in table.optimizer for k in (o.kernel, o.decoupled_kernel) if k and k not in known})
    if unknown:
        raise KnowledgeError(f"fused_optimizers.toml: kernels missing from ops.toml's [aten] table: {unknown}")
    return table


@functools.cache
def load_device_module() -> DeviceModuleTemplate:
    """knowledge/port/device_module.toml, validated; every edit's `uses` must be a piece of it."""
    template = _validate(DeviceModuleTemplate, _read_toml(KNOWLEDGE_DIR / "port" / "device_module.toml"), "device_module.toml")
    offered = {piece.name for piece in template.function}
    for rule in load_knowledge().rules.values():
        if rule.edit is None:
            continue
        needed = {use.replace("{api}", api) for use in rule.edit.uses for api in (rule.edit.apis or [""])}
        missing = sorted(needed - offered - {"DEVICE_TYPE"})
        if missing:
            raise KnowledgeError(f"device_module.toml: {rule.code} uses {missing}, which the device module does not offer")
    return template


@functools.cache
def load_routes() -> Routes:
    """knowledge/routes/routes.toml: the routes to Ascend of widely used projects, validated."""
    return _validate(Routes, _read_toml(KNOWLEDGE_DIR / "routes" / "routes.toml"), "routes.toml")


@functools.cache
def load_accelerator_names() -> AcceleratorNames:
    """knowledge/device/accelerators.toml: the accelerator platforms code enumerates beside CUDA, validated."""
    return _validate(AcceleratorNames, _read_toml(KNOWLEDGE_DIR / "device" / "accelerators.toml"), "accelerators.toml")


@functools.cache
def load_cuda_features() -> CudaFeatures:
    """knowledge/device/cuda_features.toml: what a CUDA device test may only switch on, validated."""
    return _validate(CudaFeatures, _read_toml(KNOWLEDGE_DIR / "device" / "cuda_features.toml"), "cuda_features.toml")
