"""A module that imports a CUDA extension unguarded, whose own importers all guard it: Pointcept's
libs/pointgroup_ops/functions/functions.py imports pointgroup_ops_cuda (setup.py:51 builds it), and both PointGroup
models import the wrapper package in `try: from pointgroup_ops import ballquery_batch_p, bfs_cluster / except
ImportError: ... = None` (point_group_v1m1_base.py:13-16, v1m2 likewise; round 39 B1 row 17). No product module
fails to load on Ascend, and the try/except OPS013 asks for is there: what is left is an NPU or CPU version of the ops
those importers bind, where the model calls them.

The wrapper's importers are the Python files outside the extension's build folder whose absolute imports start with
a folder between the build file and the wrapper (`pointgroup_ops`, the package its setup.py maps onto `functions/`);
only product files that load count: a helper no product code imports (point_group/utils.py) is no importer."""

from __future__ import annotations

import posixpath
from collections.abc import Callable

from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.domains.custom_ops.records import ExtensionRecord, ImportSite


def guarded_ops(wrapper: ImportSite, extension: ExtensionRecord, sites: list[ImportSite], context,
                unloaded: Callable[[], set[str]]) -> list[str] | None:
    """The names the wrapper's importers bind, when every product importer that loads guards its import with a handler
    that carries on; None when one does not, or when no product file imports the wrapper. `unloaded`: the product
    modules nothing the product runs loads (unloaded.unloaded_modules), asked only when an importer is unguarded."""
    build = posixpath.dirname(extension.path)
    inside = posixpath.relpath(posixpath.dirname(wrapper.path), build) if build else posixpath.dirname(wrapper.path)
    if inside.startswith(".."):
        return None
    folders = {part for part in ((posixpath.basename(build),) if build else ()) + tuple(inside.split("/"))
               if part not in {"", "."}}
    prefix = build + "/" if build else ""
    importers = [site for site in sites if site.module.split(".")[0] in folders and not site.path.startswith(prefix)
                 and context.of(site.path).role in COUNTED_ROLES]
    guarded = [site for site in importers if site.caught]
    if not guarded or any(not site.caught and site.path not in unloaded() for site in importers):
        return None
    return sorted({site.module.split(".", 1)[1] for site in guarded if "." in site.module})
