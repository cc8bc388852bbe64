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
