"""Example scripts the root README runs as the project's command are product entries (analyzer/context/readme_runs.py):
streaming-llm's `python examples/run_streaming_llama.py`. Not so for a tool folder's script, a launch through the
project's own CLI, a script in a non-shell block, or a path the tree lacks."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.readme_runs import readme_run_examples
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.install_docs import run_scripts
from ascend_feasibility.knowledge import load_context_conventions

from tests.helpers import write_tree

ROLES = load_context_conventions().roles
PATHS = ["examples/run_llama.py", "examples/eval_ppl.py", "scripts/download.py", "mylib/__init__.py", "mylib/kv.py"]


def runs(readme: str, paths=PATHS, distribution="") -> list[str]:
    return readme_run_examples(readme, paths, ROLES, None, distribution)


def test_a_readme_run_example_script_is_named():
    readme = "```bash\nCUDA_VISIBLE_DEVICES=0 python examples/run_llama.py --enable_streaming\n```\n"
    assert runs(readme) == ["examples/run_llama.py"]
    assert runs("```sh\n$ torchrun --nproc_per_node=2 ./examples/run_llama.py \\\n    --x 1\n```\n") == ["examples/run_llama.py"]


def test_tool_scripts_own_cli_launches_other_blocks_and_absent_files_are_not():
    assert runs("```bash\npython scripts/download.py --repo x\n```\n") == []  # a developer tool, not the product
    assert runs("```bash\nmylib launch examples/run_llama.py\n```\n") == []  # not a runner
    assert runs("```bash\naccelerate launch examples/run_llama.py\n```\n", PATHS + ["src/accelerate/__init__.py"]) == []
    assert runs("```bash\naccelerate launch examples/run_llama.py\n```\n", PATHS, "accelerate") == []
    assert runs("```python\npython examples/run_llama.py\n```\n") == []  # not a shell block
    assert runs("```bash\npython examples/missing.py\n```\n") == []
    assert runs("The script examples/run_llama.py shows the API.\n") == []  # prose names it, runs nothing


def test_run_scripts_reads_each_runner():
    text = ("```bash\npython -u a.py\ndeepspeed b.py --zero 2\naccelerate launch c.py\naccelerate config\n"
            "X=1 python3.10 d.py && torchrun e.py\n```\n")
    assert run_scripts(text) == [("python", "a.py"), ("deepspeed", "b.py"), ("accelerate", "c.py"),
                                 ("python3.10", "d.py"), ("torchrun", "e.py")]


def test_the_readme_run_example_is_the_products_entry_and_its_findings_count(tmp_path):
    write_tree(tmp_path, {
        "README.md": "# x\n```bash\npython setup.py develop\nCUDA_VISIBLE_DEVICES=0 python examples/run_llama.py\n```\n",
        "setup.py": "from setuptools import setup\nsetup(name='mylib', packages=['mylib'])\n",
        "mylib/__init__.py": "",
        "mylib/kv.py": "def evict(kv):\n    return kv[:, :4]\n",
        "examples/run_llama.py": ("import torch\nfrom mylib.kv import evict\n\ndef main():\n"
                                  "    with torch.no_grad():\n        print(torch.nn.Linear(2, 2).cuda()(torch.ones(2)))\n\n"
                                  "if __name__ == '__main__':\n    main()\n"),
        "examples/eval_ppl.py": "import torch\nx = torch.ones(1).cuda()\n",  # the README does not run it
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    roles = {f.path: f.role for f in report.findings}
    assert roles["examples/run_llama.py"] == "product"
    assert roles["examples/eval_ppl.py"] == "example"
    assert report.effort.main_phase == "inference"


def test_run_modules_reads_module_launches():
    from ascend_feasibility.analyzer.reading.install_docs import run_modules
    text = ("```bash\npython -m scripts.animate --config configs/a.yaml\ntorchrun --nproc_per_node=2 -m pkg.train\n"
            "accelerate launch -m pkg.tune\ndeepspeed --module=pkg.ds --zero 2\npython a.py -m not.this\n```\n")
    assert run_modules(text) == [("python", "scripts.animate"), ("torchrun", "pkg.train"), ("accelerate", "pkg.tune"),
                                 ("deepspeed", "pkg.ds")]


TOOL_TREE = {
    "scripts/animate.py": "import torch\nfrom mylib.kv import evict\n",
    "scripts/download.py": "import requests\nimport torch\n",
    "examples/run_llama.py": "",
}


def _read(path):
    return TOOL_TREE.get(path)


def test_a_readme_module_launch_is_named_and_a_tool_script_driving_the_project_is_promoted():
    paths = PATHS + ["scripts/animate.py", "scripts/pkg/__init__.py", "scripts/pkg/__main__.py"]
    assert readme_run_examples("```bash\npython -m scripts.animate --config configs/x.yaml\n```\n", paths, ROLES,
                               None, "", _read) == ["scripts/animate.py"]
    assert readme_run_examples("```bash\ntorchrun --nproc_per_node=2 -m examples.run_llama\n```\n", paths, ROLES,
                               None, "", _read) == ["examples/run_llama.py"]
    assert readme_run_examples("```bash\npython scripts/animate.py\n```\n", paths, ROLES, None, "", _read) == [
        "scripts/animate.py"]


def test_a_tool_script_importing_no_project_code_an_absent_module_and_a_library_module_are_not_promoted():
    paths = PATHS + ["scripts/animate.py"]
    assert readme_run_examples("```bash\npython -m scripts.download --repo x\n```\n", paths, ROLES, None, "",
                               _read) == []  # imports torch and requests only: a tool
    assert readme_run_examples("```bash\npython -m scripts.missing\n```\n", paths, ROLES, None, "", _read) == []
    assert readme_run_examples("```bash\npython -m torch.distributed.run x.py\n```\n", paths, ROLES, None, "",
                               _read) == []
    assert readme_run_examples("```bash\npython -m scripts.animate\n```\n", paths, ROLES, None, "") == []  # no reader
    assert readme_run_examples("```python\npython -m scripts.animate\n```\n", paths, ROLES, None, "", _read) == []


def test_the_readme_module_launch_under_scripts_is_the_products_inference_entry(tmp_path):
    write_tree(tmp_path, {
        "README.md": "# x\n```bash\npip install -r requirements.txt\npython -m scripts.animate --config configs/a.yaml\n```\n",
        "requirements.txt": "torch\n",
        "mylib/__init__.py": "",
        "mylib/unet.py": "import torch\n\nclass UNet(torch.nn.Module):\n    def forward(self, x):\n        return x\n",
        "scripts/animate.py": ("import torch\nfrom mylib.unet import UNet\n\ndef main():\n"
                               "    with torch.no_grad():\n        print(UNet().cuda()(torch.ones(2).cuda()))\n\n"
                               "if __name__ == '__main__':\n    main()\n"),
        "scripts/download.py": "import torch\nx = torch.ones(1).cuda()\n",  # the README does not run it
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    roles = {f.path: f.role for f in report.findings}
    assert roles["scripts/animate.py"] == "product"
    assert roles["scripts/download.py"] == "example"
    assert report.effort.main_phase == "inference"


HELPERS = ["train_first.py", "train_second.py", "train_ddp.py", "Modules/__init__.py", "Modules/diffusion.py",
           "Utils/__init__.py", "Utils/ASR.py"]
TRAIN = "```bash\naccelerate launch train_first.py --config_path ./Configs/config.yml\npython train_second.py\n```\n"


def test_a_readme_run_root_script_beside_uninstalled_helper_packages_is_the_product():
    # StyleTTS2 (round 27 verdicts V1): Modules/ and Utils/ are the scripts' helpers, no manifest installs them
    assert runs(TRAIN, HELPERS) == ["train_first.py", "train_second.py"]  # train_ddp.py: the README runs it not


def test_a_root_script_beside_an_installed_package_or_no_package_stays_as_it_is():
    for manifest in ("setup.py", "pyproject.toml", "setup.cfg"):  # co-tracker: setup.py installs `cotracker`
        assert runs(TRAIN, HELPERS + [manifest]) == []
    assert runs(TRAIN, ["train_first.py", "train_second.py", "model.py"]) == []  # nanoGPT: product already
    assert runs("```bash\npython run_first.py\n```\n", HELPERS + ["run_first.py"]) == []  # no example prefix: product


def test_the_analysis_prices_a_readme_run_root_script_beside_helper_packages_as_the_product(tmp_path):
    train = "import torch\nfrom Modules.diffusion import Net\nmodel = torch.nn.DataParallel(Net())\n"
    tree = {"train_second.py": train, "Modules/__init__.py": "", "Modules/diffusion.py": "class Net: pass\n",
            "README.md": "```bash\npython train_second.py\n```\n"}
    write_tree(tmp_path / "helpers", tree)
    roles = {f.path: f.role for f in analyze(tmp_path / "helpers", AnalyzeOptions(jobs=1)).findings
             if f.rule == "DST010"}
    write_tree(tmp_path / "installed", {**tree, "setup.py": "from setuptools import setup\nsetup(name='x')\n"})
    installed = {f.path: f.role for f in analyze(tmp_path / "installed", AnalyzeOptions(jobs=1)).findings
                 if f.rule == "DST010"}
    assert roles == {"train_second.py": "product"}
    assert installed == {"train_second.py": "example"}


def test_usage_order_reads_launches_in_document_order_command_lines_of_python_blocks_included():
    """Round 28 V1 V5: OmniGen's README runs `python app.py` in a ```python block before its `accelerate launch
    train.py`: the usage it leads with is the app. A Python line of such a block launches nothing."""
    from ascend_feasibility.analyzer.context.readme_runs import usage_order

    paths = ["app.py", "train.py", "pkg/__init__.py", "pkg/serve.py", "prep.py"]
    readme = ("```bash\npip install -e .\n```\n```python\nfrom pkg import Pipe\nPipe()\n```\n"
              "```python\npip install gradio\npython app.py --share\n```\n"
              "```bash\naccelerate launch --num_processes=1 train.py \\\n  --lr 1e-3\n```\n"
              "```bash\npython -m pkg.serve\npython prep.py\npython app.py\n```\n")
    assert usage_order(readme, paths) == ("app.py", "train.py", "pkg/serve.py", "prep.py")
    assert usage_order("```python\nimport subprocess\nsubprocess.run(['python', 'app.py'])\n```\n", paths) == ()
    assert usage_order("```text\npython app.py\n```\n```bash\npython train.py\n```\n", paths) == ("train.py",)
    assert usage_order("```python\npython missing.py\n```\n", paths) == ()
    # the install readers keep their fences: a python block's command is no launch of run_scripts
    assert run_scripts("```python\npython app.py\n```\n") == []


def test_the_headline_phase_follows_the_readme_first_usage(tmp_path):
    """One training script beside the inference app the README runs first: the headline is inference; a README that
    leads with training keeps training."""
    app = ("import torch\nimport gradio\n\n@torch.no_grad()\ndef generate(x):\n    return torch.ones(2).cuda() + x\n\n"
           "if __name__ == '__main__':\n    gradio.Interface(generate).launch()\n")
    train = ("import torch\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n    opt = torch.optim.AdamW(model.parameters())\n"
             "    loss = model(torch.ones(2).cuda()).sum()\n    loss.backward()\n    opt.step()\n\n"
             "if __name__ == '__main__':\n    main()\n")
    files = {"requirements.txt": "torch\ngradio\n", "app.py": app, "train.py": train}
    serve_first = "# X\n```python\npython app.py\n```\n## Finetune\n```bash\naccelerate launch train.py\n```\n"
    train_first = "# X\n```bash\npython train.py\n```\n```bash\npython app.py\n```\n"
    phases = {}
    for name, readme in (("serve", serve_first), ("train", train_first)):
        write_tree(tmp_path / name, {**files, "README.md": readme})
        report = analyze(tmp_path / name, AnalyzeOptions(jobs=1))
        entries = {e.path: e.phases for e in report.phase_matrix.entries}
        assert "training" in entries["train.py"] and entries["app.py"] == ["inference"], entries
        phases[name] = report.effort.main_phase
    assert phases == {"serve": "inference", "train": "training"}


def test_usage_order_runs_a_script_in_the_folder_the_readme_cds_into():
    """Round 32 V7: a README that leads with `cd ./Demo; python run_app.py` (one of several sibling sub-projects,
    a training folder beside them) runs Demo/run_app.py; a `cd` into the clone adds a prefix the tree lacks; without
    a `cd`, or after one to an absolute path, the script is read from the root; a script the root holds is the root's
    (`cd pkg` into a clone named like the tree's package folder)."""
    from ascend_feasibility.analyzer.context.readme_runs import usage_order

    paths = ["Demo/run_app.py", "Other/serve.py", "Training/train.py", "tool.py", "demo.py", "pkg/demo.py"]
    leads_with_demo = ("```bash\ngit clone x\ncd ./repo\n```\n```bash\ncd ./Demo\nconda create -n a python==3.10\n```\n"
                       "```\ncd ./Demo\npython run_app.py\n```\n```\ncd ../Training && python train.py\n```\n")
    assert usage_order(leads_with_demo, paths) == ("Demo/run_app.py", "Training/train.py")
    assert usage_order("```bash\ncd Other\npython serve.py\ncd ..\npython tool.py\n```\n", paths) == (
        "Other/serve.py", "tool.py")
    assert usage_order("```bash\ncd <root>\ncd Other && python serve.py\n```\n", paths) == ("Other/serve.py",)
    assert usage_order("```bash\npython run_app.py\n```\n", paths) == ()
    assert usage_order("```bash\ncd /opt/Demo\npython run_app.py\n```\n", paths) == ()
    assert usage_order("```bash\ncd Missing\npython Training/train.py\n```\n", paths) == ("Training/train.py",)
    assert usage_order("```bash\ngit clone x/pkg\ncd pkg\npython demo.py\n```\n", paths) == ("demo.py",)
    # a `cd` in a text block is no command the reader types
    assert usage_order("```text\ncd Demo\n```\n```bash\npython run_app.py\n```\n", paths) == ()


def test_the_headline_phase_follows_a_readme_usage_run_inside_a_sub_folder(tmp_path):
    """Round 32 V7: the README leads with the demo app of a sub-folder (`cd ./Hybrid; python run_app.py`) while a
    Training/ folder trains: the headline is inference; the same README without the `cd` line launches no file of
    the tree first, and the training entry makes the headline training."""
    app = ("import torch\nimport gradio\n\n@torch.no_grad()\ndef generate(x):\n    return torch.ones(2).cuda() + x\n\n"
           "if __name__ == '__main__':\n    gradio.Interface(generate).launch()\n")
    train = ("import torch\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n    opt = torch.optim.AdamW(model.parameters())\n"
             "    loss = model(torch.ones(2).cuda()).sum()\n    loss.backward()\n    opt.step()\n\n"
             "if __name__ == '__main__':\n    main()\n")
    files = {"Hybrid/requirements.txt": "torch\ngradio\n", "Hybrid/run_app.py": app, "Training/train_stage1.py": train}
    phases = {}
    for name, cd in (("cd", "cd ./Hybrid\n"), ("plain", "")):
        readme = f"# X\n```\n{cd}python run_app.py\n```\n## Train\n```bash\ncd Training\npython train_stage1.py\n```\n"
        write_tree(tmp_path / name, {**files, "README.md": readme})
        phases[name] = analyze(tmp_path / name, AnalyzeOptions(jobs=1)).effort.main_phase
    assert phases == {"cd": "inference", "plain": "training"}


def test_a_readme_launch_through_a_placeholder_folder_runs_each_fitting_example():
    paths = PATHS + ["examples/seg/main.py", "examples/cls/main.py", "examples/seg/vis.py"]
    readme = "```\nCUDA_VISIBLE_DEVICES=$GPUs python examples/$task_folder/main.py --cfg $cfg $kwargs\n```\n"
    assert runs(readme, paths) == ["examples/cls/main.py", "examples/seg/main.py"]
    assert runs("```\npython $ROOT/run_llama.py\n```\n", paths) == []  # a leading variable: the clone's folder
    many = paths + [f"examples/t{index}/main.py" for index in range(17)]
    assert runs(readme, many) == []  # fits too many files to say which the README runs


def test_placeholder_folder_entries_are_the_products_and_set_the_headline_phase(tmp_path):
    main = ("import torch\nfrom mylib.kv import evict\n\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n"
            "    optimizer = torch.optim.SGD(model.parameters(), lr=0.1)\n    loss = model(torch.ones(2)).sum()\n"
            "    loss.backward()\n    optimizer.step()\n\n\nif __name__ == '__main__':\n    main()\n")
    write_tree(tmp_path, {
        "README.md": "# x\n```\nCUDA_VISIBLE_DEVICES=$GPUs python examples/$task_folder/main.py --cfg $cfg\n```\n",
        "mylib/__init__.py": "",
        "mylib/kv.py": "def evict(kv):\n    return kv[:, :4]\n",
        "examples/segmentation/main.py": main,
        "examples/classification/main.py": main.replace("lr=0.1", "lr=0.2"),  # no copy of the other
        "examples/segmentation/vis.py": "import torch\nx = torch.ones(1).cuda()\n",  # the README does not run it
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    roles = {f.path: f.role for f in report.findings}
    assert roles["examples/segmentation/main.py"] == roles["examples/classification/main.py"] == "product"
    assert roles["examples/segmentation/vis.py"] == "example"
    assert report.effort.main_phase == "training"
