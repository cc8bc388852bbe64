"""`port --unsafe` on each idiom real ports change: the rewritten code answers as the original on CUDA and CPU hosts
(the CUDA path simulated by setting the device module's DEVICE_TYPE) and takes the NPU path on an NPU host; and the
sites that must never be rewritten are left with their reason."""

from __future__ import annotations

import sys
import types
from types import SimpleNamespace

import pytest
import torch
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port, render_device_module, summarize
from ascend_feasibility.analyzer.port.summary import summary_lines
from ascend_feasibility.knowledge import load_device_module

from tests.test_port import MAIN, _new, _project, uses

HOSTS = ("cuda", "cpu")


def _ported(tmp_path, body: str, **options):
    """Port a one-file project (run.py: `import torch` + body + a main guard) with --unsafe; (result, new text)."""
    source = "import torch\n\n\n" + body + "\n\n" + MAIN
    root = _project(tmp_path, {"run.py": source, **uses(source)})
    report = analyze(root, AnalyzeOptions(jobs=1))
    result = port(root, report, PortOptions(unsafe=True, **options))
    return report, result, _new(result, "run.py")


def _load(source: str, module_text: str, host: str, monkeypatch) -> dict:
    """Run the rewritten file's definitions with the device module as it is on `host`."""
    module = types.ModuleType("proj_device")
    exec(compile(module_text, "proj_device.py", "exec"), module.__dict__)
    module.DEVICE_TYPE = host
    module._MODULE = SimpleNamespace(is_bf16_supported=lambda: True) if host != "cpu" else None
    monkeypatch.setitem(sys.modules, "proj_device", module)
    namespace = {"__name__": "run"}
    exec(compile(source, "run.py", "exec"), namespace)
    return namespace


def _same_on_cuda_and_cpu(original: str, result, new: str, monkeypatch, cases, npu_cases=()):
    module_text = result.new_files.get("proj_device.py", "DEVICE_TYPE = 'cpu'\n")  # none needed: a literal added
    before = {"__name__": "run"}
    exec(compile(original, "run.py", "exec"), before)
    for host in HOSTS:
        after = _load(new, module_text, host, monkeypatch)
        for case in cases:
            assert after["f"](case) == before["f"](case), (host, case)
    after = _load(new, module_text, "npu", monkeypatch)
    for case, expected in npu_cases:
        assert after["f"](case) == expected, case


def test_device_type_picked_from_the_device_string(tmp_path, monkeypatch):
    body = "def f(device):\n    device_type = 'cuda' if 'cuda' in device else 'cpu'\n    return device_type\n"
    _, result, new = _ported(tmp_path, body)
    assert "device_type = _device.accelerator_type(device)" in new
    _same_on_cuda_and_cpu("import torch\n" + body, result, new, monkeypatch, ["cuda", "cuda:1", "cpu", "mps"],
                          [("npu:0", "npu"), ("cpu", "cpu")])


def test_equality_with_cuda(tmp_path, monkeypatch):
    body = ("def f(device):\n    same = 1 if device.type == 'cuda' else 0\n"
            "    other = 1 if device.type != \"cuda\" else 0\n    return same, other\n")
    _, result, new = _ported(tmp_path, body)
    assert "device.type in _device.ACCELERATOR_TYPES" in new and "device.type not in _device.ACCELERATOR_TYPES" in new
    cases = [torch.device("cuda"), torch.device("cuda", 1), torch.device("cpu"), torch.device("meta")]
    _same_on_cuda_and_cpu("import torch\n" + body, result, new, monkeypatch, cases,
                          [(SimpleNamespace(type="npu"), (1, 0))])


def test_cuda_in_a_device_string_and_startswith(tmp_path, monkeypatch):
    body = ("def f(device):\n    a = 1 if 'cuda' in str(device) else 0\n    b = 1 if 'cuda' not in device else 0\n"
            "    c = 1 if str(device).startswith('cuda') else 0\n    return a, b, c\n")
    _, result, new = _ported(tmp_path, body)
    assert "_device.names_accelerator(str(device))" in new and "not _device.names_accelerator(device)" in new
    assert "str(device).startswith(_device.ACCELERATOR_TYPES)" in new
    _same_on_cuda_and_cpu("import torch\n" + body, result, new, monkeypatch, ["cuda", "cuda:0", "cpu", "mps"],
                          [("npu:1", (1, 0, 1))])


def test_membership_in_a_list_of_device_types(tmp_path, monkeypatch):
    body = "def f(device_type):\n    return 1 if device_type in ('cuda', 'xpu') else 0\n"
    _, result, new = _ported(tmp_path, body)
    assert "device_type in ('cuda', 'npu', 'xpu')" in new
    _same_on_cuda_and_cpu("import torch\n" + body, result, new, monkeypatch, ["cuda", "xpu", "cpu"], [("npu", 1)])


def test_is_cuda_on_a_tensor(tmp_path, monkeypatch):
    body = "def f(x):\n    return x.pin_memory() if x.is_cuda else x\n"
    _, result, new = _ported(tmp_path, body)
    assert "return x.pin_memory() if _device.is_accelerator(x) else x" in new
    cuda = SimpleNamespace(is_cuda=True, device=torch.device("cuda"), pin_memory=lambda: "pinned")
    cpu = SimpleNamespace(is_cuda=False, device=torch.device("cpu"), pin_memory=lambda: "pinned")
    npu = SimpleNamespace(is_cuda=False, is_npu=True, device=SimpleNamespace(type="npu"), pin_memory=lambda: "pinned")
    _same_on_cuda_and_cpu("import torch\n" + body, result, new, monkeypatch, [cuda, cpu], [(npu, "pinned"), (cpu, cpu)])


def test_device_names_built_from_a_rank(tmp_path, monkeypatch):
    body = ("def f(rank):\n    a = f'cuda:{rank}'\n    b = 'cuda:%d' % rank\n    c = \"cuda:{}\".format(rank)\n"
            "    d = 'cuda:' + str(rank)\n    return a, b, c, d\n\n\ndef g(rank):\n    return torch.device('cuda', rank)\n")
    _, result, new = _ported(tmp_path, body)
    assert "f'{_device.DEVICE_TYPE}:{rank}'" in new and "f'{_device.DEVICE_TYPE}:%d' % rank" in new
    assert 'f"{_device.DEVICE_TYPE}:{{}}".format(rank)' in new and "f'{_device.DEVICE_TYPE}:' + str(rank)" in new
    module_text = result.new_files["proj_device.py"]
    assert "return torch.device(_device.DEVICE_TYPE, rank)" in new
    on_cuda = _load(new, module_text, "cuda", monkeypatch)
    assert on_cuda["f"](3) == ("cuda:3",) * 4 and on_cuda["g"](3) == torch.device("cuda", 3)
    assert _load(new, module_text, "npu", monkeypatch)["f"](3) == ("npu:3",) * 4


def test_a_guarded_move_is_rewritten_as_one_unit(tmp_path, monkeypatch):
    body = ("def f(model):\n    if torch.cuda.is_available():\n        model = model.cuda()\n    return model\n\n\n"
            "def g(x):\n    if torch.cuda.is_available():\n        x = launch(x)\n    return x\n")
    _, result, new = _ported(tmp_path, body + "\n\ndef launch(x):\n    return x\n")
    assert "    if _device.is_available():\n        # ascend: DEV004\n        model = _device.move(model)" in new
    assert "def g(x):\n    if torch.cuda.is_available():" in new  # it may launch a CUDA kernel: held
    held = {o.finding.line: o.reason for o in result.outcomes if o.reason}
    assert "calls launch" in held[11]
    module_text = result.new_files["proj_device.py"]
    moved = []
    model = SimpleNamespace(cuda=lambda *a, **k: moved.append(("cuda", a)) or "on cuda",
                            to=lambda *a, **k: moved.append(("to", a)) or "moved")
    assert _load(new, module_text, "cuda", monkeypatch)["f"](model) == "on cuda" and moved == [("cuda", ())]
    namespace = _load(new, module_text, "npu", monkeypatch)
    namespace["_device"]._MODULE = SimpleNamespace(is_available=lambda: True)
    assert namespace["f"](model) == "moved" and moved[-1] == ("to", ("npu",))


def test_move_with_an_index_keeps_it(monkeypatch):
    module = types.ModuleType("m")
    exec(render_device_module({"move"}), module.__dict__)
    calls = []
    obj = SimpleNamespace(cuda=lambda *a, **k: calls.append(("cuda", a, k)), to=lambda *a, **k: calls.append(("to", a, k)))
    module.DEVICE_TYPE = "cuda"
    module.move(obj, 1, non_blocking=True)
    module.move(obj)
    module.DEVICE_TYPE = "npu"
    module.move(obj, 1)
    module.move(obj, "cuda:2")
    module.DEVICE_TYPE = "cpu"
    module.move(obj, 1)
    assert calls == [("cuda", (1,), {"non_blocking": True}), ("cuda", (), {}), ("to", ("npu:1",), {}),
                     ("to", ("npu:2",), {}), ("to", ("cpu",), {})]


def test_custom_op_registered_for_cuda_is_not_retargeted(tmp_path):
    body = ("@torch.library.custom_op('lib::op', mutates_args=(), device_types='cuda')\n"
            "def op(x: torch.Tensor) -> torch.Tensor:\n    return x.clone()\n\n\n"
            "def main():\n    return torch.zeros(1, device='cuda')\n")
    report, result, new = _ported(tmp_path, body)
    assert "device_types='cuda'" in new and "torch.zeros(1, device=_device.DEVICE_TYPE)" in new
    assert any("NPU needs its own implementation" in (o.reason or "") for o in result.outcomes)
    assert any("NPU needs its own implementation" in line for line in summary_lines(summarize(report, result), result, report))


def test_float64_in_a_numerics_tool_is_left(tmp_path):
    root = _project(tmp_path, {"numerics_debugging/compare.py": "import torch\n\n\ndef f(x):\n    return x.to(torch.float64)\n",
                               "model.py": "import torch\n\n\ndef f(x):\n    return x.to(torch.float64)\n"})
    result = port(root, analyze(root, AnalyzeOptions(jobs=1)), PortOptions(unsafe=True))
    assert "torch.float32" in _new(result, "model.py")
    assert _new(result, "numerics_debugging/compare.py") is None
    assert any("numeric tool" in (o.reason or "") for o in result.outcomes if o.finding.path.startswith("numerics"))


def test_plan_comments_one_per_function_whole_words(tmp_path):
    body = ("def f(a, b):\n    x = a.device.type in ['cuda', 'hip']\n    y = a.device.type in ['cuda', 'rocm']\n"
            "    return x, y\n")
    _, result, new = _ported(tmp_path, "import subprocess\n\n\ndef f():\n    subprocess.run(['nvidia-smi'])\n"
                             "    subprocess.run(['nvidia-smi', '-L'])\n", plan_comments=True)
    notes = [line for line in new.splitlines() if "DEV211 (display-only)" in line]
    assert len(notes) == 1
    assert notes[0].endswith("…") or notes[0].endswith(".")
    assert not notes[0].rstrip("…").endswith(("-", " "))
    assert body  # the membership rewrite above is tested in test_membership_in_a_list_of_device_types


@pytest.mark.parametrize("piece", [p.name for p in load_device_module().function])
def test_every_device_module_piece_compiles_alone(piece):
    compile(render_device_module({piece} | {"ACCELERATOR_TYPES"}), piece, "exec", dont_inherit=True)


def test_a_site_inside_another_is_rewritten_through_it(tmp_path, monkeypatch):
    body = "def f(batch):\n    return batch.cuda(device=torch.cuda.current_device())\n"
    _, result, new = _ported(tmp_path, body)
    assert "return _device.move(batch, device=_device.current_device())" in new
    assert all(o.rewritten for o in result.outcomes if o.finding.line == 6)


def test_accepted_device_choices_get_npu_and_iterated_lists_do_not(tmp_path):
    body = ("def f(parser):\n    parser.add_argument('--device', choices=['cpu', 'cuda', 'mps'])\n"
            "    SUPPORTED_DEVICES = ('cuda', 'xpu')\n    for device in ['cpu', 'cuda']:\n        print(device)\n"
            "    return SUPPORTED_DEVICES\n")
    _, result, new = _ported(tmp_path, body)
    assert "choices=['cpu', 'cuda', 'npu', 'mps']" in new and "SUPPORTED_DEVICES = ('cuda', 'npu', 'xpu')" in new
    assert "for device in ['cpu', 'cuda']:" in new


def test_a_src_layout_gets_its_device_module_in_a_package(tmp_path):
    root = _project(tmp_path, {
        "pyproject.toml": "[project]\nname = \"two\"\n",
        "src/one/__init__.py": "", "src/one/a.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n",
        "src/two/__init__.py": "", "src/two/b.py": "import torch\n\n\ndef g():\n    torch.cuda.synchronize()\n",
        "src/two/c.py": "import torch\n\n\ndef h():\n    torch.cuda.empty_cache()\n"})
    result = port(root, analyze(root, AnalyzeOptions(jobs=1)), PortOptions())
    assert result.device_module == "src/two/_device.py" and not result.unpatched
    assert all("from  import" not in r.new for r in result.rewrites)


def test_a_device_test_whose_answer_is_passed_on_is_left(tmp_path):
    """A checker that tells a caller whether a CUDA kernel may run (litgpt's unsloth executor), a fused-optimizer
    switch: where the answer goes is not known, so the test stays."""
    body = ("def use_kernel(e, g):\n    return e.device.type == 'cuda' and g.device.type == 'cuda'\n\n\n"
            "def options(device):\n    fused = device.type == 'cuda'\n    return {'fused': fused}\n")
    _, result, new = _ported(tmp_path, body)
    assert new is None or "ACCELERATOR_TYPES" not in new
    assert all("kept or passed on" in o.reason for o in result.outcomes if o.finding.rule == "DEV007")


def test_a_branch_that_may_run_a_kernel_is_left(tmp_path):
    body = ("def f(self, x):\n    y = x\n    if x.is_cuda:\n        y = self.triton_forward(x)\n    return y\n\n\n"
            "def g(x):\n    y = x\n    if x.is_cuda:\n        y = x.pin_memory()\n    return y\n")
    _, result, new = _ported(tmp_path, body)
    assert "    if x.is_cuda:\n        y = self.triton_forward(x)" in new
    assert "    if _device.is_accelerator(x):\n        y = x.pin_memory()" in new


def test_a_device_name_among_accepted_names_gets_npu_beside_it(tmp_path):
    body = ("def f(accelerator, device):\n    allowed_accelerators = {'cpu', 'gpu', 'cuda', 'mps'}\n"
            "    for name in ['cuda', 'cpu']:\n        print(name)\n    return accelerator in allowed_accelerators\n")
    _, result, new = _ported(tmp_path, body)
    assert "allowed_accelerators = {'cpu', 'gpu', 'cuda', 'npu', 'mps'}" in new
    assert "for name in ['cuda', 'cpu']:" in new


def test_a_function_that_launches_a_cuda_kernel_is_left_and_a_triton_wrapper_is_not(tmp_path):
    """A CUDA C++ kernel cannot run on the NPU: the function launching it is left. A Triton kernel can, with
    triton-ascend, so the buffers its wrapper allocates move to the NPU as porters do (xtuner)."""
    from ascend_feasibility.analyzer.core.models import CustomOpRow

    body = ("import triton\nimport my_ext\n\n\n@triton.jit\ndef _t(x_ptr):\n    pass\n\n\n"
            "def launch(x):\n    out = torch.empty(4, device='cuda')\n    my_ext.k(out)\n    return out\n\n\n"
            "def launch_triton(x):\n    out = torch.empty(4, device='cuda')\n    _t[(1,)](out)\n    return out\n\n\n"
            "def main():\n    launch(1)\n    launch_triton(1)\n")  # a script's function nothing calls is unreached
    source = "import torch\n\n\n" + body + "\n\n" + MAIN
    root = _project(tmp_path, {"run.py": source, **uses(source)})
    report = analyze(root, AnalyzeOptions(jobs=1))
    assert {row.kind for row in report.custom_ops} == {"triton"}
    row = report.custom_ops[0].model_dump()
    row.update(kernel="k", path="csrc/k.cu", line=1, kind="cuda", callers=["run.py:16"], replacement_path="ascend-c")
    report.custom_ops.append(CustomOpRow(**row))
    result = port(root, report, PortOptions(unsafe=True))
    new = _new(result, "run.py")
    assert "    out = torch.empty(4, device='cuda')\n    my_ext.k(out)" in new
    assert any("launches the project's own CUDA kernel" in (o.reason or "") for o in result.outcomes)
    assert "    out = torch.empty(4, device=_device.DEVICE_TYPE)\n    _t[(1,)](out)" in new


def test_a_site_under_a_cuda_check_the_patch_leaves_is_left_too(tmp_path):
    body = ("def f():\n    if torch.cuda.is_available() and torch.cuda.get_device_capability()[0] >= 8:\n"
            "        name = 'cuda'\n    else:\n        name = 'cpu'\n    return name\n")
    _, result, new = _ported(tmp_path, body)
    assert new is None or "name = 'cuda'" in new
    assert any("runs only where the CUDA check" in (o.reason or "") for o in result.outcomes)


def test_no_torch_npu_setup_in_another_backends_script(tmp_path):
    root = _project(tmp_path, {"xla/train.py": "import torch\n\n\ndef main():\n    return torch.zeros(1)\n\n\n" + MAIN,
                               "train.py": "import torch\n\n\ndef main():\n    return torch.zeros(1)\n\n\n" + MAIN})
    result = port(root, analyze(root, AnalyzeOptions(jobs=1)), PortOptions())
    assert "xla/train.py" not in result.entries and "train.py" in result.entries


def test_nanogpt_ddp_and_autocast_take_the_npu_path(tmp_path, monkeypatch):
    """The lines of nanoGPT's train.py that decide DDP and autocast (88, 89, 109 and the backend default), as a
    function: on an NPU host the rank's device is npu:N, the backend hccl and autocast's device type npu."""
    body = ("def setup(ddp_local_rank):\n    backend = 'nccl' # 'nccl', 'gloo', etc.\n"
            "    device = 'cuda'\n    if ddp_local_rank is not None:\n        device = f'cuda:{ddp_local_rank}'\n"
            "        torch.cuda.set_device(device)\n"
            "    device_type = 'cuda' if 'cuda' in device else 'cpu' # for later use in torch.autocast\n"
            "    return backend, device, device_type\n\n\ndef main():\n    setup(0)\n")
    _, result, new = _ported(tmp_path, body)
    assert "device = f'{_device.DEVICE_TYPE}:{ddp_local_rank}'" in new
    assert "device_type = _device.accelerator_type(device)" in new and "backend = _device.DIST_BACKEND" in new
    module_text = result.new_files["proj_device.py"]
    for host, expected in (("npu", ("hccl", "npu:3", "npu")), ("cuda", ("nccl", "cuda:3", "cuda"))):
        namespace = _load(new, module_text, host, monkeypatch)
        device_module = sys.modules["proj_device"]
        device_module.DIST_BACKEND = {"npu": "hccl", "cuda": "nccl"}[host]
        device_module._MODULE = SimpleNamespace(set_device=lambda device: None)
        assert namespace["setup"](3) == expected
