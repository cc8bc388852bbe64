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
