"""A feature call under an option test that also guards an import has the import's reach (guards.py
_option_of_import); the import itself keeps its own reading, so an if/else choosing between two local modules does not
make one of them optional."""

import tempfile
from pathlib import Path

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TRAIN = """import argparse
import torch
parser = argparse.ArgumentParser()
parser.add_argument("--data_type", default="img")
args = parser.parse_args()
if args.data_type == "img":
    from src.model_img import IMG
    model = IMG()
else:
    from src.model import Plain
    model = Plain()
"""
MODEL = """import torch
class {name}(torch.nn.Module):
    def forward(self, x):
        return x.cuda()
"""


def _reaches(files: dict[str, str], path: str) -> set[str]:
    with tempfile.TemporaryDirectory() as folder:
        root = write_tree(Path(folder), files)
        result = analyze(root, AnalyzeOptions(jobs=1))
    return {f.reach for f in result.findings if f.path == path}


def test_an_option_choosing_between_two_local_imports_leaves_both_running():
    reaches = _reaches({"train.py": TRAIN, "src/__init__.py": "", "src/model_img.py": MODEL.format(name="IMG"),
                        "src/model.py": MODEL.format(name="Plain")}, "src/model_img.py")
    assert reaches == {"runs"}


def test_the_unit_is_walked_for_option_imports_only_for_a_test_spelling_an_option_word():
    from ascend_feasibility.analyzer.context.guards import GuardReader
    from ascend_feasibility.analyzer.reading import parsing
    from ascend_feasibility.knowledge import load_context_conventions

    conventions = load_context_conventions()
    reader = GuardReader(conventions.guards, conventions.backends, tuple(conventions.opt_in.disabled_values))
    root = parsing.parse("python", b"if use_mamba:\n    from mamba import M\nif args.mamba:\n    from mamba import M\n")
    plain, option = (s.child_by_field_name("condition") for s in root.named_children)
    assert reader._option_of_import(plain) is False
    assert reader._import_options is None  # no option word in the test: its text cannot be one of the set's
    assert reader._option_of_import(option) is True and reader._import_options == frozenset({"args.mamba"})


def test_option_import_tests_are_the_walks_and_a_tree_past_the_limit_is_walked():
    from ascend_feasibility.analyzer.context.guards import _import_option_tests
    from ascend_feasibility.analyzer.reading import parsing

    code = (b"if args.a:\n    import a\n"                          # an import statement
            b"elif cfg.b:\n    x = 1\n    from b import c\n"      # an elif, the import not first
            b"elif opt.c:\n    y = 2\n"                           # no import
            b"if flag:\n    import d\n"                           # no option word
            b"def f():\n    if config.e:\n        import e\n"     # nested
            b"if args.f:\n    if args.g:\n        import g\n")   # the import is in the inner arm only
    root = parsing.parse("python", code)
    expected = frozenset({"args.a", "cfg.b", "config.e", "args.g"})
    assert _import_option_tests(root) == expected
    assert _import_option_tests(root, limit=root.descendant_count) == expected  # walked: the same set
    assert _import_option_tests(root, limit=10) == frozenset({"args.g"})  # the walk meets the last arms first, then stops
    # below the limit the arms are those of the import statements handed in (the unit's combined query's in a run)
    imports = [n for n in parsing.walk(root, limit=1000) if n.type in {"import_statement", "import_from_statement"}]
    assert _import_option_tests(root, lambda tree: imports) == expected
    assert _import_option_tests(root, lambda tree: imports[:1]) == frozenset({"args.g"})  # the walk's first: the last
    assert _import_option_tests(root, lambda tree: []) == frozenset()
