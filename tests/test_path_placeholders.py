"""A launched path whose folder is a placeholder names every file of the tree it fits (analyzer/context/
path_placeholders.py): PointNeXt's `python examples/$task_folder/main.py` (round 41 verdicts). Not so for a leading
placeholder (where the clone lies), a placeholder file name, a literal path, or a pattern fitting too many files."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.path_placeholders import MAX_MATCHES, has_placeholder, placeholder_matches

TREE = {"examples/segmentation/main.py", "examples/classification/main.py", "examples/shapenetpart/main.py",
        "examples/segmentation/vis.py", "examples/main.py", "examples/a/b/main.py", "train.py", "tools/train.py"}
EXPECTED = ["examples/classification/main.py", "examples/segmentation/main.py", "examples/shapenetpart/main.py"]


def test_each_placeholder_form_stands_for_one_folder():
    for word in ("examples/$task_folder/main.py", "examples/${task}/main.py", "examples/_task_/main.py",
                 "examples/{task}/main.py", "./examples/$task/main.py"):
        assert placeholder_matches(word, TREE) == EXPECTED, word


def test_no_placeholder_a_leading_one_a_file_name_or_a_dunder_folder_expands_nothing():
    assert placeholder_matches("examples/segmentation/main.py", TREE) == []  # literal: the caller's as written
    assert placeholder_matches("$ROOT/train.py", TREE) == []  # the clone's folder, not a choice of the tree's
    assert placeholder_matches("${DIR}/examples/$task/main.py", TREE) == []
    assert placeholder_matches("examples/segmentation/$name.py", TREE) == []  # a file name is no folder
    assert placeholder_matches("examples/__pycache__/main.py", TREE | {"examples/x/main.py"}) == []
    assert placeholder_matches("examples/$task/missing.py", TREE) == []
    assert not has_placeholder("tools/train.py")


def test_a_pattern_fitting_more_than_the_bound_names_none():
    many = {f"examples/task{index}/main.py" for index in range(MAX_MATCHES + 1)}
    assert placeholder_matches("examples/$task/main.py", many) == []
    assert len(placeholder_matches("examples/$task/main.py", set(list(many)[:MAX_MATCHES]))) == MAX_MATCHES
