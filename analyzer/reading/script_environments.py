"""Conda environments a shell script makes for itself and throws away: the script creates an environment, activates
it, installs into it, runs its tools and removes it (mmaction2's tools/data/activitynet/download_videos.sh:
`conda env create -f environment.yml`, `source activate activitynet`, `pip install mmcv`, `python download.py`,
`conda remove -n activitynet --all`). What it installs there sets up no environment the project trains or serves in.
Read from the script's parsed commands (tree-sitter bash), never run."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

CONDA_PROGRAMS = frozenset({"conda", "mamba", "micromamba"})
# the group of an install into such an environment (manifests.Declaration.group): "throwaway-env:NAME"
GROUP_PREFIX = "throwaway-env:"


def throwaway_spans(commands: list[Node]) -> list[tuple[int, int, str]]:
    """(start byte, end byte, environment) of each stretch of the script that runs inside an environment the script
    creates (`conda create`, `conda env create`) and removes (`conda remove -n NAME --all`, `conda env remove -n
    NAME`): from its activation (`source activate NAME`, `conda activate NAME`) to the next deactivation or
    activation, else the script's end. Empty where the script creates no environment: activating one that exists
    already is the project's own environment. Only a removal after the creation throws the environment away: one
    before it (`conda env remove -n X` then `conda create -n X`, PointNeXt's install.sh:23-24) is a clean slate for
    the environment the script then keeps."""
    ordered = sorted(commands, key=lambda node: node.start_byte)
    words = [_words(command) for command in ordered]
    if not any(_creates(w) for w in words):
        return []
    removed = _removed_after_creation(words)
    spans: list[tuple[int, int, str]] = []
    active: tuple[int, str] | None = None
    for command, w in zip(ordered, words):
        switched, name = _switch(w)
        if not switched:
            continue
        if active is not None:
            spans.append((active[0], command.start_byte, active[1]))
        active = (command.end_byte, name) if name in removed else None
    if active is not None:
        spans.append((active[0], ordered[-1].end_byte if ordered else active[0], active[1]))
    return spans


def throwaway_environment(node: Node, spans: list[tuple[int, int, str]]) -> str:
    """The throwaway environment the install at `node` runs in ("" outside every span)."""
    return next((name for start, end, name in spans if start <= node.start_byte < end), "")


def _words(command: Node) -> list[str]:
    name = command.child_by_field_name("name")
    program = parsing.text(name).rsplit("/", 1)[-1] if name is not None else ""
    return [program, *(parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument"))]


def _creates(words: list[str]) -> bool:
    return words[0] in CONDA_PROGRAMS and (words[1:2] == ["create"] or words[1:3] == ["env", "create"])


def _removed_after_creation(words: list[str]) -> set[str]:
    """Names removed after a creation that names them, or after one that names none (`conda env create -f
    environment.yml`, whose name is in the file)."""
    created: set[str] = set()
    unnamed_created = False
    removed: set[str] = set()
    for w in words:
        if _creates(w):
            name = _option(w, ("-n", "--name"))
            if name:
                created.add(name)
            else:
                unnamed_created = True
        elif (name := _removed(w)) and (name in created or unnamed_created):
            removed.add(name)
    return removed


def _removed(words: list[str]) -> str:
    """NAME of `conda remove -n NAME --all` or `conda env remove -n NAME`, else ""."""
    if words[0] not in CONDA_PROGRAMS:
        return ""
    if not (words[1:2] == ["remove"] and "--all" in words) and words[1:3] != ["env", "remove"]:
        return ""
    return _option(words, ("-n", "--name"))


def _switch(words: list[str]) -> tuple[bool, str]:
    """(True, NAME) for an activation, (True, "") for a deactivation, (False, "") for any other command."""
    if words[0] in {"source", "."} and words[1:2] in (["activate"], ["deactivate"]):
        verb, rest = words[1], words[2:]
    elif words[0] in CONDA_PROGRAMS and words[1:2] in (["activate"], ["deactivate"]):
        verb, rest = words[1], words[2:]
    else:
        return False, ""
    return True, (rest[0] if verb == "activate" and rest else "")


def _option(words: list[str], flags: tuple[str, ...]) -> str:
    for index, word in enumerate(words[:-1]):
        if word in flags:
            return words[index + 1]
    return ""
