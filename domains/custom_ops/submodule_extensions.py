"""Native extensions whose source sits in a git submodule the tree does not hold (round 40, 4DGaussians: .gitmodules
names submodules/depth-diff-gaussian-rasterization and submodules/simple-knn, README.md `pip install -e`s both, and
gaussian_renderer/__init__.py imports diff_gaussian_rasterization, scene/gaussian_model.py simple_knn._C, on every
training step). Their CUDA sources were never read, so no kernel of them is in the inventory: the import is the only
trace of a custom kernel of unknown size, priced as one (OPS098, blocker, low confidence).

A submodule counts where product code imports a top module that no file of the tree provides and that names the
submodule's folder (reading/submodules.names_folder), and where it is native: a document installs that folder from
source (`pip install -e submodules/x`, `cd x && python setup.py install`), or an import loads a compiled child of it
(`simple_knn._C`, `x._ext`). A submodule imported as plain Python (dust3r's croco) stays a caveat of the verdict
(phases/unscanned.py); one nothing imports stays under the folders not read."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.analyzer.core.findings import Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading.install_docs import installed_local_folders
from ascend_feasibility.analyzer.reading.submodules import names_folder
from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.extension_imports import site_reach
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ImportSite

DETECTOR = "submodule-extension-import"
COMPILED_CHILDREN = frozenset({"_C", "_ext", "_cuda", "_backend"})  # the compiled module a package wraps


def submodule_extension_findings(facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    """One finding per native submodule not checked out, at each product import of it (scope: symbol). The folders
    priced so are published as `priced_submodules` (the verdict's caveat says they are priced, phases/unscanned.py)."""
    run.published["priced_submodules"] = priced = set()
    if not run.unscanned:
        return []
    code = next(r.code for r in run.kb.rules.values() if r.match.detector == DETECTOR)
    provided = _provided_names(run.paths)
    installed = [folder for document in (run.config.readme, *run.config.guides)
                 for _line, folder in installed_local_folders(document)]
    modules = {f.path: f for f in run.modules}
    findings = []
    for folder in run.unscanned:
        sites = [s for s in facts.imports if s.module.split(".")[0] not in provided
                 and names_folder(s.module.split(".")[0], folder)]
        if not sites or not (_installed(folder, installed) or any(_compiled(s) for s in sites)):
            continue
        for site in sites:
            place = run.context.of(site.path)
            if place.role != "product":
                continue
            reach, reason = site_reach(site, modules.get(site.path), place.reach, place.reason)
            top = site.module.split(".")[0]
            symbol = f"{top} (git submodule {folder.rstrip('/')}/, not checked out)"
            located = Located(code, symbol, site.path, site.line, site.column, site.end_column, site.snippet,
                              site.cell, matched=site.module, role=place.role, reach=reach, reach_reason=reason)
            findings.append(run.factory.build_located(located, 0))
            priced.add(folder.rstrip("/"))
    return findings


def _provided_names(paths) -> set[str]:
    """Every name a file or folder of the tree gives a top-level import (a module file's stem, a folder's name)."""
    names = set()
    for path in paths:
        parts = PurePosixPath(path).parts
        names.update(parts[:-1])
        if parts and parts[-1].endswith(".py"):
            names.add(parts[-1][:-3])
    return names


def _installed(folder: str, installed: list[str]) -> bool:
    """Does a document install the folder from source (as written from the clone's parent too: `4DGaussians/x`)?"""
    folder = folder.rstrip("/")
    return any(path == folder or path.endswith("/" + folder) for path in installed)


def _compiled(site: ImportSite) -> bool:
    """Does the import load a compiled child of the package (`from simple_knn._C import distCUDA2`)?"""
    return any(part in COMPILED_CHILDREN for part in site.module.split(".")[1:])
