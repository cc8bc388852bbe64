"""`import torch.cuda.amp as amp` (DEV143) is as automatic as the names the file reads through the alias (round 34 A1
class 8: Swin-Transformer main_simmim_pt.py:18 reads only amp.GradScaler and amp.autocast)."""

from __future__ import annotations

from tests.helpers import scan


def _dev143(code: str):
    found = [f for f in scan(code).findings if f.rule == "DEV143"]
    assert len(found) == 1
    return found[0]


def test_a_module_alias_read_only_through_redirected_names_is_automatic():
    finding = _dev143("import torch.cuda.amp as amp\nscaler = amp.GradScaler()\nwith amp.autocast():\n    pass\n")
    assert (finding.migration, finding.severity) == ("auto", "info")
    assert finding.symbol == "torch.cuda.amp.GradScaler"


def test_a_module_alias_with_a_name_transfer_to_npu_leaves_names_it():
    finding = _dev143("import torch.cuda.amp as amp\nscaler = amp.GradScaler()\nstate = amp.grad_scaler.OptState\n")
    assert (finding.migration, finding.severity) == ("rewrite", "low")
    assert "amp.grad_scaler" in finding.message.en and "amp.GradScaler" not in finding.message.en
    assert "amp.grad_scaler" in finding.message.zh


def test_a_module_alias_never_read_through_a_name_keeps_the_rewrite():
    finding = _dev143("import torch.cuda.amp as amp\nhelpers = [amp]\n")
    assert (finding.migration, finding.symbol) == ("rewrite", "torch.cuda.amp")
