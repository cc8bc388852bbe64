"""Opt-in code is optional, with the switch that turns it on (analyzer/context/opt_in.py): integrations selected by a
condition naming the framework, classes named for an integration, helpers named for an opt-in feature, type checks
naming a class, modules a configuration chain selects and modules loaded only by name."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import scan, write_tree


def _reach(code: str, rule: str) -> list[tuple[int, str, str | None]]:
    return [(f.line, f.reach, f.reach_reason) for f in scan(code).findings if f.rule == rule]


def test_an_integration_called_only_under_a_condition_naming_it_is_optional():
    code = (
        "import torch\n"
        "class Accelerator:\n"
        "    def prepare(self, *args):\n"
        "        if self.distributed_type == DistributedType.DEEPSPEED:\n"
        "            return self._prepare_deepspeed(*args)\n"
        "        return args\n"
        "    def _prepare_deepspeed(self, *args):\n"
        "        import deepspeed\n"
        "        return deepspeed.initialize(model=args[0])\n"
    )
    [(line, reach, reason)] = _reach(code, "DST014")
    assert (line, reach) == (9, "optional")
    assert "DistributedType.DEEPSPEED" in reason  # the switch is named
    called_plainly = code.replace("        if self.distributed_type == DistributedType.DEEPSPEED:\n            return",
                                  "        return")
    assert [r for _, r, _ in _reach(called_plainly, "DST014")] == ["runs"]


def test_a_class_named_for_an_integration_is_optional():
    code = ("class MegatronLMPlugin:\n"
            "    def set_logging(self):\n"
            "        from megatron.training.arguments import _add_logging_args\n"
            "        return _add_logging_args\n")
    assert [r for _, r, _ in _reach(code, "DST015")] == ["optional"]
    plain = code.replace("class MegatronLMPlugin:", "class Trainer:")
    assert [r for _, r, _ in _reach(plain, "DST015")] == ["runs"]


def test_a_type_check_naming_a_class_is_no_use_of_it():
    checked = ("import torch\n"
               "def unwrap(model):\n"
               "    options = (torch.nn.parallel.DistributedDataParallel, torch.nn.DataParallel)\n"
               "    options += (FSDP,)\n"
               "    while isinstance(model, options):\n"
               "        model = model.module\n"
               "    return model\n")
    # not a use at all: the tuple only names the classes for isinstance (the precision room drops such type tests)
    assert [r for _, r, _ in _reach(checked, "DST010")] == []
    used = "import torch\nmodel = torch.nn.DataParallel(model)\n"
    assert [r for _, r, _ in _reach(used, "DST010")] == ["runs"]
    tuple_also_called = checked.replace("    return model\n", "    return options[1](model)\n")
    assert [r for _, r, _ in _reach(tuple_also_called, "DST010")] == ["runs"]


def test_a_setting_that_is_anything_but_off_is_an_opt_in_flag():
    code = ("import torch\n"
            "def prepare(self, model):\n"
            "    if self.dynamo_plugin.backend != DynamoBackend.NO and not is_compiled(model):\n"
            "        model = torch.compile(model)\n"
            "    return model\n")
    assert [r for _, r, _ in _reach(code, "DEV501")] == ["optional"]
    assert [r for _, r, _ in _reach(code.replace("DynamoBackend.NO", "DynamoBackend.INDUCTOR"), "DEV501")] == ["runs"]


def test_a_helper_named_for_the_opt_in_feature_is_optional():
    code = "import torch\ndef compile_regions(module):\n    return torch.compile(module)\n"
    assert [r for _, r, _ in _reach(code, "DEV501")] == ["optional"]
    assert [r for _, r, _ in _reach(code.replace("compile_regions", "build_model"), "DEV501")] == ["runs"]


KERNEL = "import triton\nimport triton.language as tl\n@triton.jit\ndef scale_kernel(x_ptr, n):\n    pid = tl.program_id(0)\n"


def test_modules_a_configuration_selects_or_names_are_optional(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/config.py": ("def dispatcher(comm_backend):\n"
                          "    if comm_backend == 'standard':\n        return 1\n"
                          "    elif comm_backend == 'fancy_ep':\n        return 2\n"
                          "    raise ValueError(comm_backend)\n"),
        "pkg/fancy_ep/__init__.py": "",
        "pkg/fancy_ep/kernels.py": KERNEL,
        "pkg/overrides/__init__.py": "",
        "pkg/overrides/fused.py": KERNEL,
        "pkg/presets.py": "PRESET = ['pkg.overrides.fused.fused_op']\n",
        "pkg/core.py": KERNEL.replace("scale_kernel", "core_kernel"),
        "train.py": "import torch\nfrom pkg import core, config, presets\nif __name__ == '__main__':\n    loss.backward()\n",
        "requirements.txt": "torch\ntriton\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    kernels = {f.path: (f.reach, f.reach_reason) for f in report.findings if f.rule == "OPS030"}
    assert kernels["pkg/core.py"][0] == "runs"
    assert kernels["pkg/fancy_ep/kernels.py"][0] == "optional"
    assert "comm_backend == 'fancy_ep'" in kernels["pkg/fancy_ep/kernels.py"][1]
    assert kernels["pkg/overrides/fused.py"][0] == "optional"
    assert "pkg/presets.py" in kernels["pkg/overrides/fused.py"][1]


def test_a_mode_is_no_configuration_choice(tmp_path):
    write_tree(tmp_path, {
        "pkg/__init__.py": "",
        "pkg/run.py": ("def run(mode):\n    if mode == 'train':\n        return 1\n"
                       "    elif mode == 'standard':\n        return 2\n"),
        "pkg/train.py": KERNEL,
        "main.py": "import torch\nfrom pkg import run, train\nif __name__ == '__main__':\n    loss.backward()\n",
        "requirements.txt": "torch\ntriton\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert {f.reach for f in report.findings if f.rule == "OPS030"} == {"runs"}
