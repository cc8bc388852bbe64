"""A finding's consequence and severity follow what the guarded code does at the site, not the rule's template
(round 12, class W1): a checkpoint's RNG snapshot (DEV144) costs a reproducible resume, not a recompute's result; a
device test under the no-argument `torch.is_autocast_enabled()` (DEV007) is skipped under NPU autocast, it does not
raise; a CUDA arm that computes in float32 (DEV145) is a precision guard, not an optimisation."""

from tests.helpers import scan


def _one(code: str, rule: str):
    found = [f for f in scan(code, "python").findings if f.rule == rule]
    assert len(found) == 1, found
    return found[0]


RESUME = '''import random
import torch
def _save_rng(path):
    states = {"python": random.getstate(), "cpu": torch.random.get_rng_state()}
    if torch.cuda.is_available():
        states["cuda"] = torch.cuda.random.get_rng_state_all()
    torch.save(states, path)
'''

RECOMPUTE = '''import torch
def get_rng_state():
    state = {"torch_rng_state": torch.get_rng_state()}
    if torch.cuda.is_available():
        state["cuda_rng_state"] = torch.cuda.get_rng_state()
    return state
'''


def test_a_checkpoints_rng_snapshot_is_a_non_reproducible_resume_at_low():
    finding = _one(RESUME, "DEV144")
    assert finding.severity == "low"
    assert "bit-reproducible" in finding.message.en and "activation checkpointing" not in finding.message.en
    assert "逐位复现" in finding.message.zh


def test_an_rng_state_for_recomputation_stays_a_silent_wrong_result():
    finding = _one(RECOMPUTE, "DEV144")
    assert finding.severity == "medium" and "activation checkpointing" in finding.message.en


def test_host_generators_kept_in_step_across_ranks_stay_medium():
    # nanotron's snapshot of all four generators, swapped in and out around tensor-parallel dropout: not a checkpoint
    code = ('import random\nimport numpy as np\nimport torch\ndef get_current_random_state():\n'
            '    return dict(random=random.getstate(), numpy=np.random.get_state(),\n'
            '                cuda=torch.cuda.get_rng_state() if torch.cuda.is_available() else None)\n')
    assert _one(code, "DEV144").severity == "medium"


def test_fork_rng_is_a_recomputation_even_beside_a_state_file():
    code = ('import torch\ndef replay(fn, path):\n    state = torch.load(path)\n    if torch.cuda.is_available():\n'
            '        with torch.random.fork_rng(devices=[0]):\n            return fn(state)\n')
    assert _one(code, "DEV144").severity == "medium"


def test_the_rng_rename_on_the_checks_own_line_is_folded_in():
    code = ('import random\nimport torch\ndef state_dict():\n    return {"python": random.getstate(),\n'
            '            "cuda": torch.cuda.get_rng_state() if torch.cuda.is_available() else None}\n')
    rules = [f.rule for f in scan(code, "python").findings if f.line == 5]
    assert rules == ["DEV144"], rules


GATED_CAST = '''import torch
def _cast_if_autocast_enabled(tensor):
    if torch.is_autocast_enabled():
        if tensor.device.type == "cuda":
            dtype = torch.get_autocast_gpu_dtype()
        elif tensor.device.type == "cpu":
            dtype = torch.get_autocast_cpu_dtype()
        else:
            raise NotImplementedError()
        return tensor.to(dtype=dtype)
    return tensor
'''


def test_a_device_test_under_the_cuda_autocast_query_is_skipped_not_raised():
    finding = _one(GATED_CAST, "DEV007")
    assert finding.severity == "medium"
    assert "never reached" in finding.message.en and "fails loudly" not in finding.message.en
    assert "torch.is_autocast_enabled(x.device.type)" in finding.replacement.en
    assert "torch.get_autocast_dtype(x.device.type)" in finding.replacement.en


def test_the_query_given_a_device_type_leaves_the_loud_failure():
    finding = _one(GATED_CAST.replace("torch.is_autocast_enabled()", "torch.is_autocast_enabled(tensor.device.type)"),
                   "DEV007")
    assert finding.severity == "high" and "fails loudly" in finding.message.en


def test_a_float32_autocast_arm_is_a_precision_guard():
    code = ('import torch\ndef scores(q, k):\n    if q.device.type == "cuda":\n'
            '        with torch.autocast(device_type=q.device.type, dtype=torch.float32):\n'
            '            w = torch.einsum("bhtd,bhkd->bhtk", q, k)\n    else:\n'
            '        w = torch.einsum("bhtd,bhkd->bhtk", q, k)\n    return w\n')
    finding = _one(code, "DEV145")
    assert "guards precision" in finding.message.en and "results are right" not in finding.message.en
    assert "精度保护" in finding.message.zh


def test_a_half_precision_fast_path_keeps_the_fast_path_text():
    code = ('import torch\ndef forward(self, x):\n    if self.use_float16 and "cuda" in self.w.device.type:\n'
            '        x, w = x.half(), self.w.half()\n    else:\n        x, w = x.float(), self.w\n'
            '    return torch.conv2d(x, w)\n')
    finding = _one(code, "DEV145")
    assert "fast path" in finding.message.en and "guards precision" not in finding.message.en
