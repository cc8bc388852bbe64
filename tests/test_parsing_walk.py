"""parsing.walk: the bounded pre-order walk the analyzers' stack loops share (order, limit, prune, named)."""

import pytest
from ascend_feasibility.analyzer.reading import parsing

SOURCE = b"a = f(b)\ndef g():\n    c = 1\nd = 2\n"


def _tree():
    return parsing.parse("python", SOURCE)


def _places(nodes) -> list[tuple[str, int]]:
    return [(n.type, n.start_byte) for n in nodes]


def _names(nodes) -> list[str]:
    return [parsing.text(n) if n.type == "identifier" else n.type for n in nodes]


def test_default_order_pops_the_last_child_first():
    # the loops push children after a node and pop from the end: the last statement comes first
    assert _names(parsing.walk(_tree())) == [
        "module",
        "expression_statement", "assignment", "integer", "d",
        "function_definition", "block", "expression_statement", "assignment", "integer", "c", "parameters", "g",
        "expression_statement", "assignment", "call", "argument_list", "b", "f", "a",
    ]


def test_source_order_is_plain_preorder():
    assert _names(parsing.walk(_tree(), source_order=True)) == [
        "module",
        "expression_statement", "assignment", "a", "call", "f", "argument_list", "b",
        "function_definition", "g", "parameters", "block", "expression_statement", "assignment", "c", "integer",
        "expression_statement", "assignment", "d", "integer",
    ]


def test_all_children_include_the_anonymous_ones():
    named = list(parsing.walk(_tree(), source_order=True))
    every = list(parsing.walk(_tree(), source_order=True, named=False))
    assert [n.type for n in every if n.is_named] == [n.type for n in named]
    assert [n.type for n in every[:6]] == ["module", "expression_statement", "assignment", "identifier", "=", "call"]


def test_limit_stops_after_that_many_nodes():
    full = _places(parsing.walk(_tree()))
    assert _places(parsing.walk(_tree(), limit=5)) == full[:5]
    assert _places(parsing.walk(_tree(), limit=0)) == []
    assert _places(parsing.walk(_tree(), limit=len(full) + 10)) == full


def test_strict_raises_only_when_nodes_are_left():
    count = len(list(parsing.walk(_tree())))
    assert len(list(parsing.walk(_tree(), limit=count, strict=True))) == count  # exactly the limit: read whole
    seen = []
    with pytest.raises(parsing.WalkLimit):
        for node in parsing.walk(_tree(), limit=count - 1, strict=True):
            seen.append(node)
    assert len(seen) == count - 1


def test_a_pruned_node_is_yielded_but_not_entered():
    walked = _names(parsing.walk(_tree(), prune=frozenset({"function_definition", "call"}), source_order=True))
    assert walked == ["module", "expression_statement", "assignment", "a", "call",
                      "function_definition", "expression_statement", "assignment", "d", "integer"]


def test_a_pruned_root_is_entered_only_when_asked():
    function = _tree().named_children[1]
    scopes = frozenset({"function_definition"})
    assert _names(parsing.walk(function, prune=scopes)) == ["function_definition"]
    assert _names(parsing.walk(function, prune=scopes, enter_root=True))[:3] == ["function_definition", "block",
                                                                               "expression_statement"]


def test_a_predicate_prunes_too():
    walked = _names(parsing.walk(_tree(), prune=lambda n: n.type == "assignment", source_order=True))
    assert walked == ["module", "expression_statement", "assignment", "function_definition", "g", "parameters",
                      "block", "expression_statement", "assignment", "expression_statement", "assignment"]


def test_no_root_walks_nothing():
    assert list(parsing.walk(None)) == []


NAMES = b"x = 1\ndef f(x, xs):\n    y = x + xs\n    print(x, 'x', x.x)\n    return y\nxx = x\n"


@pytest.mark.parametrize("limit", [1000, 30, 5])
def test_identifiers_named_are_the_walks_in_its_order(limit):
    # around the name's occurrences when the walk would read the whole tree, else by the walk itself (its limit)
    root = parsing.parse("python", NAMES)
    walked = [n for n in parsing.walk(root, limit=limit) if n.type == "identifier" and parsing.text(n) == "x"]
    found = parsing.identifiers_named(root, "x", limit)
    assert _places(found) == _places(walked)
    if limit == 1000:  # the last first (an attribute's name too); the string 'x' and longer names are none
        assert [n.start_point for n in found] == [(5, 5), (3, 20), (3, 18), (3, 10), (2, 8), (1, 6), (0, 0)]


def test_identifiers_named_visit_only_the_names_occurrences(monkeypatch):
    def walked(*args, **kwargs):
        raise AssertionError("walked")

    monkeypatch.setattr(parsing, "walk", walked)
    assert len(parsing.identifiers_named(parsing.parse("python", NAMES), "y", 1000)) == 2


NESTED = (b"def outer(x):\n    def inner(y):\n        return g(h(y))\n    return inner(f(x, k(1)))\n"
          b"class A:\n    def m(self):\n        def n():\n            pass\n        return n\nouter(g(2))(3)\n")


@pytest.mark.parametrize("kind, query", [("call", "(call) @node"), ("function_definition", "(function_definition) @node")])
def test_in_walk_order_puts_captures_where_the_walk_meets_them(kind, query):
    # nested calls (a call ending where its argument's does not), nested definitions ending with their outer one
    root = parsing.parse("python", NESTED)
    captured = parsing.captures(parsing.query("python", query), root)["node"]
    walked = [node for node in parsing.walk(root) if node.type == kind]
    assert len(walked) > 3
    assert _places(parsing.in_walk_order(captured)) == _places(walked)


def _targets(source: bytes):
    assignment = parsing.parse("python", source).named_children[0].named_children[0]
    left = assignment.child_by_field_name("left")
    return [left] if left.type not in parsing.TUPLE_TARGETS else left.named_children


@pytest.mark.parametrize("source, values", [
    (b"a = False", ["False"]),
    (b"a.b, c.d = True, False", ["True", "False"]),  # round 39 B2 row 41: each target takes the value at its place
    (b"(a, b) = (1, 2)", ["1", "2"]),
    (b"[a, b] = [1, 2]", ["1", "2"]),
    (b"a, b = f()", [None, None]),  # no literal tuple on the right: no place has a value of its own
    (b"a, b = 1, 2, 3", [None, None]),
    (b"a, *b = 1, 2, 3", [None, None]),  # a starred target shifts the places
])
def test_assigned_value_pairs_a_tuple_target_with_its_value(source, values):
    found = [parsing.assigned_value(t) for t in _targets(source)]
    assert [parsing.text(v) if v is not None else None for v in found] == values
