"""A script's module-level functions its code never calls (only a comment, `# test()`, or nothing names them) are
`optional` unless another file can call them (analyzer/context/uncalled_functions.py,
domains/phases/uncalled_functions.py; round 25 A1 C3 rows 9, 10, 43, 39, A2 C8 row 68)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

# GPT-SoVITS's export_torch_script.py, reduced: `test()` is called only in a comment of the __main__ block
EXPORT = '''import torch


def test():
    model = torch.jit.load("model.pt", map_location="cuda")
    return model


def main():
    torch.ones(1).to("cuda")


if __name__ == "__main__":
    main()
    # test()
'''
# other files write the word `test` (a common one): unreferenced.py, asking for any file writing it, keeps it
OTHERS = {"app/__init__.py": "", "app/run.py": "def test(x):\n    return x\n\n\nprint(test(1))\n",
          "README.md": "Run the test first.\n"}


def _sites(root, export=EXPORT, extra=None):
    write_tree(root, {"app/export.py": export, **OTHERS, **(extra or {})})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f for f in report.findings if f.path == "app/export.py" and f.rule.startswith("DEV")}


def test_a_script_function_only_a_comment_calls_is_optional(tmp_path):
    found = _sites(tmp_path)
    assert found[5].reach == "optional" and not found[5].counted
    assert found[5].reach_reason.startswith("`test()` is defined in a script whose code never calls it")
    assert found[10].reach == "runs"  # main() runs


@pytest.mark.parametrize(("export", "extra"), [
    (EXPORT.replace("    # test()\n", "    test()\n"), None),  # a live call
    (EXPORT.replace("    # test()\n", "    import atexit\n    atexit.register(test)\n"), None),  # passed on
    (EXPORT.replace("    # test()\n", "    getattr(__import__('app.export'), 'test')\n"), None),  # a string names it
    (EXPORT.replace("import torch\n", "import torch; import pytest\n", 1), None),  # a collector calls test*
    (EXPORT.replace("\n\nif __name__", "\n\nif False:\n    pass\n\nif __name").replace(
        "if __name__ == \"__main__\":\n    main()\n    # test()\n", ""), None),  # a library module: no main block
    (EXPORT, {"app/serve.py": "from app.export import test\ntest()\n"}),  # imported by name
    (EXPORT, {"app/serve.py": "import app.export as export\nexport.test()\n"}),  # its module imported, name written
    (EXPORT, {"pyproject.toml": "[project]\nname = \"app\"\n[project.scripts]\nexport-test = \"app.export:test\"\n"}),
    # a published library's module with code at its top level (unsloth's chat_templates.py, `create_stopping_criteria`
    # named by no file of the project): a public function of it is its users' API
    (EXPORT.replace("if __name__ == \"__main__\":\n    main()\n    # test()\n", "TEMPLATES = {}\n"),
     {"pyproject.toml": "[project]\nname = \"app\"\n"}),
])
def test_a_script_function_something_can_call_stays_counted(tmp_path, export, extra):
    found = _sites(tmp_path, export, extra)
    assert found[5].reach == "runs"


def test_the_importers_index_answers_as_each_files_import_read():
    """_Importers.import_it (the files indexed once) against _imports_it asked of each file: imports by name, through
    the module, of another module ending alike, with `.*`, and from a file that does or does not write the name."""
    import itertools
    from types import SimpleNamespace

    from ascend_feasibility.analyzer.context.uncalled_functions import _Importers, _imports_it

    imports = ["app.export.helper", "export.helper", "app.export", "export", "app.export.*", "xexport.helper",
               "app.export.helpers", "app.export.helper.inner", "helper", ".export.helper", "app.reexport"]
    own = SimpleNamespace(path="app/export.py", module="app.export", imports=["torch"])
    for chosen in itertools.chain.from_iterable(itertools.combinations(imports, size) for size in (0, 1, 2)):
        other = SimpleNamespace(path="app/run.py", module="app.run", imports=list(chosen))
        twin = SimpleNamespace(path="app/export.py", module="app.export", imports=list(chosen))  # own, a second time
        python = [own, other, twin]
        for writing, name in itertools.product(({"app/run.py"}, set()), ("helper", "export", "a.helper")):
            expected = any(_imports_it(f, own.module, name, writing) for f in python if f is not own)
            assert _Importers(python).import_it(own, name, writing) == expected, (chosen, writing, name)
            assert _Importers([own]).import_it(own, name, writing) is False
