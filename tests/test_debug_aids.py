"""A CUDA test whose guarded code is only a debugging aid (analyzer/context/diagnostics.py): the test is cosmetic where
it decides nothing else, and the aids behind it run only on CUDA (round 12: audiocraft's check_synchronization_points,
fairseq's _log_oom)."""

from tests.helpers import scan

SOLVER = '''import torch


class Solver:
    def run_step(self, idx, batch):
        check = idx == 1 and self.device == 'cuda'
        tokens = self.prepare(batch, check)
        if check:
            torch.cuda.set_sync_debug_mode('warn')
        loss = self.model(tokens)
        if check:
            torch.cuda.set_sync_debug_mode('default')
        return loss

    def prepare(self, batch, check=False):
        if self.device == "cuda" and check:
            torch.cuda.set_sync_debug_mode("warn")
        tokens = batch.tokens
        if self.device == "cuda" and check:
            torch.cuda.set_sync_debug_mode("default")
        return PREPARED
'''


def _places(code: str) -> dict[tuple[int, str], str]:
    return {(f.line, f.rule): f.reach for f in scan(code, "python").findings}


def test_flag_handed_to_a_method_that_only_gates_the_same_aid():
    places = _places(SOLVER.replace("PREPARED", "tokens"))
    assert places[(6, "DEV007")] == "cosmetic"  # the flag and the callee's parameter only gate the aid
    assert places[(16, "DEV007")] == places[(19, "DEV007")] == "cosmetic"
    assert all(places[(line, "DEV100")] == "cuda-only-guarded" for line in (9, 12, 17, 20))


def test_flag_whose_callee_also_decides_other_code_stays():
    # the callee's parameter also picks a cast: the test decides more than the aid
    places = _places(SOLVER.replace("PREPARED", "tokens.half() if check else tokens"))
    assert places[(6, "DEV007")] == "runs"
    assert places[(9, "DEV100")] == places[(12, "DEV100")] == "cuda-only-guarded"  # its own gates still hold on CUDA only
    assert places[(16, "DEV007")] == "cosmetic"


def test_memory_summary_logged_per_device():
    code = '''import logging
import torch
logger = logging.getLogger(__name__)


def log_oom(exc):
    logger.warning(exc)
    if torch.cuda.is_available() and hasattr(torch.cuda, "memory_summary"):
        for device_idx in range(torch.cuda.device_count()):
            logger.warning(torch.cuda.memory_summary(device=device_idx))
'''
    places = _places(code)
    assert places[(8, "DEV104")] == "cosmetic"
    assert places[(9, "DEV100")] == "cuda-only-guarded"
    moved = _places(code.replace("logger.warning(torch.cuda.memory_summary(device=device_idx))",
                                 "torch.cuda.set_device(device_idx)"))
    assert moved[(8, "DEV104")] == "runs"  # a device choice is no debugging aid


BENCHMARK = '''import time
import torch


def run(device, batches, model):
    if device.type == 'cuda':
        torch.cuda.synchronize()
        torch.cuda.reset_peak_memory_stats(device)
    if device.type == 'cuda':
        torch.cuda.synchronize()
        initial_mb = torch.cuda.memory_allocated(device) / 2**20
    else:
        initial_mb = 0
    peak_mem, times = [], []
    for batch in batches:
        start = time.perf_counter()
        out = model(batch)
        if device.type == 'cuda':
            torch.cuda.synchronize()
        times.append(time.perf_counter() - start)
        if device.type == 'cuda':
            torch.cuda.synchronize()
            peak_mem.append(torch.cuda.max_memory_allocated(device) / 2**20)
        else:
            peak_mem.append(0)
        if device.type == 'cuda':
            torch.cuda.synchronize()
            peak = torch.cuda.max_memory_allocated(device)
        else:
            peak = model.footprint()
        if device.type == 'cuda':
            torch.cuda.synchronize()
            torch.cuda.reset_peak_memory_stats(device)
        stamp = time.time()
        if device.type == 'cuda':
            torch.cuda.reset_peak_memory_stats(device)
            torch.cuda.synchronize()
    return {"initial_mb": initial_mb, "peak_mem": peak_mem, "times": times, "out": out, "peak": peak, "stamp": stamp}
'''


def test_memory_figures_of_a_benchmark_table_with_their_synchronize_are_cosmetic():
    # round 27 B2 C2 (rows 31, 48) and A2 C12 (row 93): a reset, a figure put into the returned table by name or by
    # append, with a placeholder 0 off CUDA
    places = _places(BENCHMARK)
    assert places[(6, "DEV007")] == "cosmetic"
    assert places[(9, "DEV145")] == "cosmetic"
    assert places[(21, "DEV145")] == "cosmetic"
    assert places[(7, "DEV101")] == places[(10, "DEV101")] == places[(22, "DEV101")] == "cuda-only-guarded"


def test_a_synchronize_before_a_clock_read_or_a_figure_beside_another_value_stays():
    places = _places(BENCHMARK)
    assert places[(18, "DEV007")] == "runs"  # the sync times the step the clock reads next
    assert places[(26, "DEV145")] == "runs"  # the else arm computes a value of its own: no placeholder
    assert places[(31, "DEV007")] == "runs"  # a clock read follows the gate: the synchronize also times
    assert places[(35, "DEV007")] == "runs"  # a synchronize after the statistic waits for the device
