"""FlashAttention's separately built CUDA extensions (csrc/rotary, csrc/layer_norm, csrc/xentropy, csrc/fused_dense_lib)
are imported by their own top-level module names in lit-gpt-derived projects and named in no manifest: before they
were in the catalog, `import rotary_emb` and `import dropout_layer_norm` gave no finding at all (round 13, TinyLlama)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree


def test_flash_attention_csrc_extensions_fail_to_import_and_name_their_replacement(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/rope.py": "import torch\nimport rotary_emb\n\n\ndef apply(x, cos, sin):\n"
                       "    rotary_emb.apply_rotary(x, x, cos, sin, x, x, False)\n    return x\n",
        "pkg/norm.py": "import torch\nimport dropout_layer_norm\n",
        "train.py": "import torch\nfrom pkg.rope import apply\nfrom pkg import norm\napply(torch.ones(2), 1, 1)\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    imports = {(f.path, f.rule) for f in report.findings if f.rule == "DEP020"}
    assert imports == {("pkg/rope.py", "DEP020"), ("pkg/norm.py", "DEP020")}
    call = next(f for f in report.findings if f.rule == "DEP030" and f.path == "pkg/rope.py")
    assert "npu_rotary_mul" in call.replacement.en


def test_a_project_module_of_the_same_name_is_its_own(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "rotary_emb.py": "import torch\n\n\ndef apply_rotary(x):\n    return x\n",
        "train.py": "import rotary_emb\nrotary_emb.apply_rotary(1)\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert not [f for f in report.findings if f.rule in {"DEP020", "DEP030"}]
