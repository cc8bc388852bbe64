"""The tree's files a launched path with a placeholder folder names: `python examples/$task_folder/main.py`.

PointNeXt's README runs `CUDA_VISIBLE_DEVICES=$GPUs python examples/$task_folder/main.py --cfg $cfg` and says the
folder is the experiment's (segmentation, classification, shapenetpart): each examples/*/main.py is a documented
entry, the product's, not an example of use (round 41 verdicts, PointNeXt). A folder segment written as a shell
variable (`$task`, `${task}`) or a placeholder (`<task>`, read by install_docs as `_task_`; `{task}`) stands for any
one folder of the tree, so the path is every file that matches the rest of it. Only a segment after a literal folder
is expanded: a leading one (`$ROOT/train.py`, `${PWD}/tools/train.py`) is where the clone lies, no choice among the
tree's folders. More matches than MAX_MATCHES is no signal (a pattern that fits half the tree) and names none."""

from __future__ import annotations

import re

MAX_MATCHES = 16

_SEGMENT = re.compile(r"^(?:\$[A-Za-z_]\w*|\$\{[A-Za-z_]\w*\}|\{[A-Za-z_]\w*\}|_[A-Za-z]\w*_)$")


def has_placeholder(script: str) -> bool:
    """Does the path have a placeholder folder segment after a literal one?"""
    parts = script.removeprefix("./").split("/")
    return any(_placeholder(part) for part in parts[1:-1]) and not _placeholder(parts[0])


def placeholder_matches(script: str, existing: set[str]) -> list[str]:
    """The tree's files (sorted) a path with placeholder folder segments names, each placeholder standing for one
    folder; [] where it has none, where the path itself is in the tree, or where more than MAX_MATCHES match."""
    script = script.removeprefix("./")
    if script in existing or not has_placeholder(script):
        return []
    parts = script.split("/")
    found = sorted(path for path in existing if _fits(path.split("/"), parts))
    return found if len(found) <= MAX_MATCHES else []


def _fits(path: list[str], pattern: list[str]) -> bool:
    return len(path) == len(pattern) and all(
        want == have or (index < len(pattern) - 1 and _placeholder(want))
        for index, (have, want) in enumerate(zip(path, pattern)))


def _placeholder(segment: str) -> bool:
    # `__pycache__`-like dunder folders are real names, never a `<name>` rewritten
    return bool(_SEGMENT.match(segment)) and not segment.startswith("__")
