"""Files the root README runs as modules (`python -m gradio_demo.app`, `torchrun -m pkg.train`): Python puts the
folder the command runs from, the root, on sys.path, not the file's own folder. The device module's import in such a
file is the absolute one from the root (`from gradio_demo import _device`; a folder without `__init__.py` imports as a
namespace package), never the bare `import _device` that resolves only when the file's folder is sys.path[0] (round 27
port hunk 5: co-tracker's gradio_demo/app.py)."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.reading.config import root_readme
from ascend_feasibility.analyzer.reading.install_docs import run_modules


def module_launched(root: Path) -> frozenset[str]:
    """The tree's files (`a/b.py`, or a package's `a/b/__main__.py`) that the root README's runner commands launch
    with `-m`."""
    found = root_readme(root)
    if found is None:
        return frozenset()
    text = found[1].decode("utf-8", errors="replace")
    launched = set()
    for _program, module in run_modules(text):
        stem = module.replace(".", "/")
        for candidate in (f"{stem}.py", f"{stem}/__main__.py"):
            if all(part.isidentifier() for part in module.split(".")) and (root / candidate).is_file():
                launched.add(candidate)
                break
    return frozenset(launched)
