"""Native sources the project builds or loads only while an environment variable is set: `optional`, the variable named.

BasicSR's setup.py lists `src/upfirdn2d_kernel.cu` among `make_cuda_ext(...)` sources only under `if cuda_ext ==
'True':` (`cuda_ext = os.getenv('BASICSR_EXT')`), and basicsr/ops/upfirdn2d/upfirdn2d.py JIT-loads it only under `if
BASICSR_JIT == 'True':`; INSTALL.md tells users who need no extension to skip both (round 23 verdicts V1, B2 27: the
kernels were counted `runs` and drove the verdict). A translation unit is judged so when
- some Python file names it (a source ref: its path, or a folder holding it), and every string of every file naming it
  sits in an arm an unset environment variable leaves off (facts' switched_source_refs, env_switches.env_arm);
- no CMakeLists.txt or Makefile sits in its folder or one above (a glob may take it), and no other file but Python,
  native sources and prose writes its stem (a shell script's nvcc line, a build YAML);
- nothing of the project sets the variable (switched_on.turned_on: a launcher's `BASICSR_EXT=True pip install`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.switched_on import on_reason
from ascend_feasibility.analyzer.context.unbuilt import GLOBBING_BUILDS, TRANSLATION_UNITS, _folders
from ascend_feasibility.analyzer.context.written_names import writers
from ascend_feasibility.analyzer.reading.discovery import NATIVE_SUFFIXES

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

READ_ONLY = (".py", ".md", ".rst", ".txt", *NATIVE_SUFFIXES)  # files whose words build nothing by themselves


def switched_sources(paths: set[str], facts: list[ModuleFacts], switches_on: dict[str, list]) -> dict[str, str]:
    """path → why for the translation units among `paths` that only environment-switched arms build or load."""
    sources = sorted(p for p in paths if p.endswith(TRANSLATION_UNITS))
    if not sources or not any(f.switched_source_refs for f in facts):
        return {}
    globbed = {path_view(f.path).parent for f in facts if path_view(f.path).name in GLOBBING_BUILDS}
    stems = {p: path_view(p).stem for p in sources}
    written = writers(stems.values(), facts)
    result = {}
    for path in sources:
        naming = [(f, ref) for f in facts for ref in f.source_refs if _names(ref.strip("/"), path)]
        if not naming or any(ref not in f.switched_source_refs for f, ref in naming):
            continue
        if any(folder in globbed for folder in _folders(path)):
            continue
        if any(not other.endswith(READ_ONLY) for other in written.get(stems[path], set())):
            continue
        whys = [(f.path, f.switched_source_refs[ref]) for f, ref in sorted(naming, key=lambda n: (n[0].path, n[1]))]
        if any(on_reason(why, switches_on) is not None for _, why in whys):
            continue
        more = f" and {len(whys) - 1} more" if len(whys) > 1 else ""
        result[path] = f"built or loaded only under an off-by-default switch ({whys[0][0]}{more}): {whys[0][1]}"
    return result


def _names(ref: str, path: str) -> bool:
    """Does the source ref name the file: its path from the root or from a folder, or a folder holding it?"""
    return bool(ref) and (path == ref or path.endswith("/" + ref) or path.startswith(ref + "/") or f"/{ref}/" in path)
