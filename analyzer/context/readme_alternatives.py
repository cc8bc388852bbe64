"""A DeepSpeed config only an alternative README launch passes: what it configures runs only when a reader picks that
alternative (round 21 verdicts V5, stanford_alpaca).

stanford_alpaca's README fine-tunes with `torchrun ... train.py ... --fsdp "full_shard auto_wrap"`; under
"Addressing OOM" it offers `pip install deepspeed` and the same `torchrun ... train.py` with
`--deepspeed "./configs/default_offload_opt_param.json"`. deepspeed is in no requirements file and nothing imports it,
so the JSON's findings (and the DeepSpeed adoption priced from them) are an alternative launch, not the default path.

A config's findings are `optional` when (each a test on the project's own facts):
- the project neither declares nor imports deepspeed (the dependency matrix's declared or imported distributions);
- every README launch naming the config passes it with a DeepSpeed option (`--deepspeed cfg.json`,
  `--deepspeed_config=cfg.json`);
- an earlier README launch runs the same script (or module) without any DeepSpeed option: the default launch;
- no file of the project names the config (a shell launcher, a Python default, a YAML pointing at it): those may
  load it on the default path.
"""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.analyzer.reading.install_docs import launch_lines

DISTRIBUTION = "deepspeed"  # the dependency matrix's name of DeepSpeed
OPTION_PREFIX = "--deepspeed"  # --deepspeed, --deepspeed_config, --deepspeed_config_file (HF Trainer, DeepSpeed)
README = "README.md"


def readme_alternative_configs(readme: str, paths, facts, declared: frozenset[str]) -> dict[str, list[tuple[int, int, str]]]:
    """path → [(1, last line, why)] for each DeepSpeed config only a non-default README launch passes."""
    if not readme or DISTRIBUTION in declared or OPTION_PREFIX not in readme:
        return {}
    existing = set(paths)
    by_name: dict[str, list[str]] = {}
    for path in existing:
        by_name.setdefault(PurePosixPath(path).name, []).append(path)
    named_elsewhere = {PurePosixPath(ref).name for f in facts for ref in f.config_refs}
    launches = launch_lines(readme)
    found: dict[str, list[tuple[int, str]]] = {}  # config path → (line, launched) of each README launch passing it
    naming_other: set[str] = set()  # configs a README launch names otherwise than through a DeepSpeed option
    for line, _, words in launches:
        target = _launched(words)
        for index, word in enumerate(words):
            option, _, value = word.partition("=")
            if not value and index + 1 < len(words) and option.startswith(OPTION_PREFIX):
                value = words[index + 1]
            config = _config(value or word, existing, by_name)
            if config is None:
                continue
            if option.startswith(OPTION_PREFIX) and (value or index + 1 < len(words)):
                found.setdefault(config, []).append((line, target))
            elif not (index and words[index - 1].startswith(OPTION_PREFIX)):
                naming_other.add(config)
    result: dict[str, list[tuple[int, int, str]]] = {}
    for config, uses in found.items():
        if config in naming_other or PurePosixPath(config).name in named_elsewhere:
            continue
        defaults = [_default(line, target, launches) for line, target in uses]
        if not all(defaults):
            continue
        shown = ", ".join(f"{README}:{line}" for line, _ in uses)
        result[config] = [(1, 10**9, f"named only by the README's alternative DeepSpeed launch ({shown}), and the project "
                                     f"declares no deepspeed; the default launch ({README}:{defaults[0]}) runs the "
                                     f"same script without it: an alternative launch the README offers")]
    return result


def _launched(words: list[str]) -> str:
    """The script (first .py word) or module (after -m / --module) a launch runs."""
    module = next((words[i + 1] for i, w in enumerate(words[:-1]) if w in {"-m", "--module"}), "")
    return next((w.removeprefix("./") for w in words if w.endswith(".py") and not w.startswith("-")), module)


def _config(word: str, existing: set[str], by_name: dict[str, list[str]]) -> str | None:
    """The tree's .json file a launch word names: by its path, else by a file name only one file has."""
    path = word.strip("'\"").removeprefix("./")
    if not path.endswith(".json"):
        return None
    if path in existing:
        return path
    named = by_name.get(PurePosixPath(path).name, [])
    return named[0] if len(named) == 1 else None


def _default(line: int, target: str, launches) -> int | None:
    """The line of an earlier README launch of `target` that passes no DeepSpeed option, or None."""
    return next((other for other, _, words in launches if other < line and target and _launched(words) == target
                 and not any(w.startswith(OPTION_PREFIX) for w in words)), None)
