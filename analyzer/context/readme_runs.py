"""Example scripts the root README runs as the project's own command: the product's entries, not examples of use.

streaming-llm's README runs `CUDA_VISIBLE_DEVICES=0 python examples/run_streaming_llama.py --enable_streaming`
as its only documented command: the script sits in examples/ by its folder, yet it is what a user runs, so its
findings are the product's and it is an entry. Read from the launch lines of the root README's shell blocks
(analyzer/reading/install_docs.py run_scripts). Not promoted: a script in a developer-tool folder (scripts/
download_*.py, role example by tool_dirs), and a launch through a tool of the project's own (`accelerate launch
examples/nlp_example.py` in accelerate's README demonstrates the accelerate CLI on a user's script)."""

from __future__ import annotations

import re

from ascend_feasibility.analyzer.context.roles import file_role, path_view
from ascend_feasibility.analyzer.reading.install_docs import run_scripts


def readme_run_examples(readme: str, paths: list[str], conventions, overrides: dict[str, list[str]] | None,
                        distribution: str = "") -> list[str]:
    """The example-folder scripts (role `example` by an example_dirs folder) the README's shell lines run with a
    plain runner (python, torchrun, deepspeed, accelerate launch) that is no tool the project itself ships."""
    if not readme:
        return []
    existing = set(paths)
    own = {_plain(path_view(p).parts[-2]) for p in paths if path_view(p).name == "__init__.py"
           and (len(path_view(p).parts) == 2 or (len(path_view(p).parts) == 3 and path_view(p).parts[0] == "src"))}
    if distribution:
        own.add(_plain(distribution))
    examples = {name.lower() for name in conventions.example_dirs}
    found: list[str] = []
    for program, script in run_scripts(readme):
        path = script.removeprefix("./")
        if (path not in existing or path in found or _plain(program) in own
                or file_role(path, conventions, overrides) != "example"
                or not {part.lower() for part in path_view(path).parts[:-1]} & examples):
            continue
        found.append(path)
    return found


def _plain(name: str) -> str:
    return re.sub(r"[-_.]+", "_", name.lower())
