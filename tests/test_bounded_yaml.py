"""The YAML budget (analyzer/reading/bounded_yaml.py) counts a scalar as one node without recording it: an alias to a
scalar composes, a node holding an alias to itself is refused, and the expanded size counts every scalar once, with
LibYAML's events and with PyYAML's own parser alike."""

from __future__ import annotations

import pytest
import yaml
from ascend_feasibility.analyzer.reading import bounded_yaml
from ascend_feasibility.analyzer.reading.bounded_yaml import MAX_EXPANDED_NODES, YamlBudgetError

LOADERS = [bounded_yaml.BoundedLoader] + ([bounded_yaml.FastBoundedLoader] if bounded_yaml.CParser is not None else [])


def _compose(text: str, loader) -> list[yaml.Node]:
    return bounded_yaml._documents(text, loader)


@pytest.mark.parametrize("loader", LOADERS)
def test_an_alias_to_a_scalar_composes_to_the_anchored_node(loader):
    (document,) = _compose("a: &x cuda\nb: *x\nc: [*x, *x]\n", loader)
    values = [value for _, value in document.value]
    assert values[0] is values[1] and values[1].value == "cuda"
    assert values[2].value == [values[0], values[0]]


@pytest.mark.parametrize("loader", LOADERS)
@pytest.mark.parametrize("text", ["x: &a [*a]\n", "x: &a {k: [1, *a]}\n"])
def test_a_node_holding_an_alias_to_itself_is_refused(loader, text):
    with pytest.raises(YamlBudgetError, match="contains itself"):
        _compose(text, loader)


def _expanding(aliases: int) -> str:
    return "a: &a [" + ", ".join(["1"] * 999) + "]\nb: [" + ", ".join(["*a"] * aliases) + "]\n"


@pytest.mark.parametrize("loader", LOADERS)
def test_the_expanded_size_counts_each_scalar_once(loader):
    # the root: itself, two keys, `a` (1 + 999 scalars) and `b` (1 + n times a's 1000): 1004 + 1000 n nodes
    assert MAX_EXPANDED_NODES == 100_000
    assert len(_compose(_expanding(98), loader)) == 1  # 99,004 nodes
    with pytest.raises(YamlBudgetError, match="aliases expand past"):
        _compose(_expanding(99), loader)  # 100,004 nodes


def test_compose_all_answers_as_before_for_the_three_cases():
    assert bounded_yaml.compose_all("a: &x 1\nb: *x\n")[0].value[1][1].value == "1"
    for text, message in (("x: &a [*a]\n", "contains itself"), (_expanding(99), "aliases expand past")):
        with pytest.raises(YamlBudgetError, match=message):
            bounded_yaml.compose_all(text)
