"""Notebooks a hosted notebook service runs: a demo on that service's NVIDIA GPUs, not the product's path.

nerfstudio's colab/demo.ipynb (`from google.colab import files`, `%cd /content/`, `!pip install
torch==2.0.1+cu118 ...`, reached by the README's "Open in Colab" badge) runs only on Google Colab, which has no NPU
(round 22 A1 21, B1 13/18, B2 26/34). Its install cell is the hosted demo's setup, not the project's dependency
declaration, so its sites are optional: the report lists them and the notebook as a deployment, and counts none.
Which modules only a hosted service provides is knowledge (conventions [[backends.hosted_notebooks]]); the evidence is
the notebook's own import of one, never its path or name.
"""

from __future__ import annotations

from ascend_feasibility.domains.base import ModuleFacts
from ascend_feasibility.knowledge.models import BackendConventions

NOTEBOOK = ".ipynb"


def hosted_notebooks(modules: list[ModuleFacts], backends: BackendConventions) -> dict[str, str]:
    """Notebook path → why, for each notebook among `modules` that imports a module only a hosted service provides."""
    services = backends.hosted_notebooks
    found: dict[str, str] = {}
    for facts in modules:
        if not facts.path.endswith(NOTEBOOK):
            continue
        imported = [*facts.imports, *facts.nested_imports]
        for service in services:
            if any(name == service.module or name.startswith(service.module + ".") for name in imported):
                found[facts.path] = (f"a {service.platform} notebook (imports {service.module}): a hosted demo, not "
                                     "the project's setup; its installs are not the project's dependencies")
                break
    return found
