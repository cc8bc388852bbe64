"""Opt-in code is optional, with the switch that turns it on (analyzer/context/opt_in.py): integrations selected by a
condition naming the framework, classes named for an integration, helpers named for an opt-in feature, type checks
naming a class, modules a configuration chain selects and modules loaded only by name."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import reported_at, scan, write_tree


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
    kernels = {path: (f.reach, f.reach_reason) for f in report.findings if f.rule == "OPS030" for path in reported_at(f)}
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


# Off-by-default switches, alternatives, profilers, other runtimes (issue 28, round 5) --------------------------------
XFORMERS_UNET = (
    "import torch\n"
    "class CrossAttention(torch.nn.Module):\n"
    "    def __init__(self):\n"
    "        super().__init__()\n"
    "        self.use_memory_efficient_attention_xformers = False\n"
    "    def set_use_memory_efficient_attention(self, xformers):\n"
    "        self.use_memory_efficient_attention_xformers = xformers\n"
    "    def forward(self, x):\n"
    "        if self.use_memory_efficient_attention_xformers:\n"
    "            return self.forward_memory_efficient_xformers(x)\n"
    "        return x\n"
    "    def forward_memory_efficient_xformers(self, x):\n"
    "        import xformers.ops\n"
    "        return xformers.ops.memory_efficient_attention(x, x, x, attn_bias=None)\n"
)


def test_a_method_called_only_under_an_attribute_switch_that_defaults_off_is_optional():
    # sd-scripts library/sdxl_original_unet.py:442/506: xformers only after --xformers reaches the setter
    [(line, reach, reason)] = _reach(XFORMERS_UNET, "ATT010")
    assert (line, reach) == (14, "optional")
    assert "self.use_memory_efficient_attention_xformers = False" in reason and "line 9" in reason
    on_by_default = XFORMERS_UNET.replace("_xformers = False\n", "_xformers = True\n")
    assert [r for _, r, _ in _reach(on_by_default, "ATT010")] == ["runs"]


FLASH_PARAMETER = (
    "import torch\n"
    "from flash_attn import flash_attn_varlen_func\n"
    "class JointAttention(torch.nn.Module):\n"
    "    def __init__(self, dim, use_flash_attn=False):\n"
    "        super().__init__()\n"
    "        self.use_flash_attn = use_flash_attn\n"
    "    def forward(self, q, k, v):\n"
    "        if self.use_flash_attn:\n"
    "            return self.flash_attn(q, k, v)\n"
    "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n"
    "    def flash_attn(self, q, k, v):\n"
    "        return flash_attn_varlen_func(q, k, v, None, None, 1, 1)\n"
)


def test_a_parameter_switch_defaulting_to_false_makes_its_path_optional_and_true_does_not():
    # sd-scripts library/lumina_models.py:378/531
    [(line, reach, reason)] = _reach(FLASH_PARAMETER, "ATT002")
    assert (line, reach) == (12, "optional")
    assert "`use_flash_attn=False` by default" in reason
    default_true = FLASH_PARAMETER.replace("use_flash_attn=False", "use_flash_attn=True")
    assert [r for _, r, _ in _reach(default_true, "ATT002")] == ["runs"]
    also_set_on = FLASH_PARAMETER.replace("        return torch.nn.functional", "        self.use_flash_attn = True\n        return torch.nn.functional")
    assert [r for _, r, _ in _reach(also_set_on, "ATT002")] == ["runs"]


COMMAND_LINE = (
    "import argparse\n"
    "import torch\n"
    "def replace_vae_modules(vae, xformers):\n"
    "    if xformers:\n"
    "        import xformers.ops\n"
    "        vae.forward = lambda x: xformers.ops.memory_efficient_attention(x, x, x)\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument('--xformers', action='store_true')\n"
    "    args = parser.parse_args()\n"
    "    replace_vae_modules(None, args.xformers)\n"
)


def test_a_command_line_switch_declared_off_is_named_and_one_declared_on_is_no_opt_in():
    [(line, reach, reason)] = _reach(COMMAND_LINE, "ATT010")
    assert reach == "optional" and "`--xformers` is off unless given (line 9)" in reason
    declared_on = COMMAND_LINE.replace("action='store_true'", "action='store_true', default=True")
    assert [r for _, r, _ in _reach(declared_on, "ATT010")] == ["runs"]
    store_false = COMMAND_LINE.replace("action='store_true'", "action='store_false'")
    assert [r for _, r, _ in _reach(store_false, "ATT010")] == ["runs"]
    called_on = COMMAND_LINE.replace("replace_vae_modules(None, args.xformers)", "replace_vae_modules(None, True)")
    assert [r for _, r, _ in _reach(called_on, "ATT010")] == ["runs"]


def test_a_mainstream_switch_is_no_opt_in_even_when_it_defaults_off():
    code = ("import torch\n"
            "def run(model, use_cuda=False):\n"
            "    if use_cuda:\n"
            "        model = model.cuda()\n"
            "    return model\n")
    assert [r for _, r, _ in _reach(code, "DEV004")] == ["runs"]


def test_an_optional_feature_import_under_a_switch_is_reported_not_dropped(tmp_path):
    # Open-Sora's `if self.enable_flash_attn: from flash_attn import flash_attn_func` (the lines its porters changed)
    code = ("import torch\n"
            "class Attention(torch.nn.Module):\n"
            "    def __init__(self, dim, enable_flash_attn: bool = False):\n"
            "        super().__init__()\n"
            "        self.enable_flash_attn = enable_flash_attn\n"
            "    def forward(self, q, k, v):\n"
            "        if self.enable_flash_attn:\n"
            "            from flash_attn import flash_attn_func\n"
            "            return flash_attn_func(q, k, v)\n"
            "        return torch.nn.functional.scaled_dot_product_attention(q, k, v)\n")
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/attention.py": code, "requirements.txt": "torch\nflash-attn\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = {(f.rule, f.line): f for f in report.findings if f.path == "pkg/attention.py" and f.line in (8, 9)}
    call = found[("ATT001", 9)]
    assert call.reach == "optional" and "enable_flash_attn" in call.reach_reason
    imports = [f for (rule, line), f in found.items() if rule.startswith("DEP") and line == 8]
    assert imports and all(f.reach == "optional" for f in imports)  # reported, uncounted


FA3_BESIDE_FA2 = (
    "import torch\n"
    "from flash_attn import flash_attn_func as flash_attn_func_v2\n"
    "try:\n"
    "    from flash_attn_interface import flash_attn_func as flash_attn_func_v3\n"
    "    SUPPORT_FA3 = True\n"
    "except:\n"
    "    SUPPORT_FA3 = False\n"
    "def attention(q, k, v):\n"
    "    if SUPPORT_FA3:\n"
    "        return flash_attn_func_v3(q, k, v)[0]\n"
    "    return flash_attn_func_v2(q, k, v)\n"
)


def test_flash_attention_3_beside_flash_attention_2_is_an_alternative_not_a_second_item():
    # Open-Sora opensora/models/mmdit/math.py:18 (FA3) beside :19 (FA2)
    findings = {(f.line, f.rule): f for f in scan(FA3_BESIDE_FA2).findings}
    fa3 = findings[(10, "ATT004")]
    # SUPPORT_FA3 is the FA3 import's availability flag (set True after the import, False in its handler), so the
    # call it guards is optional by that flag (round-7 class B15), whatever else the file offers
    assert fa3.reach == "optional" and "SUPPORT_FA3" in fa3.reach_reason
    assert findings[(11, "ATT001")].reach == "runs"  # the FA2 call stays the port item
    # without the flag, the FA3 call beside the FA2 one is the alternative of the FA2/SDPA path
    unflagged = FA3_BESIDE_FA2.replace("    if SUPPORT_FA3:\n        return flash_attn_func_v3", "    if q.shape[0]:\n        return flash_attn_func_v3")
    fa3 = {(f.line, f.rule): f for f in scan(unflagged).findings}[(10, "ATT004")]
    assert fa3.reach == "optional" and "FlashAttention-3 alternative" in fa3.reach_reason and "line 2" in fa3.reach_reason
    alone = unflagged.replace("from flash_attn import flash_attn_func as flash_attn_func_v2\n", "") \
        .replace("    return flash_attn_func_v2(q, k, v)\n", "    return q\n")
    assert [f.reach for f in scan(alone).findings if f.rule == "ATT004"] == ["runs"]


def test_a_profiler_class_is_optional():
    code = ("import torch\n"
            "class NsysProfiler:\n"
            "    def __init__(self, enabled=True):\n"
            "        self.enabled = enabled\n"
            "    def step(self):\n"
            "        torch.cuda.cudart().cudaProfilerStart()\n")
    [(line, reach, reason)] = _reach(code, "DEV123")
    assert reach == "optional" and "NsysProfiler" in reason
    plain = code.replace("class NsysProfiler:", "class Trainer:")
    assert [r for _, r, _ in _reach(plain, "DEV123")] == ["runs"]


OTHER_RUNTIMES = (
    "import torch\n"
    "def load(w, device, engine, onnx, pt):\n"
    "    cuda = torch.cuda.is_available() and device.type != 'cpu'\n"
    "    if pt:\n"
    "        model = torch.load(w).to(device)\n"
    "    elif onnx:\n"
    "        import onnxruntime\n"
    "        providers = ['CUDAExecutionProvider'] if cuda else ['CPUExecutionProvider']\n"
    "        model = onnxruntime.InferenceSession(w, providers=providers)\n"
    "    elif engine:\n"
    "        import tensorrt as trt\n"
    "        if device.type == 'cpu':\n"
    "            device = torch.device('cuda:0')\n"
    "        model = trt.Runtime(trt.Logger())\n"
    "    return model\n"
)


def test_cuda_settings_of_another_inference_runtime_are_no_torch_port_item():
    # yolov5 models/common.py:481 (the cuda flag read only by ONNX Runtime/Paddle) and :539 (TensorRT's cuda:0)
    findings = {(f.line, f.rule): f for f in scan(OTHER_RUNTIMES).findings}
    trt = findings[(13, "DEV003")]
    assert trt.reach == "other-backend" and "TensorRT" in trt.reach_reason
    flag = findings[(3, "DEV104")]
    assert flag.reach == "other-backend" and "another inference runtime (ONNX Runtime)" in flag.reach_reason
    torch_too = OTHER_RUNTIMES.replace("        model = torch.load(w).to(device)\n",
                                       "        model = torch.load(w).to('cuda' if cuda else 'cpu')\n")
    assert [f.reach for f in scan(torch_too).findings if f.rule == "DEV104"] == ["runs"]  # torch reads the flag too


def _fp8_project(tmp_path, declaration: str, launch: str | None = None):
    files = {
        "pkg/__init__.py": "",
        "pkg/train_util.py": ("import argparse\n"
                              "def add_arguments(parser: argparse.ArgumentParser):\n"
                              f"    parser.add_argument({declaration})\n"),
        "sd3_train_network.py": ("import torch\n"
                             "from pkg import train_util\n"
                             "def load(args, mmdit):\n"
                             "    if args.fp8_base:\n"
                             "        mmdit.to(torch.float8_e4m3fn)\n"
                             "    return mmdit\n"
                             "\n\n"
                             "model = load(train_util.parse(), None)\n"),  # a script's function nothing calls is unreached
        "requirements.txt": "torch\n",
    }
    if launch is not None:
        files["run.sh"] = launch
    write_tree(tmp_path, files)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return [(f.reach, f.reach_reason) for f in report.findings if f.rule == "PRC004" and f.path == "sd3_train_network.py"]


def test_a_command_line_option_declared_off_in_another_file_makes_its_arm_optional(tmp_path):
    # sd-scripts sd3_train_network.py:106 (`if args.fp8_base:`), `--fp8_base` store_true in library/train_util.py
    [(reach, reason)] = _fp8_project(tmp_path, "'--fp8_base', action='store_true'")
    assert reach == "optional"
    assert "`--fp8_base` is off unless given (pkg/train_util.py:3)" in reason and "line 4: if args.fp8_base:" in reason


def test_an_option_on_by_default_or_passed_by_the_projects_launch_script_is_no_opt_in(tmp_path):
    assert [r for r, _ in _fp8_project(tmp_path / "a", "'--fp8_base', action='store_true', default=True")] == ["runs"]
    launched = _fp8_project(tmp_path / "b", "'--fp8_base', action='store_true'",
                            "#!/bin/bash\naccelerate launch sd3_train_network.py --fp8_base --lr 1e-4\n")
    assert [r for r, _ in launched] == ["runs"]


def test_a_call_of_another_objects_method_of_the_same_name_is_no_caller():
    # diffusers commands/run.py: `sbx.run(...)` after `if not args.remote: return False` is the sandbox's run, not
    # the command's own run() (whose body reaches the device code)
    code = ("import argparse\n"
            "import torch\n"
            "def submit(args, sbx):\n"
            "    if not args.remote:\n"
            "        return False\n"
            "    sbx.run(['x'])\n"
            "class RunCommand:\n"
            "    def run(self):\n"
            "        torch.cuda.set_device(0)\n"
            "def main():\n"
            "    parser = argparse.ArgumentParser()\n"
            "    parser.add_argument('--remote', action='store_true')\n")
    assert [r for _, r, _ in _reach(code, "DEV103")] == ["runs"]


def test_an_opt_in_flag_that_defaults_on_guards_required_code():
    # `if self.use_flash_attn:` around a flash_attn call is an opt-in flag (optional) unless the class turns it on
    code = ("import torch\n"
            "from flash_attn import flash_attn_func\n"
            "class Attention(torch.nn.Module):\n"
            "    def __init__(self, use_flash_attn=False):\n"
            "        super().__init__()\n"
            "        self.use_flash_attn = use_flash_attn\n"
            "    def forward(self, q, k, v):\n"
            "        if self.use_flash_attn:\n"
            "            return flash_attn_func(q, k, v)\n"
            "        return q\n")
    assert [r for _, r, _ in _reach(code, "ATT001")] == ["optional"]
    on = code.replace("use_flash_attn=False", "use_flash_attn=True")
    assert [r for _, r, _ in _reach(on, "ATT001")] == ["runs"]
    parameter_on = ("import torch\n"
                    "from flash_attn import flash_attn_func\n"
                    "def attention(q, k, v, use_flash_attn=True):\n"
                    "    if use_flash_attn:\n"
                    "        return flash_attn_func(q, k, v)\n"
                    "    return q\n")
    assert [r for _, r, _ in _reach(parameter_on, "ATT001")] == ["runs"]


def test_a_function_named_for_a_cuda_only_library_that_nothing_calls_is_optional():
    # sd-scripts sdxl_gen_img.py:176/201: `replace_vae_attn_to_xformers()` is called only in a comment under
    # `elif xformers:`
    code = ("import torch\n"
            "def replace_vae_modules(vae, xformers):\n"
            "    if xformers:\n"
            "        # replace_vae_attn_to_xformers()\n"
            "        vae.set_use_memory_efficient_attention_xformers(True)\n"
            "def replace_vae_attn_to_xformers():\n"
            "    import xformers.ops\n"
            "    def forward_xformers(self, x):\n"
            "        return xformers.ops.memory_efficient_attention(x, x, x)\n"
            "    torch.nn.Module.forward = forward_xformers\n")
    [(line, reach, reason)] = _reach(code, "ATT010")
    assert reach == "optional" and "replace_vae_attn_to_xformers()" in reason
    called = code + "replace_vae_attn_to_xformers()\n"
    assert [r for _, r, _ in _reach(called, "ATT010")] == ["runs"]


def test_a_value_not_given_is_no_switch():
    # diffusers modular_pipelines/components_manager.py: `if collection:` with `collection=None` is a value the caller
    # may pass, not a feature switched on
    code = ("import torch\n"
            "def add(name, component, collection=None):\n"
            "    if collection:\n"
            "        torch.cuda.empty_cache()\n")
    assert [r for _, r, _ in _reach(code, "DEV102")] == ["runs"]
    flag = code.replace("collection=None", "use_xformers=None").replace("if collection:", "if use_xformers:")
    assert [r for _, r, _ in _reach(flag, "DEV102")] == ["optional"]


def test_a_switch_naming_no_opt_in_feature_leaves_device_code_required():
    # timm 234f9757: the porters changed `if args.synchronize_step and device.type == 'cuda': torch.cuda.synchronize()`
    # (--synchronize-step is store_true): the option must work on NPU too, so the site stays a port item
    code = ("import argparse\n"
            "import torch\n"
            "parser = argparse.ArgumentParser()\n"
            "parser.add_argument('--synchronize-step', action='store_true')\n"
            "def train(args):\n"
            "    if args.synchronize_step:\n"
            "        torch.cuda.synchronize()\n")
    assert [r for _, r, _ in _reach(code, "DEV101")] == ["runs"]
    feature = code.replace("synchronize-step", "xformers").replace("synchronize_step", "xformers")
    assert [r for _, r, _ in _reach(feature, "DEV101")] == ["optional"]


def test_a_parameter_a_caller_in_the_file_turns_on_is_no_opt_in():
    # accelerate accelerator.py: `_prepare_one(obj, first_pass=False)` is called with first_pass=True by prepare()
    code = ("import torch\n"
            "from flash_attn import flash_attn_func\n"
            "class Runner:\n"
            "    def prepare(self, q):\n"
            "        return self._attend(q, use_flash=True)\n"
            "    def _attend(self, q, use_flash=False):\n"
            "        if use_flash:\n"
            "            return flash_attn_func(q, q, q)\n"
            "        return q\n")
    assert [r for _, r, _ in _reach(code, "ATT001")] == ["runs"]
    not_turned_on = code.replace("use_flash=True)", "use_flash=False)")
    assert [r for _, r, _ in _reach(not_turned_on, "ATT001")] == ["optional"]


TF32_SWITCH = ("import argparse\n"
               "import torch\n"
               "parser = argparse.ArgumentParser()\n"
               "parser.add_argument('--allow_tf32', action='store_true')\n"
               "def main(args):\n"
               "    if args.allow_tf32:\n"
               "        torch.backends.cuda.matmul.allow_tf32 = True\n"
               "        torch.ones(1).cuda()\n")


def test_a_tf32_setting_under_an_off_by_default_switch_is_optional_with_its_advice():
    # round 32 A1 row 30, B1 row 25, B2 row 31: `if args.allow_tf32:` (store_true) in a training script whose launchers
    # never pass it: an opt-in (PRC010 is a switch_feature_rule); the HF32 advice is kept for a user turning it on
    [(line, reach, reason)] = _reach(TF32_SWITCH, "PRC010")
    assert (line, reach) == (7, "optional")
    assert "`--allow_tf32` is off unless given (line 4)" in reason
    [finding] = [f for f in scan(TF32_SWITCH).findings if f.rule == "PRC010"]
    assert "HF32" in finding.message.en
    # the switch names no opt-in feature: other device code under it must still work when a user turns it on
    assert [r for _, r, _ in _reach(TF32_SWITCH, "DEV004")] == ["runs"]


def test_a_tf32_setting_on_by_default_or_unconditional_stays_a_port_item():
    on = TF32_SWITCH.replace("action='store_true')", "action='store_true', default=True)")
    assert [r for _, r, _ in _reach(on, "PRC010")] == ["runs"]
    bare = TF32_SWITCH.replace("    if args.allow_tf32:\n        torch.backends", "    torch.backends")
    assert [r for _, r, _ in _reach(bare, "PRC010")] == ["runs"]


def test_a_tf32_switch_a_launch_script_passes_is_no_opt_in(tmp_path):
    write_tree(tmp_path, {"train.py": TF32_SWITCH + "main(parser.parse_args())\n",
                          "train.sh": "#!/bin/bash\naccelerate launch train.py --allow_tf32 --lr 1e-4\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert [f.reach for f in report.findings if f.rule == "PRC010"] == ["runs"]
    write_tree(tmp_path, {"train.sh": "#!/bin/bash\naccelerate launch train.py --lr 1e-4\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert [f.reach for f in report.findings if f.rule == "PRC010"] == ["optional"]


def _dataclass_project(tmp_path, field_line: str, condition: str, launch: str | None = None):
    # VILA b760c34: llava/train/args.py `quantize_model: str = field(default="false")` (HfArgumentParser), read in
    # llava/train/train.py as `model_args.quantize_model`; transformers' `optim` (default "adamw_torch")
    files = {
        "pkg/__init__.py": "",
        "pkg/args.py": ("from dataclasses import dataclass, field\n"
                        "@dataclass\n"
                        "class ModelArguments:\n"
                        f"    {field_line}\n"),
        "train.py": ("import torch\n"
                     "from pkg.args import ModelArguments\n"
                     "def load(model_args, mmdit):\n"
                     f"    if {condition}:\n"
                     "        mmdit.to(torch.float8_e4m3fn)\n"
                     "    return mmdit\n"
                     "\n\n"
                     "model = load(ModelArguments(), None)\n"),  # a script's function nothing calls is unreached
        "requirements.txt": "torch\n",
    }
    if launch is not None:
        files["run.sh"] = launch
    write_tree(tmp_path, files)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return [(f.reach, f.reach_reason) for f in report.findings if f.rule == "PRC004" and f.path == "train.py"]


def test_a_dataclass_field_off_by_default_is_a_switch(tmp_path):
    [(reach, reason)] = _dataclass_project(tmp_path, "fp8_base: bool = field(default=False)", "model_args.fp8_base")
    assert reach == "optional" and "`--fp8_base` is off unless given (pkg/args.py:4)" in reason
    assert [r for r, _ in _dataclass_project(tmp_path / "on", "fp8_base: bool = True", "model_args.fp8_base")] == ["runs"]


def test_a_string_field_compared_with_another_string_is_a_switch_unless_a_launcher_passes_that_string(tmp_path):
    field_line = 'quantize_model: str = field(default="false", metadata={"help": "fp8"})'
    condition = 'model_args.quantize_model in ["fp8Activation_qwen2", "fp8ActivationResidual_qwen2"]'
    [(reach, reason)] = _dataclass_project(tmp_path / "a", field_line, condition)
    assert reach == "optional"
    assert '`--quantize_model` is "false" unless given (pkg/args.py:4)' in reason and '"fp8Activation_qwen2"' in reason
    other = "#!/bin/bash\ntorchrun train.py --quantize_model fp8Linear_qwen2 \\\n  --bf16 True\n"
    assert [r for r, _ in _dataclass_project(tmp_path / "b", field_line, condition, other)] == ["optional"]
    chosen = "#!/bin/bash\ntorchrun train.py --quantize_model=fp8Activation_qwen2\n"
    assert [r for r, _ in _dataclass_project(tmp_path / "c", field_line, condition, chosen)] == ["runs"]
    default = 'model_args.quantize_model.lower() == "false"'  # the arm the default takes
    assert [r for r, _ in _dataclass_project(tmp_path / "d", field_line, default)] == ["runs"]


def test_a_backend_imported_in_the_else_arm_of_a_negated_tensorrt_switch_is_optional_in_a_src_layout(tmp_path):
    # flux 802fb47 src/flux/cli.py: `def main(..., trt: bool = False)`, `if not trt: ... else: from
    # flux.trt.trt_manager import TRTManager` (a src/ layout: the import names `flux.trt`, the file is src/flux/trt/)
    write_tree(tmp_path, {
        "src/flux/__init__.py": "",
        "src/flux/cli.py": ("import torch\n"
                            "def main(name, trt: bool = False):\n"
                            "    if not trt:\n"
                            "        model = torch.nn.Linear(2, 2)\n"
                            "    else:\n"
                            "        from flux.trt.trt_manager import TRTManager\n"
                            "        model = TRTManager()\n"
                            "    return model\n"),
        "src/flux/trt/__init__.py": "from flux.trt.trt_manager import TRTManager\n",
        "src/flux/trt/trt_manager.py": ("import torch\n"
                                        "class TRTManager:\n"
                                        "    def run(self):\n"
                                        "        torch.cuda.synchronize()\n"),
        "pyproject.toml": "[project]\nname = 'flux'\ndependencies = ['torch']\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    found = [(f.reach, f.reach_reason) for f in report.findings if f.path == "src/flux/trt/trt_manager.py"]
    assert found and all(reach == "optional" for reach, _ in found)
    assert "src/flux/cli.py" in found[0][1]


REGISTERED_TREE = {
    "pkg/__init__.py": "",
    "pkg/registry.py": "class Registry:\n    def register(self, name, func=None):\n        self.entries[name] = func\n",
    "pkg/callbacks/__init__.py": ("from pkg.registry import Registry\n"
                                  "from pkg.callbacks.env_logging_callback import EnvironmentLoggingCallback\n"
                                  "from pkg.callbacks.speed import SpeedMonitor\n"
                                  "callbacks = Registry()\n"
                                  "callbacks.register('env_logging', func=EnvironmentLoggingCallback)\n"
                                  "callbacks.register('speed_monitor', func=SpeedMonitor)\n"),
    "pkg/callbacks/env_logging_callback.py": ("import torch\n"
                                              "class EnvironmentLoggingCallback:\n"
                                              "    def fit_start(self, state):\n"
                                              "        return torch.cuda.get_device_name(0)\n"),
    "pkg/callbacks/speed.py": ("import torch\n"
                               "class SpeedMonitor:\n"
                               "    def fit_start(self, state):\n"
                               "        return torch.cuda.get_device_name(0)\n"),
    "train.py": "import torch\nimport pkg.callbacks\nif __name__ == '__main__':\n    loss.backward()\n",
    "yamls/pretrain.yaml": "callbacks:\n  speed_monitor:\n    window_size: 10\n",
    "requirements.txt": "torch\n",
}


def _device_names(tmp_path, files):
    write_tree(tmp_path, files)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return {f.path: (f.reach, f.reach_reason) for f in report.findings if f.symbol == "torch.cuda.get_device_name"}


def test_a_class_registered_under_a_key_no_configuration_names_is_optional(tmp_path):
    found = _device_names(tmp_path, REGISTERED_TREE)
    reach, reason = found["pkg/callbacks/env_logging_callback.py"]
    assert reach == "optional"
    assert "`env_logging`" in reason and "`callbacks`" in reason and "pkg/callbacks/__init__.py:5" in reason
    assert found["pkg/callbacks/speed.py"][0] == "runs"  # a YAML names `speed_monitor`


def test_a_registered_class_stays_runs_where_anything_else_names_its_key_or_imports_it(tmp_path):
    configured = {**REGISTERED_TREE, "yamls/env.yaml": "callbacks:\n  env_logging: {}\n"}
    assert _device_names(tmp_path / "a", configured)["pkg/callbacks/env_logging_callback.py"][0] == "runs"
    used = {**REGISTERED_TREE, "tools/probe.py": "from pkg.callbacks import EnvironmentLoggingCallback\n"}
    assert _device_names(tmp_path / "b", used)["pkg/callbacks/env_logging_callback.py"][0] == "runs"
    defaults = {**REGISTERED_TREE, "pkg/defaults.py": "DEFAULT_CALLBACKS = ['env_logging']\n"}
    assert _device_names(tmp_path / "c", defaults)["pkg/callbacks/env_logging_callback.py"][0] == "runs"
    registrar = REGISTERED_TREE["pkg/callbacks/__init__.py"] + "DEFAULTS = [EnvironmentLoggingCallback]\n"
    listed = {**REGISTERED_TREE, "pkg/callbacks/__init__.py": registrar}
    assert _device_names(tmp_path / "d", listed)["pkg/callbacks/env_logging_callback.py"][0] == "runs"


TRAIN_UTILS = ("import torch\nfrom contextlib import suppress\n\n\n"
               "def get_autocast(precision, cache_enabled=True):\n"
               "    if precision == \"amp\":\n"
               "        return torch.cuda.amp.autocast(cache_enabled=cache_enabled)\n"
               "    elif precision == \"amp_bfloat16\":\n"
               "        return lambda: torch.cuda.amp.autocast(dtype=torch.bfloat16)\n"
               "    return suppress\n")


def _precision_project(tmp_path, choices: str, importing: str = "from pkg.train_utils import get_autocast\n"):
    caller = "autocast = get_autocast(args.precision)\n"
    train = ("import argparse\n" + importing +
             "parser = argparse.ArgumentParser()\n"
             f"parser.add_argument(\"--precision\", default=\"fp32\"{choices})\n"
             "args = parser.parse_args()\n" + caller)
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/train_utils.py": TRAIN_UTILS, "pkg/train.py": train,
                          "pkg/eval_utils.py": TRAIN_UTILS + "# eval's copy, fed from arguments parsed by hand\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    return {(f.path[4:], f.line): (f.reach, f.reach_reason) for f in report.findings
            if f.line in {7, 9} and f.rule == "DEV140"}


def test_a_parameter_named_like_an_option_tested_for_a_value_its_choices_reject_never_holds_it(tmp_path):
    """open_flamingo's train_utils.get_autocast: `precision == "amp"`, while --precision accepts amp_bf16,
    amp_bfloat16, bf16, fp16, fp32; the amp_bfloat16 arm is a choice and runs."""
    reach = _precision_project(tmp_path / "a", ', choices=["amp_bfloat16", "bf16", "fp16", "fp32"]')
    assert reach[("train_utils.py", 7)][0] == "optional"
    assert "`--precision` accepts only amp_bfloat16" in reach[("train_utils.py", 7)][1]
    assert reach[("train_utils.py", 9)][0] == "runs"
    assert reach[("eval_utils.py", 7)][0] == "runs"  # train.py does not import it: another `precision`
    assert _precision_project(tmp_path / "b", "")[("train_utils.py", 7)][0] == "runs"  # no choices: "amp" may be given
    assert _precision_project(tmp_path / "c", ', choices=["amp", "fp32"]')[("train_utils.py", 7)][0] == "runs"
    sibling = _precision_project(tmp_path / "d", ', choices=["fp32"]', "from train_utils import get_autocast\n")
    assert sibling[("train_utils.py", 7)][0] == "optional"  # open_flamingo's train.py runs as a script beside it

