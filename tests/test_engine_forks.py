"""Copies of a serving engine's internals (analyzer/context/engine_forks.py; round 23 A1 C5 rows 7, 10, 42, 47, A2 C2
rows 76, 81, 87, port hunks 1, 5, 12) and the engine route's first release (routes.toml first_releases, B1 9)."""

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port

from tests.helpers import write_tree as write

WORKER = (
    "import os\nimport torch\n{imports}\n\n\nclass Worker({base}):\n    def init_device(self):\n"
    "        os.environ['TORCH_NCCL_AVOID_RECORD_STREAMS'] = '1'\n"
    "        torch.cuda.set_device(self.local_rank)\n"
    "        x = torch.zeros(1).cuda()\n"
)
TRAIN = "import torch\nmodel = torch.nn.Linear(2, 2).cuda()\ntorch.cuda.synchronize()\n"
APP = "import torch\nfrom vllm import SamplingParams\nfrom serve.worker import Worker\nWorker().init_device()\n"


def _tree(tmp_path, name, imports, base="object", requirements="torch==2.6.0\n"):
    root = tmp_path / name
    write(root, {"requirements.txt": requirements, "train.py": TRAIN, "app.py": APP,
                 "serve/__init__.py": "", "serve/worker.py": WORKER.format(imports=imports, base=base)})
    return analyze(root, AnalyzeOptions(jobs=1))


def test_a_copy_of_the_engines_worker_is_one_item_the_port_leaves_alone(tmp_path):
    report = _tree(tmp_path, "fork", "from vllm.worker.worker_base import WorkerBase", "WorkerBase")
    assert [f.rule for f in report.findings if f.path == "serve/worker.py" and f.domain != "dependencies"] == []
    item = next(f for f in report.findings if f.rule == "DEP001" and f.symbol.startswith("vllm"))
    assert {"serve/worker.py:8", "serve/worker.py:9", "serve/worker.py:10"} <= set(item.sites)
    assert "copy vllm's internal" in item.message.en
    assert report.project.deployments == ["serve/worker.py"]
    # the project's own code keeps its findings
    assert {f.rule for f in report.findings if f.path == "train.py"} >= {"DEV004", "DEV101"}
    # the engine's pin below vllm-ascend's first release is the same re-base: a site of the one item
    pinned = _tree(tmp_path, "pinned", "from vllm.worker.worker_base import WorkerBase", "WorkerBase",
                   requirements="torch==2.6.0\nvllm==0.4.1\n")
    vllm = [f for f in pinned.findings if f.domain == "dependencies" and f.symbol.startswith("vllm")]
    assert [f.rule for f in vllm] == ["DEP001"]
    assert "requirements.txt:2" in vllm[0].sites and "0.7.1" in vllm[0].message.en
    # the port rewrites the project's code and leaves the fork as it is (port round 23 hunks 1, 5, 12)
    result = port(tmp_path / "fork", report, PortOptions(unsafe=True))
    assert "train.py" in [r.path for r in result.rewrites]
    assert not [r.path for r in result.rewrites if r.path.startswith("serve/")]


def test_the_engines_public_api_or_an_internal_import_inside_a_function_is_no_fork(tmp_path):
    public = _tree(tmp_path, "public", "from vllm import LLM")
    assert {"DEV103", "DEV004"} <= {f.rule for f in public.findings if f.path == "serve/worker.py"}
    assert public.project.deployments == []
    result = port(tmp_path / "public", public, PortOptions(unsafe=True))
    assert "serve/worker.py" in [r.path for r in result.rewrites]
    # a model written for a current vLLM (its layers, its tensor-parallel all-reduce) runs inside vllm-ascend: the
    # project's own lines to port (torchtitan's experiments/rl/models)
    plugin = _tree(tmp_path, "plugin", "from vllm.model_executor.layers.linear import RowParallelLinear\n"
                   "from vllm.distributed import tensor_model_parallel_all_reduce")
    assert {"DEV103", "DEV004"} <= {f.rule for f in plugin.findings if f.path == "serve/worker.py"}
    assert plugin.project.deployments == []
    nested = _tree(tmp_path, "nested", "def logger():\n    from vllm.worker.worker import logger\n    return logger")
    assert {"DEV103", "DEV004"} <= {f.rule for f in nested.findings if f.path == "serve/worker.py"}
    assert nested.project.deployments == []


def test_a_vllm_pin_below_vllm_ascends_first_release_is_an_upgrade(tmp_path):
    # vllm-ascend's versioning policy: releases from vLLM 0.7.x (v0.7.1rc1 for vLLM 0.7.1)
    old = _tree(tmp_path, "old", "from vllm import LLM", requirements="torch==2.6.0\nvllm==0.4.1\n")
    pins = [f for f in old.findings if f.rule == "DEP004" and f.symbol.startswith("vllm")]
    assert len(pins) == 1 and "0.7.1" in pins[0].message.en
    # the verdict names no route for the pinned version (round 23 verdicts V6)
    assert [(n.id, n.status, n.pinned_below) for n in old.verdict.routes] == [("vllm-ascend", "none", "vllm==0.4.1")]
    assert "no route for vllm==0.4.1" in old.verdict.drivers[-1].en
    new = _tree(tmp_path, "new", "from vllm import LLM", requirements="torch==2.6.0\nvllm==0.8.5\n")
    assert [f for f in new.findings if f.rule == "DEP004" and f.symbol.startswith("vllm")] == []
    assert [(n.id, n.status, n.pinned_below) for n in new.verdict.routes] == [("vllm-ascend", "supported", None)]
    assert "vLLM (route)" in new.verdict.drivers[-1].en
    # an upper bound below the first release is no route either; one above it is
    capped = _tree(tmp_path, "capped", "from vllm import LLM", requirements="torch==2.6.0\nvllm<0.6\n")
    assert [n.pinned_below for n in capped.verdict.routes] == ["vllm<0.6"]
    open_ = _tree(tmp_path, "open", "from vllm import LLM", requirements="torch==2.6.0\nvllm>=0.4,<0.9\n")
    assert [n.pinned_below for n in open_.verdict.routes] == [None]


RUNNER = (
    "import torch\nfrom serve.configs import ModelConfig\n{extra}\n\n\nclass CUDAGraphRunner:\n"
    "    def capture(self, x):\n"
    "        self.graph = torch.cuda.CUDAGraph()\n"
    "        with torch.cuda.graph(self.graph):\n"
    "            return x\n"
)


def test_the_copied_packages_model_runner_importing_only_its_siblings_is_part_of_the_copy(tmp_path):
    # ChatTTS's velocity/ (vLLM 0.2.7): worker.py imports the engine's internals, model_runner.py only the copy's own
    # modules; its CUDA-graph lines are sites of the engine item, not counted findings (round 25 B1 17, B2 38)
    root = tmp_path / "runner"
    write(root, {"requirements.txt": "torch==2.6.0\nvllm==0.8.5\n", "train.py": TRAIN, "app.py": APP,
                 "serve/__init__.py": "", "serve/configs.py": "class ModelConfig:\n    pass\n",
                 "serve/worker.py": WORKER.format(imports="from vllm.worker.worker_base import WorkerBase\n"
                                                           "from serve.model_runner import CUDAGraphRunner",
                                                  base="WorkerBase"),
                 "serve/model_runner.py": RUNNER.format(extra=""),
                 # the project's own code beside the copy: it imports the project's model from elsewhere
                 "model/__init__.py": "", "model/gpt.py": "class GPT:\n    pass\n",
                 "serve/glue.py": RUNNER.format(extra="from model.gpt import GPT")})
    report = analyze(root, AnalyzeOptions(jobs=1))
    assert [f.rule for f in report.findings if f.path == "serve/model_runner.py" and f.domain != "dependencies"] == []
    item = next(f for f in report.findings if f.rule == "DEP001" and f.symbol.startswith("vllm"))
    assert {"serve/model_runner.py:8", "serve/model_runner.py:9"} <= set(item.sites)
    assert "serve/model_runner.py" in report.project.deployments
    # the glue keeps its own findings
    assert {f.line for f in report.findings if f.path == "serve/glue.py" and f.rule == "DEV111"} == {8, 9}
    assert "serve/glue.py" not in report.project.deployments


def test_a_fork_at_the_root_folds_no_other_root_module(tmp_path):
    # a copy is a package folder: root scripts importing each other beside a root-level fork stay the project's
    root = tmp_path / "flat"
    write(root, {"requirements.txt": "torch==2.6.0\nvllm==0.8.5\n", "configs.py": "class ModelConfig:\n    pass\n",
                 "worker.py": WORKER.format(imports="from vllm.worker.worker_base import WorkerBase", base="WorkerBase"),
                 "train.py": RUNNER.format(extra="").replace("serve.configs", "configs")})
    report = analyze(root, AnalyzeOptions(jobs=1))
    assert {f.line for f in report.findings if f.path == "train.py" and f.rule == "DEV111"} == {8, 9}
    assert "worker.py" in report.project.deployments and "train.py" not in report.project.deployments
