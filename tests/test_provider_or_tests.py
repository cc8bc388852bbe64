"""An `or` of CUDA tests is one test: its arms are the test's (domains/device/test_arms.py `_cuda_test`). Round 36 A1
row 29 (so-vits-svc vencoder/*_Onnx.py): `if device == 'cuda' or device == torch.device("cuda"):` picks
['CUDAExecutionProvider', 'CPUExecutionProvider'] for an ONNX Runtime session, else the CPU provider: DEV007's
runtime-provider variant (low; CANNExecutionProvider or the CPU provider, or an ATC-converted .om model for serving),
not a torch device test."""

from tests.helpers import scan

ONNX = ("import onnxruntime\nimport torch\n\n\nclass Encoder:\n    def __init__(self, path, device=None):\n"
        "        if device == 'cuda' or device == torch.device(\"cuda\"):\n"
        "            providers = ['CUDAExecutionProvider', 'CPUExecutionProvider']\n        else:\n"
        "            providers = ['CPUExecutionProvider']\n"
        "        self.model = onnxruntime.InferenceSession(path, providers=providers)\n")


def _dev007(code: str):
    found = [f for f in scan(code, "python").findings if f.rule == "DEV007"]
    assert len(found) == 1, found
    return found[0]


def test_an_or_of_cuda_tests_picking_a_provider_is_the_runtime_provider_variant():
    finding = _dev007(ONNX)
    assert finding.severity == "low" and "ONNX Runtime execution provider" in finding.message.en
    assert "CANNExecutionProvider" in finding.replacement.en and ".om model" in finding.replacement.en
    assert "AscendCL" in finding.replacement.zh


def test_an_or_with_another_condition_keeps_the_setting_text():
    finding = _dev007(ONNX.replace("device == torch.device(\"cuda\")", "use_gpu"))
    assert "ONNX Runtime" not in finding.message.en and finding.severity == "high"


def test_an_or_of_cuda_tests_choosing_the_torch_device_stays_a_device_test():
    finding = _dev007("import torch\n\n\ndef f(device, x):\n"
                      "    if device == 'cuda' or device == torch.device('cuda'):\n        x = x.half()\n    return x\n")
    assert "ONNX Runtime" not in finding.message.en and finding.severity == "high"


def test_a_provider_availability_check_is_no_device_test():
    code = ("import onnxruntime as ort\n\n\ndef load(path):\n"
            "    if 'CUDAExecutionProvider' in ort.get_available_providers():\n"
            "        return ort.InferenceSession(path, providers=['CUDAExecutionProvider', 'CPUExecutionProvider'])\n"
            "    return ort.InferenceSession(path, providers=['CPUExecutionProvider'])\n")
    assert not [f for f in scan(code, "python").findings if f.rule == "DEV007"]
