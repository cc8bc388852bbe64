"""Round-9 precision classes about CUDA checks whose guarded code only makes sense on NVIDIA (issue 28): an early
exit before a CUDA-only part (TORCH_CUDA_ARCH_LIST built from get_device_capability), GPU spec tables keyed by the
CUDA device name. Each class has a flagged and a not-flagged case."""

from __future__ import annotations

from tests.helpers import scan


def findings(code: str, rule: str | None = None):
    return [f for f in scan(code).findings if rule is None or f.rule == rule]


def reach(code: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.reach) for f in findings(code, rule)]


# 1. an early exit off CUDA before a CUDA-only part: the check is right as it is ------------------------------------

ARCH_LIST = """import torch
def get_cuda_arch_list() -> str:
    if not torch.cuda.is_available():
        return ""
    caps = []
    for i in range(torch.cuda.device_count()):
        major, minor = torch.cuda.get_device_capability(i)
        caps.append(f"{major}.{minor}")
    return ";".join(sorted(set(caps)))
"""


def test_an_early_exit_before_only_capability_queries_keeps_the_check_cuda_only():
    assert reach(ARCH_LIST, "DEV104") == [(3, "cuda-only-guarded")]
    assert "returns early" in findings(ARCH_LIST, "DEV104")[0].reach_reason


def test_an_early_exit_before_device_work_or_before_nothing_still_runs():
    device_work = ARCH_LIST.replace("caps.append(f\"{major}.{minor}\")", "caps.append(torch.zeros(1).cuda())")
    assert reach(device_work, "DEV104") == [(3, "runs")]
    nothing_after = "import torch\ndef has_gpu():\n    if not torch.cuda.is_available():\n        return False\n    return True\n"
    assert reach(nothing_after, "DEV104") == [(3, "runs")]
    positive = ARCH_LIST.replace("if not torch.cuda.is_available():", "if torch.cuda.is_available():")
    assert reach(positive, "DEV104") == [(3, "runs")]


# 3. except torch.cuda.OutOfMemoryError: the class torch_npu's allocator raises from the 26.0.0 line on --------------

OOM_BACKOFF = """import torch
def generate(batch):
    try:
        return model(batch)
    except torch.cuda.OutOfMemoryError:
        half = len(batch) // 2
        return generate(batch[:half]) + generate(batch[half:])
"""


def test_an_oom_handler_works_as_it_is_from_the_26_0_0_line_on():
    found = [f for f in scan(OOM_BACKOFF).findings if f.line == 5]
    assert [(f.rule, f.severity, f.migration) for f in found] == [("DEV150", "info", "auto")]
    assert "No change" in found[0].replacement.en and "DEV135" not in {f.rule for f in scan(OOM_BACKOFF).findings}


def test_before_the_26_0_0_line_the_handler_misses_the_npus_runtime_error():
    found = [f for f in scan(OOM_BACKOFF, torch_npu="2.9.0").findings if f.line == 5]
    assert [f.rule for f in found] == ["DEV150"]
    assert "plain RuntimeError" in found[0].message.en and "out of memory" in found[0].replacement.en


def test_before_the_26_0_0_line_the_handler_is_work_to_do():
    found = [f for f in scan(OOM_BACKOFF, torch_npu="2.9.0").findings if f.line == 5]
    assert [(f.severity, f.migration) for f in found] == [("medium", "rewrite")]


# 5. a memory reading under a CUDA check that is only logged, through a function of the module -------------------------

MEMORY_LOG = """import logging
import torch
logger = logging.getLogger(__name__)
def main():
    init_gpu_memory = None
    if torch.cuda.is_available():
        init_gpu_memory = torch.cuda.mem_get_info()[0]
    train()
    gpu_stats(init_gpu_memory)
def gpu_stats(init_gpu_memory):
    if torch.cuda.is_available():
        free_gpu_memory, total_gpu_memory = torch.cuda.mem_get_info()
        peak_memory = init_gpu_memory - free_gpu_memory
        logger.info(f"Peak memory usage: {peak_memory / 1024**3:.2f} GB")
"""


def test_a_guarded_memory_reading_only_logged_through_a_function_is_cosmetic():
    assert (7, "cosmetic") in reach(MEMORY_LOG, "DEV105")
    named_for_printing = MEMORY_LOG.replace("gpu_stats", "print_gpu_stats")  # the call itself only shows
    assert (7, "cosmetic") in reach(named_for_printing, "DEV105")


def test_a_memory_reading_that_sizes_work_or_is_unguarded_still_runs():
    sizing = MEMORY_LOG.replace('logger.info(f"Peak memory usage: {peak_memory / 1024**3:.2f} GB")',
                                "batch = make_batch(peak_memory)")
    assert (7, "runs") in reach(sizing, "DEV105")
    unguarded = MEMORY_LOG.replace("    if torch.cuda.is_available():\n        init_gpu_memory = torch.cuda.mem_get_info()[0]",
                                   "    init_gpu_memory = torch.cuda.mem_get_info()[0]")
    assert (6, "runs") in reach(unguarded, "DEV105")
