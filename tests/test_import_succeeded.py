"""Code a file reaches only after a CUDA extension imported (analyzer/context/import_succeeded.py, and the guard
reader's use of it and of an import's availability flag): metaseq's FusedAdamV1, FusedAdamV2, FusedLayerNorm and
multi_tensor_l2_total_norm (round 35 A2 class 3, B1 class 2)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.guards import GuardReader, public_callers_name
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()
SITE = "torch.cuda.device(p.device)"

FACTORY = """import torch


def get_fused_adam_class():
    try:
        global fused_adam_cuda
        import importlib

        fused_adam_cuda = importlib.import_module("MODULE")
        return FusedAdamV1
    except ImportError:
        HANDLER
    return None


class FusedAdamV1(torch.optim.Optimizer):
    def step(self):
        for p in self.params:
            with torch.cuda.device(p.device):
                fused_adam_cuda.adam(p)
"""

DEFINED = """import torch

try:
    from MODULE import FusedAdam

    class FusedAdamV2(FusedAdam):
        def step(self):
            for p in self.params:
                with torch.cuda.device(p.device):
                    pass
except ImportError:
    pass
"""

FLAGGED = """import torch

try:
    from amp_C import multi_tensor_l2norm

    multi_tensor_l2norm_available = True
except ImportError:
    multi_tensor_l2norm_available = False


def multi_tensor_l2_total_norm(grads):
    for device in grads:
        if device.type == "cuda":
            with torch.cuda.device(device):
                norm = multi_tensor_l2norm(2048, grads)
    return norm


def clip_grad_norm_(grads, norm_type):
    if multi_tensor_l2norm_available and norm_type == "l2":
        total_norm = multi_tensor_l2_total_norm(grads)
    else:
        total_norm = torch.norm(grads)
    return total_norm
"""


def callers_guard(code: str, needle: str):
    reader = GuardReader(CONVENTIONS.guards, CONVENTIONS.backends, tuple(CONVENTIONS.opt_in.disabled_values))
    reader.start_unit()
    return reader.guard_of_callers(node_at(code, needle), "device", "DEV100")


def test_a_class_handed_out_only_after_a_cuda_extension_imported_is_optional():
    found = callers_guard(FACTORY.replace("MODULE", "fused_adam_cuda").replace("HANDLER", "pass"), SITE)
    assert found is not None and found.reach == "optional" and "`fused_adam_cuda`" in found.reason()
    assert public_callers_name(found.reason()) == "FusedAdamV1"  # propagation.py restores it where another file names it


@pytest.mark.parametrize(("module", "handler"), [
    ("fused_adam_cuda", "raise"),  # the failure goes on: nothing falls back
    ("json_tools", "pass"),  # not a CUDA extension: it may well import on Ascend
])
def test_no_optional_reach_without_a_cuda_extension_and_a_fallback(module, handler):
    assert callers_guard(FACTORY.replace("MODULE", module).replace("HANDLER", handler), SITE) is None


def test_a_class_named_outside_the_try_too_runs():
    code = FACTORY.replace("MODULE", "fused_adam_cuda").replace("HANDLER", "pass") + "\nDEFAULT = FusedAdamV1\n"
    assert callers_guard(code, SITE) is None


@pytest.mark.parametrize(("module", "expected"), [("apex.optimizers", "optional"), ("torch.optim", None)])
def test_a_class_defined_in_the_try_body_after_the_import(module, expected):
    found = callers_guard(DEFINED.replace("MODULE", module), SITE)
    assert (found.reach if found is not None else None) == expected


def test_a_function_using_the_import_and_called_only_under_its_flag_takes_the_flag():
    found = callers_guard(FLAGGED, "torch.cuda.device(device)")
    assert found is not None and found.reach == "optional"
    assert public_callers_name(found.reason()) == "multi_tensor_l2_total_norm"


def test_a_function_called_only_under_the_flag_but_not_using_the_import_is_not_decided_by_it():
    code = FLAGGED.replace("norm = multi_tensor_l2norm(2048, grads)", "norm = torch.norm(grads)")
    assert callers_guard(code, "torch.cuda.device(device)") is None
