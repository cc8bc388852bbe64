"""The context of a finding, computed once per project and per file, and asked by every domain:
the role of its file (product, build, test, example, docs, ci) and whether its code runs on Ascend (reach).

- `roles`: a file's role from its path and the project's overrides.
- `project`: what the file list alone shows: per-backend files, NPU twins, the project's own packages.
- `guards`: the reach of one site from the code around it (if/elif chains, try/except, skip decorators).
"""

from ascend_feasibility.analyzer.context.project import FileContext, ProjectContext, build_project_context

__all__ = ["FileContext", "ProjectContext", "build_project_context"]
