"""Extension loaders the project calls only in comments, and the native sources only they build: `optional`, with the
reason.

A CUDA kernel JIT-built by `torch.utils.cpp_extension.load(...)` inside a function is built only when that function
runs. FunASR's `load_encoder_wkv_kernel` / `load_decoder_wkv_kernel` have no live call: their only calls are comment
lines (`# load_decoder_wkv_kernel(context_size)`), so the wkv_op.cpp/wkv_cuda.cu sources they list are never compiled
and the module globals they would set stay None (round 25 B1 C1, B2 C1, verdicts V1). The file names its candidates
(domains/phases/unhooked_loaders.py: a module-level function holding the load, named by no identifier or string of
its file's code but its own body, called in a comment of the file); here a candidate stays only when no other file of
the project writes its name at all (an import, a call, a string: another module may call it). Then
- its lines are `optional` (its load, the code of its body);
- a translation unit every string naming which (any file's source refs) lies in such functions is `optional`, unless
  a CMakeLists.txt/Makefile sits in its folder or one above (a glob may take it) or a file other than Python, native
  sources and prose writes its stem (a shell script's nvcc line, a build YAML). A source a live list also names keeps
  `runs`, and so does every source of a loader called from any live code, however guarded;
- an autograd Function of its file reading a kernel handle only it binds (a module global, `= None` at the top level)
  is `optional`: the handle stays None, so the Function never runs a kernel (FunASR's WKVLinearAttentionEncoder).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.switched_builds import READ_ONLY, _names
from ascend_feasibility.analyzer.context.unbuilt import GLOBBING_BUILDS, TRANSLATION_UNITS, _folders
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, writers

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

# (name, first line, last line, the source refs only such loaders name, the autograd Functions reading a kernel handle
# only it binds: (class, first line, last line)), as domains/phases/unhooked_loaders.py reads them
Loader = tuple[str, int, int, tuple[str, ...], tuple[tuple[str, int, int], ...]]


def _why(name: str) -> str:
    return (f"built only by `{name}()`, whose only call is commented out: no code path calls it, so the extension is "
            f"never built")


def unhooked_loaders(facts: list[ModuleFacts]) -> dict[str, list[Loader]]:
    """path → the loaders of the file that nothing in the project calls: (name, first line, last line, refs)."""
    candidates = [(f.path, loader) for f in facts for loader in f.unhooked_loaders if len(loader[0]) >= MIN_NAME]
    if not candidates:
        return {}
    written = writers({loader[0] for _, loader in candidates}, facts)
    result: dict[str, list[Loader]] = {}
    for path, loader in candidates:
        if written.get(loader[0], set()) <= {path}:  # no other file names it
            result.setdefault(path, []).append(loader)
    return result


def unhooked_ranges(loaders: dict[str, list[Loader]]) -> dict[str, list[tuple[int, int, str]]]:
    """path → (first line, last line, why) of the uncalled loaders themselves and of the autograd Functions whose
    kernel handle only they would bind (it stays None: the Function cannot run its kernel on any device)."""
    result: dict[str, list[tuple[int, int, str]]] = {}
    for path, found in loaders.items():
        for name, first, last, _, users in found:
            result.setdefault(path, []).append((first, last, f"`{name}()` builds an extension and its only call is "
                                                             f"commented out: no code path calls it, so it never runs"))
            result[path] += [(start, end, f"`{user}` calls the kernels of an extension only `{name}()` would load, and "
                                          f"its only call is commented out: the kernel handle stays None")
                             for user, start, end in users]
    return result


def unhooked_sources(paths: set[str], facts: list[ModuleFacts],
                     loaders: dict[str, list[Loader]]) -> dict[str, str]:
    """path → why for the translation units among `paths` that only uncalled loaders name."""
    sources = sorted(p for p in paths if p.endswith(TRANSLATION_UNITS))
    if not sources or not loaders:
        return {}
    owned = {(path, ref): name for path, found in loaders.items() for name, _, _, refs, _ in found for ref in refs}
    globbed = {path_view(f.path).parent for f in facts if path_view(f.path).name in GLOBBING_BUILDS}
    stems = {p: path_view(p).stem for p in sources}
    written = writers(stems.values(), facts)
    result = {}
    for path in sources:
        naming = [(f.path, ref) for f in facts for ref in f.source_refs if _names(ref.strip("/"), path)]
        if not naming or any(n not in owned for n in naming):
            continue
        if any(folder in globbed for folder in _folders(path)):
            continue
        if any(not other.endswith(READ_ONLY) for other in written.get(stems[path], set())):
            continue
        result[path] = _why(owned[min(naming)])
    return result
