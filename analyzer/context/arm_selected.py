"""A module the project imports in a `try:` that ignores its ImportError, whose every use sits in definitions the
project names only in the arm of an option value nothing shipped selects: RAFT-Stereo's corr_sampler CUDA extension
(`try: import corr_sampler` / `except: pass`, core/corr.py:5-8), used only by CorrSampler and CorrBlockFast1D, which
core/raft_stereo.py:96-97 picks under `elif self.args.corr_implementation == "reg_cuda":` while `--corr_implementation`
defaults to "reg" and no launch script passes "reg_cuda" (round 38 A1 class 1, B2 class 1). Without the module the
project's default path runs: the module's own code (an extension's kernels, its build) is optional, and the reason
names the switch.

Per file (domains/phases/extension_users.py): the caught imports with the definitions only they reach, and the lines
writing each name a `from m import name` binds. Here: every file importing one of those definitions writes it only
inside option arms opt_in.switched_options rates opt-in (a declared choice the default is not, or a switch named for a
feature); a file importing the module whole, or with `*`, names it out of sight, and keeps it required."""

from __future__ import annotations

import re

from ascend_feasibility.analyzer.context.opt_in import switched_options
from ascend_feasibility.analyzer.context.switches import switch_rule
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES
from ascend_feasibility.knowledge import load_context_conventions

OPTION = re.compile(r"`--(?P<name>[\w-]+)` is ")  # the option a reason of opt_in.switched_options names


class ArmSelection:
    """Asked per module name; the project's opt-in arms are read once, at the first question that needs them."""

    def __init__(self, facts, context) -> None:
        self.facts = facts
        self.context = context
        self._arms = None

    def reason(self, names: set[str]) -> str | None:
        """Why the module imported as one of `names` is needed only where a user opts in, or None."""
        for f in self.facts:
            if not f.caught_import_users or self.context.of(f.path).role not in COUNTED_ROLES:
                continue
            for module, line, users in f.caught_import_users:
                if module in names:
                    why = self._only_in_arms(f, users)
                    if why is not None:
                        return (f"{module} is imported in a try that ignores its ImportError ({f.path}:{line}) and "
                                f"used only by {', '.join(users)}, which the project names only in an arm nothing "
                                f"shipped selects: {why}")
        return None

    def _only_in_arms(self, owner, users: tuple[str, ...]) -> str | None:
        if not owner.module:
            return None
        arms = self._opt_in_arms()
        first = None
        for f in self.facts:
            if f.path == owner.path:
                continue
            from_lines = [(name, lines) for source, name, lines in f.imported_name_lines
                          if _names_module(_absolute(source, f), owner.module)]
            whole = any(_names_module(m, owner.module) for m in f.imports) or \
                any(_names_module(m, owner.module) for m in f.star_imports)
            if whole and not from_lines or any(_names_module(m, owner.module) for m in f.star_imports):
                return None  # the module itself is bound: its names are used out of sight
            for name, lines in from_lines:
                if name not in users or not lines:
                    continue
                for line in lines:
                    arm = next((a for a in arms.get(f.path, []) if a[0] <= line <= a[1]), None)
                    if arm is None:
                        return None
                    first = first or f"{f.path}:{line}, {arm[2]}"
        return first

    def _opt_in_arms(self) -> dict[str, list[tuple[int, int, str]]]:
        """The arms a switch named for a feature turns on, or a declared choice of an option not named for a
        mainstream choice (`--corr_implementation` "reg_cuda": the value may name CUDA, the option does not; the arm
        of `--device cuda` is no opt-in)."""
        if self._arms is None:
            conventions = load_context_conventions().opt_in
            takes, mainstream = switch_rule(conventions), frozenset(conventions.mainstream_switch_tokens)

            def opt_in(dest: str, why: str, chosen: bool) -> bool:
                option = OPTION.match(why)
                return takes(dest, chosen) or (chosen and option is not None
                                               and not set(option.group(1).replace("-", "_").split("_")) & mainstream)
            self._arms = {path: [(first, last, why) for first, last, dest, why, chosen in ranges if opt_in(dest, why, chosen)]
                          for path, ranges in switched_options(self.facts, self.context, with_choices=True).items()}
        return self._arms


def _absolute(source: str, importer) -> str:
    """`.corr` in core/raft_stereo.py → `core.corr`; an absolute name as written."""
    dots = len(source) - len(source.lstrip("."))
    if not dots or not importer.module:
        return source
    parts = importer.module.split(".")
    package = parts if importer.path.endswith("__init__.py") else parts[:-1]
    base = package[:len(package) - (dots - 1)] if dots > 1 else package
    rest = source[dots:]
    return ".".join([*base, rest] if rest else base)


def _names_module(name: str, module: str) -> bool:
    return bool(name) and (name == module or module.endswith("." + name) or name.endswith("." + module))
