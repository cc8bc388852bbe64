"""A parameter no caller in the project passes keeps its default (analyzer/context/unpassed_defaults.py): the branch the
default does not take is optional, an assert the default passes is info. Cases written from CogVideo's RIFE
`Model.__init__(self, local_rank=-1)` (`if local_rank != -1:` DDP) and nanotron's `ParallelContext(...,
backend="nccl")` (`assert backend == "nccl"`)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

RIFE = (
    "import torch\n"
    "from torch.nn.parallel import DistributedDataParallel as DDP\n\n\n"
    "class Model:\n"
    "    def __init__(self, local_rank=-1):\n"
    "        self.flownet = torch.nn.Linear(2, 2)\n"
    "        if local_rank != -1:\n"
    "            self.flownet = DDP(self.flownet, device_ids=[local_rank], output_device=local_rank)\n"
)
DDP_LINE = 9
CONTEXT = (
    "import torch.distributed as dist\n\n\n"
    "class ParallelContext:\n"
    "    def __init__(self, tensor_parallel_size: int, backend: str = \"nccl\"):\n"
    "        self.size = tensor_parallel_size\n"
    "        assert backend == \"nccl\", \"Only nccl backend is supported for now.\"\n"
    "        dist.init_process_group(backend=\"nccl\")\n"
)
ASSERT_LINE = 7


def findings(tmp_path, files: dict[str, str], line: int, path: str = "pkg/model.py"):
    files = {"pkg/__init__.py": "", **files}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == path and f.line == line]
    assert found, f"no finding at {path}:{line}"
    return found


@pytest.mark.parametrize("caller", ["model = Model()\n", "model = Model(local_rank=-1)\n"])
def test_an_arm_no_caller_takes_is_optional(tmp_path, caller):
    found = findings(tmp_path, {"pkg/model.py": RIFE, "pkg/app.py": "from pkg.model import Model\n\n" + caller}, DDP_LINE)
    assert all(f.reach == "optional" for f in found)
    reason = found[0].reach_reason
    assert "`local_rank=-1` by default (Model())" in reason and "pkg/app.py" in reason and "line 8" in reason


def test_a_call_through_the_module_is_read(tmp_path):
    app = "import pkg.model\n\nmodel = pkg.model.Model()\n"
    found = findings(tmp_path, {"pkg/model.py": RIFE, "pkg/app.py": app}, DDP_LINE)
    assert all(f.reach == "optional" for f in found)


@pytest.mark.parametrize("caller", [
    "model = Model(local_rank=0)\n",  # a caller passing another value
    "model = Model(3)\n",  # positionally
    "model = Model(**options)\n",  # **kwargs: what it passes is not known
    "model = Model(*args)\n",
    "import functools\n\nmake = functools.partial(Model, local_rank=1)\n",  # a call through partial
    "MODELS = {'rife': Model}\n",  # a registry entry: called out of sight
    "class Mine(Model):\n    pass\n\n\nmodel = Mine()\n",  # a subclass may pass it
    "import pkg.model as m\n\nmodel = m.Model(local_rank=2)\n",  # through the module, with a value
])
def test_a_caller_that_may_pass_the_parameter_keeps_the_arm(tmp_path, caller):
    app = "from pkg.model import Model\n\n" + caller
    found = findings(tmp_path, {"pkg/model.py": RIFE, "pkg/app.py": app}, DDP_LINE)
    assert all(f.reach == "runs" for f in found)


def test_a_getattr_lookup_keeps_the_arm(tmp_path):
    app = "import pkg.model\n\nmodel = getattr(pkg.model, \"Model\")(local_rank=0)\n"
    found = findings(tmp_path, {"pkg/model.py": RIFE, "pkg/app.py": app}, DDP_LINE)
    assert all(f.reach == "runs" for f in found)


@pytest.mark.parametrize("construct", ["cls(local_rank=rank)", "self.__class__(rank)"])
def test_a_class_constructing_itself_with_the_parameter_keeps_the_arm(tmp_path, construct):
    method = ("\n    @classmethod\n    def on(cls, rank):\n        return " + construct + "\n" if construct.startswith("cls")
              else "\n    def on(self, rank):\n        return " + construct + "\n")
    found = findings(tmp_path, {"pkg/model.py": RIFE + method,
                                "pkg/app.py": "from pkg.model import Model\n\nm = Model().on(0)\n"}, DDP_LINE)
    assert all(f.reach == "runs" for f in found)


def test_an_exported_class_keeps_the_arm(tmp_path):
    model = "__all__ = [\"Model\"]\n" + RIFE
    found = findings(tmp_path, {"pkg/model.py": model, "pkg/app.py": "from pkg.model import Model\n\nm = Model()\n"},
                     DDP_LINE + 1)
    assert all(f.reach == "runs" for f in found)


def test_a_decorated_class_keeps_the_arm(tmp_path):
    model = RIFE.replace("class Model:", "@MODELS.register_module()\nclass Model:")
    found = findings(tmp_path, {"pkg/model.py": "MODELS = None\n" + model,
                                "pkg/app.py": "from pkg.model import Model\n\nm = Model()\n"}, DDP_LINE + 2)
    assert all(f.reach == "runs" for f in found)


def test_a_class_nothing_calls_keeps_the_arm(tmp_path):
    found = findings(tmp_path, {"pkg/model.py": RIFE}, DDP_LINE)
    assert all(f.reach == "runs" for f in found)


def test_a_parameter_the_function_rebinds_keeps_the_arm(tmp_path):
    model = RIFE.replace("        self.flownet = torch.nn.Linear(2, 2)\n",
                         "        local_rank = int(os.environ.get('LOCAL_RANK', -1))\n")
    found = findings(tmp_path, {"pkg/model.py": "import os\n" + model,
                                "pkg/app.py": "from pkg.model import Model\n\nm = Model()\n"}, DDP_LINE + 1)
    assert all(f.reach == "runs" for f in found)


def test_an_assert_the_default_passes_is_info(tmp_path):
    app = "from pkg.model import ParallelContext\n\ncontext = ParallelContext(tensor_parallel_size=2)\n"
    found = findings(tmp_path, {"pkg/model.py": CONTEXT, "pkg/app.py": app}, ASSERT_LINE)
    assert all(f.severity == "info" and f.reach != "runs" for f in found)
    assert "`backend=\"nccl\"` by default (ParallelContext())" in found[0].reach_reason


def test_an_assert_a_caller_can_fail_stays(tmp_path):
    app = "from pkg.model import ParallelContext\n\ncontext = ParallelContext(2, backend=\"gloo\")\n"
    found = findings(tmp_path, {"pkg/model.py": CONTEXT, "pkg/app.py": app}, ASSERT_LINE)
    assert all(f.reach == "runs" for f in found)


@pytest.mark.parametrize(("signature", "condition", "taken"), [
    ("cache=None", "cache is not None", False),
    ("steps=0", "steps > 0", False),
    ("mode='eager'", "mode == 'graph'", False),
    ("local_rank=-1", "local_rank == -1", True),  # the default takes it: its else arm is the optional one
])
def test_comparisons_with_a_literal(tmp_path, signature, condition, taken):
    model = ("import torch\n\n\n"
             f"def build({signature}):\n"
             f"    if {condition}:\n"
             "        torch.cuda.synchronize()\n"
             "    else:\n"
             "        torch.cuda.empty_cache()\n")
    app = "from pkg.model import build\n\nbuild()\n"
    report = analyze(write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/model.py": model, "pkg/app.py": app}),
                     AnalyzeOptions(jobs=1))
    reach = {f.line: f.reach for f in report.findings if f.path == "pkg/model.py" and f.line in {6, 8}}
    assert reach, "no finding in either arm"
    assert reach.get(6, "runs" if taken else "optional") == ("runs" if taken else "optional")
    assert reach.get(8, "optional" if taken else "runs") == ("optional" if taken else "runs")


def test_a_class_a_package_exports_in_all_keeps_the_arm(tmp_path):
    files = {"pkg/model.py": RIFE, "pkg/__init__.py": "from pkg.model import Model\n\n__all__ = [\"Model\"]\n",
             "pkg/app.py": "from pkg.model import Model\n\nm = Model()\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/model.py" and f.line == DDP_LINE]
    assert found and all(f.reach == "runs" for f in found)


def test_a_module_a_package_re_exports_with_a_star_keeps_its_arms(tmp_path):
    files = {"pkg/model.py": RIFE, "pkg/__init__.py": "from .model import *\n",
             "pkg/app.py": "from pkg.model import Model\n\nm = Model()\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/model.py" and f.line == DDP_LINE]
    assert found and all(f.reach == "runs" for f in found)


def test_a_getattr_lookup_in_a_file_binding_no_function_keeps_the_arm(tmp_path):
    # the file binds only a module: the lookup by name must still count as a use out of sight
    app = ("import pkg.model\n\nmodel = pkg.model.Model()\n"
           "make = getattr(pkg.model, \"Model\")\nother = make(local_rank=0)\n")
    found = findings(tmp_path, {"pkg/model.py": RIFE, "pkg/app.py": app}, DDP_LINE)
    assert all(f.reach == "runs" for f in found)


# consistency_models cm/unet.py: `AttentionBlock(attention_type="flash")` builds QKVFlashAttention, whose __init__
# imports flash_attn, and none of the block's calls passes attention_type: the import runs by default.
UNET = (
    "import torch\n\n\n"
    "class QKVFlashAttention(torch.nn.Module):\n"
    "    def __init__(self, width):\n"
    "        from flash_attn.flash_attention import FlashAttention\n"
    "        super().__init__()\n"
    "        self.inner = FlashAttention()\n\n\n"
    "class AttentionBlock(torch.nn.Module):\n"
    "    def __init__(self, width, attention_type=\"flash\"):\n"
    "        super().__init__()\n"
    "        if attention_type == \"flash\":\n"
    "            self.attention = QKVFlashAttention(width)\n"
    "        else:\n"
    "            self.attention = torch.nn.Identity()\n"
)
FLASH_IMPORT_LINE = 6
FLASH_CALL_LINE = 8
SETUP = "from setuptools import setup\n\nsetup(name='pkg', install_requires=['torch', 'flash-attn==0.2.8'])\n"


@pytest.mark.parametrize("caller, reach", [
    ("block = AttentionBlock(64)\n", "runs"),  # the default builds the flash module
    ("block = AttentionBlock(64, attention_type=\"flash\")\n", "runs"),
    ("block = AttentionBlock(64, attention_type=\"legacy\")\n", "optional"),  # a caller turns it away
    ("block = AttentionBlock(64, **options)\n", "optional"),  # not known what it passes
])
def test_an_import_in_code_a_default_calls_runs(tmp_path, caller, reach):
    files = {"pkg/unet.py": UNET, "pkg/app.py": "from pkg.unet import AttentionBlock\n\n" + caller, "setup.py": SETUP}
    found = [f for f in findings(tmp_path, files, FLASH_IMPORT_LINE, "pkg/unet.py") if f.rule == "DEP020"]
    assert found and all(f.reach == reach for f in found)
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    declared = [f for f in report.findings if f.path == "setup.py" and f.rule == "DEP001"]
    assert declared and all(f.reach == reach for f in declared)
    # the call in the class named for the library (GuardReader._library_class) runs too, as a plain site reads
    call = next(f for f in report.findings if f.path == "pkg/unet.py" and f.line == FLASH_CALL_LINE and f.rule == "DEP030")
    assert call.reach == reach
    if reach == "runs":
        assert call.severity == "high" and call.reach_reason is None and "optional" not in call.message.en


SEEDING = (
    "import torch\n\n\n"
    "def set_random_seed(seed, deterministic=False):\n"
    "    torch.manual_seed(seed)\n"
    "    if deterministic:\n"
    "        torch.backends.cudnn.deterministic = True\n"
)
DETERMINISTIC_LINE = 7


@pytest.mark.parametrize("caller, reach", [
    ("set_random_seed(0)\n", "optional"),  # PixArt's seven training scripts: the flag's default, False, skips the arm
    ("set_random_seed(0, deterministic=True)\n", "runs"),
    ("set_random_seed(0, True)\n", "runs"),
])
def test_a_truth_test_of_a_parameter_no_caller_turns_on(tmp_path, caller, reach):
    app = "from pkg.model import set_random_seed\n\n" + caller
    found = findings(tmp_path, {"pkg/model.py": SEEDING, "pkg/app.py": app}, DETERMINISTIC_LINE)
    assert all(f.reach == reach for f in found)
    if reach == "optional":
        assert "`deterministic=False` by default (set_random_seed())" in found[0].reach_reason


TIMER = (
    "import torch\n\n\n"
    "class Timer:\n"
    "    def __init__(self, device=None):\n"
    "        if device is None:\n"
    "            device = torch.cuda.current_device()\n"
    "        elif isinstance(device, int):\n"
    "            device = torch.device(f\"cuda:{device}\")\n"
    "        self.device = device\n"
)
INT_ARM_LINE = 9


@pytest.mark.parametrize("body, reach", [
    (TIMER, "optional"),  # the arm taken by default rebinds device after the test: the elif still never runs
    (TIMER.replace("    def __init__(self, device=None):\n",
                   "    def __init__(self, device=None):\n        device = device or 0\n"), "runs"),  # before it
])
def test_a_rebinding_inside_the_tested_if_does_not_keep_the_arm(tmp_path, body, reach):
    app = "from pkg.model import Timer\n\nwith Timer() as t:\n    pass\n"
    found = findings(tmp_path, {"pkg/model.py": body, "pkg/app.py": app},
                     INT_ARM_LINE + (0 if reach == "optional" else 1))
    assert all(f.reach == reach for f in found)


ROPE = (
    "import torch\n\n\n"
    "def apply_rope(x, freqs, use_real=True):\n"
    "    if use_real:\n"
    "        return x * freqs\n"
    "    else:\n"
    "        return torch.view_as_real(x.cuda() * freqs)\n\n\n"
    "def block(x, freqs):\n"
    "    return apply_rope(x, freqs)\n"
)
COMPLEX_LINE = 8
OWN_ROPE = ROPE.replace("apply_rope(x, freqs)\n", "apply_rope(x, freqs, use_real=False)\n")


@pytest.mark.parametrize("other, reach", [
    (OWN_ROPE, "optional"),  # DiffSynth's flux2_dit/boogu_image_dit: another module's own function of the same name
    ("from pkg.model import apply_rope\n\ny = apply_rope(1, 2, use_real=False)\n", "runs"),  # this one, imported
    ("import pkg.model\n\ny = pkg.model.apply_rope(1, 2, use_real=False)\n", "runs"),  # through the module
    (OWN_ROPE + "\nfrom pkg.model import apply_rope\n", "runs"),  # defined and imported: which one is called is unknown
])
def test_a_call_of_another_module_s_own_function_of_the_same_name_is_not_this_one_s(tmp_path, other, reach):
    found = findings(tmp_path, {"pkg/model.py": ROPE, "pkg/other.py": other}, COMPLEX_LINE)
    assert all(f.reach == reach for f in found)


VOICE = ("import torch\nclass Voice:\n    def __init__(self, model_dir, load_vllm=False):\n        self.dir = model_dir\n"
         "        if load_vllm:\n            self.engine = torch.ones(1).cuda()\n")


def _voice(root, caller_path: str) -> tuple[str, str | None]:
    write_tree(root, {"voice/__init__.py": "", "voice/cli.py": VOICE,
                      "example.py": "from voice.cli import Voice\nVoice('m')\n",
                      caller_path: "from voice.cli import Voice\nVoice('m', load_vllm=True)\n"})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return next((f.reach, f.reach_reason) for f in report.findings if f.path == "voice/cli.py" and f.rule == "DEV004")


@pytest.mark.parametrize("caller_path", ["tests/test_vllm.py"])
def test_an_opt_in_only_tests_turn_on_is_optional(tmp_path, caller_path):
    reach, why = _voice(tmp_path, caller_path)
    assert reach == "optional"
    assert why == (f"`load_vllm=False` by default (Voice()); only code that runs no product path passes load_vllm "
                   f"({caller_path}); line 5: if load_vllm:")


@pytest.mark.parametrize("caller_path", ["serve.py", "examples/vllm_demo.py"])
def test_an_opt_in_a_product_script_or_an_example_turns_on_stays(tmp_path, caller_path):
    # an example is the library's user: what it turns on is a feature users turn on
    assert _voice(tmp_path, caller_path) == ("runs", None)


SPLIT = (
    "from faster_whisper import WhisperModel\n\n\n"
    "def split_audio_whisper(audio_path):\n"
    "    return WhisperModel(\"medium\", device=\"cuda\", compute_type=\"float16\")\n\n\n"
    "def split_audio_vad(audio_path):\n"
    "    return audio_path\n\n\n"
    "def get_se(audio_path, target_dir=\"processed\", vad=True):\n"
    "    if vad:\n"
    "        return split_audio_vad(audio_path)\n"
    "    else:\n"
    "        return split_audio_whisper(audio_path)\n"
)
WHISPER_LINE = 5


@pytest.mark.parametrize("caller, extra, reach", [
    # OpenVoice: every call of get_se passes vad=True (or leaves it): the function only the else arm calls never runs
    ("se = se_extractor.get_se(\"a.wav\", target_dir=\"out\", vad=True)\n", "", "optional"),
    ("se = se_extractor.get_se(\"a.wav\")\n", "", "optional"),
    ("se = se_extractor.get_se(\"a.wav\", vad=False)\n", "", "runs"),  # a caller takes the else arm
    ("se = se_extractor.get_se(\"a.wav\")\n", "\nwhole = split_audio_whisper(\"b.wav\")\n", "runs"),  # called elsewhere
    ("se = se_extractor.get_se(\"a.wav\")\n", "\nSPLITTERS = [split_audio_whisper]\n", "runs"),  # passed as a value
    ("se = se_extractor.get_se(\"a.wav\")\n\nse_extractor.split_audio_whisper(\"b.wav\")\n", "", "runs"),  # another file
])
def test_a_function_called_only_in_an_arm_no_call_takes_is_optional(tmp_path, caller, extra, reach):
    app = "from pkg import se_extractor\n\n" + caller
    found = findings(tmp_path, {"pkg/se_extractor.py": SPLIT + extra, "pkg/app.py": app}, WHISPER_LINE,
                     "pkg/se_extractor.py")
    assert all(f.reach == reach for f in found)
    if reach == "optional":
        reason = found[0].reach_reason
        assert "split_audio_whisper() is called only in an arm no call takes" in reason
        assert "`vad=True` by default (get_se())" in reason and "if vad:" in reason


REGISTRY = (
    "MODELS = {}\n\n\n"
    "def register_model(*names):\n"
    "    def wrap(cls):\n"
    "        for name in names:\n"
    "            MODELS[name] = cls\n"
    "        return cls\n"
    "    return wrap\n"
)
PLUGIN = (  # lmms-eval's model plugins: built by name, keywords from `--model_args k=v,...`
    "import torch\n"
    "from pkg.registry import register_model\n\n\n"
    "@register_model(\"xcomposer\")\n"
    "class XComposer:\n"
    "    def __init__(self, pretrained=\"x\", device=\"cuda:0\", device_map=\"cuda:0\", seed: int = 0):\n"
    "        if device_map == \"auto\":\n"
    "            self._device = torch.device(device)\n"
    "        else:\n"
    "            self._device = torch.device(\"cuda:0\")\n"
    "        if seed > 0:\n"
    "            torch.backends.cudnn.deterministic = True\n"
)
SIGNATURE_LINE, ELSE_LINE, SEED_LINE = 7, 11, 13


def plugin(tmp_path, line: int, launcher: str = "", body: str = PLUGIN, extra: dict | None = None):
    files = {"pkg/registry.py": REGISTRY, "pkg/model.py": body, **(extra or {})}
    if launcher:
        files["examples/run.sh"] = launcher
    return findings(tmp_path, files, line)


@pytest.mark.parametrize("launcher, reach", [
    ("", "optional"),  # no launch string passes seed: `if seed > 0:` never holds
    ("accelerate launch -m pkg.main --model xcomposer --model_args pretrained=x,seed=0\n", "optional"),
    ("accelerate launch -m pkg.main --model xcomposer --model_args pretrained=x,seed=42\n", "runs"),
    ("accelerate launch -m pkg.main --model xcomposer --model_args=seed=$SEED\n", "runs"),  # a value not known
])
def test_a_registered_class_s_keyword_no_launch_string_passes(tmp_path, launcher, reach):
    found = plugin(tmp_path, SEED_LINE, launcher)
    assert all(f.reach == reach for f in found)
    if reach == "optional":
        assert "`seed=0` by default (XComposer(), registered by name)" in found[0].reach_reason
        assert "if seed > 0:" in found[0].reach_reason


def test_a_config_naming_a_registered_class_s_keyword_keeps_the_arm(tmp_path):
    found = plugin(tmp_path, SEED_LINE, extra={"configs/eval.yaml": "model_args:\n  seed: 5\n"})
    assert all(f.reach == "runs" for f in found)


@pytest.mark.parametrize("decorator", [
    "@register_model\n",  # no string key: a decorator of any kind, called from anywhere
    "@register_model(\"xcomposer\", cls_kwargs)\n",  # not only string keys
    "@deprecated(\"use XComposer2\")\n",  # a string, but no registry: the class is called as written
])
def test_a_class_not_registered_by_a_string_key_keeps_the_arm(tmp_path, decorator):
    body = PLUGIN.replace("@register_model(\"xcomposer\")\n", decorator)
    body = body if "register" in decorator else "from pkg.registry import register_model as deprecated\n" + body
    found = plugin(tmp_path, SEED_LINE + (0 if "register" in decorator else 1), body=body)
    assert all(f.reach == "runs" for f in found)


def test_a_direct_call_passing_the_keyword_keeps_the_arm(tmp_path):
    app = "from pkg.model import XComposer\n\nmodel = XComposer(seed=7)\n"
    found = plugin(tmp_path, SEED_LINE, extra={"pkg/app.py": app})
    assert all(f.reach == "runs" for f in found)


@pytest.mark.parametrize("launcher, body, reach", [
    # `device` is read only under `device_map == "auto"`, and device_map defaults to "cuda:0": its default is optional
    ("", PLUGIN, "optional"),
    ("python -m pkg.main --model_args device_map=auto\n", PLUGIN, "runs"),  # a launcher takes the arm
    ("", PLUGIN.replace("            self._device = torch.device(\"cuda:0\")\n",
                        "            self._device = torch.device(device)\n"), "runs"),  # read on the default path too
    ("", PLUGIN.replace("        if device_map == \"auto\":\n",
                        "        if device_map == \"cuda:0\":\n"), "runs"),  # the default takes the arm
])
def test_a_default_read_only_in_an_arm_no_call_takes(tmp_path, launcher, body, reach):
    found = [f for f in plugin(tmp_path, SIGNATURE_LINE, launcher, body) if f.rule == "DEV001"]
    assert found and all(f.reach == reach for f in found)
    if reach == "optional":
        assert "`device` is read only in an arm no call takes: `device_map=\"cuda:0\"` by default" in found[0].reach_reason


@pytest.mark.parametrize("default, reach", [
    ("\"auto\"", "optional"),  # lmms-eval videollama3: device_map="auto", the else arm is reached only by another value
    ("\"cuda:0\"", "runs"),
])
def test_an_else_arm_a_registered_default_turns_away(tmp_path, default, reach):
    body = PLUGIN.replace("device_map=\"cuda:0\", seed", f"device_map={default}, seed")
    found = [f for f in plugin(tmp_path, ELSE_LINE, body=body)]
    assert all(f.reach == reach for f in found)


# The hop through self.<attribute> (analyzer/context/attribute_hops.py): lmms-eval's Bagel stores `self.seed = seed`
# (`seed: int = 0`) and calls `self.set_seed(self.seed)`, whose `if seed > 0:` sets cudnn.deterministic; CambrianS's
# `_maybe_consolidate` tests `self.consolidation_method == "drop_merge"` with `consolidation_method="drop"`.
HOPPED = (
    "import torch\n"
    "from pkg.registry import register_model\n\n\n"
    "@register_model(\"bagel\")\n"
    "class Bagel:\n"
    "    def __init__(self, pretrained=\"x\", seed: int = 0, consolidation_method=\"drop\"):\n"
    "        self.seed = seed\n"
    "        self.consolidation_method = consolidation_method\n"
    "        self.set_seed(self.seed)\n\n"
    "    def set_seed(self, seed):\n"
    "        if seed > 0:\n"
    "            torch.backends.cudnn.deterministic = True\n\n"
    "    def consolidate(self):\n"
    "        if self.consolidation_method == \"drop_merge\":\n"
    "            torch.cuda.empty_cache()\n"
)
HOP_SEED_LINE, HOP_CACHE_LINE = 14, 18


@pytest.mark.parametrize("body, extra, reach", [
    (HOPPED, {}, "optional"),
    (HOPPED.replace("seed: int = 0", "seed: int = 1"), {}, "runs"),  # the default passes the test
    (HOPPED + "\n    def reseed(self, value):\n        self.seed = value\n", {}, "runs"),  # another store in the class
    (HOPPED + "\n    def again(self):\n        self.set_seed(7)\n", {}, "runs"),  # the method called with another value
    (HOPPED + "\n    def hook(self):\n        return self.set_seed\n", {}, "runs"),  # the method used as a value
    (HOPPED, {"pkg/app.py": "def tune(model):\n    model.seed = 42\n"}, "runs"),  # stored from outside
    (HOPPED, {"pkg/app.py": "def tune(model):\n    setattr(model, \"seed\", 42)\n"}, "runs"),
    (HOPPED, {"pkg/app.py": "def tune(model):\n    model.set_seed(5)\n"}, "runs"),  # called from outside
    (HOPPED, {"examples/run.sh": "python -m pkg.main --model bagel --model_args seed=42\n"}, "runs"),  # a launcher
])
def test_a_default_carried_through_self_into_a_method(tmp_path, body, extra, reach):
    found = findings(tmp_path, {"pkg/registry.py": REGISTRY, "pkg/model.py": body, **extra}, HOP_SEED_LINE)
    assert all(f.reach == reach for f in found)
    if reach == "optional":
        assert "`seed=0` by default (Bagel(), registered by name)" in found[0].reach_reason
        assert "set_seed() is called only with self.seed, which __init__ sets only from seed" in found[0].reach_reason


@pytest.mark.parametrize("body, extra, reach", [
    (HOPPED, {}, "optional"),
    (HOPPED.replace("consolidation_method=\"drop\"", "consolidation_method=\"drop_merge\""), {}, "runs"),
    (HOPPED.replace("        self.consolidation_method = consolidation_method\n",
                    "        self.consolidation_method = consolidation_method\n"
                    "        if pretrained == \"y\":\n            self.consolidation_method = \"drop_merge\"\n"), {}, "runs"),
    (HOPPED, {"pkg/app.py": "def tune(model):\n    model.consolidation_method = \"drop_merge\"\n"}, "runs"),
])
def test_an_attribute_test_in_a_method_reads_the_init_default(tmp_path, body, extra, reach):
    line = HOP_CACHE_LINE + (2 if "pretrained == \"y\"" in body else 0)
    found = findings(tmp_path, {"pkg/registry.py": REGISTRY, "pkg/model.py": body, **extra}, line)
    assert all(f.reach == reach for f in found)
    if reach == "optional":
        assert "if self.consolidation_method == \"drop_merge\": (self.consolidation_method, which __init__ sets only " \
               "from consolidation_method)" in found[0].reach_reason


@pytest.mark.parametrize("caller, reach", [
    ("model = Bagel()\n", "optional"),  # a plain class: its calls decide, as for a test in __init__
    ("model = Bagel(seed=3)\n", "runs"),
])
def test_a_plain_class_s_hop_reads_its_calls(tmp_path, caller, reach):
    body = HOPPED.replace("from pkg.registry import register_model\n", "").replace("@register_model(\"bagel\")\n", "")
    app = "from pkg.model import Bagel\n\n" + caller
    found = findings(tmp_path, {"pkg/model.py": body, "pkg/app.py": app}, HOP_SEED_LINE - 2)
    assert all(f.reach == reach for f in found)


# A keyword that hands a False default straight to a call (lmms-eval's InternVL: `load_in_8bit=load_in_8bit,` into
# `from_pretrained`, `load_in_8bit: bool = False`): bitsandbytes' 8-bit loading (DEP032) is off by default.
FORWARDING = (
    "from transformers import AutoModel\n"
    "from pkg.registry import register_model\n\n\n"
    "@register_model(\"internvl\")\n"
    "class InternVL:\n"
    "    def __init__(self, pretrained: str = \"x\", load_in_8bit: bool = False):\n"
    "        self.load_in_8bit = load_in_8bit\n"
    "        self.model = AutoModel.from_pretrained(\n"
    "            pretrained,\n"
    "            load_in_8bit=load_in_8bit,\n"
    "        )\n\n"
    "    def reload(self):\n"
    "        return AutoModel.from_pretrained(\n"
    "            \"y\",\n"
    "            load_in_8bit=self.load_in_8bit,\n"
    "        )\n"
)
FORWARD_LINE, FORWARD_HOP_LINE = 11, 17


@pytest.mark.parametrize("line", [FORWARD_LINE, FORWARD_HOP_LINE])
@pytest.mark.parametrize("body, extra, reach", [
    (FORWARDING, {}, "optional"),
    (FORWARDING.replace("load_in_8bit: bool = False", "load_in_8bit: bool = True"), {}, "runs"),  # on by default
    (FORWARDING, {"examples/run.sh": "python -m pkg.main --model internvl --model_args load_in_8bit=True\n"}, "runs"),
])
def test_a_keyword_forwarding_a_false_default(tmp_path, line, body, extra, reach):
    found = [f for f in findings(tmp_path, {"pkg/registry.py": REGISTRY, "pkg/model.py": body, **extra}, line)
             if f.rule == "DEP032"]
    assert found and all(f.reach == reach for f in found)
    if reach == "optional":
        assert "`load_in_8bit=False` by default (InternVL(), registered by name)" in found[0].reach_reason


def test_a_forwarding_keyword_sharing_its_line_keeps_it(tmp_path):
    # another argument on the line: a finding there may be that argument's
    body = FORWARDING.replace("            pretrained,\n            load_in_8bit=load_in_8bit,\n",
                              "            pretrained, load_in_8bit=load_in_8bit,\n")
    found = [f for f in findings(tmp_path, {"pkg/registry.py": REGISTRY, "pkg/model.py": body}, FORWARD_LINE - 1)
             if f.rule == "DEP032"]
    assert found and all(f.reach == "runs" for f in found)


# A keyword passing a command-line option (Real-ESRGAN's `RealESRGANer(..., gpu_id=args.gpu_id)`, `--gpu-id`
# declared with `default=None`): where no launch command passes the flag, the call passes the None default.
ESRGAN = (
    "import torch\n\n\n"
    "class RealESRGANer:\n"
    "    def __init__(self, scale, model_path, gpu_id=None):\n"
    "        if gpu_id:\n"
    "            self.device = torch.device(f\"cuda:{gpu_id}\")\n"
    "        else:\n"
    "            self.device = torch.device(\"cuda\" if torch.cuda.is_available() else \"cpu\")\n"
)
INFERENCE = (
    "import argparse\n\n"
    "from pkg.utils import RealESRGANer\n\n\n"
    "def main():\n"
    "    parser = argparse.ArgumentParser()\n"
    "    parser.add_argument(\"--gpu-id\", type=int, default=None, help=\"gpu device to use\")\n"
    "    args = parser.parse_args()\n"
    "    return RealESRGANer(scale=4, model_path=\"x\", gpu_id=args.gpu_id)\n\n\n"
    "if __name__ == \"__main__\":\n"
    "    main()\n"
)
GPU_ID_LINE = 7


@pytest.mark.parametrize("inference, extra, reach", [
    (INFERENCE, {}, "optional"),
    (INFERENCE.replace(", default=None", ""), {}, "optional"),  # no default: None as well
    (INFERENCE.replace("default=None", "default=0"), {}, "runs"),  # a default that is not None
    (INFERENCE, {"scripts/run.sh": "python inference.py -n x --gpu-id 1\n"}, "runs"),  # a launcher passes it
    (INFERENCE, {"pkg/batch.py": "from pkg.utils import RealESRGANer\n\n\ndef run(g):\n"
                                 "    return RealESRGANer(4, \"x\", gpu_id=g)\n"}, "runs"),  # another value
    (INFERENCE.replace("    args = parser.parse_args()\n",
                       "    parser.add_argument(\"--other\", dest=\"gpu_id\", type=int, default=1)\n"
                       "    args = parser.parse_args()\n"), {}, "runs"),  # declared with a default elsewhere
])
def test_a_keyword_passing_an_option_left_at_none(tmp_path, inference, extra, reach):
    found = findings(tmp_path, {"pkg/utils.py": ESRGAN, "inference.py": inference, **extra}, GPU_ID_LINE,
                     path="pkg/utils.py")
    assert all(f.reach == reach for f in found)
    if reach == "optional":
        assert "its calls pass `gpu_id=args.gpu_id`, and `--gpu-id` is None unless given" in found[0].reach_reason


# A method's keyword that defaults off (mmagic's disco-diffusion guider: `compute_prompt_stats(self, text_prompts=[],
# fuzzy_prompt=False)` adds `torch.randn(...).cuda()` noise only `if fuzzy_prompt:`, and its one call passes only the
# prompts; round 28 A2 91): no `.method(...)` call in the project passes it, so the arm is optional.
GUIDER = (
    "import torch\n\n\n"
    "class Guider:\n"
    "    def __init__(self, device):\n"
    "        self.device = device\n\n"
    "    def compute_stats(self, prompts=[], fuzzy_prompt=False, rand_mag=0.05):\n"
    "        out = []\n"
    "        for txt in prompts:\n"
    "            if fuzzy_prompt:\n"
    "                out.append(txt + torch.randn(3).cuda() * rand_mag)\n"
    "        return out\n"
)
FUZZY_LINE = 12
GUIDER_USE = "from pkg.model import Guider\n\nguider = Guider('cuda')\n"


@pytest.mark.parametrize("call", ["guider.compute_stats(['a'])\n", "guider.compute_stats(['a'], fuzzy_prompt=False)\n",
                                  "guider.compute_stats(prompts=['a'])\n"])
def test_a_method_keyword_no_call_passes_is_optional(tmp_path, call):
    found = findings(tmp_path, {"pkg/model.py": GUIDER, "pkg/app.py": GUIDER_USE + call}, FUZZY_LINE)
    assert all(f.reach == "optional" for f in found)
    reason = found[0].reach_reason
    assert "`fuzzy_prompt=False` by default (Guider.compute_stats()" in reason and "line 11: if fuzzy_prompt:" in reason


@pytest.mark.parametrize("app", [
    GUIDER_USE + "guider.compute_stats(['a'], fuzzy_prompt=True)\n",  # a caller turns it on
    GUIDER_USE + "guider.compute_stats(['a'], True)\n",  # positionally
    GUIDER_USE + "guider.compute_stats(['a'], **options)\n",  # a splat may hold it
    GUIDER_USE + "guider.compute_stats(['a'], fuzzy_prompt=args.fuzzy)\n",  # a value not known
    GUIDER_USE + "guider.compute_stats(['a'])\nhook = guider.compute_stats\n",  # also a value: called out of sight
    GUIDER_USE + "guider.compute_stats(['a'])\nrun(callback=guider.compute_stats)\n",
    GUIDER_USE,  # never called in sight: a library's entry for callers outside the project
])
def test_a_method_keyword_a_call_may_pass_keeps_its_reach(tmp_path, app):
    found = findings(tmp_path, {"pkg/model.py": GUIDER, "pkg/app.py": app}, FUZZY_LINE)
    assert all(f.reach == "runs" for f in found)


def test_forward_is_called_through_the_module_and_keeps_its_reach(tmp_path):
    # `model(x, use_noise=True)` runs forward with the keyword: a `.forward(x)` call elsewhere says nothing about it
    model = GUIDER.replace("compute_stats", "forward").replace("fuzzy_prompt", "use_noise")
    app = GUIDER_USE + "guider.forward(['a'])\n"
    found = findings(tmp_path, {"pkg/model.py": model, "pkg/app.py": app}, FUZZY_LINE)
    assert all(f.reach == "runs" for f in found)


def test_a_method_of_an_exported_class_is_read_by_its_calls_in_sight(tmp_path):
    # a library package exports every class (`__all__`): the project's own `.compute_stats(...)` calls still decide
    files = {"pkg/model.py": GUIDER, "pkg/app.py": GUIDER_USE + "guider.compute_stats(['a'])\n",
             "pkg/__init__.py": "from pkg.model import Guider\n\n__all__ = ['Guider']\n"}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    found = [f for f in report.findings if f.path == "pkg/model.py" and f.line == FUZZY_LINE]
    assert found and all(f.reach == "optional" for f in found)


# A keyword a caller's own `**kwargs` carries is its callers' (mast3r's `sparse_global_alignment(..., **kw)` handing
# `**kw` to `sparse_scene_optimizer(..., lora_depth=False)`, whose `if lora_depth:` builds a low-rank projection;
# round 28 B2 48): where no call of the forwarding function passes the key, the arm is optional.
OPTIMIZER = (
    "import torch\n\n\n"
    "def optimize(imgs, lr=0.1, lora_depth=False):\n"
    "    out = imgs\n"
    "    if lora_depth:\n"
    "        out = torch.linalg.pinv(imgs.double().cuda())\n"
    "    return out\n\n\n"
    "def align(imgs, device='cuda', **kw):\n"
    "    return optimize(imgs, lr=0.2, **kw)\n"
)
LORA_LINE = 7


@pytest.mark.parametrize("call", ["align(x)\n", "align(x, lr=0.5)\n", "align(x, lora_depth=False)\n"])
def test_a_keyword_only_a_callers_kwargs_carry_is_its_callers(tmp_path, call):
    app = "from pkg.model import align\n\nx = 1\n" + call
    found = findings(tmp_path, {"pkg/model.py": OPTIMIZER, "pkg/app.py": app}, LORA_LINE)
    assert all(f.reach == "optional" for f in found)
    assert "its calls pass the `**kwargs` of align(), none of whose calls in the project passes lora_depth" in \
        found[0].reach_reason


@pytest.mark.parametrize("model,call", [
    (OPTIMIZER, "align(x, lora_depth=True)\n"),  # a caller of the forwarding function passes it
    (OPTIMIZER, "align(x, **options)\n"),  # its caller unpacks what is not known
    (OPTIMIZER.replace("    return optimize(", "    kw['lora_depth'] = True\n    return optimize("), "align(x)\n"),
    (OPTIMIZER.replace("**kw)\n", "**kw, **extra)\n"), "align(x)\n"),  # another splat
    (OPTIMIZER.replace("def align(imgs, device='cuda', **kw):\n    return optimize(imgs, lr=0.2, **kw)",
                       "def align(imgs, kw):\n    return optimize(imgs, **kw)"), "align(x, {})\n"),  # not its own kwargs
])
def test_a_splat_that_may_carry_the_keyword_keeps_its_reach(tmp_path, model, call):
    app = "from pkg.model import align\n\nx = 1\n" + call
    found = findings(tmp_path, {"pkg/model.py": model, "pkg/app.py": app}, LORA_LINE)
    assert all(f.reach == "runs" for f in found)


# An attribute __init__ sets to a test of its parameter (diffusers' Transformer2DModel: `self.is_input_vectorized =
# num_vector_embeds is not None`), tested in forward: the arm runs only where a construction passes the parameter.
DERIVED = (
    "import torch\n\n\n"
    "class Blocks(torch.nn.Module):\n"
    "    def __init__(self, in_channels=None, num_vector_embeds=None):\n"
    "        super().__init__()\n"
    "        self.is_input_continuous = in_channels is not None\n"
    "        self.is_input_vectorized = num_vector_embeds is not None\n\n"
    "    def forward(self, logits):\n"
    "        if self.is_input_continuous:\n"
    "            return logits\n"
    "        elif self.is_input_vectorized:\n"
    "            return torch.nn.functional.log_softmax(logits.double(), dim=1).float()\n"
)
DERIVED_LINE = 14


@pytest.mark.parametrize("caller, body, reach", [
    ("block = Blocks(in_channels=4)\n", DERIVED, "optional"),  # no construction passes num_vector_embeds
    ("block = Blocks(num_vector_embeds=5)\n", DERIVED, "runs"),
    ("block = Blocks(4, 5)\n", DERIVED, "runs"),  # passed by position
    ("block = Blocks(in_channels=4)\n", DERIVED.replace("elif self.is_input_vectorized:", "elif not self.is_input_vectorized:"),
     "runs"),  # the negated test holds at the default
    ("block = Blocks(in_channels=4)\nblock.is_input_vectorized = True\n", DERIVED, "runs"),  # stored from outside
    ("block = Blocks(**config)\n", DERIVED, "runs"),  # built from a dict: any keyword may be in it
    ("block = Blocks(in_channels=4)\n", DERIVED.replace("num_vector_embeds is not None", "num_vector_embeds > 0"),
     "runs"),  # None > 0 cannot be told at the default
])
def test_an_attribute_set_to_a_test_of_the_parameter_carries_its_default(tmp_path, caller, body, reach):
    app = "from pkg.model import Blocks\n\n" + caller
    found = [f for f in findings(tmp_path, {"pkg/model.py": body, "pkg/app.py": app}, DERIVED_LINE) if f.rule == "PRC006"]
    assert found and all(f.reach == reach for f in found), [(f.rule, f.reach, f.reach_reason) for f in found]
    if reach == "optional":
        assert "(self.is_input_vectorized, which __init__ sets only to `num_vector_embeds is not None`)" \
               in found[0].reach_reason


# The same class with its __init__ decorated by a config recorder (diffusers' `@register_to_config`, which records
# the keywords and calls __init__ unchanged): the default decides the arm where every construction is in sight; a
# config factory called on the class, or a string naming it (a lazy `_import_structure`), builds it out of sight.
RECORDED = DERIVED.replace("import torch\n", "import torch\nfrom diffusers.configuration_utils import register_to_config\n"
                           ).replace("    def __init__", "    @register_to_config\n    def __init__")
RECORDED_LINE = DERIVED_LINE + 2


@pytest.mark.parametrize("body, caller, package, reach", [
    (RECORDED, "block = Blocks(in_channels=4)\n", "", "optional"),
    (RECORDED, "block = Blocks(in_channels=4)\nother = Blocks.from_config(config)\n", "", "runs"),
    (RECORDED, "import pkg.model\nblock = Blocks(in_channels=4)\nother = pkg.model.Blocks.from_pretrained(path)\n", "",
     "runs"),  # a factory through the module
    (RECORDED, "block = Blocks(in_channels=4)\nother = Blocks.load(path)\n", "", "runs"),  # a base's class method
    (RECORDED, "block = Blocks(in_channels=4)\n", "_import_structure = {'model': ['Blocks']}\n", "runs"),  # named
    (RECORDED, "block = Blocks(num_vector_embeds=5)\n", "", "runs"),  # passed in sight
    (RECORDED.replace("@register_to_config", "@torch.no_grad()"), "block = Blocks(in_channels=4)\n", "", "runs"),
    # setattr by a loop over literal keys stores only those (diffusers' disable_freeu); any other key may be the flag
    (RECORDED, "block = Blocks(in_channels=4)\n\n\ndef reset(b):\n    keys = {'s1', 'b1'}\n    for k in keys:\n"
               "        setattr(b, k, None)\n", "", "optional"),
    (RECORDED, "block = Blocks(in_channels=4)\n\n\ndef reset(b):\n    for k in ('s1', 'is_input_vectorized'):\n"
               "        setattr(b, k, True)\n", "", "runs"),
    (RECORDED, "block = Blocks(in_channels=4)\n\n\ndef reset(b, keys):\n    for k in keys:\n"
               "        setattr(b, k, True)\n", "", "runs"),
])
def test_a_config_recorded_init_carries_its_default_where_every_construction_is_in_sight(tmp_path, body, caller,
                                                                                          package, reach):
    app = "from pkg.model import Blocks\n\n" + caller
    files = {"pkg/model.py": body, "pkg/app.py": app, "pkg/__init__.py": package}
    found = [f for f in findings(tmp_path, files, RECORDED_LINE) if f.rule == "PRC006"]
    assert found and all(f.reach == reach for f in found), [(f.rule, f.reach, f.reach_reason) for f in found]
    if reach == "optional":
        assert "(self.is_input_vectorized, which __init__ sets only to `num_vector_embeds is not None`)" \
               in found[0].reach_reason


BUNDLED_SETATTR = "def put(obj, name, value):\n    setattr(obj, name, value)\n"


@pytest.mark.parametrize("app, reach", [
    ("from pkg.model import Blocks\n\nblock = Blocks(in_channels=4)\n", "optional"),  # the bundled project never runs
    ("from pkg.model import Blocks\nfrom pkg.ext.tool.util import put\n\nblock = Blocks(in_channels=4)\n"
     "put(block, name, True)\n", "runs"),  # the host uses it: any attribute may be stored
])
def test_a_bundled_project_nothing_reaches_stores_nothing_on_the_hosts_objects(tmp_path, app, reach):
    files = {"pkg/model.py": RECORDED, "run.py": app, "pkg/ext/setup.py": "from setuptools import setup\nsetup()\n",
             "pkg/ext/tool/__init__.py": "", "pkg/ext/tool/util.py": BUNDLED_SETATTR}
    found = [f for f in findings(tmp_path, files, RECORDED_LINE) if f.rule == "PRC006"]
    assert found and all(f.reach == reach for f in found), [(f.rule, f.reach, f.reach_reason) for f in found]
