"""A lazily loaded library forked into an application (analyzer/context/forked_libraries.py): the `_LazyModule`
tables (domains/phases/lazy_tables.py), the README's Python imports (analyzer/reading/readme_code.py) and what
unloaded.py makes of them. Each expectation is read from those modules' docstrings."""

from __future__ import annotations

from ascend_feasibility.analyzer.context import forked_libraries as fl
from ascend_feasibility.analyzer.context import unloaded as u
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.readme_code import imported_packages
from ascend_feasibility.domains.phases.lazy_tables import lazy_names

from tests.test_unloaded_units import Facts, context

LAZY_INIT = b'''
from typing import TYPE_CHECKING
from .utils import _LazyModule, is_torch_available

_import_structure = {"configuration_utils": ["ConfigMixin"], "models": [], "pipelines": []}
_import_structure["models"] = ["UNet2DModel"]
other = {"not_a_table": ["Nothing"]}
if is_torch_available():
    _import_structure["pipelines"].extend(["AudioPipeline", "BrushPipeline"])
    _import_structure["models.unets.unet_3d"].append("UNet3DModel")
    other["x"].append("Ignored")

if TYPE_CHECKING:
    from .models import UNet2DModel
else:
    import sys

    sys.modules[__name__] = _LazyModule(__name__, globals()["__file__"], _import_structure, module_spec=__spec__)
'''


def test_lazy_names_read_every_shape_of_the_table_passed_to_lazy_module():
    assert lazy_names(parsing.parse("python", LAZY_INIT)) == [
        ("AudioPipeline", "pipelines"), ("BrushPipeline", "pipelines"), ("ConfigMixin", "configuration_utils"),
        ("UNet2DModel", "models"), ("UNet3DModel", "models.unets.unet_3d")]


def test_a_table_no_lazy_module_call_loads_is_no_lazy_table():
    assert lazy_names(parsing.parse("python", b'_import_structure = {"models": ["UNet2DModel"]}\n')) == []


def test_readme_imports_come_from_python_blocks_only():
    readme = """# lib
```bash
pip install lib
python -c "import shellonly"
```
```python
from lib import Pipeline
import torch.nn as nn
```
```pycon
>>> import other.sub
```
Prose: `import prose`.
"""
    assert imported_packages(readme) == ("lib", "other", "torch")
    assert imported_packages("```bash\npython examples/run.py\n```\n") == ()


def test_names_asked_of_a_lazy_package_are_handed_on_through_each_table():
    by_name = {"lib": {"src/lib/__init__.py"}, "lib.pipelines": {"src/lib/pipelines/__init__.py"},
               "lib.pipelines.brush": {"src/lib/pipelines/brush.py"}}
    tables = {"src/lib/__init__.py": {"BrushPipeline": {"pipelines"}},
              "src/lib/pipelines/__init__.py": {"BrushPipeline": {"brush"}}}
    assert fl.through_tables(["lib", "lib.BrushPipeline"], by_name, tables) == [
        "lib", "lib.BrushPipeline", "lib.pipelines.BrushPipeline", "lib.pipelines.brush.BrushPipeline"]
    assert fl.through_tables(["lib.Unknown", "lib.pipelines"], by_name, tables) == ["lib.Unknown", "lib.pipelines"]


def fork() -> list[Facts]:
    table = [("AudioPipeline", "pipelines"), ("BrushPipeline", "pipelines")]
    return [
        Facts("src/lib/__init__.py", ["lib.utils._LazyModule", "lib.pipelines.AudioPipeline",
                                      "lib.pipelines.BrushPipeline"], lazy_submodules=["lib.pipelines"],
              lazy_names=table, nested_imports=["lib.pipelines.AudioPipeline", "lib.pipelines.BrushPipeline"],
              module="lib"),
        Facts("src/lib/utils.py", module="lib.utils"),
        Facts("src/lib/pipelines/__init__.py", ["lib.pipelines.audio.AudioPipeline", "lib.pipelines.brush.BrushPipeline"],
              lazy_submodules=["lib.pipelines.audio", "lib.pipelines.brush"],
              lazy_names=[("AudioPipeline", "audio"), ("BrushPipeline", "brush")],
              nested_imports=["lib.pipelines.audio.AudioPipeline", "lib.pipelines.brush.BrushPipeline"],
              module="lib.pipelines"),
        Facts("src/lib/pipelines/audio.py", ["lib.utils"], module="lib.pipelines.audio"),
        Facts("src/lib/pipelines/brush.py", ["lib.utils"], module="lib.pipelines.brush"),
        Facts("examples/brush/run.py", ["lib", "lib.BrushPipeline"], main_guard=True),
        Facts("examples/audio/run.py", ["lib", "lib.AudioPipeline"], main_guard=True),  # the upstream's example
        Facts("tests/test_audio.py", ["lib.AudioPipeline"]),
        Facts("setup.py", module=""),
    ]


def fork_context(facts, readme_imports=()):
    own = context(facts, {"examples/audio/run.py": "example"})
    own.readme_launches = ("examples/brush/run.py",)
    own.readme_imports = readme_imports
    own.source_roots = ("src",)
    return own


def test_a_fork_run_by_the_readme_loads_only_what_its_scripts_ask_for():
    facts = fork()
    assert u.unloaded_modules(facts, fork_context(facts)) == {
        "src/lib/pipelines/audio.py": ("optional", "imported only by tests (tests/test_audio.py): no product code "
                                                   "loads it")}
    facts[-2] = Facts("tests/test_other.py")  # no test imports it: the fork's own reason
    assert u.unloaded_modules(facts, fork_context(facts)) == {
        "src/lib/pipelines/audio.py": ("optional", fl.WHY.format(top="src/lib"))}


def test_a_library_whose_readme_teaches_its_api_keeps_every_module():
    facts = fork()
    assert u.unloaded_modules(facts, fork_context(facts, readme_imports=("lib",))) == {}


def test_no_fork_without_a_readme_launch_importing_the_package():
    facts = fork()
    facts[5] = Facts("examples/brush/run.py", ["torch"], main_guard=True)
    assert fl.application_forks(facts, fork_context(facts), {"src/lib": "src/lib/__init__.py"}) == set()
    facts = fork()
    assert fl.application_forks(facts, fork_context(facts), {"src/lib": "src/lib/__init__.py"}) == {"src/lib"}


def test_the_fork_reason_has_chinese():
    from ascend_feasibility.analyzer.reporting.localize import phrase, recognised

    why = fl.WHY.format(top="src/lib")
    assert recognised(why)
    assert "src/lib/" in phrase("zh", why) and phrase("zh", why) != why


def _fork_tree(readme: str) -> dict[str, str]:
    cuda = "import torch\nx = torch.ones(1).cuda()\n"
    return {
        "setup.py": "from setuptools import setup\nsetup(name='lib', package_dir={'': 'src'})\n",
        "README.md": readme,
        "src/lib/__init__.py": ("from typing import TYPE_CHECKING\nfrom .utils import _LazyModule\n"
                                "_import_structure = {'pipelines': ['AudioPipeline', 'BrushPipeline']}\n"
                                "if TYPE_CHECKING:\n    from .pipelines import AudioPipeline, BrushPipeline\n"
                                "else:\n    import sys\n"
                                "    sys.modules[__name__] = _LazyModule(__name__, __file__, _import_structure)\n"),
        "src/lib/utils.py": "class _LazyModule:\n    pass\n",
        "src/lib/pipelines/__init__.py": ("from typing import TYPE_CHECKING\nfrom ..utils import _LazyModule\n"
                                          "_import_structure = {}\n_import_structure['audio'] = ['AudioPipeline']\n"
                                          "_import_structure['brush'] = ['BrushPipeline']\n"
                                          "if TYPE_CHECKING:\n    from .audio import AudioPipeline\n"
                                          "    from .brush import BrushPipeline\n"
                                          "else:\n    import sys\n"
                                          "    sys.modules[__name__] = _LazyModule(__name__, __file__, "
                                          "_import_structure)\n"),
        "src/lib/pipelines/audio.py": cuda + "class AudioPipeline:\n    pass\n",
        "src/lib/pipelines/brush.py": cuda + "class BrushPipeline:\n    pass\n",
        "examples/brush/run.py": "from lib import BrushPipeline\nif __name__ == '__main__':\n    BrushPipeline()\n",
        "examples/audio/run.py": "from lib import AudioPipeline\nif __name__ == '__main__':\n    AudioPipeline()\n",
    }


def _reach(root) -> dict[str, set[tuple[str, str | None]]]:
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    from tests.helpers import reported_at

    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in analyze(root, AnalyzeOptions(jobs=1)).findings:
        for path in reported_at(f):
            found.setdefault(path, set()).add((f.reach, f.reach_reason))
    return found


def test_a_whole_analysis_of_a_fork_leaves_what_the_readme_scripts_never_ask_for(tmp_path):
    from tests.helpers import write_tree

    readme = "# BrushApp\n```bash\npip install -e .\npython examples/brush/run.py\n```\n"
    reach = _reach(write_tree(tmp_path / "fork", _fork_tree(readme)))
    assert reach["src/lib/pipelines/audio.py"] == {("optional", fl.WHY.format(top="src/lib"))}
    assert {r for r, _ in reach["src/lib/pipelines/brush.py"]} == {"runs"}
    library = readme + "```python\nfrom lib import AudioPipeline\n```\n"  # the README teaches the API: a library
    reach = _reach(write_tree(tmp_path / "library", _fork_tree(library)))
    assert {r for r, _ in reach["src/lib/pipelines/audio.py"]} == {"runs"}
