"""PRC006 and PRC005 where the value's device or dtype is decided before the NPU sees it (round 37 classes).

`.double()` of a tensor made by a factory without `device=` runs on the CPU and keeps float64 there, unless the file
sets a default device or the value is handed out of its function to be moved elsewhere (analyzer/context/host_values.py). A norm
layer's dtype assert on its own forward argument, with no autocast in the forward, holds or fails as on CUDA
(domains/precision/norm_inputs.py)."""

from tests.helpers import rules_found


def _prc006(code: str) -> bool:
    return "PRC006" in rules_found(code)


def test_factory_without_device_kept_in_function_is_host():
    assert not _prc006("import torch\ndef f(meta):\n    c2i = torch.tensor(meta['cam2img']).double()\n"
                       "    l2c = torch.tensor(meta['lidar2cam']).double()\n    meta['lidar2img'] = (c2i @ l2c).float().numpy()\n")


def test_eye_then_cast_is_host():
    assert not _prc006("import torch\ndef f(k):\n    pad = torch.eye(4).double()\n    pad[:3, :3] = k\n    return pad.float().numpy()\n")


def test_default_tensor_type_cuda_makes_device_tensors():
    assert _prc006("import torch\ntorch.set_default_tensor_type(torch.cuda.FloatTensor)\n"
                   "def f(meta):\n    c2i = torch.tensor(meta['cam2img']).double()\n    meta['x'] = c2i\n")


def test_default_tensor_type_cpu_keeps_host():
    assert not _prc006("import torch\ntorch.set_default_tensor_type(torch.FloatTensor)\n"
                       "def f(meta):\n    c2i = torch.tensor(meta['cam2img']).double()\n    meta['x'] = c2i\n")


def test_moved_after_factory_is_device():
    assert _prc006("import torch\ndef f(meta, device):\n    c2i = torch.tensor(meta['cam2img']).to(device).double()\n    meta['x'] = c2i\n")


def test_bound_name_moved_later_is_device():
    assert _prc006("import torch\ndef f(meta, device):\n    c2i = torch.tensor(meta['cam2img']).double()\n    c2i = c2i.cuda()\n    meta['x'] = c2i\n")


def test_table_stored_on_self_or_registered_leaves_the_function():
    assert _prc006("import torch\nclass R(torch.nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
                   "        self.t = torch.arange(n).double()\n")
    assert _prc006("import torch\nclass R(torch.nn.Module):\n    def __init__(self, n):\n        super().__init__()\n"
                   "        t = torch.arange(n).double()\n        self.register_buffer('t', t)\n")


def test_new_tensor_takes_the_device_of_its_owner():
    assert _prc006("def f(points, meta):\n    c2i = points.new_tensor(meta['cam2img']).double()\n    meta['x'] = c2i\n")


NORM = "import torch\nclass {cls}({base}):\n    def forward(self, input):\n{body}        return super().forward(input)\n"


def _prc005(cls: str, base: str, body: str) -> bool:
    return "PRC005" in rules_found(NORM.format(cls=cls, base=base, body=body))


def test_norm_layer_asserting_its_argument_is_not_flagged():
    assert not _prc005("NaiveSyncBatchNorm2d", "torch.nn.BatchNorm2d", "        assert input.dtype == torch.float32\n")
    assert not _prc005("SyncBN", "torch.nn.SyncBatchNorm", "        assert input.dtype == torch.float32\n")


def test_norm_layer_assert_after_rebinding_or_under_autocast_is_flagged():
    assert _prc005("SyncBN", "torch.nn.SyncBatchNorm", "        input = self.proj(input)\n        assert input.dtype == torch.float32\n")
    assert _prc005("SyncBN", "torch.nn.SyncBatchNorm",
                   "        with torch.autocast('cuda'):\n            assert input.dtype == torch.float32\n")


def test_other_module_asserting_its_argument_stays_flagged():
    assert _prc005("Block", "torch.nn.Module", "        assert input.dtype == torch.float32\n")


def test_parameter_rebound_only_on_one_arm_may_arrive_on_the_device():
    assert _prc006("import torch\ndef flops(lengths):\n    if not torch.is_tensor(lengths):\n"
                   "        lengths = torch.tensor(lengths, dtype=torch.long)\n    stats = {}\n    stats['f'] = lengths.max().double() * 2\n    return stats\n")
