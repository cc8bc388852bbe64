"""DEV007's texts follow what the test decides (domains/device/test_arms.py, the rule's variants in the knowledge
base): a path that raises fails loudly, a compared setting breaks only once it says "npu", and a CUDA-specific arm
needs an NPU arm of its own rather than a widened test."""

from tests.helpers import scan


def _dev007(code: str):
    found = [f for f in scan(code, "python").findings if f.rule == "DEV007"]
    assert len(found) == 1, found
    return found[0]


def test_a_device_type_test_whose_other_path_raises_fails_loudly():
    finding = _dev007('import torch\ndef f(x):\n    if x.device.type == "cuda":\n        y = fused(x)\n    else:\n'
                      '        raise RuntimeError("needs a GPU")\n    return y\n')
    assert "fails loudly" in finding.message.en and "silently" not in finding.message.en
    assert "显式报错" in finding.message.zh


def test_an_assert_fails_loudly():
    finding = _dev007('import torch\ndef check(t):\n    assert t.device.type == "cuda"\n')
    assert "fails loudly" in finding.message.en


def test_a_plain_device_type_test_keeps_the_silent_branch_text():
    finding = _dev007('import torch\ndef f(x):\n    if x.device.type == "cuda":\n        x = x.half()\n    return x\n')
    assert "silently takes the non-CUDA branch" in finding.message.en
    assert "setting" not in finding.message.en


def test_a_compared_setting_breaks_only_once_it_says_npu():
    finding = _dev007('import torch\ndef f(model, accelerator, rank):\n'
                      '    ids = [rank] if accelerator == "cuda" else []\n    return ids\n')
    assert "only once the setting says \"npu\"" in finding.message.en and "silently" in finding.message.en
    assert "current_accelerator" in finding.replacement.en  # the arm is device-generic: widening is right


def test_a_setting_chain_ending_in_raise_with_a_cuda_arm():
    finding = _dev007('import torch\ndef setup(accelerator, rank):\n    if accelerator == "cuda":\n'
                      '        device = torch.device("cuda", rank)\n        torch.cuda.set_device(rank)\n'
                      '    elif accelerator == "cpu":\n        device = torch.device("cpu")\n    else:\n'
                      '        raise ValueError(accelerator)\n    return device\n')
    assert "only once the setting says \"npu\"" in finding.message.en and "fails loudly" in finding.message.en
    assert "arm of its own" in finding.replacement.en and "hccl" in finding.replacement.en
    assert "另加一个分支" in finding.replacement.zh


def test_a_chain_with_an_npu_arm_does_not_raise_on_npu():
    finding = _dev007('import torch\ndef setup(acc):\n    if acc == "cuda":\n        d = 1\n    elif acc == "npu":\n'
                      '        d = 2\n    else:\n        raise ValueError(acc)\n    return d\n')
    assert "fails loudly" not in finding.message.en


def test_a_backend_chosen_by_a_device_string_needs_an_npu_arm():
    finding = _dev007('import torch\ndef backend(accelerator):\n    return "nccl" if accelerator == "cuda" else "gloo"\n')
    assert "arm of its own" in finding.replacement.en


def test_str_of_a_device_is_not_a_setting():
    finding = _dev007('import torch\ndef f(device):\n    if "cuda" in str(device):\n        torch.cuda.synchronize()\n')
    assert "setting" not in finding.message.en


def test_a_parenthesised_test_with_a_cuda_arm():
    finding = _dev007('import torch\ndef f(x):\n    if (x.device.type == "cuda"):\n        torch.cuda.synchronize()\n')
    assert "arm of its own" in finding.replacement.en


def test_an_assert_with_an_or_fails_loudly_and_an_if_with_an_or_says_nothing_of_it():
    finding = _dev007('def f(device=None):\n    assert "cuda" in device or device is None, "CUDA only"\n')
    assert "fails loudly" in finding.message.en and "only once the setting" in finding.message.en
    finding = _dev007('def f(device, cpu_ok):\n    if cpu_ok or device == "cuda":\n        return 1\n    else:\n'
                      '        raise ValueError(device)\n')
    assert "fails loudly" not in finding.message.en


# A torch.device built from a "cuda" literal keeps type "cuda" under transfer_to_npu (Ascend/pytorch v2.12.0-26.1.0
# torch_npu/contrib/transfer_to_npu.py wraps no torch.device; domains/device/literal_devices.py; round 27 A1 W1, B1 C8)
LITERAL_CASES = {
    "local": 'import torch\ndef f(model):\n    device = torch.device("cuda" if torch.cuda.is_available() else "cpu")\n'
             '    if device.type == "cuda":\n        model = model.half()\n    return model.to(device)\n',
    "module": 'import torch\ndevice = torch.device("cuda")\ndef f(model):\n    if device.type == "cuda":\n'
              '        model = model.half()\n    return model.to(device)\n',
    "caller": 'import torch\ndef f(model, device):\n    if device.type == "cuda":\n        model = model.half()\n'
              '    return model.to(device)\n\ndef main(model):\n    dev = torch.device("cuda:0")\n    f(model, device=dev)\n',
    # assigned in each arm of a device pick the shim covers: under it the probe takes the CUDA arm (round 34 B1 C6,
    # XMem interactive_demo.py:31-36)
    "chain": 'import torch\nfrom contextlib import nullcontext\nif torch.cuda.is_available():\n'
             '    device = torch.device("cuda")\nelif torch.backends.mps.is_available():\n    device = torch.device("mps")\n'
             'else:\n    device = torch.device("cpu")\nif __name__ == "__main__":\n'
             '    with torch.cuda.amp.autocast() if device.type == "cuda" else nullcontext():\n        pass\n',
}
NOT_LITERAL_CASES = {
    # the same names assigned in a chain that is no shim-covered pick (a flag's test), or again after the chain
    "flag chain": 'import torch\nif use_gpu:\n    device = torch.device("cuda")\nelif torch.backends.mps.is_available():\n'
                  '    device = torch.device("mps")\nelse:\n    device = torch.device("cpu")\ndef f(model):\n'
                  '    if device.type == "cuda":\n        model = model.half()\n    return model.to(device)\n',
    "reassigned": 'import torch\nif torch.cuda.is_available():\n    device = torch.device("cuda")\n'
                  'elif torch.backends.mps.is_available():\n    device = torch.device("mps")\nelse:\n'
                  '    device = torch.device("cpu")\ndevice = torch.device(args.device)\ndef f(model):\n'
                  '    if device.type == "cuda":\n        model = model.half()\n    return model.to(device)\n',
    "setting": 'import torch\ndef f(model, args):\n    device = torch.device(args.device)\n    if device.type == "cuda":\n'
               '        model = model.half()\n    return model.to(device)\n',
    "tensor": 'import torch\ndef f(x):\n    device = x.device\n    if device.type == "cuda":\n        x = x.half()\n    return x\n',
    "one caller not": 'import torch\ndef f(model, device):\n    if device.type == "cuda":\n        model = model.half()\n'
                      '    return model\n\ndef main(model, x):\n    f(model, torch.device("cuda"))\n    f(model, x.device)\n',
}


def test_a_device_built_from_a_cuda_literal_is_said_to_keep_its_type_under_the_shim():
    for name, code in LITERAL_CASES.items():
        finding = _dev007(code)
        assert 'keeps type "cuda"' in finding.message.en, name
        assert "builds from a \"cuda\" literal" in finding.message.en, name


def test_a_device_from_a_setting_or_a_tensor_keeps_the_tensor_text():
    for name, code in NOT_LITERAL_CASES.items():
        finding = _dev007(code)
        assert "builds from a \"cuda\" literal" not in finding.message.en, name
        assert "silently takes the non-CUDA branch" in finding.message.en, name
