"""Code reached only after an error whose message reads like CUDA's out-of-memory error (analyzer/context/oom_text.py):
torch_npu raises "NPU out of memory. ..." (Ascend/pytorch v2.12.0-26.1.0 NPUCachingAllocator.cpp:1321), so such a
fallback never runs on Ascend (round 27 A2 C8 row 95, B2 C5 row 33)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import GuardReader
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions

from tests.snippets import node_at

CONVENTIONS = load_context_conventions()

SWALLOWING = '''from contextlib import contextmanager
import torch

@contextmanager
def _ignore_torch_cuda_oom():
    try:
        yield
    except RuntimeError as e:
        if "CUDA out of memory. " in str(e):
            pass
        else:
            raise

@contextmanager
def _ignore_any_oom():
    try:
        yield
    except RuntimeError as e:
        if "out of memory" in str(e):
            pass
        else:
            raise

def retry(func, x):
    with _ignore_torch_cuda_oom():
        return func(x)
    torch.cuda.empty_cache()
    return func(x)

def retry_any(func, x):
    with _ignore_any_oom():
        return func(x)
    torch.cuda.empty_cache()
    return func(x)

def falls_through(func, x):
    with _ignore_torch_cuda_oom():
        y = func(x)
    torch.cuda.empty_cache()
    return y

def step(model, batch):
    try:
        return model(batch)
    except RuntimeError as e:
        if "CUDA out of memory" in str(e) and batch.numel() > 1:
            torch.cuda.empty_cache()
            return model(batch.cpu())
        else:
            torch.cuda.synchronize()
        raise

def step_any(model, batch):
    try:
        return model(batch)
    except RuntimeError as e:
        if "out of memory" in str(e) or "CUDA out of memory" in str(e):
            torch.cuda.empty_cache()
        raise
'''


def guard(needle: str, occurrence: int = 0):
    reader = GuardReader(CONVENTIONS.guards, CONVENTIONS.backends)
    reader.start_unit()
    return reader.guard_of(node_at(SWALLOWING, needle, occurrence), "device")


def test_the_conventions_name_cudas_oom_text():
    assert "cuda out of memory" in CONVENTIONS.guards.cuda_error_texts


def test_a_line_after_a_with_that_swallows_only_cudas_oom_text_is_cuda_only():
    found = guard("torch.cuda.empty_cache()", 0)
    assert found is not None and found.reach == "cuda-only-guarded"
    assert parsing.text(found.node) == '"CUDA out of memory. " in str(e)'
    assert "NPU out of memory" in found.note and "swallowed by the `with` at line 25" in found.note


def test_the_arm_of_a_cuda_oom_text_test_is_cuda_only_but_not_its_else():
    found = guard("torch.cuda.empty_cache()", 3)
    assert found is not None and found.reach == "cuda-only-guarded"
    assert parsing.text(found.node) == '"CUDA out of memory" in str(e)'
    assert guard("torch.cuda.synchronize()") is None


def test_a_text_naming_any_oom_an_or_or_a_with_that_may_fall_through_is_no_guard():
    assert guard("torch.cuda.empty_cache()", 1) is None  # "out of memory": NPU's error matches too
    assert guard("torch.cuda.empty_cache()", 2) is None  # the with body does not leave: this runs without an error
    assert guard("torch.cuda.empty_cache()", 4) is None  # `or` with a text NPU's error matches
