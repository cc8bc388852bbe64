"""A shell launcher whose every launch names a target the project does not have runs no code of the project: its
findings are optional, with the missing target in the reason (analyzer/context/stale_launchers.py). open-instruct's
scripts/eval/gsm.sh runs `python -m eval.gsm.run_eval` with no eval/gsm/run_eval.py in the tree; UniFormer's test.sh
runs a tools/test.py the copy does not carry. A launcher keeps `runs` when its script or module is in the project
(from the root, from its folder, or below a folder a `cd` may reach), when the module is installed (standard library,
declared, or known to the package catalog: `-m torch.distributed.run train.py`), when the path is only known to the
shell (`$SCRIPT`, absolute), and when one of its launches is live."""

from __future__ import annotations

from types import SimpleNamespace

from ascend_feasibility.analyzer.context.stale_launchers import stale_launchers
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

PIN = "export CUDA_VISIBLE_DEVICES=3\n"  # not the leading device: DEV201, not DEV703 (prec9b)


def _reach(root) -> dict[str, tuple[str, str | None]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.path: (f.reach, f.reach_reason) for f in report.findings if f.rule == "DEV201"}


def test_launchers_of_missing_targets_are_optional(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "app/__init__.py": "",
        "app/train.py": "print(1)\n",
        "scripts/eval/__init__.py": "",
        "scripts/eval/fetch.py": "from eval.utils import upload\n",  # an import of the missing package, undeclared
        "scripts/eval/gsm.sh": PIN + "python -m eval.gsm.run_eval --save_dir out.py\npython -m eval.gsm.run_eval\n",
        "exp/test.sh": PIN + "python tools/test.py cfg.py\n",
    })
    reach = _reach(tmp_path)
    assert reach["scripts/eval/gsm.sh"] == (
        "optional", "it launches only what the project does not have (launch commands: 2), first "
        "`-m eval.gsm.run_eval`: the project has no eval/gsm/run_eval.py; no code of the project runs through it")
    assert reach["exp/test.sh"] == (
        "optional", "it launches only what the project does not have (launch commands: 1), first tools/test.py: not "
        "in the project; no code of the project runs through it")
    for _, why in (reach["scripts/eval/gsm.sh"], reach["exp/test.sh"]):
        assert phrase("zh", why).startswith("它启动的都是项目中没有的目标")


def test_launchers_of_present_installed_or_unknown_targets_run(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\nvllm\n",
        "app/__init__.py": "",
        "app/train.py": "print(1)\n",
        "app/serve/__main__.py": "print(1)\n",
        "tools/torch/notes.py": "",  # a folder named like an installed package
        "scripts/train.sh": PIN + "python -m app.train\n",
        "scripts/serve.sh": PIN + "python -m app.serve\n",
        "scripts/dist.sh": PIN + "python -m torch.distributed.run --nproc_per_node 8 app/train.py\n",
        "scripts/vllm.sh": PIN + "python -m vllm.entrypoints.api_server\n",
        "scripts/pip.sh": PIN + "python -m json.tool x.json\n",
        "scripts/local.sh": PIN + "cd app && python train.py\n",
        "scripts/var.sh": PIN + "python $SCRIPT\npython /opt/run.py\n",
        "scripts/mixed.sh": PIN + "python tools/missing.py\npython app/train.py\n",
        "scripts/fetch.sh": PIN + "wget https://bootstrap.pypa.io/get-pip.py\npython get-pip.py\n",
        "scripts/Dockerfile": "FROM ubuntu\nENV CUDA_VISIBLE_DEVICES=0\nRUN python3 get-pip.py\n",
    })
    reach = _reach(tmp_path)
    for name in ("train", "serve", "dist", "vllm", "pip", "local", "var", "mixed", "fetch"):
        assert reach[f"scripts/{name}.sh"] == ("runs", None), name
    assert stale_launchers([SimpleNamespace(path="scripts/Dockerfile", launches=[("", "get-pip.py")], words="",
                                            imports=[])]) == {}


def test_launcher_of_a_module_nowhere_with_the_projects_options_is_optional(tmp_path):
    # open_lm's run_bench.sh: `torchrun -m benchmark.main --train-data ... --fsdp`, options of open_lm's params.py, and
    # no benchmark package anywhere; a tool the project does not declare, given options of its own, stays live
    params = ('import argparse\np = argparse.ArgumentParser()\np.add_argument("--train-data")\n'
              'p.add_argument("--fsdp", action="store_true")\np.add_argument("--model")\n')
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "app/__init__.py": "",
        "app/params.py": params,
        "scripts/bench.sh": PIN + "torchrun --nproc-per-node 1 -m benchmark.main --train-data x --fsdp --model m\n",
        "scripts/serve.sh": PIN + "python -m sglang.launch_server --model m --port 30000 --tp 2\n",
        "scripts/one.sh": PIN + "python -m benchmark.main --model m\n",  # one option of the project's: too little
        # VILA's lmms.sh: `-m lmms_eval --model ... --tasks ...`, a package the project's code imports
        "app/plugin.py": "from lmms_eval.api.model import lmms\n",
        "scripts/lmms.sh": PIN + "torchrun -m lmms_eval --train-data x --fsdp --model m\n",
    })
    reach = _reach(tmp_path)
    assert reach["scripts/bench.sh"] == (
        "optional", "it launches only what the project does not have (launch commands: 1), first `-m benchmark.main`: "
        "no such module in the project or its dependencies, though the options it is given are the project's "
        "(--fsdp, --model, --train-data); no code of the project runs through it")
    assert phrase("zh", reach["scripts/bench.sh"][1]).startswith("它启动的都是项目中没有的目标")
    assert "项目及其依赖中都没有这个模块" in phrase("zh", reach["scripts/bench.sh"][1])
    assert reach["scripts/serve.sh"] == ("runs", None)
    assert reach["scripts/one.sh"] == ("runs", None)
    assert reach["scripts/lmms.sh"] == ("runs", None)


def test_the_projects_own_distribution_is_the_tree_whose_modules_must_exist(tmp_path):
    # LLaVA-NeXT (round 20 B1 C5): the freeze lists the editable install of the tree itself, and pyproject names it
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n',
        "requirements.txt": "torch\nmylib==1.7.0.dev0\notherlib==1.0\n",
        "mylib/__init__.py": "",
        "mylib/eval/__init__.py": "",
        "mylib/eval/run_vqa.py": "print(1)\n",
        "scripts/gone.sh": PIN + "python -m mylib.eval.model_vqa_science --question-file q.json\n",
        "scripts/live.sh": PIN + "python -m mylib.eval.run_vqa --question-file q.json\n",
        "scripts/other.sh": PIN + "python -m otherlib.serve --port 1\n",  # another declared distribution: installed
    })
    reach = _reach(tmp_path)
    assert reach["scripts/gone.sh"] == (
        "optional", "it launches only what the project does not have (launch commands: 1), first "
        "`-m mylib.eval.model_vqa_science`: the project has no mylib/eval/model_vqa_science.py; no code of the "
        "project runs through it")
    assert reach["scripts/live.sh"] == ("runs", None)
    assert reach["scripts/other.sh"] == ("runs", None)


def test_a_top_level_package_folder_is_the_projects_own_without_a_pyproject_name():
    facts = [SimpleNamespace(path=p, launches=l, launch_flags=[], words=[], options=[], imports=[])
             for p, l in (("src/mylib/__init__.py", []), ("run.sh", [("mylib.gone", "")]))]
    assert "run.sh" in stale_launchers(facts, frozenset({"mylib"}))
    assert stale_launchers(facts[:1] + [SimpleNamespace(**{**vars(facts[1]), "launches": [("otherlib.gone", "")]})],
                           frozenset({"otherlib"})) == {}
