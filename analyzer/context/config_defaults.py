"""A backend switch assigned a config's value that is PyTorch's own default: YOLOP's `torch.backends.cudnn.deterministic
= cfg.CUDNN.DETERMINISTIC`, with `_C.CUDNN.DETERMINISTIC = False` the one write of the path (lib/config/default.py:20)
and no config file or launch command setting it (round 38 A2 class 4, B2 class 4). It asks for nothing, as the literal
False does (domains/device/cuda_features.assigns_default): a note, not counted.

The path's values are read as the string-option arms read them (config_paths.path_values): a literal the project writes
there; a write of anything else, or an option, leaves the value open."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.config_paths import path_values

CONFIG_SUFFIXES = (".yaml", ".yml", ".json")


def default_valued_switches(facts, flag_defaults: dict[str, bool]) -> dict[tuple[str, int], tuple[str, str]]:
    """(path, line) of each assignment of a config's attribute path → (the switch's qualified name's last part, why
    the value is PyTorch's default) where every value the project writes to the path is that default. The caller
    matches a finding of the switch at that line."""
    reads = [(f.path, line, config) for f in facts for line, config in f.path_reads]
    if not reads or not flag_defaults:
        return {}
    configs = [f.words.lower() for f in facts if f.path.endswith(CONFIG_SUFFIXES) and f.words]
    launched = [f"{flag} {value}".lower() for f in facts for flag, value in f.launch_values]
    result = {}
    for path, line, config in reads:
        found = path_values(config, facts)
        if found is None:
            continue
        literals, options, first = found
        key = config.rsplit(".", 1)[-1].lower()
        if options or len(literals) != 1 or literals - {"true", "false"} or any(f" {key} " in words for words in configs) \
                or any(config.lower() in text or key in text.split() for text in launched):
            continue  # set from an option, a config file or a launch command: the value is open
        value = next(iter(literals))
        result[(path, line)] = (value, f"config `{config}` is {value.capitalize()}, PyTorch's own default, unless a "
                                       f"config file sets it ({first}), and no config file or launch command sets it: "
                                       "it asks for nothing, on any device")
    return result


def assigns_config_default(symbol: str, value: str, flag_defaults: dict[str, bool]) -> bool:
    """Is `value` ("false"/"true") PyTorch's default for the switch a finding names (its symbol, qualified)?"""
    default = flag_defaults.get(symbol)
    return default is not None and value == str(default).lower()
