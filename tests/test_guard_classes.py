"""Round-5 precision classes about guards, dispatch and counting (issue 28): per-backend dispatch chains, cosmetic
memory reads and cache-release guards, one package call counted once, the first line of a statement that spans
lines, CUDA-only wrappers. Each class has a flagged and a not-flagged case."""

from __future__ import annotations

from tests.helpers import scan


def findings(code: str, rule: str | None = None):
    return [f for f in scan(code).findings if rule is None or f.rule == rule]


def reach(code: str, rule: str) -> list[tuple[int, str]]:
    return [(f.line, f.reach) for f in findings(code, rule)]


# 1. per-backend dispatch chains: one finding at the chain, for the missing npu arm ----------------------------------

SEPARATE_IFS = """import torch
def clean_memory_on_device(device):
    if device is None:
        return
    # device may be "cuda" or "cuda:0"
    if device.type == "cuda":
        torch.cuda.empty_cache()
    if device.type == "xpu":
        torch.xpu.empty_cache()
    if device.type == "mps":
        torch.mps.empty_cache()
"""

FLAGS = """import torch
try:
    HAS_CUDA = torch.cuda.is_available()
except Exception:
    HAS_CUDA = False
HAS_MPS = torch.backends.mps.is_available()
def clean_memory():
    if HAS_CUDA:
        torch.cuda.empty_cache()
    if HAS_MPS:
        torch.mps.empty_cache()
def get_preferred_device():
    if HAS_CUDA:
        device = torch.device("cuda")
    elif HAS_MPS:
        device = torch.device("mps")
    else:
        device = torch.device("cpu")
    return device
"""

CUDA_SECOND = """import torch
def pick():
    if torch.backends.mps.is_available():
        d = "mps"
    elif torch.cuda.is_available():
        d = "cuda"
    return d
"""


def test_a_run_of_separate_backend_ifs_is_one_chain_reported_once_for_its_missing_npu_arm():
    chain = findings(SEPARATE_IFS, "DEV220")
    assert [(f.line, f.reach) for f in chain] == [(6, "runs")]  # the first backend arm, not `if device is None`
    # every arm only releases its backend's cache: listed at info, its NPU arm named in the text (prec43d)
    assert chain[0].severity == "info" and not chain[0].counted
    assert 'if device.type == "npu":' in chain[0].replacement.en
    # arms that do more than housekeeping: the arm to add is the replacement's code
    working = SEPARATE_IFS.replace("torch.cuda.empty_cache()", "torch.cuda.set_per_process_memory_fraction(0.9)")
    working = working.replace("torch.xpu.empty_cache()", "torch.xpu.set_per_process_memory_fraction(0.9)")
    working_chain = findings(working, "DEV220")
    assert [(f.line, f.replacement.code) for f in working_chain] == [(6, 'if device.type == "npu":\n    ...')]
    assert "keep the CUDA arm" in working_chain[0].replacement.en and working_chain[0].counted
    assert reach(SEPARATE_IFS, "DEV102") == [(7, "other-backend")]  # the cuda arm's own call: not counted apart
    assert not findings(SEPARATE_IFS, "DEV007")  # the head's device test is the chain's finding (subsumed)


def test_availability_flag_chains_are_dispatch_chains_and_their_cuda_arm_is_not_counted_apart():
    chain = findings(FLAGS, "DEV220")
    # a flag of the project's own has no NPU twin yet: the arm tests torch_npu itself (no invented HAS_NPU)
    arm = "if torch.npu.is_available():\n    ..."
    # clean_memory's arms only release caches (info, the arm in its text: prec43d); the device pick's is the code
    assert [(f.line, f.replacement.code) for f in chain] == [(8, None), (13, arm)]
    assert "if torch.npu.is_available():" in chain[0].replacement.en and not chain[0].counted
    assert reach(FLAGS, "DEV102") == [(9, "other-backend")]
    assert reach(FLAGS, "DEV003") == [(14, "other-backend")]
    assert "missing npu arm" in findings(FLAGS, "DEV003")[0].reach_reason


def test_a_cuda_arm_after_another_backend_arm_is_covered_condition_and_body():
    assert [(f.line, f.replacement.code) for f in findings(CUDA_SECOND, "DEV220")] == [(3, "if torch.npu.is_available():\n    ...")]
    assert reach(CUDA_SECOND, "DEV104") == [(5, "other-backend")]


def test_chains_with_an_npu_arm_or_without_another_backend_stay_as_they_were():
    with_npu = SEPARATE_IFS.replace('"xpu"', '"npu"').replace("torch.xpu", "torch.npu")
    assert not findings(with_npu, "DEV220")
    assert reach(with_npu, "DEV102") == [(7, "npu-path")]
    only_cuda = "import torch\ndef f(device):\n    if device.type == \"cuda\":\n        torch.cuda.empty_cache()\n"
    assert not findings(only_cuda, "DEV220")
    # a release only a device comparison guards never runs on the NPU (prec25b): the comparison is the site
    assert reach(only_cuda, "DEV102") == [(4, "cuda-only-guarded")]
    broken = SEPARATE_IFS.replace('    if device.type == "xpu"', '    n = 1\n    if device.type == "xpu"')
    assert not findings(broken, "DEV220")  # a statement between the arms ends the run: xpu and mps after it name no cuda
    assert reach(broken, "DEV102") == [(7, "cuda-only-guarded")]  # its own device comparison guards it (prec25b)


# 2. cosmetic memory reads and cache-release guards --------------------------------------------------------------

PROGRESS = """import torch
def train(pbar, epoch):
    mem = f"{torch.cuda.memory_reserved() / 1e9 if torch.cuda.is_available() else 0:.3g}G"
    pbar.set_description(("%11s" * 2) % (f"{epoch}", mem))
    mem2 = "%.3gG" % (torch.cuda.memory_reserved() / 1e9 if torch.cuda.is_available() else 0)
    pbar.desc = f"{epoch:>10}{mem2:>10}"
def log_cuda_max_memory(stage):
    max_memory_allocated = torch.cuda.max_memory_allocated()
    log_message("max memory allocated at " + stage + ": %.1f GB", max_memory_allocated / 1e9)
def budget():
    used = torch.cuda.memory_allocated()
    return used * 2
"""


def test_memory_figures_only_shown_in_a_progress_bar_or_a_log_are_cosmetic():
    assert reach(PROGRESS, "DEV105") == [(3, "cosmetic"), (5, "cosmetic"), (8, "cosmetic"), (11, "runs")]
    assert reach(PROGRESS, "DEV104") == [(3, "cosmetic"), (5, "cosmetic")]


RELEASE = """import gc
import torch
def free():
    if torch.cuda.is_available():
        gc.collect()
        torch.cuda.empty_cache()
def to_device(x):
    if torch.cuda.is_available():
        x = x.cuda()
    return x
"""


def test_a_cuda_check_guarding_only_a_cache_release_is_not_one_more_finding():
    assert reach(RELEASE, "DEV104") == [(4, "cosmetic"), (8, "runs")]  # the second check guards a device move
    assert reach(RELEASE, "DEV102") == [(6, "runs")]  # the release itself is the fix
    assert "cache release" in findings(RELEASE, "DEV104")[0].reach_reason


def test_an_ipc_collect_beside_the_cache_release_is_a_release_too():
    # CogVideo finetune/utils/memory_utils.py:46 free_memory(): gc.collect, empty_cache and ipc_collect under the check
    code = ("import gc\nimport torch\ndef free_memory():\n    if torch.cuda.is_available():\n        gc.collect()\n"
            "        torch.cuda.empty_cache()\n        torch.cuda.ipc_collect()\n")
    assert reach(code, "DEV104") == [(4, "cosmetic")]
    moved = code.replace("        torch.cuda.ipc_collect()\n", "        torch.to_device_step()\n        x.cuda()\n")
    assert reach(moved, "DEV104") == [(4, "runs")]  # a device move is no release: the check guards more than that


def test_a_synchronize_beside_the_release_only_prepares_it():
    # round 24 A1 row 49, lmms-eval's cleanup: `if torch.cuda.is_available(): torch.cuda.synchronize();
    # torch.cuda.empty_cache()` skips nothing else on Ascend
    code = ("import torch\ndef cleanup():\n    if torch.cuda.is_available():\n        torch.cuda.synchronize()\n"
            "        torch.cuda.empty_cache()\n")
    assert reach(code, "DEV104") == [(3, "cosmetic")]
    alone = "import torch\ndef wait():\n    if torch.cuda.is_available():\n        torch.cuda.synchronize()\n"
    assert reach(alone, "DEV104") == [(3, "runs")]  # a synchronize with no release is no companion


def test_the_availability_message_says_what_is_skipped_not_that_a_cpu_fallback_runs():
    message = findings(RELEASE, "DEV104")[1].message
    assert "CPU fallback runs" not in message.en and "what it guards is skipped" in message.en
    assert "被跳过" in message.zh


# 3. one package call counted once, not per argument object -------------------------------------------------------

XFORMERS = """import torch
from xformers.ops.fmha import Context, Inputs, _memory_efficient_attention_backward, _memory_efficient_attention_forward_requires_grad
def _attn_fwd(q, k, v, attn_bias, scale):
    inp = Inputs(q, k, v, attn_bias, p=0, scale=scale, is_partial=False)
    out, ctx = _memory_efficient_attention_forward_requires_grad(inp, None)
    return out, ctx.lse
def _attn_bwd(grad, q, k, v, out, lse, rng_state, attn_bias, scale):
    inp = Inputs(q, k, v, attn_bias, p=0, scale=scale, output_dtype=q.dtype)
    ctx = Context(lse, out, rng_state=rng_state)
    grads = _memory_efficient_attention_backward(ctx, inp=inp, grad=grad, op=None)
    return grads.dq
def nested(q, k, v, lse, out, grad):
    return _memory_efficient_attention_backward(Context(lse, out), Inputs(q, k, v), grad, None)
def kept(q, k, v):
    inp = Inputs(q, k, v)
    print(inp.query.shape)
    return _memory_efficient_attention_forward_requires_grad(inp, None)
"""


def test_argument_objects_of_one_package_call_are_counted_at_that_call_only():
    lines = [f.line for f in findings(XFORMERS, "DEP030")]
    # line 4/8/9 feed the calls of 5 and 10; 13 is one call with two objects built in it; 15 is also read elsewhere
    assert lines == [5, 10, 13, 15, 17]


# 4. a finding on a statement that spans lines starts on its first line -----------------------------------------

SPANNING = """import torch
import torch.distributed as dist
x = (torch.zeros(3)
     .cuda()
     .half())
@torch.autocast(
    "cuda", enabled=False)
def f(a):
    return a
torch.cuda.synchronize(
)
s = torch.cuda.Stream(
    device=0)
dist.init_process_group(
    backend="nccl",
    init_method="env://",
)
"""


def test_findings_on_statements_that_span_lines_start_on_their_first_line():
    spans = {(f.rule, f.line, f.end_line) for f in findings(SPANNING)}
    assert ("DEV004", 3, 4) in spans  # a chained call: from the chain's first line to the `.cuda()` it is about
    assert ("DEV301", 6, 7) in spans  # a decorator: its `@` line
    assert ("DEV101", 10, 10) in spans  # a call whose arguments are on the next line: the callee's line
    assert ("DEV110", 12, 12) in spans
    # a keyword argument is its own site, on its own line: the line a porter edits (device=0, backend="nccl")
    assert ("DEV005", 13, 13) in spans and ("DST001", 15, 15) in spans


SPANNING_MORE = """import torch
from flash_attn import (
    flash_attn_func,
)
def g(x, q, k, v):
    if (x.device.type
            == "cuda"):
        pass
    with torch.cuda.amp.autocast(
            dtype=torch.float16):
        pass
    o = flash_attn_func(
        q, k, v, causal=True)
    return torch.cuda.get_device_properties(
        0).multi_processor_count
"""


def test_imports_comparisons_and_calls_spanning_lines_start_on_their_first_line():
    spans = {(f.rule, f.line, f.end_line) for f in findings(SPANNING_MORE)}
    assert {("DEV007", 6, 7), ("DEV140", 9, 9), ("ATT001", 12, 12), ("DEV122", 14, 15)} <= spans


# 5. a CUDA-graph wrapper class used only after the function's CUDA exit -------------------------------------------

WRAPPER = """import torch
import logging
logger = logging.getLogger(__name__)
class _GraphManager:
    def maybe_initialize(self):
        self.stream = torch.cuda.Stream()
        self.pool = torch.cuda.graph_pool_handle()
_manager = _GraphManager()
class CUDAGraphWrapper:
    def __init__(self, fn):
        self._fn = fn
        _manager.maybe_initialize()
    def __call__(self, *args):
        self._graph = torch.cuda.CUDAGraph()
        with torch.cuda.graph(self._graph):
            self._out = self._fn(*args)
        self._graph.replay()
        return self._out
def wrap_with_cuda_graph(fwd_bwd_fn):
    if not (device_type == "cuda" and torch.cuda.is_available() and torch.version.hip is None):
        logger.warning("CUDA graph capture is only supported on NVIDIA CUDA; using eager execution.")
        return fwd_bwd_fn
    wrapper = None
    def run(*args):
        nonlocal wrapper
        if wrapper is None:
            wrapper = CUDAGraphWrapper(fwd_bwd_fn)
        return wrapper(*args)
    return run
"""


def test_a_wrapper_class_built_only_after_a_cuda_exit_is_cuda_only_guarded():
    assert reach(WRAPPER, "DEV111") == [(7, "cuda-only-guarded"), (14, "cuda-only-guarded"), (15, "cuda-only-guarded")]
    assert reach(WRAPPER, "DEV110") == [(6, "cuda-only-guarded")]  # the manager's method, called only by the wrapper
    assert "used only where this CUDA check has passed" in findings(WRAPPER, "DEV110")[0].reach_reason


def test_a_class_also_built_without_the_check_or_a_public_class_of_another_name_still_runs():
    also_eager = WRAPPER + "eager = CUDAGraphWrapper(print)\n"
    assert {r for _, r in reach(also_eager, "DEV111")} == {"runs"}
    public = WRAPPER.replace("CUDAGraphWrapper", "StepRunner")
    assert reach(public, "DEV111")[1:] == [(14, "runs"), (15, "runs")]  # another file may build a public class


PROBES = """import torch
cuda_version = hip_version = "0.0"
if torch.version.cuda is not None:
    cuda_version = ".".join(torch.version.cuda.split(".")[:2])
    bf16 = torch.cuda.is_bf16_supported()
if torch.version.hip is not None:
    hip_version = ".".join(torch.version.hip.split(".")[:2])
def to(device_type, offloaded, logger):
    if offloaded and device_type in ["cuda", "xpu"]:
        logger.warning("offloading is lost")
    if device_type == "hpu":
        import habana_frameworks.torch
"""


def test_separate_ifs_that_do_different_things_per_backend_are_no_dispatch_chain():
    # DeepSpeed's setup.py reads each backend's version; diffusers warns for cuda/xpu, then sets up Gaudi
    assert not findings(PROBES, "DEV220")


def test_a_device_count_stored_through_a_chained_assignment_is_not_cosmetic():
    code = """import torch
def init(sp_size, plugin_config):
    plugin_config["sp_size"] = sp_size = min(sp_size, torch.cuda.device_count())
    log_message(f"Using SP with size {sp_size}")
"""
    assert reach(code, "DEV100") == [(3, "runs")]  # the value goes into the plugin's config, not only a message


# 6. the rest of the guard classes ------------------------------------------------------------------------

RTX40 = """import os, torch
def setup():
    if torch.cuda.is_available() and "RTX 40" in torch.cuda.get_device_name():
        os.environ["NCCL_P2P_DISABLE"] = "1"
        os.environ["NCCL_IB_DISABLE"] = "1"
    run()
"""


def test_an_nccl_setting_behind_a_cuda_check_is_cuda_only_guarded_and_unguarded_it_still_counts():
    assert reach(RTX40, "DST039") == [(4, "cuda-only-guarded"), (5, "cuda-only-guarded")]
    assert reach(RTX40, "DEV104") == [(3, "cuda-only-guarded")]  # the check keeps an NVIDIA-only tuning off Ascend
    assert reach('import os\nos.environ["NCCL_P2P_DISABLE"] = "1"\n', "DST039") == [(2, "runs")]


def test_a_release_on_the_current_device_and_a_redundant_seed_are_not_one_more_check():
    release = """import torch
def sample():
    if torch.cuda.is_available():
        with torch.cuda.device(torch.cuda.current_device()):
            torch.cuda.empty_cache()
"""
    assert reach(release, "DEV104") == [(3, "cosmetic")]
    seed = """import torch
def sample(seed):
    if seed is None:
        torch.seed()
        if torch.cuda.is_available():
            torch.cuda.seed()
"""
    assert reach(seed, "DEV106") == [(6, "npu-path")]  # torch.seed() seeds every device (torch/random.py)
    assert reach(seed, "DEV104") == [(5, "npu-path")]  # so the check around it changes nothing on Ascend
    fixed = seed.replace("torch.cuda.seed()", "torch.cuda.manual_seed(1234)")
    assert reach(fixed, "DEV104") == [(5, "runs")]  # a fixed CUDA seed beside a random torch.seed() still matters


# 6. a module-level availability flag: its definition is judged by its uses ------------------------------------------

FLAG_FOR_CUDA_ONLY = """import torch
try:
    HAS_CUDA = torch.cuda.is_available()
except Exception:
    HAS_CUDA = False


def mark(name):
    if HAS_CUDA:
        torch.cuda.nvtx.range_push(name)
    return name


def tune():
    if HAS_CUDA:
        torch.backends.cudnn.benchmark = True
    return None
"""


def test_a_flag_whose_every_use_gates_cuda_only_code_is_not_counted_at_its_definition():
    assert reach(FLAG_FOR_CUDA_ONLY, "DEV104") == [(3, "cuda-only-guarded")]
    # one use that places tensors: the flag decides where the model runs, and its definition counts
    placing = FLAG_FOR_CUDA_ONLY + "\n\ndef place(x):\n    if HAS_CUDA:\n        x = x.cuda()\n    return x\n"
    assert reach(placing, "DEV104") == [(3, "runs")]
    # a use that is no test (a keyword value) cannot be judged: the definition counts
    handed = FLAG_FOR_CUDA_ONLY + "\n\nloader = make_loader(pin_memory=HAS_CUDA)\n"
    assert reach(handed, "DEV104") == [(3, "runs")]


# an import's None fallback tested with `is None`: the if arm is the fallback ---------------------------------------

NONE_FALLBACK = """import torch.nn.functional as F
try:
    from flash_attn import flash_attn_func
except ImportError:
    flash_attn_func = None


def attention(q, k, v):
    if flash_attn_func is None:
        out = F.scaled_dot_product_attention(q, k, v)
    else:
        out = flash_attn_func(q, k, v)
    return out


attention(1, 2, 3)
"""


def test_an_is_none_test_of_an_import_fallback_makes_the_else_arm_the_imports_path():
    # round 24 B1 row 1 (lmms-eval's qwen2 monkey patch): on Ascend flash_attn is missing, the if arm's SDPA runs
    assert reach(NONE_FALLBACK, "ATT001") == [(12, "optional")]
    assert "the if arm (line 10) runs" in findings(NONE_FALLBACK, "ATT001")[0].reach_reason
    assert reach(NONE_FALLBACK, "ATT020") == [(10, "runs")]
    mirrored = NONE_FALLBACK.replace("is None:\n        out = F.scaled_dot_product_attention(q, k, v)\n    else:\n        out = flash_attn_func(q, k, v)",
                                     "is not None:\n        out = flash_attn_func(q, k, v)\n    else:\n        out = F.scaled_dot_product_attention(q, k, v)")
    assert reach(mirrored, "ATT001") == [(10, "optional")]
    assert reach(mirrored, "ATT020") == [(12, "runs")]
