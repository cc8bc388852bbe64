"""What one file says about attention implementations chosen by name: the keys of its own attention registries
(a dict from names to attention functions, nanotron's ALL_ATTENTION_FUNCTIONS) and the "flash_attention_2"-style
strings it sets that do not go straight into transformers (a default, a config field of the project's own class)."""

from __future__ import annotations

from dataclasses import dataclass, field


@dataclass
class AttentionSelection:
    path: str
    line: int
    name: str  # "flash_attention_2"


@dataclass
class AttentionFacts:
    registry_keys: list[str] = field(default_factory=list)
    selections: list[AttentionSelection] = field(default_factory=list)

    def extend(self, other: "AttentionFacts") -> None:
        self.registry_keys += other.registry_keys
        self.selections += other.selections
