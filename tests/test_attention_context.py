"""Attention replacements depend on whether the code path runs a backward."""

from tests.helpers import scan


def only(code, rule):
    [finding] = [f for f in scan(code).findings if f.rule == rule]
    return finding


def test_inference_context_from_no_grad_picks_the_inference_operators():
    code = (
        "import torch\nfrom flash_attn import flash_attn_func\n\n"
        "@torch.no_grad()\ndef generate(q, k, v):\n    return flash_attn_func(q, k, v, causal=True)\n"
    )
    finding = only(code, "ATT001")
    assert "npu_fused_infer_attention_score" in finding.replacement.en
    assert "Context: inference" in finding.message.en and "上下文：推理" in finding.message.zh


def test_training_context_keeps_the_operator_with_a_backward():
    code = (
        "from flash_attn import flash_attn_func\n\n"
        "def step(q, k, v, opt):\n    out = flash_attn_func(q, k, v)\n    out.sum().backward()\n    opt.step()\n"
    )
    finding = only(code, "ATT001")
    assert "npu_fusion_attention" in finding.replacement.en and "backward" in finding.replacement.en
    assert "Context: training" in finding.message.en


def test_unknown_context_says_nothing_and_defaults_to_the_training_operator():
    finding = only("from flash_attn import flash_attn_func\nout = flash_attn_func(q, k, v)\n", "ATT001")
    assert "Context:" not in finding.message.en
    assert finding.replacement.code.startswith("torch_npu.npu_fusion_attention(")


def test_a_model_file_that_generates_under_no_grad_but_drops_out_while_training_is_training_code():
    # nanotron starcoder2.py: CoreAttention.forward passes dropout_p=self.dropout if self.training else 0.0; the file's
    # generate path runs under no_grad, and the backward is in the trainer
    code = (
        "import torch\nfrom flash_attn import flash_attn_varlen_func\n\n"
        "class CoreAttention(torch.nn.Module):\n"
        "    def forward(self, q, k, v, cu, m):\n"
        "        return flash_attn_varlen_func(q, k, v, cu, cu, m, m, dropout_p=self.dropout if self.training else 0.0)\n\n"
        "@torch.no_grad()\ndef decode(model, x):\n    return model(x)\n"
    )
    finding = only(code, "ATT002")
    assert "Context: training" in finding.message.en and "npu_fusion_attention" in finding.replacement.en
    without = code.replace("dropout_p=self.dropout if self.training else 0.0", "dropout_p=0.0")
    assert "Context: inference" in only(without, "ATT002").message.en  # nothing says it trains: the file's no_grad
