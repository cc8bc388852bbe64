"""Shell launchers whose every launch names a target the project does not have: no code of the project runs through
them (a stale script, or one that runs another repository's checkout), so their findings (a CUDA_VISIBLE_DEVICES pin,
a torchrun line) are `optional`, with the missing target in the reason.

open-instruct's scripts/eval/gsm.sh runs `python -m eval.gsm.run_eval`, and the tree holds no eval/gsm/run_eval.py
(the evaluations moved to another repository); LAVIS's copy of UniFormer's exp/.../test.sh runs `tools/test.py`,
which is not in the tree; open-instruct's scripts/train/olmo3/*.sh run OLMo-core's src/scripts/train/sft/*.py. A
launch command is dead when
- its `.py` script is a relative path inside the project (not absolute, not `~` or `..`, no `$VAR` or glob) that no
  file of the project has, from the root, from the script's folder or below any folder (a `cd` may lead there); or
- its `-m` module looks like the project's own and is missing: its first part names a folder or root module of the
  project, is no standard-library module and no distribution the project declares in a manifest or the knowledge
  base's package catalog knows unless it is the project's own (its published name or a top-level package folder:
  LLaVA-NeXT's freeze lists its editable `llava`, whose llava/eval/model_vqa_science.py is gone) (`-m torch.distributed.run`, `-m vllm...`, `-m pip` are installed; open-instruct's
  own scripts/eval/*.py import `eval.utils`, which puts an undeclared, unknown `eval` in the dependency matrix), and
  no file of the project is that module (`eval/gsm/run_eval.py`, `.../__main__.py`) anywhere; or
- its `-m` module is nowhere: no folder, file or standard-library module of that name, no distribution the project
  declares, no package its code imports (VILA's lmms.sh runs `-m lmms_eval`, which llava/eval/lmms/ imports), and
  the options the script passes are the project's own (most of them, at least two, declared by an `add_argument` of
  the project): open_lm's run_bench.sh runs `torchrun -m benchmark.main --train-data ... --fsdp`, options of
  open_lm's own params.py, with no `benchmark` anywhere. A launch of another tool the project neither declares nor
  imports, with options of its own (`-m sglang.launch_server --port ...`), stays live.
Judged are shell scripts (.sh, .bash, .zsh) that fetch nothing: a Dockerfile's `RUN python3 get-pip.py` runs what its
`wget` just downloaded, and its CUDA base image is a finding of its own. A command with an installed `-m` module is
judged by its script (`python -m torch.distributed.run ... train.py`); one
with a project module by that module only (the .py words are its arguments). A script with one live launch is kept.
"""

from __future__ import annotations

import re
import sys
from collections import defaultdict
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.context.written_names import writes_any

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ModuleFacts

UNJUDGED = re.compile(r"^(/|~|\.\./)|[$*?{}\[\]`]")  # outside the project, or only known when the shell runs
STANDARD = frozenset(getattr(sys, "stdlib_module_names", ()))
SHELL_SUFFIXES = (".sh", ".bash", ".zsh")  # a Dockerfile's RUN lines build an image, whose findings stand on their own
FETCHES = frozenset({"wget", "curl", "clone"})  # a script that fetches code may run what it fetched (get-pip.py)


def stale_launchers(facts: list[ModuleFacts], declared: frozenset[str] = frozenset(),
                    distribution: str = "") -> dict[str, str]:
    """path → why, for the shell scripts and Dockerfiles whose every launch command names a missing project target.
    `declared`: the distributions the project declares in a manifest or the package catalog knows; `distribution`:
    the name the project publishes itself as (pyproject's [project] name)."""
    shells = [f for f in facts if f.launches and f.path.endswith(SHELL_SUFFIXES) and not writes_any(f.words, FETCHES)]
    if not shells:
        return {}
    paths = {f.path for f in facts}
    by_name: dict[str, set[str]] = defaultdict(set)
    for path in paths:
        by_name[path_view(path).name].add(path)
    folders = {part for path in paths for part in path_view(path).parts[:-1]}
    root_modules = {path_view(p).stem for p in paths if p.endswith(".py") and "/" not in p}
    # the project's own distribution is the tree itself, though a freeze lists its editable install (LLaVA-NeXT's
    # `llava==1.7.0.dev0` beside pyproject's name = "llava"): its modules must exist in the tree
    installed = {_plain(name) for name in declared} - _own_names(paths, distribution)
    options = {_plain(flag.lstrip("-")) for f in facts for _, _, flag, _ in f.options}
    # what the project's code imports is installed beside it (VILA imports lmms_eval, which its lmms.sh runs), though
    # the dependency matrix may know it as neither declared nor catalogued
    imported = {_plain(name.split(".", 1)[0]) for f in facts for name in f.imports}
    result = {}
    for f in shells:
        folder = path_view(f.path).parent
        own = _own_options(f.launch_flags, options)
        reasons = [_dead(module, script, folder, by_name, folders | root_modules, installed,
                         [] if _plain(module.split(".", 1)[0]) in imported else own)
                   for module, script in f.launches]
        if all(reasons):
            result[f.path] = (f"it launches only what the project does not have (launch commands: {len(reasons)}), "
                              f"first {reasons[0]}; no code of the project runs through it")
    return result


def _dead(module: str, script: str, folder: str, paths: dict[str, set[str]], names: set[str],
          installed: set[str], own_options: list[str]) -> str | None:
    """Why one launch command cannot run, or None when it may. `own_options`: the project's options the script
    passes, when most of its options are the project's."""
    first = module.split(".", 1)[0]
    if module and first not in STANDARD and _plain(first) not in installed and (first in names or own_options):
        target = module.replace(".", "/")
        if _exists(f"{target}.py", folder, paths) or _exists(f"{target}/__main__.py", folder, paths):
            return None
        if first in names:
            return f"`-m {module}`: the project has no {target}.py"
        shown = ", ".join(own_options[:3])
        return (f"`-m {module}`: no such module in the project or its dependencies, though the options it is given "
                f"are the project's ({shown})")
    if not script or UNJUDGED.search(script):
        return None  # an installed module with no script, or a script only the shell knows
    script = script.removeprefix("./")
    return None if _exists(script, folder, paths) else f"{script}: not in the project"


def _own_names(paths: set[str], distribution: str) -> set[str]:
    """The project's own names: what it publishes itself as, and its top-level packages (at the root or under src/)."""
    own = {_plain(distribution)} if distribution else set()
    for path in paths:
        parts = path_view(path).parts
        if parts[-1] == "__init__.py" and (len(parts) == 2 or (len(parts) == 3 and parts[0] == "src")):
            own.add(_plain(parts[-2]))
    return own


def _exists(relative: str, folder: str, paths: dict[str, set[str]]) -> bool:
    """Is `relative` a project file from the root, from the launcher's folder, or below some folder? `paths`: the
    project's paths by file name."""
    same = paths.get(path_view(relative).name, set())
    return relative in same or f"{folder}/{relative}" in same or any(p.endswith("/" + relative) for p in same)


def _own_options(flags: list[str], options: set[str]) -> list[str]:
    """The script's options (`--train-data`) that the project declares, when they are at least two and most of the
    script's options; else none."""
    passed = sorted({flag for flag in flags if len(flag) > 2})
    own = [flag for flag in passed if _plain(flag.lstrip("-")) in options]
    return own if len(own) >= 2 and 2 * len(own) > len(passed) else []


def _plain(name: str) -> str:
    """A distribution or import name compared loosely: lower case, runs of `-_.` as one `_`."""
    return re.sub(r"[-_.]+", "_", name.lower())
