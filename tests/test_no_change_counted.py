"""A finding whose advice asks for no change ("keep it", "nothing to change": (0, 0) hours from its rule or site
variant) is listed but not counted; one that asks for work stays counted (round 18, A 55, 70, 71, 77, 86, 88)."""

from tests.helpers import scan

SDPA = "import torch.nn.functional as F\ndef attend(q, k, v, mask):\n    return F.scaled_dot_product_attention({})\n"


def _att020(arguments: str, torch_npu: str | None = None):
    found = [f for f in scan(SDPA.format(arguments), torch_npu=torch_npu).findings if f.rule == "ATT020"]
    assert len(found) == 1
    return found[0]


def test_sdpa_without_a_mask_is_listed_not_counted():
    for arguments in ("q, k, v", "q, k, v, is_causal=True", "q, k, v, None, 0.1", "q, k, v, attn_mask=~mask",
                      "q, k, v, attn_mask=(mask == 0)", "q, k, v, attn_mask=mask.bool()"):
        finding = _att020(arguments)
        assert finding.reach == "runs" and finding.effort_hours.high == 0 and not finding.counted, arguments
        assert finding.replacement.en.startswith("Nothing to change"), arguments


def test_sdpa_with_a_mask_that_may_be_a_bias_stays_counted():
    for arguments in ("q, k, v, mask", "q, k, v, attn_mask=mask", "q, k, v, attn_mask=mask.float()",
                      "q, k, v, attn_mask=mask.to(q.dtype)", "q, k, v, *rest", "q, k, v, **options"):
        finding = _att020(arguments)
        assert finding.counted and finding.effort_hours.high > 0, arguments
        assert finding.replacement.en.startswith("Keep it and check the limits"), arguments


def test_sdpa_without_a_mask_counts_where_the_release_has_no_npu_kernel():
    finding = _att020("q, k, v", torch_npu="2.1.0")  # 5.0.0 line: SDPA runs the unfused math path
    assert finding.counted and "npu_fusion_attention" in finding.replacement.en


def test_a_rule_that_asks_for_no_change_is_not_counted_but_one_asking_work_is():
    kept = scan("import torch\ntorch.backends.cudnn.benchmark = True\n").findings
    assert [(f.rule, f.reach, f.counted) for f in kept if f.rule == "DEV401"] == [("DEV401", "runs", False)]
    work = scan("import torch\ntorch.cuda.set_device(0)\n").findings
    assert any(f.counted for f in work)


def test_a_site_above_info_with_no_hours_of_its_own_still_counts():
    """An operator a release within reach registers: the upgrade is the fix (0 hours at the site), a concern still."""
    code = "import torch\nclass M(torch.nn.Module):\n    def forward(self, a, b):\n        return torch.isin(a, b)\n"
    finding = next(f for f in scan(code, torch_npu="2.1.0").findings if f.rule == "OPS070")
    assert finding.effort_hours.high == 0 and finding.severity != "info" and finding.counted
