"""A word another object writes is no use of a module's function (unreferenced.py, `strict` in _may_name).

Round 41 A1 row 1, A2 row 91 (CenterPoint): det3d/torchie/parallel's `scatter` is named only by scatter_kwargs, which
only the never-built MegDataParallel uses; `ax.scatter(...)` in a plotting helper and a method `def scatter(self, ...)`
write the word but import nothing that reaches the module. Such a project file is no user; a file that looks names up
in the module at run time (`getattr(parallel, name)`) or a Python config importing nothing keeps the word a use.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

GATHER = "import torch\n\n\ndef scatter(x):\n    return x.cuda()\n\n\ndef collate(batch):\n    return batch\n"
PARALLEL_INIT = ("from .gather import collate, scatter\nfrom .data_parallel import MegDataParallel\n\n"
                 "__all__ = ['collate', 'scatter', 'MegDataParallel']\n")
DATA_PARALLEL = ("from torch.nn import DataParallel\n\nfrom .gather import scatter\n\n\n"
                 "class MegDataParallel(DataParallel):\n    def scatter(self, inputs, kwargs, device_ids):\n"
                 "        return scatter(inputs)\n")
PLOT = ("from app.parallel import collate\n\n\ndef draw(ax, points):\n    ax.scatter(points[0], points[1])\n"
        "    return collate(points)\n")
TRAIN = ("import torch\n\nfrom app.parallel import collate\nfrom app.plot import draw\n\n"
         "model = torch.nn.Linear(2, 2)\ndraw(None, collate([[1], [2]]))\n")


def tree(**extra: str) -> dict[str, str]:
    return {"train.py": TRAIN, "app/__init__.py": "", "app/plot.py": PLOT, "app/parallel/__init__.py": PARALLEL_INIT,
            "app/parallel/gather.py": GATHER, "app/parallel/data_parallel.py": DATA_PARALLEL} | extra


def gather_reach(root) -> set[tuple[str, str | None]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    found = {(f.reach, f.reach_reason) for f in report.findings if f.path == "app/parallel/gather.py" and f.line == 5}
    assert found, "the .cuda() in scatter is reported"
    return found


def test_a_function_only_an_unbuilt_class_calls_is_unreached_though_other_files_write_its_word(tmp_path):
    found = gather_reach(write_tree(tmp_path, tree()))
    assert {reach for reach, _ in found} == {"optional"}
    (why,) = {why for _, why in found}
    assert "scatter" in why and "MegDataParallel" in why


def test_a_file_looking_names_up_in_the_package_keeps_the_word_a_use(tmp_path):
    # train.py picks a function of app.parallel by a computed name: plot.py's word may be what it looks up
    lookup = TRAIN + "import sys\nimport app.parallel as parallel\n\nstep = getattr(parallel, sys.argv[1])\n"
    found = gather_reach(write_tree(tmp_path, tree(**{"train.py": lookup})))
    assert {reach for reach, _ in found} == {"runs"}


def test_a_python_config_importing_nothing_keeps_the_word_a_use(tmp_path):
    # a config file of assignments only may hold the name as a string some loader reads
    found = gather_reach(write_tree(tmp_path, tree(**{"configs/base.py": "collate_fn = 'scatter'\n"})))
    assert {reach for reach, _ in found} == {"runs"}


def test_a_file_importing_and_calling_it_keeps_it_running(tmp_path):
    called = TRAIN.replace("from app.parallel import collate", "from app.parallel import collate, scatter") \
        + "scatter(model)\n"
    found = gather_reach(write_tree(tmp_path, tree(**{"train.py": called})))
    assert {reach for reach, _ in found} == {"runs"}
