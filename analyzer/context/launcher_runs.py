"""Tool-folder scripts the project's own shell launchers run: the product's entries, not developer tools.

A top-level `scripts/` or `tools/` folder holds developer tools by convention (roles.py, conventions.toml
tool_dirs), yet a shipped launcher may run one as the product's command: LatentSync's inference.sh runs
`python -m scripts.inference`, train_unet.sh `torchrun ... -m scripts.train_unet`; OpenMMLab's tools/dist_train.sh
runs `python -m torch.distributed.launch $(dirname "$0")/train.py`. Such a script keeps the product role (round 28
verdicts V1, W4), as a script the root README runs does (readme_runs.py). A launcher that is itself a test or CI
file, or sits in an example folder, promotes nothing. Like the README route, a script promoted from a tool folder
must drive the project's own code (import it, or run a library runner that builds it from a config: mmocr's
tools/train.py, round 38 V-5): a launcher running a download or conversion helper leaves it a tool.

Likewise a tool-folder module that a root-level product script imports (`from utils import arg_util, misc` in a
train.py beside utils/; gradio_app.py's `from scripts.inference import main`), and what such a module imports from
tool folders in turn: the product's own helpers, whose sites run on its path (round 28 verdicts V1, VAR)."""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.context.path_placeholders import placeholder_matches
from ascend_feasibility.analyzer.context.readme_runs import drives_project, module_file, product_names
from ascend_feasibility.analyzer.context.roles import file_role, path_view
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.install_docs import run_modules, run_scripts
from ascend_feasibility.analyzer.reading.python_names import ImportTable

SHELL_SUFFIXES = (".sh", ".bash")
_OWN_FOLDER = ('$(dirname "$0")/', "$(dirname $0)/", '"$(dirname "$0")"/', "`dirname $0`/")


def launcher_run_tools(paths: list[str], conventions, overrides: dict[str, list[str]] | None,
                       read: Callable[[str], str | None]) -> list[str]:
    """The tool-folder scripts (role `example` by tool_dirs) that a product-role shell launcher of the tree runs by
    path or as a module, and that import the project's own code; a path with a placeholder folder (`python
    scripts/$TASK/main.py`) is each file it fits, as the README's (path_placeholders)."""
    tools = {name.lower() for name in conventions.tool_dirs}
    if not any(len(path_view(p).parts) > 1 and path_view(p).parts[0].lower() in tools for p in paths):
        return []
    existing = set(paths)
    found: list[str] = []
    products: frozenset[str] | None = None
    for launcher in paths:
        if not launcher.endswith(SHELL_SUFFIXES) or file_role(launcher, conventions, overrides) != "product":
            continue
        text = read(launcher)
        if not text:
            continue
        folder = path_view(launcher).parent
        targets = [path for _program, script in run_scripts(text)
                   for path in (placeholder_matches(script, existing) or [_script_path(script, folder, existing)])]
        targets += [module_file(module, existing) for _program, module in run_modules(text)]
        for path in targets:
            if (path is None or path in found or path_view(path).parts[0].lower() not in tools
                    or file_role(path, conventions, overrides) != "example"):
                continue
            if products is None:
                products = product_names(paths, conventions, overrides)
            if drives_project(read(path), products):
                found.append(path)
    return found


def _script_path(script: str, folder: str, existing: set[str]) -> str | None:
    """The tree's file a launcher's `python x.py` names: relative to the launcher's own folder where it says so
    (`$(dirname "$0")/train.py`), else to the root the user runs it from, else to the launcher's folder."""
    for prefix in _OWN_FOLDER:
        if script.startswith(prefix):
            rest = script[len(prefix):]
            candidate = rest if folder == "." else f"{folder}/{rest}"
            return candidate if candidate in existing else None
    script = script.removeprefix("./")
    if script in existing:
        return script
    candidate = f"{folder}/{script}" if folder != "." else script
    return candidate if candidate in existing else None


def entry_imported_tools(paths: list[str], conventions, overrides: dict[str, list[str]] | None,
                         read: Callable[[str], str | None], promoted: tuple[str, ...] = ()) -> list[str]:
    """The tool-folder modules (role `example` by tool_dirs) that a root-level product script, or a script already
    promoted (`promoted`), imports by its dotted name, followed through the modules so found."""
    tools = {name.lower() for name in conventions.tool_dirs}
    existing = set(paths)
    if not any(len(path_view(p).parts) > 1 and path_view(p).parts[0].lower() in tools for p in existing):
        return []
    queue = [p for p in paths if len(path_view(p).parts) == 1 and p.endswith(".py")
             and file_role(p, conventions, overrides) == "product"] + list(promoted)
    found: list[str] = []
    seen = set(queue)
    while queue:
        for path in _imported_files(read(queue.pop()), existing):
            if path in seen or path_view(path).parts[0].lower() not in tools:
                continue
            seen.add(path)
            if file_role(path, conventions, overrides) == "example":
                found.append(path)
                queue.append(path)
    return found


def _imported_files(text: str | None, existing: set[str]) -> list[str]:
    """The tree's .py files the text imports by an absolute dotted name (`utils.misc.auto_resume` → utils/misc.py)."""
    if not text:
        return []
    table = ImportTable()
    table.add_tree(parsing.parse("python", text.encode("utf-8", "replace")))
    files: list[str] = []
    for qualified in table.bindings.values():
        parts = qualified.split(".")
        for end in range(len(parts), 0, -1):
            path = module_file(".".join(parts[:end]), existing)
            if path is not None:
                files.append(path)
                break
    return files
