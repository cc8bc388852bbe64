"""A config file only an opt-in variant of a launch names: what it configures runs only when a user picks that variant.

EasyAnimate's scripts/train.sh launches scripts/train.py with accelerate and no DeepSpeed; train_reward_lora.sh and
the README's "with deepspeed" variant add `--use_deepspeed --deepspeed_config_file config/zero_stage2_config.json`.
The ZeRO config is named nowhere else, so its DeepSpeed findings (and the DeepSpeed adoption priced from them) are
an option, not the project's default path (round 18 verdicts, V2).

A config file's findings are `optional` when (every test on the project's own facts, no names known in advance):
- every launch command naming the file (by its file name) passes one value-less flag (`--use_deepspeed`) in common;
- another launch command runs the same script without that flag and without the file (the default launch);
- no other file of the project names it (a Python default, a YAML config pointing at it): those may load it on the
  default path.
"""

from __future__ import annotations

from collections import defaultdict
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.project import ProjectContext
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

CONFIG_SUFFIXES = (".yaml", ".yml", ".json", ".toml", ".cfg")
LAUNCH_ROLES = COUNTED_ROLES | {"example"}


def opt_in_configs(facts, context: ProjectContext) -> dict[str, list[tuple[int, int, str]]]:
    """path → [(1, last line, why)] for each config file only an opt-in launch variant names."""
    commands: dict[str, list[tuple[str, frozenset[str], frozenset[str]]]] = defaultdict(list)  # script → launches
    naming: dict[str, list[tuple[str, str, frozenset[str]]]] = defaultdict(list)  # config name → (path, script, flags)
    elsewhere: set[str] = set()  # config names some file names outside a launch command
    for f in facts:
        launched = set()
        if context.of(f.path).role in LAUNCH_ROLES:
            for script, flags, configs in f.launch_commands:
                names = frozenset(PurePosixPath(c).name for c in configs)
                commands[script].append((f.path, frozenset(flags), names))
                for name in names:
                    naming[name].append((f.path, script, frozenset(flags)))
                launched |= names
        elsewhere |= {PurePosixPath(ref).name for ref in f.config_refs} - launched
    if not naming:
        return {}
    result: dict[str, list[tuple[int, int, str]]] = {}
    for f in facts:
        name = PurePosixPath(f.path).name
        if not f.path.endswith(CONFIG_SUFFIXES) or name not in naming or name in elsewhere:
            continue
        uses = naming[name]
        common = frozenset.intersection(*(flags for _, _, flags in uses))
        if not common:
            continue
        default = _default_launch(uses, commands, common, name)
        if default is None:
            continue
        shown = ", ".join(f"`{flag}`" for flag in sorted(common))
        where = ", ".join(sorted({path for path, _, _ in uses}))
        result[f.path] = [(1, 10**9, f"named only by launch commands passing {shown} ({where}); {default} launches "
                                    f"the same script without it: an opt-in variant")]
    return result


def _default_launch(uses, commands, common: frozenset[str], name: str) -> str | None:
    """The file of a launch of the same script as every use that passes none of `common` and names no `name`."""
    found = None
    for _, script, _ in uses:
        other = next((path for path, flags, names in commands.get(script, []) if not flags & common and name not in names),
                     None)
        if other is None:
            return None
        found = found or other
    return found
