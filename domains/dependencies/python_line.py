"""The project's Python against the target's (rule DEP017): a `python=3.8.5` in a conda environment or a conda
install line admits no Python the target torch_npu release's torch line supports (releases.toml's `python`, from the
Ascend/pytorch README's PyTorch and Python version table), so the environment is rebuilt on a newer Python and every
pin in it is re-checked for wheels of that Python.

An install document's line (`conda create -n x python=3.8 pytorch=1.10 cudatoolkit=11.3 -c pytorch` in a README's code
block; mmocr's README.md and README_zh-CN.md, round 38) is a documented command the porter retypes whole, not an
environment file: DOC_LINE, and the documents' lines pinning the same Python are one line to update, shown once with
the others (a translated README's copy) as its sites. The advice about conda build strings is given only where the
pin carries one (`python=3.7.13=h12debd9_0`, a `conda env export`): BUILD_STRING."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading.manifests import Declaration
from ascend_feasibility.domains.dependencies.facts import DOC_FLOOR, DOC_SOURCE
from ascend_feasibility.knowledge.models import Release
from packaging.specifiers import InvalidSpecifier, SpecifierSet

_MINORS = range(6, 20)  # the Python 3 lines a specifier is tried on
_PATCHES = range(0, 31)  # the patch releases of a line a specifier is tried on


def supported_lines(specifier: str) -> list[str]:
    """The Python 3 lines ("3.10") a specifier admits: a line is admitted where one of its patch releases is."""
    try:
        spec = SpecifierSet(specifier)
    except InvalidSpecifier:
        return []
    return [f"3.{minor}" for minor in _MINORS 
            if any(spec.contains(f"3.{minor}.{patch}") for patch in _PATCHES)]


FLOOR_ADMITS = "floor-admits"  # DEP017's facet: an install document's example pin whose own stated floor admits the target
DOC_LINE = "install-doc-line"  # DEP017's facet: a pin in an install document's code block, not in an environment file
BUILD_STRING = "build-string"  # DEP017's facet: a conda pin with a build string (python=3.7.13=h12debd9_0)


def has_build_string(text: str) -> bool:
    """A conda match spec `name=version=build` (python=3.7.13=h12debd9_0): a third `=`-part."""
    parts = text.replace("==", "=").split("=")
    return len(parts) >= 3 and bool(parts[2].strip())


TOOLING = frozenset({"python", "pip", "setuptools", "wheel"})  # what any conda environment holds before its packages
Move = tuple[Declaration, str, tuple[str, ...], list[str] | None]  # (site, the move's text, facets, all its sites)


def torchless_environments(declarations: list[Declaration], catalogued) -> frozenset[str]:
    """The conda environment files whose packages include nothing the port touches: no torch, torch_npu, mmcv or
    other package of the catalog (`catalogued`: name → whether the catalog records it). Round 41 A2 class 5 and
    round 40 (mmaction2 and Video-Swin-Transformer tools/data/activitynet/environment.yml, gym/environment.yml): the
    environment of a dataset download (ffmpeg, youtube-dl, pandas on python=3.7.7) runs beside the project, not with
    torch_npu, so its Python need not be one torch_npu has wheels for. A file of Python and pip alone (TOOLING) lists
    no environment of its own: the project's packages go into it afterwards, so its Python stays judged."""
    by_file: dict[str, set[str]] = {}
    for declaration in declarations:
        if declaration.source == "conda":
            by_file.setdefault(declaration.path, set()).add(declaration.name)
    return frozenset(path for path, names in by_file.items()
                     if names - TOOLING and not any(catalogued(name) for name in names))


def python_moves(declarations: list[Declaration], target: Release) -> list[Move]:
    """Each declared Python (a conda `python=` spec) that admits none of the target's Pythons, with the move's text
    (the Pythons it admits → the target's lines), its facets and, for install documents' lines folded into one
    finding, every such line ("path:line"; None for a finding of one line). An install document's example (`conda create -n x
    python=3.7` in a fenced block) whose same document states a floor admitting a target line ("* Python>=3.7",
    DOC_FLOOR) is one choice the document leaves open: FLOOR_ADMITS, naming the floor. A stated floor pins nothing."""
    wanted = supported_lines(target.python) if target.python else []
    if not wanted:
        return []
    floors = [d for d in declarations if d.source == DOC_FLOOR and set(supported_lines(d.specifier)) & set(wanted)]
    moves = []
    for site in declarations:
        if site.name != "python" or not site.specifier or site.source == DOC_FLOOR:
            continue
        own = supported_lines(site.specifier)
        if own and not set(own) & set(wanted):
            move = f"Python {own[-1]} → {wanted[0]}–{wanted[-1]} (torch_npu {target.torch_npu}, torch {target.torch})"
            built = (BUILD_STRING,) if has_build_string(site.text) else ()
            floor = next((f for f in floors if f.path == site.path), None) if site.source == DOC_SOURCE else None
            if floor is not None:
                moves.append((site, f"{move}; {floor.path}:{floor.line} states Python{floor.specifier}, which admits "
                                    f"{wanted[0]}–{wanted[-1]}", (FLOOR_ADMITS, *built)))
            else:
                moves.append((site, move, (DOC_LINE, *built) if site.source == DOC_SOURCE else built))
    return _documents_folded(moves)


def _documents_folded(moves: list[tuple[Declaration, str, tuple[str, ...]]]) -> list[Move]:
    """The install documents' lines that pin the same Python with the same advice (README.md:112 and its translation
    README_zh-CN.md:111) are one documented line to update: one finding at the first, listing every line. An
    environment file's pin keeps its own finding."""
    folded: dict[tuple[str, str, tuple[str, ...]], list[Declaration]] = {}
    result: list[Move] = []
    for site, move, facets in moves:
        if DOC_LINE in facets:
            folded.setdefault((site.specifier, move, facets), []).append(site)
        else:
            result.append((site, move, facets, None))
    for (_, move, facets), sites in folded.items():
        result.append((sites[0], move, facets, [f"{s.path}:{s.line}" for s in sites] if len(sites) > 1 else None))
    return sorted(result, key=lambda m: (m[0].path, m[0].line))


def release_note(release: Release) -> str:
    """A release as an install advice names it: torch_npu, its torch, CANN and the Pythons its wheels are for."""
    lines = supported_lines(release.python) if release.python else []
    python = f", Python {lines[0]}–{lines[-1]}" if lines else ""
    return f"torch_npu {release.torch_npu} (torch {release.torch}, CANN {release.cann}{python})"
