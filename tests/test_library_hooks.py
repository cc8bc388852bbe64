"""Project methods a library hook calls by name (analyzer/context/library_hooks.py, knowledge opt_in.library_hooks):
diffusers' `enable_xformers_memory_efficient_attention()` calls `set_use_memory_efficient_attention_xformers` on every
submodule, so a project attention class's method of that name is reached wherever the project calls the hook with no guard
(uncounted: the hook call's fix leaves it unreached);
the hook call itself is ATT012 (domains/attention/python_scanner.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

# a project attention class written as diffusers' own (a probe of xformers on a CUDA tensor when switched on)
ATTENTION = (
    "import torch\n"
    "import xformers.ops\n"
    "class TemporalAttention(torch.nn.Module):\n"
    "    def set_use_memory_efficient_attention_xformers(self, valid, *args):\n"
    "        q = torch.randn((1, 2, 40), device='cuda')\n"
    "        _ = xformers.ops.memory_efficient_attention(q, q, q)\n"
    "        self.use_xformers = valid\n"
    "    def forward(self, x):\n"
    "        return x\n"
)
ENTRY = (
    "import torch\n"
    "from pkg.attention import TemporalAttention\n"
    "def main():\n"
    "    unet = TemporalAttention()\n"
    "    unet.enable_xformers_memory_efficient_attention()\n"
    "    return unet(torch.zeros(1))\n"
    "if __name__ == '__main__':\n"
    "    main()\n"
)
GUARDED_ENTRY = ENTRY.replace(
    "import torch\n", "import torch\nfrom diffusers.utils import is_xformers_available\n", 1).replace(
    "    unet.enable_xformers_memory_efficient_attention()\n",
    "    if is_xformers_available():\n        unet.enable_xformers_memory_efficient_attention()\n")


def _analyzed(tmp_path, entry: str):
    write_tree(tmp_path, {"pkg/__init__.py": "", "pkg/attention.py": ATTENTION, "run.py": entry,
                          "requirements.txt": "torch\ndiffusers\nxformers\n"})
    return analyze(tmp_path, AnalyzeOptions(jobs=1)).findings


def test_an_unguarded_hook_call_reaches_the_project_method_and_is_flagged(tmp_path):
    findings = _analyzed(tmp_path, ENTRY)
    [hook] = [f for f in findings if f.rule == "ATT012"]
    assert (hook.path, hook.line, hook.reach, hook.severity) == ("run.py", 5, "runs", "high")
    assert "is_xformers_available()" in hook.replacement.en
    [probe] = [f for f in findings if f.rule == "ATT010"]
    assert probe.reach == "optional"  # reached through the hook, priced with ATT012: its fix leaves it unreached
    assert not probe.counted
    assert probe.reach_reason == ("set_use_memory_efficient_attention_xformers() is called by the library on every "
                                  "submodule: the project calls enable_xformers_memory_efficient_attention() at "
                                  "run.py:5 with no guard; removing or guarding that call (ATT012, priced there) "
                                  "leaves this method unreached")


def test_a_guarded_hook_call_leaves_the_method_optional(tmp_path):
    findings = _analyzed(tmp_path, GUARDED_ENTRY)
    [hook] = [f for f in findings if f.rule == "ATT012"]
    assert hook.reach != "runs"
    [probe] = [f for f in findings if f.rule == "ATT010"]
    assert probe.reach == "optional"
    assert "called nowhere" in probe.reach_reason


def test_no_hook_call_leaves_the_method_called_nowhere(tmp_path):
    findings = _analyzed(tmp_path, ENTRY.replace("    unet.enable_xformers_memory_efficient_attention()\n", ""))
    assert not [f for f in findings if f.rule == "ATT012"]
    [probe] = [f for f in findings if f.rule == "ATT010"]
    assert probe.reach == "optional"
