"""A CUDA availability check and-ed with a probe of the cuDNN build (round 31 A1 class 7: a device choice
`'cuda' if torch.cuda.is_available() and torch.backends.cudnn.is_available() else 'cpu'`): transfer_to_npu leaves
torch.backends.cudnn alone and the probe is False on the CPU torch wheel torch_npu runs on, so the shim does not cover
the choice. DEV104 rates it rewrite, medium, with no automatic site; the report does not fold it among the sites
transfer_to_npu rewrites, and the port does not rewrite it."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port

from tests.helpers import scan, write_tree

PICK = ("import torch\n\n\ndef get_device(suffix=''):\n    return torch.device('cuda' + suffix if {test} else 'cpu')\n\n\n"
        "if __name__ == '__main__':\n    device = get_device()\n    model = torch.nn.Linear(2, 2).to(device)\n"
        "    out = model(torch.ones(2, device=device))\n    torch.save(out, 'out.pt')\n")


@pytest.mark.parametrize(("test", "probe"), [
    ("torch.cuda.is_available() and torch.backends.cudnn.is_available()", "torch.backends.cudnn.is_available"),
    ("torch.backends.cudnn.version() and (torch.cuda.is_available() and x)", "torch.backends.cudnn.version"),
    # near misses: the global flag (True on every build), an `or`, a negated probe, no probe
    ("torch.cuda.is_available() and torch.backends.cudnn.enabled", None),
    ("torch.cuda.is_available() or torch.backends.cudnn.is_available()", None),
    ("torch.cuda.is_available() and not torch.backends.cudnn.is_available()", None),
    ("torch.cuda.is_available()", None),
])
def test_the_facet_needs_a_positive_cudnn_probe_in_the_same_and_chain(test, probe):
    found = [f for f in scan(PICK.format(test=test)).findings if f.rule == "DEV104"]
    assert len(found) == 1
    if probe is None:
        assert (found[0].severity, found[0].migration) == ("info", "auto")
    else:
        assert (found[0].severity, found[0].migration) == ("medium", "rewrite")
        assert "drop the cuDNN conjunct" in found[0].replacement.en


def test_the_report_and_the_port_do_not_count_it_covered_by_transfer_to_npu(tmp_path):
    write_tree(tmp_path, {"infer.py": PICK.format(test="torch.cuda.is_available() and torch.backends.cudnn.is_available()")})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    [site] = [f for f in report.findings if f.rule == "DEV104"]
    assert (site.severity, site.migration, site.reach) == ("medium", "rewrite", "runs")
    result = port(tmp_path, report, PortOptions(transfer_to_npu=True))
    [outcome] = [o for o in result.outcomes if o.finding.rule == "DEV104"]
    assert outcome.reason is not None and not outcome.changes  # left for a human, with its reason
