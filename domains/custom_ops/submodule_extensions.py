"""Native extensions whose source sits in a git submodule the tree does not hold (round 40, 4DGaussians: .gitmodules
names submodules/depth-diff-gaussian-rasterization and submodules/simple-knn, README.md `pip install -e`s both, and
gaussian_renderer/__init__.py imports diff_gaussian_rasterization, scene/gaussian_model.py simple_knn._C, on every
training step). Their CUDA sources were never read, so no kernel of them is in the inventory: the import is the only
trace of a custom kernel of unknown size, priced as one (OPS098, blocker, low confidence).

A submodule counts where product code imports a top module that no file of the tree provides and that names the
submodule's folder (reading/submodules.names_folder), and where it is native: a document installs that folder, or a
folder inside it, from source (`pip install -e submodules/x`, `cd x && python setup.py install`), or a shell script
the README or its guides run (`source install.sh`), or a root install*.sh / setup*.sh, does so (round 41, PointNeXt:
install.sh `cd openpoints/cpp/pointnet2_batch` then `python setup.py install`), or an import loads a compiled child
of it (`simple_knn._C`, `x._ext`). The folders built inside a submodule are named in the item; its price stays one
unknown kernel per submodule (the verdict audit's 5-9 d for PointNeXt is its required pointnet2_batch ops, the other
four folders optional by install.sh's own comments, which no command of the script states). A submodule imported as plain Python (dust3r's croco) stays a caveat of the verdict
(phases/unscanned.py); one nothing imports stays under the folders not read."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.analyzer.core.findings import Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading.install_docs import (
    installed_local_folders,
    is_install_script,
    run_shell_scripts,
)
from ascend_feasibility.analyzer.reading.submodules import names_folder
from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.extension_imports import site_reach
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ImportSite

DETECTOR = "submodule-extension-import"
NO_ASCEND_BUILD = "no-ascend-build"
COMPILED_CHILDREN = frozenset({"_C", "_ext", "_cuda", "_backend"})  # the compiled module a package wraps


def submodule_extension_findings(facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    """One finding per native submodule not checked out, at each product import of it (scope: symbol). The folders
    priced so are published as `priced_submodules` (the verdict's caveat says they are priced, phases/unscanned.py)."""
    run.published["priced_submodules"] = priced = set()
    if not run.unscanned:
        return []
    code = next(r.code for r in run.kb.rules.values() if r.match.detector == DETECTOR)
    provided = _provided_names(run.paths)
    installed = _installed_folders(facts, run)
    modules = {f.path: f for f in run.modules}
    findings = []
    for folder in run.unscanned:
        sites = [s for s in facts.imports if s.module.split(".")[0] not in provided
                 and names_folder(s.module.split(".")[0], folder)]
        built = _installed(folder, installed)
        if not sites or not (built or any(_compiled(s) for s in sites)):
            continue
        # the folders an install script builds inside it (PointNeXt's openpoints/cpp/pointnet2_batch, pointops, ...):
        # named in the item; still one unknown kernel, as the priced size is the submodule's, not its folders'
        builds = list(dict.fromkeys(path for path in built if path != folder.rstrip("/")))  # in install order
        for site in sites:
            place = run.context.of(site.path)
            if place.role != "product":
                continue
            reach, reason = site_reach(site, modules.get(site.path), place.reach, place.reason)
            top = site.module.split(".")[0]
            symbol = f"{top} (git submodule {folder.rstrip('/')}/, not checked out"
            symbol += f"; builds {', '.join(builds)})" if builds else ")"
            located = Located(code, symbol, site.path, site.line, site.column, site.end_column, site.snippet,
                              site.cell, matched=site.module, role=place.role, reach=reach, reach_reason=reason,
                              facets=_no_ascend_build(run, top))
            findings.append(run.factory.build_located(located, 0))
            priced.add(folder.rstrip("/"))
    return findings


def _no_ascend_build(run: ProjectRun, top: str) -> tuple[str, ...]:
    """The blocker facet where the catalog says the package has no Ascend build at all (class unsupported); else the
    extension is of unknown size, high."""
    record = run.kb.package(run.kb.distribution_of(top))
    return (NO_ASCEND_BUILD,) if record is not None and record.classification == "unsupported" else ()


def _provided_names(paths) -> set[str]:
    """Every name a file or folder of the tree gives a top-level import (a module file's stem, a folder's name)."""
    names = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        names.update(parts[:-1])
        if parts and parts[-1].endswith(".py"):
            names.add(parts[-1][:-3])
    return names


def _installed_folders(facts: CustomOpFacts, run: ProjectRun) -> list[str]:
    """The folders the README and its guides install from source, and those the shell scripts they run install
    (`source install.sh`, `bash scripts/install.sh`), with a root install*.sh / setup*.sh (is_install_script) read as
    run: PointNeXt's README `source install.sh`, whose `cd openpoints/cpp/pointnet2_batch` then `python setup.py
    install` builds inside the openpoints submodule."""
    documents = (run.config.readme, *run.config.guides)
    installed = [folder for document in documents for _line, folder in installed_local_folders(document)]
    scripts = [script for document in documents for script in run_shell_scripts(document)]
    for path, _line, folder in facts.script_installs:
        if (is_install_script(path) and "/" not in path) or any(_same_path(path, script) for script in scripts):
            installed.append(folder)
    return installed


def _same_path(path: str, written: str) -> bool:
    """Is `written` (a document's path, maybe from the clone's parent: `4DGaussians/x`) the tree's `path`?"""
    return written == path or written.endswith("/" + path)


def _installed(folder: str, installed: list[str]) -> list[str]:
    """The installed folders (as written from the clone's parent too: `4DGaussians/x`) that are the submodule's folder
    or lie inside it (`openpoints/cpp/pointnet2_batch` builds part of the `openpoints` submodule), as the tree's
    paths."""
    folder = folder.rstrip("/")
    found = []
    for path in installed:
        for start in [0] + [index + 1 for index, char in enumerate(path) if char == "/"]:
            tail = path[start:]
            if tail == folder or tail.startswith(folder + "/"):
                found.append(tail)
                break
    return found


def _compiled(site: ImportSite) -> bool:
    """Does the import load a compiled child of the package (`from simple_knn._C import distCUDA2`)?"""
    return any(part in COMPILED_CHILDREN for part in site.module.split(".")[1:])
