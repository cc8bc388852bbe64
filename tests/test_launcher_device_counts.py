"""A launcher's `CUDA_VISIBLE_DEVICES=0` pin (DEV703) changes nothing on Ascend unless the program counts the visible
devices: that exception is resolved by following the launched entry through the project modules it imports
(domains/device/device_counts.py). ChatGLM-6B's ptuning/train.sh runs main.py, which imports a copy of HF's Trainer
that wraps the model in nn.DataParallel: the pin is required there (low), with the counting site named; a program
that takes one device by `.cuda()` keeps the info note."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

TRAINER = "import torch\nfrom torch import nn\nclass Trainer:\n    def wrap(self, model):\n        if self.n_gpu > 1:\n" \
          "            model = nn.DataParallel(model)\n        return model\n"


def _pins(root) -> dict[str, object]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.path: f for f in report.findings if f.rule == "DEV703"}


def test_a_pin_for_a_program_that_reaches_dataparallel_is_required(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "ptuning/train.sh": "CUDA_VISIBLE_DEVICES=0 python main.py --do_train\n",
        "ptuning/main.py": "from trainer_seq2seq import Seq2SeqTrainer\nSeq2SeqTrainer().wrap(None)\n",
        "ptuning/trainer_seq2seq.py": "from trainer import Trainer\nclass Seq2SeqTrainer(Trainer):\n    pass\n",
        "ptuning/trainer.py": TRAINER,
        "ptuning/web_demo.sh": "CUDA_VISIBLE_DEVICES=0 python web_demo.py\n",
        "ptuning/web_demo.py": "import torch\nmodel = torch.nn.Linear(2, 2).cuda()\n",
    })
    pins = _pins(tmp_path)
    required = pins["ptuning/train.sh"]
    assert required.severity == "low"
    assert "nn.DataParallel at ptuning/trainer.py:6" in required.message.en
    assert "required here" in required.replacement.en
    kept = pins["ptuning/web_demo.sh"]
    assert kept.severity == "info" and "Nothing is needed" in kept.replacement.en


def test_device_map_auto_in_the_entry_counts(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\ntransformers\n",
        "run.sh": "export CUDA_VISIBLE_DEVICES=0\npython infer.py\n",
        "infer.py": "from transformers import AutoModel\nmodel = AutoModel.from_pretrained('m', device_map=\"auto\")\n",
    })
    pin = _pins(tmp_path)["run.sh"]
    assert pin.severity == "low" and 'device_map="auto" at infer.py:2' in pin.message.en


def test_a_rank_taken_modulo_the_count_is_no_count(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "run.sh": "CUDA_VISIBLE_DEVICES=0,1 torchrun --nproc_per_node 2 train.py\n",
        "train.py": "import os\nimport torch\nrank = int(os.environ['LOCAL_RANK'])\n"
                    "torch.cuda.set_device(rank % torch.cuda.device_count())\n",
    })
    assert _pins(tmp_path)["run.sh"].severity == "info"


def _data_parallel(root) -> object:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return next(f for f in report.findings if f.rule == "DST010")


def test_a_dataparallel_built_only_for_several_devices_is_the_pins_work(tmp_path):
    """The HF Trainer's `if self.n_gpu > 1: nn.DataParallel(model)` under a launcher that pins one device: on Ascend
    the pin (carried over to ASCEND_RT_VISIBLE_DEVICES, DEV703) keeps it from running, so DataParallel being
    unsupported is no rebuild: optional, the pin named. The pin itself stays a counted finding."""
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "train.sh": "CUDA_VISIBLE_DEVICES=0 python main.py\n",
        "main.py": "from trainer import Trainer\nTrainer().wrap(None)\n",
        "trainer.py": TRAINER,
    })
    data_parallel = _data_parallel(tmp_path)
    assert data_parallel.reach == "optional" and "train.sh:1" in data_parallel.reach_reason
    assert _pins(tmp_path)["train.sh"].counted


def test_a_dataparallel_built_whatever_the_count_or_without_a_pin_stays(tmp_path):
    always = TRAINER.replace("        if self.n_gpu > 1:\n            model", "        model")
    write_tree(tmp_path / "always", {
        "requirements.txt": "torch\n",
        "train.sh": "CUDA_VISIBLE_DEVICES=0 python main.py\n",
        "main.py": "from trainer import Trainer\nTrainer().wrap(None)\n",
        "trainer.py": always,
    })
    assert _data_parallel(tmp_path / "always").reach == "runs"
    write_tree(tmp_path / "unpinned", {
        "requirements.txt": "torch\n",
        "train.sh": "python main.py\n",
        "main.py": "from trainer import Trainer\nTrainer().wrap(None)\n",
        "trainer.py": TRAINER,
    })
    assert _data_parallel(tmp_path / "unpinned").reach == "runs"
    other_test = TRAINER.replace("self.n_gpu > 1", "self.use_dp")  # a switch, not a count
    write_tree(tmp_path / "switch", {
        "requirements.txt": "torch\n",
        "train.sh": "CUDA_VISIBLE_DEVICES=0 python main.py\n",
        "main.py": "from trainer import Trainer\nTrainer().wrap(None)\n",
        "trainer.py": other_test,
    })
    assert _data_parallel(tmp_path / "switch").reach == "runs"


def test_a_one_job_pin_of_other_cards_is_low_unless_the_program_counts(tmp_path):
    """DEV201 at low for `export CUDA_VISIBLE_DEVICES=7` before one job (Latte's sample/*.sh): the job runs on NPU 0
    instead of card 7. Where the program counts the visible devices (device_map="auto"), the count grows on Ascend:
    medium, as for any pin."""
    write_tree(tmp_path, {
        "requirements.txt": "torch\ntransformers\n",
        "sample.sh": "export CUDA_VISIBLE_DEVICES=7\npython sample.py\n",
        "sample.py": "import torch\nx = torch.zeros(2).to('cuda')\n",
        "infer.sh": "export CUDA_VISIBLE_DEVICES=7\npython infer.py\n",
        "infer.py": "from transformers import AutoModel\nmodel = AutoModel.from_pretrained('m', device_map=\"auto\")\n",
        # Latte utils.py: the number of devices read for a port number, no spread over them
        "port.sh": "export CUDA_VISIBLE_DEVICES=6,7\ntorchrun --nproc_per_node=2 serve.py\n",
        "serve.py": "import os\nimport torch\nn = torch.cuda.device_count()\nos.environ['MASTER_PORT'] = str(29500 + n)\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    pins = {f.path: f for f in report.findings if f.rule == "DEV201"}
    assert pins["port.sh"].severity == "low"
    assert pins["sample.sh"].severity == "low" and "instead of the cards named" in pins["sample.sh"].message.en
    assert pins["infer.sh"].severity == "medium"


def test_the_device_map_sites_are_the_outer_keywords_the_last_first(monkeypatch):
    """`device_map="auto"` keywords are found around the word's occurrences, not by a walk of the whole tree, yet as
    the walk meets them: one held in another keyword's value is not read (the walk reads a keyword whole), and past
    the first few (MAX_SITES) the later ones are the ones kept."""
    from ascend_feasibility.analyzer.reading import parsing
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    from ascend_feasibility.domains.device.device_counts import MAX_SITES, counting_sites

    def walked(*args, **kwargs):
        raise AssertionError("the tree was walked")

    monkeypatch.setattr(parsing, "walk", walked)

    def sites(code: str) -> list[int]:
        return [line for line, _ in counting_sites(Unit("m.py", "python", SourceText.from_text(code)))]

    assert sites('m = load("x", options=dict(device_map="auto"))\n') == []  # inside another keyword's value
    assert sites('m = load("x", device_map="balanced")\nn = load("y", device_map="auto")\n') == [2]
    five = "".join(f'm{i} = load("x{i}", device_map="auto")\n' for i in range(5))
    assert MAX_SITES == 3 and sites(five) == [3, 4, 5]
