"""Imports and aliases resolve to qualified names; comments, docstrings and messages are not code."""

import pytest

from tests.helpers import scan


def symbols(code):
    return [(f.rule, f.symbol) for f in scan(code).findings]


@pytest.mark.parametrize(
    "code",
    [
        "import torch\ntorch.cuda.synchronize()",
        "import torch as t\nt.cuda.synchronize()",
        "from torch import cuda\ncuda.synchronize()",
        "import torch.cuda as tc\ntc.synchronize()",
        "from torch.cuda import synchronize\nsynchronize()",
        "from torch.cuda import synchronize as sync\nsync()",
        "import torch.cuda\ntorch.cuda.synchronize()",
        "import torch\ntorch.cuda.\\\n    synchronize()",
    ],
)
def test_spellings_of_one_api(code):
    assert ("DEV101", "torch.cuda.synchronize") in symbols(code)


def test_amp_spellings():
    assert ("DEV140", "torch.cuda.amp.autocast") in symbols("from torch.cuda import amp\nwith amp.autocast():\n    pass")
    assert ("DEV140", "torch.cuda.amp.autocast") in symbols("from torch.cuda.amp import autocast\n@autocast()\ndef f():\n    pass")
    assert ("DEV141", "torch.cuda.amp.GradScaler") in symbols(
        "from torch.cuda.amp.grad_scaler import GradScaler\ns = GradScaler()"
    )


def test_attributes_of_classified_objects_report_the_object():
    assert ("DEV110", "torch.cuda.Event") in symbols("import torch\nt = torch.cuda.Event.elapsed_time")


def test_unknown_private_names_are_reported_without_equivalent():
    assert ("DEV135", "torch.cuda._sleep") in symbols("import torch\ntorch.cuda._sleep(1000)")


def test_private_names_torch_npu_defines_too_are_renames():
    # torch_npu/npu/__init__.py defines _lazy_init and _lazy_call on every release branch (knowledge/torch_npu/names.toml)
    assert ("DEV100", "torch.cuda._lazy_init") in symbols("import torch\ntorch.cuda._lazy_init()")
    assert ("DEV100", "torch.cuda._lazy_call") in symbols("from torch.cuda import _lazy_call\n_lazy_call(cb)")


def test_other_libraries_cuda_namespaces_are_not_torch():
    assert symbols("import numba\nfrom numba import cuda\ncuda.synchronize()\nnumba.cuda.synchronize()") == []
    assert symbols("import cupy as cp\ncp.cuda.Device(0).use()") == []


@pytest.mark.parametrize(
    "code",
    [
        "# torch.cuda.synchronize() is called elsewhere\nx = 1",
        'def f():\n    """Call torch.cuda.synchronize() first."""\n',
        'import logging\nlogging.warning("CUDA out of memory, retrying")',
        "cuda_ok = check()\nuse_cuda = True",
        'raise RuntimeError("cuda device missing")',
        'msg = f"running on cuda:{rank}, step {step}"',
    ],
)
def test_no_findings_in_comments_docstrings_and_messages(code):
    assert symbols(code) == []


def test_definitions_named_like_apis_are_not_uses():
    assert symbols("def synchronize():\n    pass\nclass autocast:\n    pass") == []
