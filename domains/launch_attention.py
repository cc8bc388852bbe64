"""A launch line that asks transformers for flash-attn: the value that reaches `attn_implementation=` comes from the
command line where a model wrapper's parameter defaults to None and only validates what it gets (round 24 lmms-eval:
`accelerate launch -m lmms_eval --model qwen3_vl --model_args pretrained=...,attn_implementation=flash_attention_2`
in examples/models/*.sh, while the wrapper's `valid_attn_implementations` list is no request: domains/attention/allowed_values.py).

Two spellings of the request on a launch command's words (python, torchrun, deepspeed, accelerate: launch_flags):
- an item `attn_implementation=flash_attention_2` of a comma-separated `key=value` list (`--model_args a=b,c=d`,
  `--model_args=...`), the form evaluation harnesses parse into the wrapper's keyword arguments;
- an option `--attn_implementation flash_attention_2` or `--attn_implementation=flash_attention_2` (an
  HfArgumentParser field, a CLI default overridden).
The finding is the launcher's: it sits on the word, and the reach is the script's. Which model module receives the
value is not followed (the `--model` name is a registry key the wrapper's decorator binds).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains import launch_flags
from tree_sitter import Node

KEY = "attn_implementation"
FLASH = frozenset({"flash_attention_2", "flash_attention_3"})
QUOTES = "'\""


def flash_requests(command_name: Node) -> list[tuple[Node, str]]:
    """(word, value) for each word of a launch command that asks for flash_attention_2/3."""
    words = launch_flags.launcher_arguments(command_name)
    found = []
    for index, word in enumerate(words):
        text = parsing.text(word).strip(QUOTES)
        if text.lstrip("-") == KEY and text.startswith("--") and index + 1 < len(words):
            value = parsing.text(words[index + 1]).strip(QUOTES)
            if value in FLASH:
                found.append((words[index + 1], value))
            continue
        value = _item_value(text)
        if value is not None:
            found.append((word, value))
    return found


def _item_value(text: str) -> str | None:
    """The flash-attn value of an `attn_implementation=<value>` item of the word, else None: items are split on
    commas and blanks, and an item's key is what precedes its last `=` (`--model_args=...,attn_implementation=X`,
    `--attn_implementation=X`)."""
    for item in text.replace(",", " ").split():
        key, equals, value = item.strip(QUOTES).rpartition("=")
        if equals and key.rpartition("=")[2].lstrip("-") == KEY and value.strip(QUOTES) in FLASH:
            return value.strip(QUOTES)
    return None
