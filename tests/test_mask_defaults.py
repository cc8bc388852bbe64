"""A project that writes CUDA_VISIBLE_DEVICES when it is unset and reads it back as its own process list
(domains/device/mask_defaults.py): one low DEV201 item at the write, the Python reads follow it (info, naming the
write). A plain pin, or a write under another test, keeps the medium items."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TRAINER = ("import os\nimport torch\nimport torch.multiprocessing as mp\nclass Trainer:\n    def fit(self):\n"
           "        ids = [int(x) for x in os.environ.get(\"CUDA_VISIBLE_DEVICES\", \"\").split(\",\") if x != '']\n"
           "        mp.spawn(self.worker, nprocs=len(ids))\n    def worker(self, rank):\n        torch.cuda.set_device(rank)\n"
           "        return 0 if len(os.environ['CUDA_VISIBLE_DEVICES'].split(',')) == 1 else rank\n")


def _dev201(root) -> dict[tuple[str, int], object]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {(f.path, f.line): f for f in report.findings if f.rule == "DEV201"}


def _launcher(test: str) -> str:
    return f"import os\nfrom utils.trainer import Trainer\nif __name__ == '__main__':\n    if {test}:\n" \
           "        os.environ['CUDA_VISIBLE_DEVICES'] = '0'\n    Trainer().fit()\n"


def test_the_projects_default_is_one_item_and_its_reads_follow(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\n", "utils/trainer.py": TRAINER,
                          "tasks/run.py": _launcher("os.environ.get('CUDA_VISIBLE_DEVICES', '') == ''")})
    found = _dev201(tmp_path)
    write = found[("tasks/run.py", 5)]
    assert write.severity == "low" and "to pin the NPUs" in write.replacement.en
    assert "does not map this variable" in write.message.en
    for line in (6, 10):
        read = found[("utils/trainer.py", line)]
        assert read.severity == "info" and "tasks/run.py:5" in read.message.en
    assert ("tasks/run.py", 4) not in found  # the guard of the write is part of its item (domains/device/mask_guards.py)


def test_a_not_in_guard_is_a_default_too(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\n", "utils/trainer.py": TRAINER,
                          "tasks/run.py": _launcher("'CUDA_VISIBLE_DEVICES' not in os.environ")})
    found = _dev201(tmp_path)
    assert found[("tasks/run.py", 5)].severity == "low"
    assert found[("utils/trainer.py", 10)].severity == "info"


def test_a_write_under_another_test_keeps_the_medium_items(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\n", "utils/trainer.py": TRAINER,
                          "tasks/run.py": _launcher("os.environ.get('CUDA_VISIBLE_DEVICES') == '1'")})
    found = _dev201(tmp_path)
    assert found[("tasks/run.py", 5)].severity == "medium"
    read = found[("utils/trainer.py", 10)]
    assert read.severity != "info" and "tasks/run.py:5" not in read.message.en


def test_a_default_nothing_else_reads_keeps_the_medium_item(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\n",
                          "run.py": "import os\nif 'CUDA_VISIBLE_DEVICES' not in os.environ:\n"
                                    "    os.environ['CUDA_VISIBLE_DEVICES'] = '0'\nimport torch\ntorch.zeros(1).cuda()\n"})
    assert _dev201(tmp_path)[("run.py", 3)].severity == "medium"


def test_a_read_in_another_script_does_not_follow(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\n", "utils/trainer.py": TRAINER,
                          "tasks/run.py": _launcher("os.environ.get('CUDA_VISIBLE_DEVICES', '') == ''"),
                          "tools/extract.py": "import os\nimport torch\ndef main():\n"
                                              "    ids = os.environ.get('CUDA_VISIBLE_DEVICES', '0').split(',')\n"
                                              "    return [torch.device(f'cuda:{i}') for i in range(len(ids))]\n"
                                              "if __name__ == '__main__':\n    main()\n"})
    found = _dev201(tmp_path)
    assert found[("utils/trainer.py", 10)].severity == "info"
    own = found[("tools/extract.py", 4)]
    assert own.severity != "info" and "tasks/run.py:5" not in own.message.en
