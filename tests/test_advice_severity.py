"""Advice and severity read from the code around a site (round 17): a float32 assertion under float32 autocast, the
unused import of a package to replace, a CUDA build pin of another torch than the target's."""

from tests.helpers import analyze_snippet_project, scan

FLOAT32_AUTOCAST = '''import torch
import torch.cuda.amp as amp


class Head(torch.nn.Module):
    def forward(self, t):
        with amp.autocast(dtype=torch.float32):
            e = self.embed(t.float())
            assert e.dtype == torch.float32
        with torch.autocast("cuda", dtype=torch.bfloat16):
            f = self.proj(e)
            assert f.dtype == torch.float32
        return f
'''


def test_a_float32_assertion_under_float32_autocast_holds_where_npu_autocast_accepts_float32():
    # torch_npu.npu.get_amp_supported_dtype lists float32 from the 26.0.0 line on (v2.12.0-26.1.0); on v2.1.0-7.2.0
    # it does not, and torch's autocast disables itself for that dtype there: the check stays
    assert [f.line for f in scan(FLOAT32_AUTOCAST, torch_npu="2.12.0").findings if f.rule == "PRC005"] == [12]
    assert [f.line for f in scan(FLOAT32_AUTOCAST, torch_npu="2.1.0.post17").findings if f.rule == "PRC005"] == [9, 12]


def test_an_unused_import_of_a_package_to_replace_is_a_line_to_delete():
    unused = analyze_snippet_project("import torch\nimport flash_attn\n\nx = torch.zeros(1)\n", "python")
    [finding] = [f for f in unused.findings if f.rule == "DEP001"]
    assert (finding.line, finding.severity) == (2, "low") and "Delete the import line" in finding.replacement.en
    # bitsandbytes installs and imports on any host from 0.46.0 (packages.toml install_since): harmless, info
    harmless = analyze_snippet_project("import torch\nimport bitsandbytes as bnb\n\nx = torch.zeros(1)\n", "python")
    [finding] = [f for f in harmless.findings if f.rule == "DEP001"]
    assert (finding.line, finding.severity) == (2, "info") and "Nothing to port" in finding.replacement.en
    # a name inside a comment or a string is read as a use: the search errs towards keeping the finding
    used = analyze_snippet_project("import bitsandbytes as bnb\n\nopt = bnb.optim.Adam8bit(params)\n", "python")
    assert [(f.line, f.severity) for f in used.findings if f.rule == "DEP001"] == [(1, "high")]
    # a package's __init__.py re-exports what it imports
    exported = analyze_snippet_project("import bitsandbytes as bnb\n", "python", path="pkg/__init__.py")
    assert [f.severity for f in exported.findings if f.rule == "DEP001"] == ["high"]


def test_a_companion_pin_of_the_target_torch_keeps_the_label_advice():
    pinned = analyze_snippet_project("torch==2.12.0+cu128\ntorchvision==0.27.0+cu128\n", "requirements")
    advice = {f.line: f.replacement.en for f in pinned.findings if f.rule == "DEP005"}
    assert sorted(advice) == [1, 2] and all(text.startswith("Drop the +cuXXX label") for text in advice.values())
