"""The device domain outside Python: environment variables and device settings in shell scripts,
Dockerfiles and YAML configs."""

from __future__ import annotations

import yaml

from analyzer import parsing
from domains.base import Hit, Scanner, Span, Unit
from domains.rule_index import RuleIndex

SHELL_QUERY = r"""
(variable_assignment name: (variable_name) @name)
(simple_expansion (variable_name) @name)
(expansion (variable_name) @name)
(declaration_command (variable_name) @name)
(unset_command (variable_name) @name)
"""

ENV_TRIGGERS = ("CUDA", "CUDNN", "CUBLAS", "NVIDIA", "NVTE")
DEVICE_KEYS = {"device", "device_type", "map_location", "accelerator_device"}


class YamlUnreadable(Exception):
    """The YAML could not be composed; the message says where and why."""


class DeviceShellScanner(Scanner):
    domain = "device"
    kinds = frozenset({"shell", "dockerfile"})
    triggers = ENV_TRIGGERS

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb, "device")

    def scan(self, unit: Unit) -> list[Hit]:
        found = parsing.captures(parsing.query("bash", SHELL_QUERY), unit.tree())
        hits = []
        for node in found.get("name", []):
            name = parsing.text(node)
            code = self.index.env_rule(name)
            if code is not None:
                hits.append(Hit(code, name, Span.of(node)))
        return hits


class DeviceYamlScanner(Scanner):
    """YAML configs, and JSON ones (JSON is YAML) up to a size where they are settings rather than data."""

    domain = "device"
    kinds = frozenset({"yaml", "json"})
    triggers = ENV_TRIGGERS + ("cuda",)
    MAX_JSON_CHARS = 256 * 1024

    def wants(self, unit: Unit) -> bool:
        if unit.kind == "json" and len(unit.source.text) > self.MAX_JSON_CHARS:
            return False
        return super().wants(unit)

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb, "device")

    def scan(self, unit: Unit) -> list[Hit]:
        hits: list[Hit] = []
        for document in compose_documents(unit.source.text):
            self._walk(document, unit, hits)
        return hits

    def _walk(self, node: yaml.Node, unit: Unit, hits: list[Hit]) -> None:
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if isinstance(key, yaml.ScalarNode):
                    self._key(key, value, unit, hits)
                self._walk(key, unit, hits)
                self._walk(value, unit, hits)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                self._walk(item, unit, hits)
        elif isinstance(node, yaml.ScalarNode):
            name = str(node.value).split("=", 1)[0]
            code = self.index.env_rule(name) if "=" in str(node.value) else None
            if code is not None:  # docker-compose style "NAME=value" list items
                hits.append(Hit(code, name, _span(node, unit, len(name))))

    def _key(self, key: yaml.ScalarNode, value: yaml.Node, unit: Unit, hits: list[Hit]) -> None:
        name = str(key.value)
        code = self.index.env_rule(name)
        if code is not None:
            hits.append(Hit(code, name, _span(key, unit, len(name))))
        elif name == "name" and isinstance(value, yaml.ScalarNode) and self.index.env_rule(str(value.value)):
            # Kubernetes style: env: [{name: NAME, value: ...}]
            hits.append(Hit(self.index.env_rule(str(value.value)), str(value.value), _span(value, unit)))
        elif name in DEVICE_KEYS and isinstance(value, yaml.ScalarNode) and _is_cuda_device(str(value.value)):
            text = str(value.value)
            hits.append(
                Hit(self.index.code_for("device-string"), f"{name}: {text}", _span(value, unit),
                    text.replace("cuda", "npu", 1))
            )


def compose_documents(text: str) -> list[yaml.Node]:
    try:
        return [doc for doc in yaml.compose_all(text, Loader=yaml.SafeLoader) if doc is not None]
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlUnreadable(f"YAML not parsed: {problem}{where}") from None


def _is_cuda_device(value: str) -> bool:
    head, _, index = value.partition(":")
    return head == "cuda" and (index == "" or index.isdigit())


def _span(node: yaml.Node, unit: Unit, length: int | None = None) -> Span:
    """YAML marks count characters; spans count bytes like tree-sitter's."""

    def byte_column(row: int, char_column: int) -> int:
        return len(unit.source.line_text(row)[:char_column].encode("utf-8"))

    start_row, start_col = node.start_mark.line, node.start_mark.column
    if length is not None:
        end_row, end_col = start_row, start_col + length
    else:
        end_row, end_col = node.end_mark.line, node.end_mark.column
    return Span(start_row, byte_column(start_row, start_col), end_row, byte_column(end_row, end_col))
