"""Native sources no build of the project names: not compiled, so their findings are `optional`, with the reason.

A CUDA/C++ translation unit runs only when something compiles it: a setup.py or `load()`/`load_inline` source list, a
CMakeLists or Makefile, an nvcc line in a shell script. VILA's coat/optimizer/kernels/setup.py lists the five
fp8_adamw_* sources of `qoptim_cuda`; csrc_expand_quantize/nvcc_qoptim.cu beside them is named by no file the analyzer
reads (only a lower-case `makefile` that builds a standalone test program). Judged only in a project whose builds name
their sources (some source's file name is written somewhere), and never where a name could still reach the file: its
stem written in any file (code, strings, comments, shell, YAML, build files), its path or a folder above it named in a
string (`"csrc/adam"`, `"kernels/*.cu"`), or a CMakeLists.txt/Makefile in its folder or one above (a glob may take it).

A project that builds nothing native at all is judged too, headers included: CatVTON vendors detectron2's csrc/ (the
rotated-box ops, vision.cpp's TORCH_LIBRARY) with no setup.py, no load(), no CMake, and ships a prebuilt `_C` binary
that deform_conv.py imports under try/except with dummy stand-ins (round 27 B1 rows 4, 6, 15, 18; verdicts V3). Such a
project is one with Python code in which no file but native sources and prose writes a word of an extension build
(opt_in.extension_builds: CUDAExtension, ext_modules, add_library, load_inline), no string names a native source or
its folder (a load() source list), no setup.py or native build file sits anywhere (CMakeLists.txt, Makefile, meson.build, Bazel)
and no shell script or build file writes `nvcc`. Its native sources run only as a binary built elsewhere, for the
platform it was built for: an NPU port rebuilds them only if the ops are used, which the Python findings say.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.written_names import word_set, writers
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES
from ascend_feasibility.knowledge import load_context_conventions

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

TRANSLATION_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c")  # headers are included, never listed
GLOBBING_BUILDS = frozenset({"CMakeLists.txt", "Makefile"})
WHY = "no build of the project names it (setup.py or load() sources, CMakeLists, Makefile, shell): it is not compiled"
NO_BUILD = ("the project builds no native code (no extension in a setup.py, no load() sources, CMakeLists, Makefile or "
            "nvcc line): it is not compiled, and a binary shipped for it runs only where it was built")
NATIVE_BUILD_FILES = frozenset({*GLOBBING_BUILDS, "makefile", "GNUmakefile", "meson.build", "BUILD", "BUILD.bazel",
                                "WORKSPACE", "build.ninja", "SConstruct",
                                "setup.py"})  # setup.py may build one however it is written (Extension, build_ext)
PROSE = (".md", ".rst", ".txt")
SHELL_OR_BUILD = (".sh", ".bash", ".toml", ".cfg", ".yaml", ".yml", ".mk", ".cmake", ".bat", ".ps1", "Dockerfile")
COMPILER_WORDS = frozenset({"nvcc", "hipcc"})


def unbuilt_sources(paths: set[str], facts: list[ModuleFacts], named_paths: set[str]) -> dict[str, str]:
    """path → why for the translation units among `paths` that nothing builds. `named_paths`: the paths and folders
    the project's strings name (propagation's referrers)."""
    if builds_nothing(facts):
        return {p: NO_BUILD for p in sorted(paths) if p.endswith(NATIVE_SUFFIXES)}
    sources = sorted(p for p in paths if p.endswith(TRANSLATION_UNITS))
    if not sources:
        return {}
    stems = {p: path_view(p).stem for p in sources}
    written = set(writers(stems.values(), facts))
    if not any(stem in written for stem in stems.values()):
        return {}  # this project's builds do not name their sources (globs, folders): nothing to judge by
    globbed = {path_view(f.path).parent for f in facts if path_view(f.path).name in GLOBBING_BUILDS}
    named = {n.split("*", 1)[0].rstrip("/") for n in named_paths}
    result = {}
    for path in sources:
        folders = _folders(path)
        if stems[path] in written or path in named or any(f in named or f in globbed for f in folders):
            continue
        result[path] = WHY
    return result


def builds_nothing(facts: list[ModuleFacts]) -> bool:
    """Does the project, which has Python code, build no native code at all (module docstring)?"""
    if not any(f.path.endswith(".py") for f in facts):
        return False  # a native project: its build may be one the analysis does not read
    extension_words = frozenset(load_context_conventions().opt_in.extension_builds)
    for f in facts:
        view = path_view(f.path)
        if view.name in NATIVE_BUILD_FILES:
            return False
        if f.path.endswith(NATIVE_SUFFIXES) or f.path.endswith(PROSE):
            continue
        if f.source_refs:  # a builder's source list: load(sources=[...]), a glob of a kernels folder
            return False
        words = word_set(f.words)
        if extension_words & words or (f.path.endswith(SHELL_OR_BUILD) and COMPILER_WORDS & words):
            return False
    return True


def _folders(path: str) -> list[str]:
    """Every folder holding the file, the root (".") included, and each folder's path relative to those above it
    (a builder names 'kernels/csrc' from its own folder)."""
    parts = path_view(path).parts[:-1]
    folders = ["."]
    for end in range(1, len(parts) + 1):
        folders += ["/".join(parts[start:end]) for start in range(end)]
    return folders
