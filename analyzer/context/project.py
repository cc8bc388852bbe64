"""What the file list alone says about each file's context, computed once per project before any file is read."""

from __future__ import annotations

import functools
import re
from dataclasses import dataclass, field
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.backend_images import is_dockerfile
from ascend_feasibility.analyzer.context.roles import PathView, derived, file_role, has_root_package, path_view
from ascend_feasibility.analyzer.reading.install_docs import is_install_doc
from ascend_feasibility.knowledge import load_context_conventions
from ascend_feasibility.knowledge.models import BackendConventions
from packaging.utils import canonicalize_name

SEPARATORS = str.maketrans({"-": "_", ".": "_"})


@dataclass(frozen=True)
class FileContext:
    role: str = "product"
    reach: str = "runs"
    reason: str | None = None  # why the whole file has that reach


@dataclass
class ProjectContext:
    """Pickled once into each worker process: keep it to plain data."""

    files: dict[str, FileContext] = field(default_factory=dict)  # only files that are not plain product code
    own_packages: frozenset[str] = frozenset()  # top-level import names the project defines
    local_modules: frozenset[str] = frozenset()  # names its imports can resolve to (packages, sibling modules)
    npu_files: tuple[str, ...] = ()  # files that are the project's own NPU code, by their names
    # folders the installed project's packages sit in: src/ and what the build maps packages into (package-dir)
    source_roots: tuple[str, ...] = ("src",)
    readme_launches: tuple[str, ...] = ()  # files the root README's runner commands launch (readme_runs.launched_files)
    readme_folders: tuple[str, ...] = ()  # folders its commands run in after a `cd` (readme_runs.worked_in_folders)
    readme_flags: tuple[str, ...] = ()  # `--flag` words the root README's runner commands pass (install_docs.launch_flags)
    # (flag, document) for the `--flag` words the install documents the README hands its install to pass
    # (install_docs.handed_install_docs): counted like the README's own
    guide_flags: tuple[tuple[str, str], ...] = ()
    readme_imports: tuple[str, ...] = ()  # packages the root README's Python blocks import (readme_code.imported_packages)

    def of(self, path: str) -> FileContext:
        return self.files.get(path, PLAIN)

    @property
    def npu_accelerator(self) -> str | None:
        """The project's own NPU accelerator file (DeepSpeed's accelerator/npu_accelerator.py), when it has one: what
        an accelerator abstraction's comparisons are judged against (analyzer/context/cuda_gates.py)."""
        return next((p for p in self.npu_files if "accelerator" in p.lower()), None)

    def is_own(self, symbol: str) -> bool:
        """Is this symbol a dotted name inside one of the project's own packages?"""
        root = symbol.split(".", 1)[0]
        return root in self.own_packages and all(part.isidentifier() for part in symbol.split("."))


PLAIN = FileContext()


def build_project_context(paths: list[str], role_overrides: dict[str, list[str]] | None = None,
                          distribution: str = "", other_backend: dict[str, str] | None = None,
                          source_roots: list[str] | tuple[str, ...] = ()) -> ProjectContext:
    """`distribution`: the name pyproject.toml's [project] publishes the project as (a namespace folder of that name is
    the project's own package even where a library's modules share the name). `other_backend`: path → why, for files
    their contents show to be another backend's (a ROCm Dockerfile: context/backend_images.py). `source_roots`: the
    folders besides src/ that the build maps packages into (ProjectConfig.source_roots)."""
    conventions = load_context_conventions()
    views = {path: path_view(path) for path in paths}  # each path parsed once
    existing = set(paths).union(*(_folders(folder) for folder in {view.parent for view in views.values()}))
    files: dict[str, FileContext] = {}
    npu_files = []
    own, local = _import_names(paths)
    namespaces = _namespace_packages(paths, _library_modules(), distribution)
    own, local = own | namespaces, local | namespaces
    libraries = [name for name in conventions.guards.cuda_only_packages if name not in own]
    beside_package = has_root_package(paths)
    for path in sorted(paths):
        role = file_role(path, conventions.roles, role_overrides, beside_package)
        reach, reason = _path_reach(path, conventions.backends, existing, views[path])
        if reach == "runs":
            reach, reason = _library_folder(path, libraries, views[path])
        if reach == "runs" and role == "build":
            general = _platform_manifest(views[path], conventions.backends, existing)
            if general is not None:
                reach, reason = "other-backend", f"{path}: another platform's install beside {general}"
        if reach == "runs" and other_backend and path in other_backend:
            reach, reason = "other-backend", other_backend[path]
        if reach == "npu-path" and not is_install_doc(views[path].name):  # README_npu.md is a guide, not NPU code
            npu_files.append(path)
        if role != "product" or reach != "runs":
            files[path] = FileContext(role, reach, reason)
    return ProjectContext(files=files, own_packages=own, local_modules=local, npu_files=tuple(npu_files),
                          source_roots=("src", *(r for r in source_roots if r != "src")))


@functools.lru_cache(maxsize=65536)
def _folders(folder: str) -> frozenset[str]:
    """A folder and the folders above it, "." left out (a path's parents, shared by the files of a folder)."""
    pure = PurePosixPath(folder)
    return frozenset(str(f) for f in (pure, *pure.parents) if str(f) != ".")


@functools.lru_cache(maxsize=65536)
def _joined(folder: str, name: str) -> str:
    return str(PurePosixPath(folder) / name)


def _tokens(part: str) -> list[str]:
    return [t for t in part.lower().translate(SEPARATORS).split("_") if t]


def _path_reach(path: str, backends: BackendConventions, existing: set[str],
                view: PathView | None = None) -> tuple[str, str | None]:
    view = path_view(path) if view is None else view
    # a Dockerfile's backend is in its suffix (Dockerfile.neuron, Dockerfile.rocm), which a stem drops
    parts = [*view.parts[:-1], view.name if is_dockerfile(path) else view.stem]
    npu, others = derived(backends, _backend_sets)
    for index, part in enumerate(parts):
        # folders repeat across files and are remembered; a file's own stem is read once
        named = _named_backend(part, npu, others) if index < len(parts) - 1 else _named_backend.__wrapped__(part, npu, others)
        if named == "npu":
            return "npu-path", f"{path}: NPU code by its name"
        if named is not None:
            return "other-backend", f"{path}: {named} code by its name"
    twin = _npu_twin(path, view, backends, existing)
    if twin is not None:
        return "other-backend", f"{path}: runs as {twin} on Ascend"
    dispatch = _dispatch_folder(view, backends, existing)
    if dispatch is not None:
        return "other-backend", f"{path}: the default (CUDA) variant beside {dispatch}/, which Ascend uses"
    engine = _engine_alternative(parts, backends, existing)
    if engine is not None:
        return "other-backend", f"{path}: an NVIDIA-only engine beside {engine}, the engine to choose on Ascend"
    return "runs", None


def _platform_manifest(view: PathView, backends: BackendConventions, existing: set[str]) -> str | None:
    """The general manifest beside a manifest named for another operating system (requirements_macOS.txt →
    requirements.txt), else None: the general one is what an Ascend (Linux) host installs."""
    words = [w for w in re.split(r"[-_.]", view.stem) if w]
    kept = [w for w in words if w.lower() not in backends.other_platforms]
    if not kept or len(kept) == len(words):
        return None
    for joiner in ("_", "-", ".", ""):
        general = _joined(view.parent, joiner.join(kept) + view.suffix)
        if general in existing:
            return general
    return None


def _backend_sets(backends: BackendConventions) -> tuple[frozenset[str], frozenset[str]]:
    """The NPU and other-backend tokens as sets (built once per conventions object by the caller: a set built per
    call and kept in _named_backend's cache key held a copy per cached folder name)."""
    return frozenset(backends.npu), frozenset(backends.other)


@functools.lru_cache(maxsize=65536)
def _named_backend(part: str, npu: frozenset[str], others: frozenset[str]) -> str | None:
    """"npu" when a path part names NPU, else the first other backend it names (the files of a folder share it)."""
    tokens = set(_tokens(part))
    if tokens & npu:
        return "npu"
    other = sorted(tokens & others)
    return other[0] if other else None


def _engine_alternative(parts: list[str], backends: BackendConventions, existing: set[str]) -> str | None:
    """A path part named for an NVIDIA-only engine (trtllm_rollout/) with a sibling named for an engine that has an
    Ascend build (vllm_rollout/): the sibling, else None."""
    for index, part in enumerate(parts):
        tokens = _tokens(part)
        if not set(tokens) & set(backends.cuda_engines):
            continue
        for engine in set(tokens) & set(backends.cuda_engines):
            for npu_engine in backends.npu_engines:
                for name in {"_".join(npu_engine if t == engine else t for t in tokens), part.lower().replace(engine, npu_engine)}:
                    sibling = "/".join([*parts[:index], name])
                    if name != part.lower() and (sibling in existing or f"{sibling}.py" in existing):
                        return sibling
    return None

def _library_folder(path: str, libraries: list[str], view: PathView | None = None) -> tuple[str, str | None]:
    """A folder of the project named after a CUDA-only library (diffusers' quantizers/nunchaku/) integrates that
    library: its code runs only when a user picks the library, which Ascend cannot load, so it is optional there.
    A library that is the project's own package is never one (analysing flash-attention, csrc/flash_attn/)."""
    parts = (path_view(path) if view is None else view).parts[:-1]
    start = 2 if parts[:1] == ("src",) else 1
    for part in parts[start:]:
        if part.lower() in libraries:
            return "optional", f"{path}: integration of the CUDA-only {part} library, used only when it is chosen"
    return "runs", None


def _dispatch_folder(view: PathView, backends: BackendConventions, existing: set[str]) -> str | None:
    """A folder with per-backend subfolders, one of them for NPU (op_builder/{npu,xpu,hpu,cpu}/): the Python files
    beside those subfolders are the default backend's variants, which Ascend does not load (the package's
    __init__.py excepted)."""
    if view.name == "__init__.py" or view.suffix != ".py":
        return None
    folder = view.parent
    npu = next((_joined(folder, n) for n in backends.npu if _joined(folder, n) in existing), None)
    if npu is None:
        return None
    others = [n for n in (*backends.other, *backends.twin) if _joined(folder, n) in existing]
    return npu if others else None


def _npu_twin(path: str, view: PathView, backends: BackendConventions, existing: set[str]) -> str | None:
    """The project's NPU version of this file: the same path with a backend token replaced by an NPU token
    (accelerator/cuda_accelerator.py → accelerator/npu_accelerator.py), or the same name in an npu/ folder
    beside it (op_builder/fused_adam.py → op_builder/npu/fused_adam.py; a package's __init__.py loads on every
    backend)."""
    parent = view.parent
    without_suffix = path[:len(path) - len(view.suffix)]  # what PurePosixPath.with_suffix("") gives
    if not any(f"{parent}/{npu}" in existing or (parent == "." and npu in existing) for npu in backends.npu) and not (
        set(_tokens(without_suffix.replace("/", "_"))) & set(backends.twin)
    ):
        return None  # no npu/ folder beside it and no backend token in its path: nothing to look up
    for npu in backends.npu:
        beside = _joined(_joined(parent, npu), view.name)
        if view.name != "__init__.py" and beside in existing:
            return beside
    parts = list(view.parts)
    for index, part in enumerate(parts):
        stem, suffix = (view.stem, view.suffix) if index == len(parts) - 1 else (part, "")
        pieces = stem.replace("-", "_").split("_")
        for position, piece in enumerate(pieces):
            if piece.lower() not in backends.twin:
                continue
            for npu in backends.npu:
                renamed = "_".join([*pieces[:position], npu, *pieces[position + 1:]]) + suffix
                candidate = "/".join([*parts[:index], renamed, *parts[index + 1:]])
                prefix = "/".join([*parts[:index], renamed])
                if candidate in existing or (index < len(parts) - 1 and prefix in existing):
                    return candidate if candidate in existing else prefix
    return None


def _import_names(paths: list[str]) -> tuple[frozenset[str], frozenset[str]]:
    """Top-level packages and modules the project defines (a folder of packages named like a library, such as
    deepspeed/utils/torch.py, is `deepspeed.utils.torch` and hides nothing), and every name a script's sibling
    import can resolve to."""
    views = {path: path_view(path) for path in paths}
    packages = {views[p].parent for p in paths if views[p].name == "__init__.py"}
    own, local = set(), set()
    tops: dict[str, str] = {}
    for path in paths:
        view = views[path]
        if view.suffix not in {".py", ".ipynb"} and view.name != "__init__.py":
            continue
        if view.parent not in packages:
            local.add(view.stem)  # a script's sibling module
            if len(view.parts) == 1 or (len(view.parts) == 2 and view.parts[0] == "src"):
                own.add(view.stem)
            continue
        top = tops.get(view.parent)
        if top is None:  # the files of a package share its top-level package
            folder = PurePosixPath(view.parent)
            while str(folder.parent) in packages and folder.parent != folder:  # at the root "." is its own parent
                folder = folder.parent
            top = tops[view.parent] = folder.name
        own.add(top)
        local.add(top)
    own -= {"__init__", ""}  # "": the analysed folder is itself a package, whose name the paths do not say
    local -= {"__init__", ""}
    return frozenset(own), frozenset(local)


def _namespace_packages(paths: list[str], library_modules: dict[str, str], distribution: str) -> frozenset[str]:
    """Top-level folders (at the root or under src/) without `__init__.py` that hold modules in folders of their own:
    namespace packages (PEP 420), imported by their dotted paths from the root (llm-awq's awq/quantize/quantizer.py
    as `awq.quantize.quantizer`, Megatron-LM's megatron/core/). A folder named like a known library's module
    (knowledge/dependencies/packages.toml) is the project's own only when the project publishes itself under that
    name (Megatron-LM's `megatron-core`) or as the folder's name (llm-awq's `awq`, which AutoAWQ's modules share): an
    installed library's regular package wins over a namespace folder of the same name on import."""
    packaged = {path_view(p).parent for p in paths if path_view(p).name == "__init__.py"}
    mine = canonicalize_name(distribution) if distribution else ""
    found = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        layout = parts[:1] if parts and parts[0] == "src" else ()
        parts = parts[len(layout):]
        if len(parts) < 3 or not parts[-1].endswith(".py") or not parts[0].isidentifier():
            continue
        top = "/".join((*layout, parts[0]))
        if top in packaged or parts[0] in found:
            continue
        library = library_modules.get(parts[0])
        if library is None or mine in {canonicalize_name(parts[0]), canonicalize_name(library)}:
            found.add(parts[0])
    return frozenset(found)


def _library_modules() -> dict[str, str]:
    """Import name -> the library distribution the catalog knows it from."""
    from ascend_feasibility.knowledge import load_knowledge

    return load_knowledge().module_to_distribution


MAX_WORKFLOW_BYTES = 1 << 20
MAX_WORKFLOWS = 200


def ci_built_dockerfiles(files, role_overrides: dict[str, list[str]] | None = None) -> list[str]:
    """Dockerfiles in a folder of their own that a CI workflow names (diffusers' docker/diffusers-pytorch-cuda/
    Dockerfile is the image its GitHub workflows build and run the tests in): CI images, not the product's build.
    `files`: the discovered files (path, absolute, size); workflows are read with the size limit, and only searched
    for the folder names."""
    from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes

    conventions = load_context_conventions().roles
    dockerfiles = [f.path for f in files if path_view(f.path).name.lower().startswith("dockerfile")
                   and len(path_view(f.path).parts) >= 3
                   and file_role(f.path, conventions, role_overrides) == "build"]
    if not dockerfiles:
        return []
    texts = []
    for f in files:
        if path_view(f.path).suffix.lower() not in {".yml", ".yaml"} or file_role(f.path, conventions, role_overrides) != "ci":
            continue
        try:
            texts.append(read_bytes(f.absolute, f.size, MAX_WORKFLOW_BYTES).decode("utf-8", "replace").lower())
        except (Unreadable, OSError):
            continue
        if len(texts) >= MAX_WORKFLOWS:
            break
    found = []
    for path in dockerfiles:
        folder = PurePosixPath(path).parent.name.lower()
        if len(folder) >= 6 and any(folder in text for text in texts):
            found.append(path)
    return found
