"""Native sources no build of the project names: not compiled, so their findings are `optional`, with the reason.

A CUDA/C++ translation unit runs only when something compiles it: a setup.py or `load()`/`load_inline` source list, a
CMakeLists or Makefile, an nvcc line in a shell script. VILA's coat/optimizer/kernels/setup.py lists the five
fp8_adamw_* sources of `qoptim_cuda`; csrc_expand_quantize/nvcc_qoptim.cu beside them is named by no file the analyzer
reads (only a lower-case `makefile` that builds a standalone test program). Judged only in a project whose builds name
their sources (some source's file name is written somewhere), and never where a name could still reach the file: its
stem written in any file (code, strings, comments, shell, YAML, build files), its path or a folder above it named in a
string (`"csrc/adam"`, `"kernels/*.cu"`), or a CMakeLists.txt/Makefile in its folder or one above (a glob may take it).
A builder that collects its sources by walking a folder (Pointcept's `os.walk(src)` with `src = "src"`) names that
folder, resolved from its own; one whose walked folder cannot be read names its own folder (phases/walked_folders.py).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.written_names import writers

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

TRANSLATION_UNITS = (".cu", ".cpp", ".cc", ".cxx", ".c")  # headers are included, never listed
GLOBBING_BUILDS = frozenset({"CMakeLists.txt", "Makefile"})
WHY = "no build of the project names it (setup.py or load() sources, CMakeLists, Makefile, shell): it is not compiled"


def unbuilt_sources(paths: set[str], facts: list[ModuleFacts], named_paths: set[str]) -> dict[str, str]:
    """path → why for the translation units among `paths` that nothing builds. `named_paths`: the paths and folders
    the project's strings name (propagation's referrers)."""
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


def _folders(path: str) -> list[str]:
    """Every folder holding the file, the root (".") included, and each folder's path relative to those above it
    (a builder names 'kernels/csrc' from its own folder)."""
    parts = path_view(path).parts[:-1]
    folders = ["."]
    for end in range(1, len(parts) + 1):
        folders += ["/".join(parts[start:end]) for start in range(end)]
    return folders
