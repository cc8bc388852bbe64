"""A module a config file of the project builds by its dotted name (`hift: !new:pkg.hifigan.generator.HiFTGenerator`
in a HyperPyYAML config) is loaded whenever that config is: a selector chain whose value shares the module's name
(`if batch["turn"] == "generator":`) does not make it optional (opt_in.opt_in_modules), and its `__main__` block is a
library's self-test (propagation.self_test_blocks). Without the config, both stay as they were."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

CONFIG = "hift: !new:voice.hifigan.generator.HiFTGenerator\nflow: !new:voice.flow.flow.MaskedDiff\n"


def _findings(root, config: str | None) -> dict[tuple[str, int], tuple[str, str, str | None]]:
    files = {
        "pyproject.toml": '[project]\nname = "voice"\n',
        "example.py": "from voice.cli.model import Model\nModel('conf/voice.yaml').run()\n",
        "voice/__init__.py": "",
        "voice/cli/__init__.py": "",
        "voice/cli/model.py": ("from hyperpyyaml import load_hyperpyyaml\n"
                               "class Model:\n    def __init__(self, path):\n"
                               "        self.c = load_hyperpyyaml(open(path))\n"
                               "    def run(self):\n        return self.c['hift'].inference(1)\n"),
        "voice/hifigan/__init__.py": "",
        # the training turn of a GAN: a chain with a default arm whose value is the generator module's name
        "voice/hifigan/hifigan.py": ("class HiFiGan:\n    def forward(self, batch):\n"
                                     "        if batch['turn'] == 'generator':\n            return self.gen(batch)\n"
                                     "        else:\n            return self.disc(batch)\n"),
        "voice/hifigan/generator.py": ("import torch\nclass HiFTGenerator:\n    def inference(self, x):\n"
                                       "        return torch.ones(1).cuda()\n"),
        "voice/flow/__init__.py": "",
        "voice/flow/flow.py": ("import torch\nclass MaskedDiff:\n    def inference(self, x):\n        return x\n"
                               "if __name__ == '__main__':\n    m = MaskedDiff()\n    print(torch.ones(1).cuda())\n"),
    }
    if config is not None:
        files["conf/voice.yaml"] = config
    write_tree(root, files)
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {(f.path, f.line): (f.role, f.reach, f.reach_reason) for f in report.findings if f.rule == "DEV004"}


def test_a_class_a_shipped_config_builds_runs_whatever_a_chain_of_the_same_name_selects(tmp_path):
    found = _findings(tmp_path, CONFIG)
    assert found[("voice/hifigan/generator.py", 4)] == ("product", "runs", None)


def test_without_the_config_the_chain_still_selects_the_module(tmp_path):
    role, reach, why = _findings(tmp_path, None)[("voice/hifigan/generator.py", 4)]
    assert (role, reach) == ("product", "optional")
    assert why.startswith("selected by configuration: `batch['turn'] == 'generator'`")


def test_a_test_config_builds_nothing_the_product_runs(tmp_path):
    write_tree(tmp_path, {"tests/conf/voice.yaml": CONFIG})
    assert _findings(tmp_path, None)[("voice/hifigan/generator.py", 4)][1] == "optional"


def test_the_main_block_of_a_package_module_a_config_builds_is_its_self_test(tmp_path):
    role, reach, why = _findings(tmp_path, CONFIG)[("voice/flow/flow.py", 7)]
    assert role == "test"
    assert why.startswith("line 5: the self-test under `if __name__ == \"__main__\":`") and "conf/voice.yaml" in why


def test_the_main_block_of_a_package_module_nothing_loads_stays_product(tmp_path):
    assert _findings(tmp_path, None)[("voice/flow/flow.py", 7)][:2] == ("product", "runs")
    # a config naming another module of the package builds nothing of this one
    assert _findings(tmp_path, "hift: !new:voice.hifigan.generator.HiFTGenerator\n")[("voice/flow/flow.py", 7)][:2] \
        == ("product", "runs")
