"""The dependencies domain for the whole project: classify every declared or imported distribution with the
catalog, find what is imported but not declared, check NPU-aware minimum versions and CUDA builds, and fit
the torch requirement against torch_npu's compatibility table."""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context import ProjectContext
from ascend_feasibility.analyzer.core.findings import FindingFactory, Located, Place
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, DependencyRow, Finding, Text, TorchFit
from ascend_feasibility.analyzer.reading.discovery import REQUIREMENTS_FOLDER
from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.analyzer.reading.script_environments import GROUP_PREFIX as THROWAWAY_GROUP
from ascend_feasibility.domains.base import TargetChoice
from ascend_feasibility.domains.dependencies import installed
from ascend_feasibility.domains.dependencies.companion_caps import COMPANIONS, below, companion_caps
from ascend_feasibility.domains.dependencies.facts import DOC_SOURCE, PASSED_TO, ImportFact
from ascend_feasibility.domains.dependencies.host_markers import aarch64_counterpart
from ascend_feasibility.domains.dependencies.import_lines import failing_imports
from ascend_feasibility.domains.dependencies.mmcv_caps import MmcvCap
from ascend_feasibility.domains.dependencies.mmcv_ops import emit_op_items, mmcv_line
from ascend_feasibility.domains.dependencies.python_line import python_moves, release_note, torchless_environments
from ascend_feasibility.domains.dependencies.raised_extras import raised_extra
from ascend_feasibility.domains.dependencies.removed_torch_apis import breaking_pins, pin_advice
from ascend_feasibility.knowledge import KnowledgeBase, load_routes
from ascend_feasibility.knowledge.models import PackageRecord, Release
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version

STDLIB = frozenset(getattr(sys, "stdlib_module_names", ())) | {"__future__"}
CUDA_HINTS = ("cuda", "nvidia", "-cu1", "-gpu", "tensorrt")
CUDA_BUILD_LABELS = ("+cu", "+rocm")
RULE_BY_CLASS = {"needs_replacement": "package-needs-replacement", "unsupported": "package-unsupported"}
OTHER_HOST_ARM = "other-host-arm"  # a marker keeps the line off Linux aarch64, where another line of the file installs


@dataclass
class DependencyAnalysis:
    findings: list[Finding]
    matrix: list[DependencyRow]
    torch_fit: TorchFit


def analyze_dependencies(
    declarations: list[Declaration],
    imports: list[ImportFact],
    context: ProjectContext,
    kb: KnowledgeBase,
    factory: FindingFactory,
    has_manifest: bool,
    guarded_paths: frozenset[str] = frozenset(),
    used_through: frozenset[str] = frozenset(),
    default_path: dict[str, str] | None = None,
    cuda_parts: frozenset[str] = frozenset(),
    npu_aware_used: frozenset[str] = frozenset(),
    doc_pin: str | None = None,
    installs: frozenset[str] = frozenset(),
    nested: dict[str, Release] | None = None,
    unchosen: frozenset[str] = frozenset(),
    parts_by_path: dict[str, frozenset[str]] | None = None,
    switches_on: frozenset[str] = frozenset(),
    pythons: list[Declaration] | None = None,
    bundled: frozenset[str] = frozenset(),
    version_asserts: list[Declaration] | None = None,
    built_modules: frozenset[str] = frozenset(),
    mmcv_ops: list[tuple[str, ImportFact]] | None = None,
    mmcv_caps: list[MmcvCap] | None = None,
) -> DependencyAnalysis:
    """`has_manifest`: the project has a requirements/pyproject/setup/environment file, so an undeclared import of
    a package that may ship CUDA-only builds is worth reporting. Imports of the project's own packages are not
    dependencies. `guarded_paths`: modules the project imports only behind guards; imports made there, like imports
    in optional blocks, tests or other backends' code, make a package optional rather than required. `used_through`:
    the catalog's used_through names the project's code holds (a package another library loads for it).
    `default_path`: functions and classes a parameter's default calls (unpassed_defaults.default_path): an import
    inside one runs by default, as a plain one does. `cuda_parts`: the catalog's cuda_modules the project imports. `npu_aware_used`: the catalog's npu_aware_for names its code uses. `doc_pin`:
    the install-document torch line the target choice read (TargetChoice.doc_pin), where no manifest pins torch.
    `installs`: the requirements files the project's install commands and package manifests read, and its own
    installs (installed.py). `nested`: folder → target release of each nested project on a torch line of its own
    (analyzer/core/subprojects.py): its own torch pins are judged against that release. `unchosen`: the requirements
    files whose torch pin the target choice left out (TargetChoice.unread): they set neither the fit nor the pin.
    `parts_by_path`: path → the npu_aware_for and cuda_part_in names that file's code uses (the per-file npu_aware_used):
    an undeclared package's item stands at an import in a file that reaches its CUDA-only part. `switches_on`: the
    switches the project's configs, launchers or code turn on (switched_on.turned_on): an import in such a switch's
    arm runs. `pythons`: the project's declared Pythons (conda `python=3.8.5`), judged against the target's
    (python_line.py). `bundled`: the environment and install files of another project copied into this one
    (bundled_manifests.py): their findings stand, but they add no matrix row or declared version, and set neither
    the torch fit nor the counted torch re-pin. `version_asserts`: the code's `assert timm.__version__ == "0.3.2"`
    (version_asserts.py, by module): read by DEP052 alone, for a package no manifest or install document pins.
    `built_modules`: the top-level names of the extensions the project's own setup.py or cpp_extension.load builds
    (custom_ops' extension records): an import of one is the project's build, never an undeclared package (OPS013
    speaks for it; round 39 B2 class 1, Pointcept's `import pointgroup_ops_cuda`). `mmcv_ops`: each name a
    `from mmcv.ops import ...` brings, with its import; `mmcv_caps`: the `mmcv_maximum_version` caps of the project's
    packages (mmcv_ops.py judges each name on the mmcv line they set)."""
    parts_by_path = parts_by_path or {}
    if switches_on:
        imports = [_switched_on(fact, switches_on) for fact in imports]
    if default_path:
        imports = [_on_default_path(fact, default_path) for fact in imports]
    op_uses = [(name, _switched_on(fact, switches_on) if switches_on else fact) for name, fact in mmcv_ops or []]
    op_uses = [(name, _on_default_path(fact, default_path) if default_path else fact) for name, fact in op_uses]
    by_package: dict[str, list[Declaration]] = defaultdict(list)
    documented: dict[str, list[Declaration]] = defaultdict(list)  # pinned only in install documents' shell
    for declaration in sorted(set(declarations), key=lambda d: (d.path, d.line, d.name)):
        (documented if declaration.source == DOC_SOURCE else by_package)[declaration.name].append(declaration)
    documented = {name: sites for name, sites in documented.items() if name not in by_package}
    imported: dict[str, list[ImportFact]] = defaultdict(list)
    for fact in sorted(imports, key=lambda f: (f.path, f.cell or 0, f.line)):
        if fact.module in STDLIB or fact.module in context.local_modules:
            continue
        imported[kb.distribution_of(fact.module)].append(fact)
    imported = _under_declared_names(imported, [*by_package, *documented], kb)

    findings: list[Finding] = []
    emit = _Emitter(factory, findings, context)
    cuda_parts = cuda_parts | {fact.module for fact in imports}  # mmdet, mmseg: libraries built on a CUDA part
    broken: set[str] = set()  # packages a manifest or an install document pins to a breaking release (DEP052)
    records = {name: _classed(kb.package(name), by_package.get(name, []) or documented.get(name, []), cuda_parts)
               for name in set(by_package) | set(documented) | set(imported)}
    for name, declared in by_package.items():
        sites = _reported_sites(declared)
        record = records[name]
        if record is not None and record.classification in RULE_BY_CLASS:
            only_optional = _optional_use(imported.get(name, []), context, guarded_paths)
            items = _per_manifest(sites)
            raised = raised_extra(items, lambda s: declared_optional(s) is not None and not _development_extra(s),
                                  lambda s: s.source in ENVIRONMENT_SOURCES and declared_optional(s) is None
                                  and emit.counts(s.path),
                                  _required_site(imported.get(name, []), context, guarded_paths) is not None,
                                  emit.counts, installs)
            for site, others in items:
                place = None if site is raised else declared_optional(site) or only_optional
                if record.npu_fork and site.specifier:  # a pin of the upstream line: the fork has its own versions
                    # a pinned triton nothing imports is the pin a CUDA torch pulls in (a freeze's): a line to delete
                    unused = _unimported(name, record, imported, used_through, context.local_modules, kb)
                    emit.declaration("fork-version-pin", f"{name}{site.specifier}", site, record.npu_fork, place=place,
                                     sites=others, facets=(NOT_IMPORTED, *_stale(site, installs)) if unused else
                                     _fork_off_target(kb.package(record.npu_fork), factory.target.release.torch))
                elif record.runtime_only:  # pytorch-cuda=11.8, nvidia-cudnn-cu12: a line to delete, nothing to rebuild
                    emit.declaration("cuda-runtime-package", name, site, place=place, sites=others,
                                     facets=_stale(site, installs) + _shared_command(site, declarations))
                elif _unimported(name, record, imported, used_through, context.local_modules, kb):
                    # Open-Sora-Plan's xformers pin: nothing to replace, a line to drop (llama-recipes' bitsandbytes,
                    # which transformers' BitsAndBytesConfig loads, is in use though never imported). A record that
                    # names no module of its own (mmcv-full installs `mmcv`, the mmcv record's) cannot be told unused.
                    facets = (*_install_facets(record, [site]), *_stale(site, installs))
                    stated = site.comment if site.comment and "installs-anywhere" in facets else None
                    emit.declaration("declared-not-imported", name, site, stated, place=place, sites=others,
                                     facets=(*facets, STATED_USE) if stated else facets)
                else:
                    facets = _part_facets(record, site.specifier, npu_aware_used)
                    counterpart = aarch64_counterpart(site, [d for d in declarations if d.path == site.path]) \
                        if record.classification == "needs_replacement" else None
                    if counterpart is not None:  # GPT-SoVITS: onnxruntime-gpu on x86_64, onnxruntime on aarch64
                        emit.declaration(RULE_BY_CLASS[record.classification], name, site,
                                         f"{counterpart.name} ({counterpart.path}:{counterpart.line})", place=place,
                                         sites=others, facets=(OTHER_HOST_ARM,))
                        continue
                    pulled = _pulled_torch(record, site, factory.target.release.torch) \
                        if place is only_optional and place is not None else None
                    if pulled is not None:  # V-Express: `xformers==0.0.22` beside torch==2.0.1, every import guarded
                        emit.declaration(RULE_BY_CLASS[record.classification], name, site, pulled,
                                         sites=others, facets=(PULLS_TORCH,), effort=PULLS_TORCH_EFFORT)
                        continue
                    emit.declaration(RULE_BY_CLASS[record.classification], name, site,
                                     record.replacement_since if UPGRADE_FIRST in facets else None, place=place,
                                     sites=_with_part_sites(others, record, imported.get(name, []), parts_by_path,
                                                            facets), facets=facets)
        unused = record is not None and _unimported(name, record, imported, used_through, context.local_modules, kb)
        _emit_below_npu_aware(emit, name, record, sites, npu_aware_used, installs if unused else None)
        if _emit_breaking_pins(emit, name, sites, imported, factory.target.release.torch):
            broken.add(name)
        builds: dict[str, list[Declaration]] = defaultdict(list)  # a CUDA build per file: one edit, however many lines
        # DEP005's move (drop the label, add torch_npu) is torch's and its companions'; another package's CUDA build
        # whose route the matrix gives (xformers==0.0.25.post1+cu118: DEP001 says delete the line) has its one item there
        routed = name != "torch" and name not in COMPANIONS and record is not None \
            and record.classification in RULE_BY_CLASS
        for site in [] if routed else declared:
            if site.local_version.startswith(CUDA_BUILD_LABELS):
                builds[site.path].append(site)
        for lines in builds.values():
            move = _build_move(name, lines, by_package.get("torch", []), factory.target.release, kb)
            emit.declaration("cuda-build-pin", f"{name}{lines[0].specifier}", lines[0], move,
                             sites=[f"{s.path}:{s.line}" for s in lines] if len(lines) > 1 else None,
                             facets=("other-torch",) if move else ())
        for site in sites:
            if name == "torch-npu":
                emit.declaration("torch-npu-declared", f"{name}{site.specifier}", site)
    for name, sites in documented.items():  # a README's `pip install accelerate==0.18.0`: its version, nothing else
        _emit_below_npu_aware(emit, name, kb.package(name), sites, npu_aware_used)
        if _emit_breaking_pins(emit, name, sites, imported, factory.target.release.torch):
            broken.add(name)
    asserted: dict[str, list[Declaration]] = defaultdict(list)
    for site in sorted(version_asserts or [], key=lambda d: (d.path, d.line)):
        asserted[kb.distribution_of(site.name)].append(replace(site, name=kb.distribution_of(site.name)))
    for name, sites in asserted.items():
        if name not in broken:  # the release a script insists on, whatever a manifest or a notebook installs
            _emit_breaking_pins(emit, name, sites, imported, factory.target.release.torch, _one_item)
    has_manifest = has_manifest or bool(by_package)
    unsupported_at: set[tuple[str, str]] = set()  # (file, package) where DEP002 stands at an import: one item there
    # DEP002 per module: the unsupported packages one file imports alike (StreamDiffusion's tensorrt/utilities.py:
    # `import tensorrt as trt`, `from cuda import cudart`) are one backend to drop, one item with each import as a site
    unsupported_in_file: dict[tuple, list[tuple[int, str, ImportFact, Place | None]]] = {}
    for name, facts in imported.items():
        if name in by_package:
            continue
        record = records[name]
        if record is not None and record.classification in RULE_BY_CLASS:
            # the site shown is a plain import where there is one: llm-awq imports flash_attn inside try/except in
            # one model and plainly in four others, and the plain ones are what breaks
            # a plain import whose names the file never uses (HunyuanDiT's `import bitsandbytes as bnb` and no `bnb`
            # after it) is a line to delete, nothing to replace: it is shown only where no plain import is used
            used = _part_users_first([f for f in facts if not f.unused], record, parts_by_path)
            required = _required_site(used, context, guarded_paths)
            unused = None if required else _required_site([f for f in facts if f.unused], context, guarded_paths)
            shown = required or unused or facts[0]
            place = None if required or unused else _optional_use(facts, context, guarded_paths)
            facets = ("unused-import", *_install_facets(record, documented.get(name, []))) \
                if unused or not used else _part_facets(record, "", npu_aware_used)
            if record.classification == "unsupported":
                unsupported_at.add((shown.path, name))
                key = (shown.path, place.reach if place else None, facets)
                unsupported_in_file.setdefault(key, []).append((shown.line, name, shown, place))
                continue
            emit.import_site(RULE_BY_CLASS[record.classification], name, shown, place=place, facets=facets)
            continue
        required = [f for f in facts if not f.optional]  # optional and lazy imports may be undeclared on purpose
        # Only a package that may ship CUDA-only builds is an Ascend concern when undeclared (an undeclared torch
        # has its own rule; known packages are judged by the catalog above).
        built = any(f.module.split(".")[0] in built_modules for f in required)
        if has_manifest and required and name != "torch" and not built and _may_be_cuda_build(name, record, kb):
            emit.import_site("undeclared-import", name, required[0], required[0].module)

    for (path, _, facets), imports in sorted(unsupported_in_file.items(), key=lambda item: item[1][0][2].path):
        imports.sort(key=lambda i: (i[0], i[1]))
        _, name, shown, place = imports[0]
        emit.import_site(RULE_BY_CLASS["unsupported"], name, shown, place=place, facets=facets,
                         sites=[f"{path}:{line}" for line, *_ in imports] if len(imports) > 1 else None)
    failing = failing_imports(imported, kb)
    porting = _port_sites(failing, emit, kb)
    for name, fact in failing:
        if (fact.path, name) in unsupported_at:
            # DEP002 at this file's import already says the package has no Ascend counterpart and its feature goes;
            # DEP020's "guard the import, fall back to the NPU implementation" has none to fall back to (round 19 B2 24)
            continue
        # an optional feature's import (x-transformers' `if self.flash_pack_seq: from flash_attn import ...`) is
        # shown, uncounted: the line a port changes, though not a step every user of the project needs
        lazy = Place(reach="optional", reason=f"{fact.path}:{fact.line}: imported inside a function, class or try block, "
                     "where an optional feature loads it") if fact.optional else None
        port = porting.get(name)
        port_hours = port[1] if port is not None and port[0] is fact else None
        emit.import_site("cuda-only-import", name, fact, place=lazy, facets=(FEATURE_PORT,) if port_hours else (),
                         effort=port_hours)

    if op_uses:
        emit_op_items(emit, op_uses, mmcv_line(declarations, mmcv_caps or [], _development_extra),
                      factory.target.release.torch, lambda facts: _required_site(facts, context, guarded_paths),
                      lambda facts: _optional_use(facts, context, guarded_paths))

    torch_sites = by_package.get("torch", [])
    target = factory.target.release
    # the fit shown: a README's torch where no manifest declares one and the target follows it (choose_target)
    doc_torch = sorted({s for s in declarations if s.name == "torch" and s.source == DOC_SOURCE},
                       key=lambda s: (s.path, s.line))  # kept where a manifest's torch drops them from `documented`
    chosen_doc = [s for s in doc_torch if target.torch_npu in torch_fit([s], kb).releases]
    # the install-document line the choice read (TargetChoice.doc_pin): no manifest the choice reads declares torch,
    # so a torch line of any other manifest here (a bundled project's Dockerfile, an example's requirements) sets
    # neither the fit, nor the torch row, nor whether the project declares torch (round 30 V7, round 29 V3)
    doc_site = next((s for s in doc_torch if doc_pin == f"torch{s.specifier} ({s.path}:{s.line})"), None)
    hosted = [] if doc_site is not None else [s for s in torch_sites if s.path not in bundled]
    choosing = [s for s in hosted if s.path not in unchosen]
    primary = _primary(choosing or chosen_doc)
    fit = torch_fit(primary, kb)
    pinned = _exact_pin(choosing, primary, fit, kb)
    if pinned is not None:  # the target follows the torch the project pins inside its range (choose_target)
        pin_fit, pin_sites = pinned
        pin_note = f"{pin_fit.recommended} [{pin_sites[0].path}: torch{_version_of(pin_sites)}]"
        fit = TorchFit(declared=fit.declared, releases=fit.releases, recommended=pin_note)
    target_note = release_note(target)
    plain: dict[tuple[str, str, tuple[str, ...]], list[Declaration]] = defaultdict(list)
    for path in sorted({s.path for s in torch_sites}):
        in_file = [s for s in torch_sites if s.path == path]
        file_fit = torch_fit(in_file, kb)
        code = "torch-version-fit" if file_fit.releases else "torch-version-no-fit"
        recommended = file_fit.recommended
        own = next((release for folder, release in (nested or {}).items()
                    if PurePosixPath(path).is_relative_to(folder)), None)
        if own is not None and own.torch_npu in file_fit.releases:  # a nested project's pin, at its own target
            recommended = release_note(own)
        elif pinned is not None and path != pinned[1][0].path and set(pinned[0].releases) <= set(file_fit.releases):
            recommended = pin_note  # a range holding the pinned torch: the pin's release, not the newest one
        elif target.torch_npu in file_fit.releases:
            recommended = target_note  # the report's target, which this file admits (not the newest it admits)
        elif file_fit.releases:  # OLMo scripts/augusta/Dockerfile torch==2.5.1 beside a target of torch 2.12.0
            code = "torch-pin-off-target"
            recommended = f"{target_note}, the report's target (this pin fits only {file_fit.recommended})"
            if in_file[0].source == "requirements" and installed.unread(path, installs):
                # OmniGen requirements.txt torch==2.3.1 while `pip install -e .` reads setup.py's torch<2.5: no
                # installer reads the file, so its pin sets up no environment (info, nothing to price)
                emit.declaration(code, f"torch{in_file[0].specifier}", in_file[0], recommended,
                                 place=declared_optional(in_file[0]), facets=(UNREAD_MANIFEST,))
                continue
        caps = _file_caps([s for name in COMPANIONS for s in by_package.get(name, []) if s.path == path], file_fit,
                          target, kb)
        if caps:  # demucs: torch>=1.8.1 beside torchaudio>=0.8,<2.1, which holds torch at 2.0.x (round 25 V6)
            emit.declaration("torch-version-no-fit", f"torch{in_file[0].specifier}", in_file[0],
                             _cap_text(caps, file_fit, target, kb), facets=(COMPANION_CAP,), effort=COMPANION_CAP_EFFORT)
            continue
        if code == "torch-version-no-fit" and _unread_pin(in_file, primary, fit, target.torch_npu, installs):
            # Janus: requirements.txt torch==2.0.1, which nothing installs, beside `pip install -e .` of a pyproject
            # whose torch>=2.0.1 the target fits: a stale line to align, not the torch the project runs
            emit.declaration(code, f"torch{in_file[0].specifier}", in_file[0],
                             f"{primary[0].path}'s torch{fit.declared}, which {target_note} fits",
                             facets=(UNREAD_MANIFEST,), effort=UNREAD_EFFORT)
            continue
        if code == "torch-version-no-fit" and not primary and path in unchosen and installed.unread(path, installs):
            # seamless_communication: ggml/requirements.txt torch==2.0.1, a vendored tool's list no install of the
            # project reads, while setup.py (which `pip install .` reads) declares no torch: the target is the default
            emit.declaration(code, f"torch{in_file[0].specifier}", in_file[0],
                             f"its package manifest, which declares no torch requirement (the report's target: "
                             f"{target_note})", facets=(UNREAD_MANIFEST,), effort=UNREAD_EFFORT)
            continue
        line = _line_release(in_file, kb) if code == "torch-version-no-fit" and _prerelease(in_file) else None
        if line is not None:  # torchchat's npu-smi branch: torch=="2.7.0.dev20250310+cpu"
            emit.declaration(code, f"torch{in_file[0].specifier}", in_file[0],
                             f"torch {line.torch} (torch_npu {line.torch_npu}, CANN {line.cann})", facets=("nightly",))
            continue
        if code == "torch-version-no-fit" and _patch_apart(in_file, target.torch):
            # PixArt-alpha torch==2.1.1 against torch_npu 2.1.0.post17 (torch 2.1.0): one line, no API change
            companions = _companion_moves(path, by_package, documented, target.torch, kb)
            emit.declaration(code, f"torch{in_file[0].specifier}", in_file[0],
                             f"torch {target.torch}, for torch_npu {target.torch_npu} (CANN {target.cann})"
                             + (f"; move with it {companions}" if companions else ""),
                             facets=("patch-level", *_cuda_build(in_file[0])), effort=PATCH_LEVEL_EFFORT)
            continue
        plain[(code, recommended or _table_range(kb),
               _cuda_build(in_file[0]) if code == "torch-version-no-fit" else ())].append(in_file[0])
    repinned: Declaration | None = None  # the counted line a torch re-pin of the project is priced at
    for (code, recommended, facets), firsts in plain.items():
        # ChatTTS's `torch>=2.1.0` in setup.py and in requirements.txt (round 25 A1 14): one environment's torch, one
        # item listing both lines, where the main manifests of a folder agree on the verdict (_per_manifest)
        for site, others in _per_manifest(firsts):
            # an optional requirements file (requirements_fp8.txt beside requirements.txt) is an opt-in environment:
            # shown, uncounted, as DEP001 places its lines
            place = declared_optional(site)
            if code == "torch-version-no-fit" and place is None and emit.counts(site.path) and site.path not in bundled:
                if repinned is not None:  # one project, one torch move: a further file's line goes with it
                    emit.declaration(code, f"torch{site.specifier}", site,
                                     f"{recommended}; the same torch move as {repinned.path}:{repinned.line}, "
                                     "priced there", sites=others, facets=facets, effort=SAME_REPIN_EFFORT)
                    continue
                repinned = site
            emit.declaration(code, f"torch{site.specifier}", site, recommended, place=place, sites=others,
                             facets=facets)
    torchless = torchless_environments(declarations, lambda name: kb.package(name) is not None)
    pythons = [site for site in pythons or [] if not (site.source == "conda" and site.path in torchless)]
    for site, move, facets, others in python_moves(sorted(set(pythons), key=lambda d: (d.path, d.line)), target):
        emit.declaration("python-below-target", f"python{site.specifier}", site, move, place=declared_optional(site),
                         facets=facets, sites=others)
    if not hosted and "torch" in imported:
        site = doc_site
        if site is not None:  # the install line choose_target read (TargetChoice.doc_pin): torch is declared there
            emit.declaration("torch-not-declared", "torch", site, doc_pin,
                             facets=("install-doc",) if site in chosen_doc else ("install-doc", "off-target"))
        else:
            emit.import_site("torch-not-declared", "torch", imported["torch"][0], fit.recommended or "")

    # a package an install document names shows its version on the import's row; one the code never imports adds no
    # row (a README's `pip install flash-attn` for a demo is no dependency of the project's code)
    # ... unless a library the code imports requires it (`mim install mmcv==2.0.1` beside `import mmpose`: mmpose's own
    # requirements install mmcv, the README pins which)
    declared = {**{n: s for n, s in documented.items() if n in imported or _required_by_imported(n, imported, kb)},
                **by_package}
    if doc_site is not None:  # the torch row shows the install document the target follows, not a bundled
        # project's own install docs beside it (round 29 V3: arcface_torch/docs/install.md's 1.9/1.11) nor its manifests
        declared["torch"] = [s for s in doc_torch if s.path == doc_site.path]
    elif "torch" in by_package:  # the host's torch lines, where it has some: not a CI image's, a bundled copy's, an
        # unreached folder's (round 30 V7: detectron2's docker/Dockerfile torch==1.5+cu101 beside the host's pin)
        declared["torch"] = [s for s in by_package["torch"] if emit.counts(s.path)] or by_package["torch"]
    if bundled:  # a bundled copy's environment is the copy's: no row, no declared version of the project's
        declared = {name: kept for name, sites in declared.items() if (kept := [s for s in sites if s.path not in bundled])}
    matrix = [_row(name, declared.get(name, []), name in imported, kb, records.get(name))
              for name in sorted(set(declared) | set(imported))]
    if doc_site is not None and not fit.declared:  # the install document's pin is the project's torch, fit or not
        fit = torch_fit([doc_site], kb)
    return DependencyAnalysis(findings, matrix, fit)


def _required_by_imported(name: str, imported: dict[str, list[ImportFact]], kb) -> bool:
    """Does the code import a library whose own requirements name the package (the catalog's required_by)?"""
    record = kb.package(name)
    return record is not None and any(kb.distribution_of(module) in imported for module in record.required_by)


class _Emitter:
    def __init__(self, factory: FindingFactory, findings: list[Finding], context: ProjectContext) -> None:
        self.factory = factory
        self.context = context
        self.codes = {r.match.detector: r.code for r in factory.kb.rules.values() if r.match.detector}
        self.findings = findings
        self.occurrences: dict[tuple, int] = defaultdict(int)

    def _emit(self, located: Located, place: Place | None = None, sites: list[str] | None = None) -> None:
        file_context = self.context.of(located.path)
        reach, reason = file_context.reach, file_context.reason
        if place is not None and reach == "runs":
            reach, reason = place.reach, place.reason
        located = replace(located, rule=self.codes[located.rule], role=file_context.role, reach=reach, reach_reason=reason)
        key = (located.rule, located.path, located.symbol)
        finding = self.factory.build_located(located, self.occurrences[key])
        self.findings.append(finding.model_copy(update={"sites": sites}) if sites else finding)
        self.occurrences[key] += 1

    def declaration(self, code: str, symbol: str, site: Declaration, npu: str | None = None, place: Place | None = None,
                    sites: list[str] | None = None, facets: tuple[str, ...] = (),
                    effort: tuple[float, float] | None = None) -> None:
        snippet = site.text[:200]
        self._emit(Located(code, symbol, site.path, site.line, 1, 1 + len(snippet), snippet, site.cell, npu, facets=facets,
                           effort=effort), place, sites)

    def counts(self, path: str) -> bool:
        """Would a finding in `path` be counted (its file runs, in a counted role), with no place of its own?"""
        file_context = self.context.of(path)
        return file_context.reach == "runs" and file_context.role in COUNTED_ROLES

    def line(self, code: str, symbol: str, path: str, line: int, text: str, npu: str | None = None,
             facets: tuple[str, ...] = ()) -> None:
        """An item at a line of code that is neither an import nor a requirement (an `__init__`'s version cap)."""
        snippet = text[:200]
        self._emit(Located(code, symbol, path, line, 1, 1 + len(snippet), snippet, None, npu, facets=facets))

    def import_site(self, code: str, symbol: str, fact: ImportFact, npu: str | None = None, place: Place | None = None,
                    facets: tuple[str, ...] = (), sites: list[str] | None = None,
                    effort: tuple[float, float] | None = None) -> None:
        self._emit(Located(code, symbol, fact.path, fact.line, fact.column, fact.end_column, fact.snippet, fact.cell, npu,
                           facets=facets, effort=effort), place, sites)


def _cuda_build(site: Declaration) -> tuple[str, ...]:
    """`cuda-build` on a pin of a CUDA (or ROCm) build (torch==2.0.1+cu118): DEP012 takes DEP005's label into its move
    (rule DEP012's subsumes), so its advice names the CPU wheel index."""
    return ("cuda-build",) if site.local_version.startswith(CUDA_BUILD_LABELS) else ()


def _port_sites(failing: list[tuple[str, ImportFact]], emit: _Emitter,
                kb: KnowledgeBase) -> dict[str, tuple[ImportFact, tuple[float, float]]]:
    """Package -> (the import that carries its port, the port's hours), for the failing packages with port_hours: the
    move onto the replacement is one piece of work however many files import the package (mmdetection3d imports spconv
    in eight), so one import carries it, the first that runs in counted code where there is one; the others keep the
    guard's price."""
    sites: dict[str, tuple[ImportFact, tuple[float, float]]] = {}
    for name, fact in sorted(failing, key=lambda item: (item[1].optional or not emit.counts(item[1].path),
                                                         item[1].path, item[1].line)):
        record = kb.package(name)
        if record is not None and record.port_hours is not None and name not in sites:
            sites[name] = (fact, record.port_hours)
    return sites


NOT_IMPORTED = "not-imported"
# the package's feature moves onto its replacement (the catalogue's port_hours): more than a guarded import (DEP020)
FEATURE_PORT = "feature-port"
FORK_OFF_TARGET = "fork-off-target"


def _fork_off_target(fork: PackageRecord | None, torch: str) -> tuple[str, ...]:
    """`fork-off-target` where the report's target torch is older than the NPU fork's oldest supported line
    (triton-ascend: torch 2.6): declaring the fork asks for another torch_npu too."""
    if fork is None or fork.torch_since is None:
        return ()
    try:
        older = Version(torch).release[:2] < Version(fork.torch_since).release[:2]
    except InvalidVersion:
        return ()
    return (FORK_OFF_TARGET,) if older else ()


def _under_declared_names(imported: dict[str, list[ImportFact]], declared: list[str],
                          kb: KnowledgeBase) -> dict[str, list[ImportFact]]:
    """The imports keyed by the distribution name the project declares for their catalog record, where that is one of
    the record's aliases: `import pytorch_lightning` (the `lightning` record's module) with `pytorch-lightning` in
    requirements.txt is one dependency, one matrix row and one item, not a row for each name (round 25 B2 45, 48)."""
    moved = defaultdict(list, imported)
    for name in declared:
        record = kb.package(name)
        if record is None or name in moved:
            continue
        # mmcv-full's `import mmcv`: a distribution that installs another's modules, that one undeclared (ViTPose)
        owned = record.name if record.name != name else next(
            (other for other in record.installs_modules_of if other not in declared and other in moved), None)
        if owned is None or owned in declared or owned not in moved:
            continue
        moved[name] = moved.pop(owned)
    return moved


def _unimported(name: str, record: PackageRecord, imported, used_through: frozenset[str],
                local_modules: frozenset[str], kb: KnowledgeBase) -> bool:
    """A declared package no file of the project uses: none of its modules, nor of the distributions whose modules it
    installs (pynvml: nvidia-ml-py's `pynvml`), is imported, no library the code imports loads it (required_by:
    insightface imports onnxruntime, which onnxruntime-gpu installs), and none of its used_through names is in the
    code. A record that names no module, its own or another's, cannot be told unused."""
    if not record.modules and not record.installs_modules_of:
        return False
    return not {name, record.name, *record.installs_modules_of} & imported.keys() \
        and not any(kb.distribution_of(module) in imported for module in record.required_by) \
        and not _used_through(record, used_through, local_modules)


def _used_through(record: PackageRecord, found: frozenset[str], local_modules: frozenset[str]) -> bool:
    """Does the project's code hold one of the record's used_through names as a use of the package? A name passed to
    a call into another library (`load_in_8bit@optimum`: facts.PASSED_TO) counts only where that library is one
    the record says loads the package for it (used_through_by), or the project's own module."""
    for entry in found:
        name, _, callee = entry.partition(PASSED_TO)
        if name in record.used_through and (not callee or not record.used_through_by
                                            or callee in record.used_through_by or callee in local_modules):
            return True
    return False


CUDA_PART_UNREACHED = "cuda-part-unreached"
UPGRADE_FIRST = "upgrade-first"


def _part_facets(record: PackageRecord, specifier: str, used: frozenset[str]) -> tuple[str, ...]:
    """A package kept on Ascend whose one CUDA-only part is reached only through some of its names (cuda_part_in:
    Lightning's Trainer, Fabric, CLI): a project whose code uses none of them (VideoCrafter: LightningModule as a base
    class, seed_everything) has nothing of it to port (`cuda-part-unreached`). One that does, at a declaration below
    the release the replacement's API starts in (replacement_since: taming-transformers' pytorch-lightning==1.0.8
    Trainer), must upgrade the package first (`upgrade-first`)."""
    if record.cuda_part_in and not any(u == n or u.startswith(n + ".") for u in used for n in record.cuda_part_in):
        return (CUDA_PART_UNREACHED,)
    if record.replacement_since and specifier and below(specifier, record.replacement_since):
        return (UPGRADE_FIRST,)
    return ()


def upgrading_sites(declarations: list[Declaration], kb: KnowledgeBase) -> frozenset[tuple[str, int]]:
    """The path and line of each declaration below its package's replacement_since (the `upgrade-first` ones)."""
    found = set()
    for site in declarations:
        record = kb.package(site.name)
        if record is not None and record.replacement_since and site.specifier \
                and below(site.specifier, record.replacement_since):
            found.add((site.path, site.line))
    return frozenset(found)


def _install_facets(record: PackageRecord, sites: list[Declaration]) -> tuple[str, ...]:
    """A package that installs on any host (gpustat, pynvml: pure Python over NVML, which fails only when called;
    lightning: pure Python; bitsandbytes from 0.46.0: wheels for Linux x86_64 and aarch64): a line nobody uses is no
    install failure on Ascend, only a line to drop. Where that holds from a release on (install_since), every line
    must admit a release from it on (pip takes the newest a line admits): `bitsandbytes==0.41.0` is left as it is."""
    if record.install != "anywhere":
        return ()
    if record.install_since and any(below(site.specifier, record.install_since) for site in sites):
        return ()
    return ("installs-anywhere",)


# the line's own comment says what it is for (`pytorch-lightning==2.2.1 # only for loading pretrained sd weight`):
# an unpickled checkpoint may need a package no file imports, so DEP015's "delete for hygiene" defers to it
STATED_USE = "stated-use"
UNREAD_EFFORT = (0.1, 0.5)  # aligning or deleting one line of a file nothing installs
UNREAD_MANIFEST = "unread-manifest"


def _stale(site: Declaration, installs: frozenset[str]) -> tuple[str, ...]:
    """`unread-manifest` for a line of a requirements file that no install command or package manifest reads while
    the project installs itself (a `pip freeze` record beside `pip install -e .`: installed.unread)."""
    return (UNREAD_MANIFEST,) if site.source == "requirements" and installed.unread(site.path, installs) else ()
SHARED_COMMAND = "shared-command"
INSTALL_COMMANDS = ("pip-install", "conda-install", DOC_SOURCE)  # declarations read from an install command's words


def _shared_command(site: Declaration, declarations: list[Declaration]) -> tuple[str, ...]:
    """`shared-command` for a package of a shell/Dockerfile install command that installs other packages too
    (`conda install pytorch torchvision torchaudio pytorch-cuda=12.1 -c pytorch -c nvidia`; round 26 B2 C8 row 28):
    deleting the line would drop those, so the advice is to drop this package's word only."""
    if site.source not in INSTALL_COMMANDS:
        return ()
    same = [d for d in declarations if d.path == site.path and d.line == site.line and d.name != site.name]
    return (SHARED_COMMAND,) if same else ()


PACKAGE_MANIFESTS = ("pyproject", "setup.py", "setup.cfg")  # what `pip install .` reads


def _unread_pin(sites: list[Declaration], primary: list[Declaration], fit: TorchFit, target: str,
                installs: frozenset[str]) -> bool:
    """The torch pin of a requirements file that no install command or package manifest reads, while the project
    installs itself (`pip install -e .`) from the package manifest that governs the target, whose requirement fits it."""
    return bool(primary) and sites[0].source == "requirements" and primary[0].path != sites[0].path \
        and primary[0].source in PACKAGE_MANIFESTS and target in fit.releases and installed.unread(sites[0].path, installs)


PULLS_TORCH = "pulls-torch"
PULLS_TORCH_EFFORT = (0.1, 0.5)  # one manifest line to delete


def _pulled_torch(record, site: Declaration, target_torch: str) -> str | None:
    """The torch an exact pin of a package whose every release requires one exact torch (the catalog's pins_torch)
    installs: `torch==2.0.1` for xformers==0.0.22, "one exact torch version" for a release the catalog does not map.
    None where the line is no exact pin, the package is not such a one, or the pin's torch is the target's."""
    pinned = _version_of([site])
    if record is None or not record.pins_torch or pinned is None:
        return None
    torch = record.pins_torch.get(pinned.lstrip("="))
    if torch is None:
        return "one exact torch version"
    return None if torch == target_torch else f"torch=={torch}"


SAME_REPIN_EFFORT = (0.1, 0.5)  # a further file's torch line, moved with the re-pin priced at the first one
PATCH_LEVEL_EFFORT = (0.25, 1.0)  # a one-line pin change (and its companions' lines), no API change to re-validate


def _patch_apart(sites: list[Declaration], torch: str) -> bool:
    """The lines pin one released torch version exactly, in the target torch's major.minor line, another patch."""
    pinned = _version_of(sites)
    try:
        version, target = Version(pinned.lstrip("=")), Version(torch)
    except (AttributeError, InvalidVersion):
        return False
    return not version.is_prerelease and version.release[:2] == target.release[:2] and version != target


def _build_move(name: str, lines: list[Declaration], torch_sites: list[Declaration], target, kb: KnowledgeBase) -> str | None:
    """The target pair a CUDA build pin has to move to, where dropping its label is not enough: the torch it pins, or
    the torch its companion release is built for (the same file's exact torch pin, else the record's torch_pairs
    read backwards: torchvision 0.15 is built for torch 2.0), is not the target's torch. None where that torch is
    the target's, or unknown."""
    pinned = _version_of(lines)
    if pinned is None or (name != "torch" and name not in COMPANIONS):
        return None
    paired = pinned.lstrip("=") if name == "torch" else _paired_torch(name, pinned.lstrip("="), [
        s for s in torch_sites if s.path == lines[0].path], kb)
    try:
        if paired is None or Version(paired).release == Version(target.torch).release[:len(Version(paired).release)]:
            return None  # the target's torch, or its line where only the line is known
    except InvalidVersion:
        return None
    pair = f"torch=={target.torch}, torch_npu {target.torch_npu} (CANN {target.cann})"
    if name == "torch":
        return pair
    return f"{_companion_release(name, target.torch, kb)} with {pair} (this release is built for torch {paired})"


COMPANION_CAP = "companion-cap"
COMPANION_CAP_EFFORT = (0.5, 4.0)  # the companion's pin and torch's move together; the companion's API changes re-checked


def _file_caps(companions: list[Declaration], file_fit: TorchFit, target, kb: KnowledgeBase) -> list:
    """The companion pins of a file that hold its torch below what its torch requirement admits: below the report's
    target where the requirement admits it, else below every release it admits (a pin off the target, diffusers'
    Dockerfile torch==2.10.0 with torchvision==0.25.0, moves with its torch: DEP016 says so, no cap)."""
    if not file_fit.releases or not companions:
        return []
    if target.torch_npu in file_fit.releases:
        return companion_caps(companions, target.torch, kb)
    oldest = min((r for r in kb.releases if r.torch_npu in file_fit.releases), key=lambda r: Version(r.torch))
    return companion_caps(companions, oldest.torch, kb)


def _cap_text(caps, file_fit: TorchFit, target, kb: KnowledgeBase) -> str:
    """`torchaudio>=0.8,<2.1 (requirements.txt:16) holds torch at 2.0.1 or older, below torch_npu's first release ...:
    lift it to torchaudio==..., built for torch 2.12.0 (torch_npu 2.12.0, the report's target)`."""
    fitting = [r for r in kb.releases if r.torch_npu in file_fit.releases]
    first = min(fitting, key=lambda r: (Version(r.torch), Version(r.torch_npu)))
    every = bool(companion_caps([cap.site for cap in caps], first.torch, kb))
    where = (f"below torch_npu's first release the torch requirement admits (torch_npu {first.torch_npu}, built for "
             f"torch {first.torch})" if every else f"below the report's target (torch {target.torch})")
    pins = "; ".join(f"{cap.site.name}{cap.site.specifier} ({cap.site.path}:{cap.site.line}) {cap.holds()}, {where}"
                     for cap in caps)
    moves = ", ".join(_companion_release(cap.site.name, target.torch, kb) for cap in caps)
    names = " and ".join(sorted({cap.site.name for cap in caps}))
    return (f"{pins} (each {names} release is built for one torch). Lift the cap to {moves}, with torch {target.torch} "
            f"for torch_npu {target.torch_npu} (CANN {target.cann}), the report's target")


def _paired_torch(name: str, version: str, torch_sites: list[Declaration], kb: KnowledgeBase) -> str | None:
    """The torch a companion release goes with: the file's own exact torch pin, else its torch_pairs entry."""
    pinned = _version_of(torch_sites) if torch_sites else None
    if pinned is not None:
        return pinned.lstrip("=")
    record = kb.package(name)
    try:
        own = Version(version)
    except InvalidVersion:
        return None
    for torch, release in (record.torch_pairs.items() if record is not None else []):
        paired = Version(release)
        if paired.release == own.release[:len(paired.release)]:
            return torch
    return None


def _companion_release(name: str, torch: str, kb: KnowledgeBase) -> str:
    """`torchvision==0.16.0`, `the 0.16 release of torchvision`, or `the torchvision release`, built for `torch`."""
    record = kb.package(name)
    pairs = record.torch_pairs if record is not None else {}
    pair, line_pair = pairs.get(torch), pairs.get(".".join(torch.split(".")[:2]))
    if pair is not None or (line_pair is not None and line_pair.count(".") == 2):
        return f"{name}=={pair or line_pair}"
    if line_pair is not None:
        return f"the {line_pair} release of {name} built for torch {torch}"
    return f"the {name} release built for torch {torch}"


def _companion_moves(path: str, declared: dict[str, list[Declaration]], documented: dict[str, list[Declaration]],
                     torch: str, kb: KnowledgeBase) -> str:
    """`torchvision==0.16.1 (requirements.txt:2) to the 0.16 release built for torch 2.1.0, ...`: the companion pins
    of the same file and of the install documents, each with the release its record pairs with the target torch."""
    moves = []
    for name in COMPANIONS:
        sites = [s for s in [*declared.get(name, []), *documented.get(name, [])]
                 if s.specifier and (s.path == path or s.source == DOC_SOURCE)]
        if kb.package(name) is None or not sites:
            continue
        where = ", ".join(f"{s.path}:{s.line}" for s in sites[:3])
        moves.append(f"{name}{sites[0].specifier} ({where}) to {_companion_release(name, torch, kb)}")
    return ", ".join(moves)


# mminstall: OpenMMLab's requirements/mminstall.txt, what `mim install` of the package (setup.py's `mim` extra) and
# the README's `mim install mmcv-full` install, and the mmcv range its __init__ asserts on import (round 40 V-1)
MAIN_REQUIREMENTS = {"", "base", "main", "core", "common", "prod", "runtime", "install", "mminstall"}
# the optional groups that set up the developers' tools, not what the project runs: their torch chooses no target
DEVELOPMENT_GROUPS = {"dev", "devel", "develop", "development", "test", "tests", "testing", "doc", "docs",
                      "documentation", "readthedocs", "rtd", "sphinx", "lint", "linting", "style", "quality", "typing",
                      "ci"}


def _development_group(site: Declaration) -> bool:
    """A declaration in a development extra or group (nerfstudio's pyproject `dev = [..., "torch==2.7.1"]` beside its
    runtime `torch>=1.13.1`, round 22 verdicts V1): the tools the developers pin, not the torch a user installs."""
    return site.group.lower().replace("_", "-").split("-")[0] in DEVELOPMENT_GROUPS


def _classed(record, sites: list[Declaration], cuda_parts: frozenset[str]):
    """The record as it applies to this project: the class of the release range every declaration falls in (mmcv
    1.x, the lite package), else compatible where the project imports none of the package's CUDA modules, nor a
    library built on them (`cuda_parts`: the dotted CUDA modules and the top-level modules the project imports)."""
    if record is None:
        return None
    for versions in record.versions:
        if sites and all(_within(site.specifier, versions.specifier) for site in sites):
            return record.model_copy(update={"classification": versions.classification, "note": versions.note,
                                             "references": [*record.references, versions.reference]})
    if record.cuda_modules and record.classification in RULE_BY_CLASS \
            and not cuda_parts & {*record.cuda_modules, *record.cuda_modules_through}:
        return record.model_copy(update={"classification": "compatible", "note": record.without_cuda_modules})
    return record


def _admits_unfixed_latest(specifier: str, latest: str | None) -> bool:
    """Does the declaration admit `latest`, the newest release of a package no release of which fixes a removed
    import (basicsr 1.4.2)? pip installs it for an unpinned name or a floor (`basicsr>=1.4.2`)."""
    if latest is None:
        return False
    try:
        return SpecifierSet(re.sub(r"\+[A-Za-z0-9.]+", "", specifier)).contains(Version(latest), prereleases=True)
    except (InvalidSpecifier, InvalidVersion):
        return False


def _within(specifier: str, bounds: str) -> bool:
    """Does every release the declaration admits lie in `bounds`? Known for an exact pin (`==1.7.0`, `==1.7.*`) and,
    where the bounds only cap releases from above (`<2.0.0rc0`), for an upper bound (`<1.8`, `<=1.7.2`, `~=1.6`);
    anything else (no specifier, a floor only) admits the newest release, which the record's own class covers."""
    try:
        items, limits = list(SpecifierSet(re.sub(r"\+[A-Za-z0-9.]+", "", specifier))), list(SpecifierSet(bounds))
    except InvalidSpecifier:
        return False
    for item in items:
        if item.operator in {"==", "==="}:
            try:
                version = Version(item.version.replace(".*", ""))
            except InvalidVersion:
                return False
            return all(limit.contains(version, prereleases=True) for limit in limits)
    if not limits or any(limit.operator not in {"<", "<="} for limit in limits):
        return False
    for item in items:
        try:
            version = Version(item.version)
        except InvalidVersion:
            continue
        if item.operator == "~=":  # ~=1.6 admits up to (not including) 2.0: below the next release of its parent
            parts = version.release[:-1] or version.release
            item_cap, inclusive = Version(".".join(map(str, [*parts[:-1], parts[-1] + 1]))), False
        elif item.operator in {"<", "<="}:
            item_cap, inclusive = version, item.operator == "<="
        else:
            continue
        if all((limit.contains(item_cap, prereleases=True) if inclusive else
                Version(limit.version) >= item_cap or limit.contains(item_cap, prereleases=True)) for limit in limits):
            return True
    return False


def _emit_below_npu_aware(emit: _Emitter, name: str, record, sites: list[Declaration],
                          used: frozenset[str] = frozenset(), unused_installs: frozenset[str] | None = None) -> None:
    """DEP004: one finding per manifest or document for pins older than the first NPU-aware release. Where the
    record names the parts that release makes NPU-aware (npu_aware_for) and the project's code (`used`) touches none
    of them, the older release runs as it is: BLIP pins transformers==4.15.0 for its BERT classes and tokenizer.
    `unused_installs`: the project's installs (installed.py) where nothing imports the package: its pin in a
    requirements file no install reads is a stale line (seamless_communication's ggml/requirements.txt
    accelerate==0.19.0)."""
    if record is None:
        return
    since = record.npu_aware_since or route_first_release(record.name)
    if not since:
        return
    facets = ("older-releases-run",) if record.older_releases_run else ()
    if record.npu_aware_for and not any(u == n or u.startswith(n + ".") for u in used for n in record.npu_aware_for):
        facets = ("npu-aware-unused",)
    if not record.npu_aware_since:
        facets = (ROUTE_RELEASE,)
    older = [site for site in sites if below(site.specifier, since)]
    for site, others in _per_manifest(older):
        stale = _stale(site, unused_installs) if unused_installs is not None else ()
        emit.declaration("below-npu-aware-version", f"{name}{site.specifier}", site, since,
                         place=declared_optional(site), sites=others,
                         facets=(*facets, *stale) if ROUTE_RELEASE in facets else facets or stale)


def _emit_breaking_pins(emit: _Emitter, name: str, sites: list[Declaration], imported: dict[str, list[ImportFact]],
                        torch: str, grouped: Grouping | None = None) -> bool:
    """DEP052: one finding per manifest or document (`grouped`: how the sites make findings) for pins whose every
    release imports a torch API the target's torch removed (timm==0.3.2 imports torch._six). An install document's
    `pip install timm==0.3.2` (ConvNeXt's INSTALL.md, round 34 V1-4) is where the user's environment comes from, as
    DEP013 and DEP004 read it: the same finding, at the same severity, as a manifest's pin. Whether one was emitted."""
    emitted = False
    for pin in breaking_pins(name, torch):
        for site, others in _extras_folded((grouped or _per_manifest)(
                [s for s in sites if _within(s.specifier, pin.versions)
                 or _admits_unfixed_latest(s.specifier, pin.latest)])):
            emit.declaration("pin-imports-removed-torch-api", f"{name}{site.specifier}", site, pin_advice(pin),
                             place=declared_optional(site) or _fetch_fallback_only(imported.get(name, [])), sites=others,
                             facets=() if name in imported else (NOT_IMPORTED,))
            emitted = True
    return emitted


Grouping = Callable[[list[Declaration]], list[tuple[Declaration, list[str] | None]]]


def _one_item(sites: list[Declaration]) -> list[tuple[Declaration, list[str] | None]]:
    """The code's version asserts of one package, one per script (mae's three main_*.py), make one pin to move: one
    finding at the first, listing every assert."""
    if not sites:
        return []
    return [(sites[0], [f"{s.path}:{s.line}" for s in sites] if len(sites) > 1 else None)]


ROUTE_RELEASE = "route-release"


def route_first_release(package: str) -> str | None:
    """The first release of `package` that carries its route to Ascend (routes.toml first_releases: DeepSpeed's NPU
    accelerator from 0.10.0), where the catalog names no npu_aware_since of its own: a pin below it (tortoise-tts'
    deepspeed==0.8.3) is not on the route, whatever the package's class says."""
    return next((r.first_releases[package] for r in load_routes().route if package in r.first_releases), None)


def _reported_sites(sites: list[Declaration]) -> list[Declaration]:
    """Where a package's findings go: its declarations in the manifests people write. A resolver's export of them
    (`uv export`, pip-compile: the same package again, one line per platform) adds no work of its own; a package only
    the export names (pulled in by another) is reported there once per file, at its first line."""
    written = [s for s in sites if not s.exported]
    if written:
        return written
    first: dict[str, Declaration] = {}
    for site in sites:
        first.setdefault(site.path, site)
    return list(first.values())


ENVIRONMENT_SOURCES = ("pyproject", "setup.py", "setup.cfg", "requirements", "conda")  # in the order one is shown


def _per_manifest(sites: list[Declaration]) -> list[tuple[Declaration, list[str] | None]]:
    """One finding per package per manifest: `lightning==2.1.2` and `lightning[app]` in one requirements file are one
    dependency to change. The main manifests of one folder (requirements.txt, environment.yml, pyproject.toml,
    setup.py: PixArt-alpha's requirements.txt and its conda environment.yml) are alternative ways to set up the same
    environment, so a package they both name is one dependency too; an extra, a requirements-<extra>.txt, a Dockerfile
    or a script installs something else and keeps its own finding. The finding stands at the first line outside an
    optional group (else the first line) of the manifest shown first (pyproject, setup, requirements, conda), and lists
    every line as its sites."""
    by_environment: dict[str, list[Declaration]] = defaultdict(list)
    for site in sites:
        main = site.source in ENVIRONMENT_SOURCES and declared_optional(site) is None
        folder = site.path.rsplit("/", 1)[0] if "/" in site.path else ""
        by_environment[f"{folder}/" if main else site.path].append(site)
    grouped = []
    for lines in by_environment.values():
        first = min(lines, key=lambda s: (ENVIRONMENT_SOURCES.index(s.source) if s.source in ENVIRONMENT_SOURCES
                                          else len(ENVIRONMENT_SOURCES), s.path))
        in_first = [s for s in lines if s.path == first.path]
        primary = next((s for s in in_first if declared_optional(s) is None), in_first[0])
        grouped.append((primary, [f"{s.path}:{s.line}" for s in lines] if len(lines) > 1 else None))
    return grouped


def _extras_folded(grouped: list[tuple[Declaration, list[str] | None]]) -> list[tuple[Declaration, list[str] | None]]:
    """`_per_manifest`'s items with an optional manifest's line (requirements3d.txt, the opt-in 3D environment)
    folded into the main manifest's item for the same pin (`basicsr==1.4.2` in requirements.txt too): one edit to
    decide, with both lines as sites (round 27 A1 W4, B2 C11). An optional line with no main twin keeps its own item,
    placed optional by the caller."""
    main = {primary.specifier: index for index, (primary, _) in enumerate(grouped) if declared_optional(primary) is None}
    folded: dict[int, list[str]] = {}
    kept = []
    for index, (primary, others) in enumerate(grouped):
        twin = main.get(primary.specifier) if declared_optional(primary) is not None else None
        if twin is None:
            kept.append(index)
            continue
        folded.setdefault(twin, []).extend(others or [f"{primary.path}:{primary.line}"])
    result = []
    for index in kept:
        primary, others = grouped[index]
        if index in folded:
            others = [*(others or [f"{primary.path}:{primary.line}"]), *folded[index]]
        result.append((primary, others))
    return result


def _development_extra(site: Declaration) -> bool:
    """A development group's declaration, or a line of a development requirements file (requirements/docs.txt,
    requirements/readthedocs.txt, requirements-tests.txt): never the one extras line a plain import raises."""
    return _development_group(site) or _requirements_extra(site).replace("_", "-").split("-")[0] in DEVELOPMENT_GROUPS


def _requirements_extra(site: Declaration) -> str:
    """The extra a requirements file's name declares (`tests` for requirements/tests.txt or requirements-tests.txt),
    "" for a main one or another source."""
    at = PurePosixPath(site.path.lower())
    stem = at.stem
    in_folder = at.parent.name == REQUIREMENTS_FOLDER  # requirements/tests.txt beside requirements/runtime.txt
    if site.source != "requirements" or not (stem.startswith("requirements") or in_folder):
        return ""
    return stem if in_folder and not stem.startswith("requirements") else stem[len("requirements"):].strip("-_.")


def declared_optional(site: Declaration) -> Place | None:
    """An extra (pyproject optional-dependencies, setup.py extras_require, a requirements-<extra>.txt file), or an
    install into an environment a script makes for its own tool and removes (script_environments.py)."""
    if site.group.startswith(THROWAWAY_GROUP):
        return Place(reach="optional", reason=f"{site.path}:{site.line}: installed into the conda environment "
                     f"{site.group.removeprefix(THROWAWAY_GROUP)!r} that the script creates for its own tool and removes "
                     "afterwards, not the environment the project runs in")
    if site.group != "main":
        return Place(reach="optional", reason=f"{site.path}:{site.line}: declared in the optional group {site.group!r}")
    extra = _requirements_extra(site)
    if extra and extra not in MAIN_REQUIREMENTS:
        return Place(reach="optional", reason=f"{site.path}: an optional requirements file ({extra})")
    return None


def _with_part_sites(others: list[str] | None, record: PackageRecord, facts: list[ImportFact],
                     parts_by_path: dict[str, frozenset[str]], facets: tuple[str, ...]) -> list[str] | None:
    """A declaration's sites (its other manifests' lines), and for a package whose CUDA-only part is reached through
    some of its names (cuda_part_in: Lightning's Trainer, Fabric, CLI) the first import of each file whose code uses
    one: the item's work (the accelerator, below replacement_since the 1.x -> 2.x Trainer port) is in those files, so
    it belongs to their phases (domains/phases/plan.py _code_site_phases), not to every phase the manifest serves:
    an inference script that only subclasses LightningModule or calls seed_everything builds no Trainer."""
    if not record.cuda_part_in or CUDA_PART_UNREACHED in facets:
        return others
    reaching = [f for f in facts if _reaches(f, record, parts_by_path)]
    firsts = {}
    for fact in reaching:
        firsts.setdefault(fact.path, fact)
    found = [f"{f.path}:{f.line}" for f in firsts.values()]
    return [*(others or []), *found] or others


def _reaches(fact: ImportFact, record: PackageRecord, parts_by_path: dict[str, frozenset[str]]) -> bool:
    """Does the import's file use one of the names through which the record's CUDA-only part is reached?"""
    return any(u == n or u.startswith(n + ".") for u in parts_by_path.get(fact.path, ()) for n in record.cuda_part_in)


def _part_users_first(facts: list[ImportFact], record: PackageRecord,
                      parts_by_path: dict[str, frozenset[str]]) -> list[ImportFact]:
    """The imports of a package whose CUDA-only part is reached through some of its names (cuda_part_in), those in files
    that use one first: Lightning's item stands at train.py's `from pytorch_lightning import Trainer`, not at the first
    import in file order, a device-neutral `seed_everything` or LightningDataModule (round 25 B2 45, 48)."""
    if not record.cuda_part_in:
        return facts
    return sorted(facts, key=lambda fact: not _reaches(fact, record, parts_by_path))


def _on_default_path(fact: ImportFact, default_path: dict[str, str]) -> ImportFact:
    """An import inside a function or class that a parameter's default calls is no optional feature's: it runs."""
    if not fact.optional or fact.caught or fact.holder not in default_path:
        return fact
    return replace(fact, optional=False)


def _switched_on(fact: ImportFact, switches_on: frozenset[str]) -> ImportFact:
    """An import in the arm of a switch the project turns on (`if cfg.solver.use_8bit_adam:` while every shipped
    stage config sets `use_8bit_adam: True`; switched_on.turned_on) is no optional feature's: it runs (round 30 B5)."""
    if not fact.optional or fact.caught or not fact.switch or fact.switch not in switches_on:
        return fact
    return replace(fact, optional=False)


def _optional_use(facts: list[ImportFact], context: ProjectContext, guarded_paths: frozenset[str]) -> Place | None:
    """Imported, but nowhere plainly in product code that runs on Ascend: in try blocks or functions, behind guards,
    in tests, examples or other backends' code."""
    if not facts or _required_site(facts, context, guarded_paths) is not None:
        return None
    where = ", ".join(sorted({f.path for f in facts})[:3])
    return Place(reach="optional", reason=f"imported only in optional, guarded, test or other backends' code: {where}")


def _fetch_fallback_only(facts: list[ImportFact]) -> Place | None:
    """Every import of the package sits in the arm of `if not os.path.exists(path):`: it loads only to download a
    file that is missing, which the user can place by hand (domains/dependencies/facts.py fetched_only)."""
    if not facts or not all(f.fetch_fallback for f in facts):
        return None
    first = min(facts, key=lambda f: (f.path, f.line))
    return Place(reach="optional", reason=f"{first.path}:{first.line}: imported only where a file is missing, to "
                 "download it; with the file placed by hand it is never imported")


def _required_site(facts: list[ImportFact], context: ProjectContext, guarded_paths: frozenset[str]) -> ImportFact | None:
    """The first import of the package that runs plainly in product code on Ascend (no try, function or guard)."""
    for fact in facts:
        file_context = context.of(fact.path)
        plain = not fact.optional and fact.path not in guarded_paths
        if plain and file_context.reach == "runs" and file_context.role in COUNTED_ROLES:
            return fact
    return None


def _may_be_cuda_build(name: str, record, kb: KnowledgeBase) -> bool:
    return record is None and name not in kb.not_involved and any(token in name for token in CUDA_HINTS)


SOURCE_PRIORITY = ("pyproject", "setup.py", "setup.cfg", "requirements", "conda", "pip-install", "conda-install")


def _primary(sites: list[Declaration]) -> list[Declaration]:
    """The torch declarations of the project's main manifest, since different Dockerfiles, examples or scripts may pin
    different versions: the manifest nearest the root (a nested package's pyproject is not the project's), then
    pyproject before setup before requirements, then `requirements.txt` before its variants (`-dev`, `-readthedocs`)."""
    if not sites:
        return []
    best = min(sites, key=_manifest_rank)
    return [s for s in sites if s.path == best.path]


def _manifest_rank(site: Declaration) -> tuple:
    path = PurePosixPath(site.path)
    source = SOURCE_PRIORITY.index(site.source) if site.source in SOURCE_PRIORITY else len(SOURCE_PRIORITY)
    variant = site.source == "requirements" and path.stem.lower() != "requirements"
    return (len(path.parts), source, variant, site.path)


def torch_fit(sites: list[Declaration], kb: KnowledgeBase) -> TorchFit:
    declared = ",".join(sorted({s.specifier for s in sites if s.specifier}))
    try:  # a +cu121 label names a build, not a version: the version is what has to fit
        specifier = SpecifierSet(re.sub(r"\+[A-Za-z0-9.]+", "", declared))
    except InvalidSpecifier:
        specifier = SpecifierSet()
    ordered = sorted(kb.releases, key=lambda r: (Version(r.torch), Version(r.torch_npu)), reverse=True)
    fitting = [r for r in ordered if specifier.contains(Version(r.torch), prereleases=True)]
    recommended = f"torch_npu {fitting[0].torch_npu} (torch {fitting[0].torch}, CANN {fitting[0].cann})" if fitting else None
    return TorchFit(declared=declared, releases=[r.torch_npu for r in fitting], recommended=recommended)


def choose_target(declarations: list[Declaration], kb: KnowledgeBase,
                  installs: frozenset[str] = frozenset()) -> TargetChoice:
    """_choose_target, with the companion pins that hold torch below the chosen release among its conflicts
    (demucs' torchaudio<2.1 beside torch>=1.8.1: `requirements.txt: torchaudio>=0.8,<2.1 holds torch at 2.0.1 or older`)."""
    choice = _choose_target(declarations, kb, installs)
    wanted = choice.version or kb.default_release
    release = next((r for r in kb.releases if r.torch_npu == wanted), None)
    caps = []
    for path in sorted({d.path for d in declarations if d.name == "torch"} - set(choice.unread)):
        # a file whose own torch admits the chosen release: a companion cap there holds it below that release
        if release is not None and wanted in torch_fit([d for d in declarations if d.name == "torch" and d.path == path],
                                                       kb).releases:
            caps += companion_caps([d for d in declarations if d.name in COMPANIONS and d.path == path],
                                   release.torch, kb)
    if not caps:
        return choice
    return replace(choice, conflicts=[*choice.conflicts, *(f"{cap.site.path}: {cap.site.name}{cap.site.specifier} "
                                                           f"{cap.holds()}" for cap in caps)])


def _choose_target(declarations: list[Declaration], kb: KnowledgeBase,
                   installs: frozenset[str] = frozenset()) -> TargetChoice:
    """The newest torch_npu release that fits the project's own torch requirement (its main manifest), so that
    a project pinning torch 2.1.0 is judged against the 2.1.0 line it can install, not the newest release. Where
    the manifest gives a range and the project pins one torch inside it (its exported lock, or an `==` in its
    top-level requirements.txt), the target follows that pin: it is the torch the project runs and the one its
    other pins (vLLM, flash-attn wheels) are built against. A requirements file that no install reads while a package
    manifest installs its code (installed.unchosen: `installs`, what the install commands and manifests read) chooses
    nothing: moshi's stale requirements.txt torch==2.2.0 beside pyproject's torch>=2.2.0,<2.10."""
    sites = [d for d in declarations if d.name == "torch"]
    # a resolver's export of the manifest (`uv export`) records the torch it resolved: it keeps its say
    unread = installed.unchosen({s.path for s in sites if s.source == "requirements" and not s.exported},
                                {d.path for d in declarations if d.source in PACKAGE_MANIFESTS}, installs,
                                any(s.source in PACKAGE_MANIFESTS for s in sites))
    if not unread:
        return _choose(sites, kb)
    chosen, every = replace(_choose([s for s in sites if s.path not in unread], kb), unread=tuple(sorted(unread))), \
        _choose(sites, kb)
    if (chosen.version, chosen.reason) == (every.version, every.reason):  # whisper's unpinned `torch`: no say either way
        return chosen
    pins = ", ".join(f"{path} (torch{torch_fit([s for s in sites if s.path == path], kb).declared})"
                     for path in sorted(unread))
    return replace(chosen, reason=Text(
        en=f"{chosen.reason.en}; not from {pins}: no install command or package manifest of the project reads it",
        zh=f"{chosen.reason.zh}；不依据 {pins}：项目中没有任何安装命令或包清单读取该文件"))


def _choose(sites: list[Declaration], kb: KnowledgeBase) -> TargetChoice:
    """choose_target over the torch declarations that may choose."""
    if any(s.source != DOC_SOURCE for s in sites):  # a manifest's torch: install documents' pins do not count
        sites = [s for s in sites if s.source != DOC_SOURCE]
    sites = [s for s in sites if not _development_group(s)]
    npu_arm = [s for s in sites if s.arm == "npu"]
    if npu_arm:  # the project's own NPU install (a branch under `command -v npu-smi`) says which torch runs there
        sites = npu_arm
    primary = _primary(sites)
    fit = torch_fit(primary, kb)
    pinned = _exact_pin(sites, primary, fit, kb)
    if pinned is not None:
        pin_fit, pin_sites = pinned
        where = f"torch{_version_of(pin_sites)} ({pin_sites[0].path})"
        chosen = pin_fit.releases[0]
        return TargetChoice(chosen, Text(
            en=f"newest torch_npu release for the torch the project pins, {where}, within its requirement "
               f"torch{fit.declared} ({primary[0].path})",
            zh=f"与项目固定的 {where} 匹配的最新 torch_npu 发行版（在其依赖 torch{fit.declared} ({primary[0].path}) 范围内）"),
            _conflicts(sites, pin_sites, pin_fit, kb))
    conflicts = _conflicts(sites, primary, fit, kb)
    default = kb.default_release
    if not primary:
        return TargetChoice(None, Text(
            en=f"default release {default}: the project declares no torch requirement",
            zh=f"默认发行版 {default}：项目未声明 torch 依赖"), conflicts)
    where = where_zh = f"torch{fit.declared or ''} ({primary[0].path})"
    if npu_arm:
        where = f"torch{fit.declared or ''} (the project's NPU install branch, {primary[0].path}:{primary[0].line})"
        where_zh = f"torch{fit.declared or ''}（项目自己的 NPU 安装分支，{primary[0].path}:{primary[0].line}）"
    elif primary[0].source == DOC_SOURCE:
        where = f"torch{fit.declared or ''} (an install line of {primary[0].path}: no manifest declares torch)"
        where_zh = f"torch{fit.declared or ''}（{primary[0].path} 中的安装命令：没有清单文件声明 torch）"
    doc_pin = f"torch{primary[0].specifier} ({primary[0].path}:{primary[0].line})" \
        if primary[0].source == DOC_SOURCE else None
    line = _line_release(primary, kb) if not fit.releases else None
    if line is not None and _prerelease(primary):
        return TargetChoice(line.torch_npu, Text(
            en=f"nearest torch_npu release of the project's torch line: {where} is a nightly/dev build, for which no "
               f"torch_npu release is built; torch_npu {line.torch_npu} is built for torch {line.torch}, the release to "
               "install in its place",
            zh=f"项目 torch 版本线上最接近的 torch_npu 发行版：{where_zh} 是 nightly/dev 构建，没有为它构建的 torch_npu "
               f"发行版；torch_npu {line.torch_npu} 对应 torch {line.torch}，应改装该版本"), conflicts, doc_pin)
    if line is not None:
        return TargetChoice(line.torch_npu, Text(
            en=f"newest torch_npu release of the project's torch line: {where} fits no release of the table, "
               f"torch_npu {line.torch_npu} is built for torch {line.torch} (the patch differs)",
            zh=f"项目 torch 版本线的最新 torch_npu 发行版：{where_zh} 不匹配兼容性表中的发行版，"
               f"torch_npu {line.torch_npu} 对应 torch {line.torch}（补丁版本不同）"), conflicts, doc_pin)
    if not fit.releases:
        return TargetChoice(None, Text(
            en=f"default release {default}: the project's requirement {where} fits no release of the table",
            zh=f"默认发行版 {default}：项目的依赖 {where_zh} 不匹配兼容性表中的任何发行版"), conflicts, doc_pin)
    chosen = fit.releases[0]
    return TargetChoice(chosen, Text(
        en=f"newest torch_npu release that fits the project's requirement {where}",
        zh=f"与项目依赖 {where_zh} 匹配的最新 torch_npu 发行版"), conflicts, doc_pin)


def _conflicts(sites: list[Declaration], chosen: list[Declaration], fit: TorchFit, kb: KnowledgeBase) -> list[str]:
    conflicts = []
    for path in sorted({s.path for s in sites} - {s.path for s in chosen}):
        in_file = [s for s in sites if s.path == path]
        other = torch_fit(in_file, kb)
        if fit.releases and other.declared and not set(other.releases) & set(fit.releases):
            conflicts.append(f"{path}: torch{other.declared}")
    return conflicts


def _exact_pin(sites: list[Declaration], primary: list[Declaration], fit: TorchFit,
               kb: KnowledgeBase) -> tuple[TorchFit, list[Declaration]] | None:
    """The fit of the one torch version the project pins inside its manifest's range, and that pin's lines; None
    when the manifest pins exactly itself, nothing pins, the pin lies outside the range or fits no release."""
    if not primary or not fit.releases or _version_of(primary) is not None:
        return None
    depth = len(PurePosixPath(primary[0].path).parts)
    candidates = [s for s in sites if s.path != primary[0].path and len(PurePosixPath(s.path).parts) <= depth
                  and (s.exported or PurePosixPath(s.path).name.lower() == "requirements.txt")]
    for path in sorted({s.path for s in candidates}, key=lambda p: (not any(s.exported for s in candidates
                                                                             if s.path == p), p)):
        in_file = [s for s in candidates if s.path == path]
        if _version_of(in_file) is None:
            continue
        pin_fit = torch_fit(in_file, kb)
        if pin_fit.releases and set(pin_fit.releases) <= set(fit.releases):
            return pin_fit, in_file
    return None


def _line_release(primary: list[Declaration], kb: KnowledgeBase):
    """The newest release for the major.minor of the one torch version the manifest pins exactly, when none is built
    for that version itself (`torch==2.7.0`: torch_npu 2.7.1.post8, built for torch 2.7.1); None for a range or a
    line the table lacks."""
    pinned = _version_of(primary)
    try:
        version = Version(pinned.lstrip("=")) if pinned is not None else None
    except InvalidVersion:
        return None
    if version is None:
        return None
    line = [r for r in kb.releases if Version(r.torch).release[:2] == version.release[:2]]
    return max(line, key=lambda r: (Version(r.torch), Version(r.torch_npu))) if line else None


def _prerelease(sites: list[Declaration]) -> bool:
    """The one version the lines pin exactly is a nightly, dev or pre-release build (`2.7.0.dev20250310`)."""
    pinned = _version_of(sites)
    try:
        return pinned is not None and Version(pinned.lstrip("=")).is_prerelease
    except InvalidVersion:
        return False


def _version_of(sites: list[Declaration]) -> str | None:
    """`==2.10.0` when every line pins that one version exactly (a `+cu128` build label aside), else None."""
    versions = set()
    for site in sites:
        items = [item for item in re.split(r"\s*,\s*", re.sub(r"\+[A-Za-z0-9.]+", "", site.specifier)) if item]
        if len(items) != 1 or not items[0].startswith("==") or "*" in items[0]:
            return None
        versions.add(items[0].lstrip("="))
    return f"=={versions.pop()}" if len(versions) == 1 else None


def _table_range(kb: KnowledgeBase) -> str:
    versions = sorted({Version(r.torch) for r in kb.releases})
    return f"torch {versions[0]} to {versions[-1]}"


def _row(name: str, sites: list[Declaration], imported: bool, kb: KnowledgeBase, record=None) -> DependencyRow:
    record = record or kb.package(name)
    declared = ", ".join(sorted({s.specifier for s in sites if s.specifier}))
    sources = [f"{s.path}:{s.line}" for s in sites]
    if record is not None:
        replacement = Text(en=record.replacement.en, zh=record.replacement.zh) if record.replacement else None
        return DependencyRow(
            package=name, declared=declared, sources=sources, imported=imported, classification=record.classification,
            replacement=replacement, notes=Text(en=record.note.en, zh=record.note.zh), confidence=record.confidence,
        )
    if name in kb.not_involved:
        return DependencyRow(
            package=name, declared=declared, sources=sources, imported=imported, classification="not_involved",
            confidence="high",
        )
    hint = any(token in name for token in CUDA_HINTS)
    notes = Text(
        en="Not in the catalog; its name suggests CUDA-specific code: check it." if hint else "Not in the catalog: check whether it ships accelerator code.",
        zh="不在目录中；名称显示其可能包含 CUDA 专用代码，需核实。" if hint else "不在目录中：需核实是否包含加速器相关代码。",
    )
    return DependencyRow(
        package=name, declared=declared, sources=sources, imported=imported, classification="unknown", notes=notes,
        confidence="low",
    )
