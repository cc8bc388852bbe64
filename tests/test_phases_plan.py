"""The planning layer: phase assignment through imports and overrides, effort arithmetic, verdict boundaries,
bottlenecks and calibration. Small projects are written to a temporary folder and analyzed end to end."""

from __future__ import annotations

from pathlib import Path

import pytest

from analyzer.models import PHASES, EffortHours, Finding, ReplacementText, Text
from analyzer.pipeline import AnalyzeOptions, analyze
from domains.phases.calibration import RuleCalibration, calibrate
from domains.phases.plan import bottlenecks, effort, plan_data, verdict
from tests.helpers import write_tree as write

DAY = plan_data()["effort"]["hours_per_day"]
THRESHOLDS = plan_data()["verdict"]


def finding(rule: str = "DEV101", *, migration: str = "auto", severity: str = "low", confidence: str = "high",
            hours: tuple[float, float] = (0.0, 0.25), path: str = "a.py", line: int = 1,
            phases: tuple[str, ...] = ("training",), domain: str = "device") -> Finding:
    return Finding(
        rule=rule, name="some-rule", domain=domain, path=path, line=line, column=1, end_line=line, end_column=2,
        snippet="x", symbol="x", severity=severity, migration=migration, confidence=confidence,
        message=Text(en="m", zh="m"), replacement=ReplacementText(en="r", zh="r", code=None),
        effort_hours=EffortHours(low=hours[0], high=hours[1]), references=[], fingerprint=f"{rule}{path}{line}",
        suppressed=False, phases=list(phases),
    )




def run(root: Path):
    return analyze(root, AnalyzeOptions(jobs=1))


# Effort -----------------------------------------------------------------------------------------------------
def test_mechanical_sites_scale_sub_linearly():
    per_site = plan_data()["effort"]["per_extra_site"]
    work = effort([finding(line=n, hours=(0.1, 0.25)) for n in range(1, 51)], ["training"])
    item = work.items[0]
    assert item.count == 50
    assert item.hours.high == pytest.approx(0.25 * (1 + per_site * 49), abs=0.01)
    assert item.hours.high < 50 * 0.25 / 3
    assert "× (50 − 1)" in item.scaling


def test_custom_kernels_add_up_one_by_one():
    work = effort([finding("OPS001", migration="manual", hours=(2, 8), line=1, domain="custom_ops"),
                   finding("OPS001", migration="manual", hours=(4, 16), line=2, domain="custom_ops")], ["training"])
    assert (work.items[0].hours.low, work.items[0].hours.high) == (6, 24)
    assert "sum of 2" in work.items[0].scaling


def test_engineering_at_call_sites_scales_with_the_number_of_sites():
    per_site = plan_data()["effort"]["per_extra_call_site"]
    sites = [finding("ATT001", migration="manual", hours=(4, 8), line=n, domain="attention") for n in range(1, 5)]
    item = effort(sites, ["training"]).items[0]
    assert item.hours.low == pytest.approx(4 * (1 + per_site * 3))
    assert item.hours.high == pytest.approx(8 * (1 + per_site * 3))
    assert effort(sites[:1], ["training"]).items[0].hours.high < item.hours.high < 4 * 8


@pytest.mark.parametrize("confidence", ["high", "medium", "low"])
def test_lower_confidence_widens_only_the_high_end(confidence):
    factor = plan_data()["effort"]["confidence_factor"][confidence]
    item = effort([finding(migration="manual", confidence=confidence, hours=(2, 8))], ["training"]).items[0]
    assert item.hours.low == 2
    assert item.hours.high == pytest.approx(8 * factor)
    assert item.confidence_factor == factor


def test_totals_per_domain_phase_and_overall_are_sums_of_items_in_days():
    findings = [
        finding("DEV101", hours=(1, 2), phases=("training",)),
        finding("ATT001", migration="manual", hours=(8, 16), domain="attention", phases=("training", "inference")),
        finding("PRC001", migration="manual", hours=(4, 8), domain="precision", phases=("inference",)),
    ]
    work = effort(findings, ["training", "inference"])
    assert work.total.low_days == pytest.approx((1 + 8 + 4) / DAY, abs=0.01)
    assert work.total.high_days == pytest.approx((2 + 16 + 8) / DAY, abs=0.01)
    assert work.by_domain["attention"].high_days == pytest.approx(16 / DAY, abs=0.01)
    assert work.by_phase["training"].high_days == pytest.approx((2 + 16) / DAY, abs=0.01)
    assert work.by_phase["inference"].high_days == pytest.approx((16 + 8) / DAY, abs=0.01)


def test_suppressed_findings_cost_nothing():
    suppressed = finding(migration="manual", hours=(8, 16)).model_copy(update={"suppressed": True})
    assert effort([suppressed], ["training"]).total.high_days == 0


# Verdict ----------------------------------------------------------------------------------------------------
def verdict_for(findings, phases=("training",)):
    return verdict(findings, effort(findings, list(phases)), list(phases))


def manual_hours(days: float) -> Finding:
    return finding(migration="manual", severity="medium", hours=(0, days * DAY))


def test_effort_boundaries():
    feasible = THRESHOLDS["feasible_days"]
    assert verdict_for([manual_hours(feasible)]).verdict == "feasible"
    assert verdict_for([manual_hours(feasible + 0.5)]).verdict == "needs adaptation"
    assert verdict_for([manual_hours(THRESHOLDS["adaptation_days"])]).verdict == "needs adaptation"
    assert verdict_for([manual_hours(THRESHOLDS["adaptation_days"] + 1)]).verdict == "difficult"
    assert verdict_for([manual_hours(THRESHOLDS["infeasible_days"])]).verdict == "difficult"
    assert verdict_for([manual_hours(THRESHOLDS["infeasible_days"] + 1)]).verdict == "infeasible"


def test_nothing_to_do_is_feasible():
    assert verdict_for([]).verdict == "feasible"


def test_a_cuda_kernel_as_the_only_blocker_is_not_feasible():
    kernel = finding("OPS001", migration="manual", severity="blocker", hours=(2, 8), domain="custom_ops", path="k.cu")
    result = verdict_for([kernel])
    assert result.verdict == "difficult"
    assert "OPS001" in result.drivers[0].en


def test_a_high_severity_kernel_port_alone_needs_adaptation():
    kernel = finding("OPS001", migration="manual", severity="high", hours=(2, 8), domain="custom_ops", path="k.cu")
    result = verdict_for([kernel])
    assert result.verdict == "needs adaptation"
    assert any("OPS001" in d.en for d in result.drivers)


def test_unsupported_items_need_adaptation_but_info_ones_do_not():
    assert verdict_for([finding(migration="unsupported", severity="medium")]).verdict == "needs adaptation"
    assert verdict_for([finding(migration="unsupported", severity="info")]).verdict == "feasible"


def test_unsupported_blocker_in_every_phase_is_infeasible_but_in_one_phase_difficult():
    everywhere = finding(migration="unsupported", severity="blocker", phases=("training", "inference"))
    assert verdict_for([everywhere], ("training", "inference")).verdict == "infeasible"
    one_phase = finding(migration="unsupported", severity="blocker", phases=("training",))
    assert verdict_for([one_phase], ("training", "inference")).verdict == "difficult"


# Bottlenecks ------------------------------------------------------------------------------------------------
def test_bottlenecks_skip_trivial_items_and_sort_by_severity_then_size():
    findings = [
        finding("DEV101", hours=(0, 0.25)),  # trivial
        finding("ATT001", migration="manual", severity="medium", hours=(8, 40), domain="attention"),
        finding("OPS001", migration="manual", severity="high", hours=(2, 8), domain="custom_ops"),
    ]
    items = bottlenecks(findings, effort(findings, ["training"]))
    assert [b.id for b in items] == ["BN-OPS001", "BN-ATT001"]
    assert items[0].locations == ["a.py:1"]
    assert items[1].plan and items[1].estimate.high_days > 0


# Calibration ------------------------------------------------------------------------------------------------
FACTORS = plan_data()["calibration"]


def test_calibration_good_narrows_and_lowers():
    before = finding("ATT001", migration="manual", confidence="medium", hours=(8, 24))
    after = calibrate([before], [RuleCalibration(rule="ATT001", outcome="good")], FACTORS)[0]
    assert after.confidence == "high"
    assert after.effort_hours.low < before.effort_hours.low
    assert after.effort_hours.high < before.effort_hours.high
    assert after.effort_hours.high - after.effort_hours.low < before.effort_hours.high - before.effort_hours.low


@pytest.mark.parametrize("outcome", ["missing", "wrong"])
def test_calibration_missing_or_wrong_makes_blockers(outcome):
    before = finding("PRC020", migration="rewrite", severity="low", hours=(0.5, 2))
    after = calibrate([before, finding("DEV101")], [RuleCalibration(rule="PRC020", outcome=outcome)], FACTORS)
    assert after[0].severity == "blocker" and after[0].migration == "manual"
    assert after[1] == finding("DEV101")  # rules not measured are untouched
    assert verdict_for(after).verdict == "difficult"


def test_calibration_slower_widens_the_high_end():
    after = calibrate([finding(hours=(1, 2))], [RuleCalibration(rule="DEV101", outcome="slower")], FACTORS)[0]
    assert after.effort_hours.high == pytest.approx(2 * FACTORS["slower_high"])


def test_calibration_reaches_the_report(tmp_path):
    root = write(tmp_path, {"train.py": "import torch\n\nif __name__ == '__main__':\n    torch.cuda.synchronize()\n"})
    plain = run(root)
    rule = plain.findings[0].rule
    measured = analyze(root, AnalyzeOptions(jobs=1, calibration=[RuleCalibration(rule=rule, outcome="missing")]))
    assert plain.verdict.verdict == "feasible"
    assert measured.verdict.verdict == "difficult"
    assert plain.summary.by_severity["blocker"] == 0
    assert measured.summary.by_severity["blocker"] == 1  # the summary counts the calibrated findings


# Phases -----------------------------------------------------------------------------------------------------
TRAIN = """
import torch
from pkg.model import Net

if __name__ == "__main__":
    net = Net()
    opt = torch.optim.AdamW(net.parameters())
    loss = net(torch.randn(2)).sum()
    loss.backward()
    opt.step()
"""
SERVE = """
import torch
from pkg import model

@torch.no_grad()
def answer(x):
    return model.Net()(x)

if __name__ == "__main__":
    answer(torch.randn(2))
"""
MODEL = """
import torch
from .kernels import fused

class Net(torch.nn.Module):
    def __init__(self):
        super().__init__()
        self.proj = torch.nn.Linear(2, 2)

    def forward(self, x):
        return fused(self.proj(x).cuda())
"""
KERNELS = """
import torch

def fused(x):
    torch.cuda.synchronize()
    return torch.compile(lambda y: y * 2)(x)
"""
ONLY_TRAINING = """
import torch

def train_only(x):
    return x.to("cuda")
"""


def phase_project(tmp_path: Path, extra: dict[str, str] | None = None) -> Path:
    files = {"train.py": TRAIN, "serve.py": SERVE, "pkg/__init__.py": "", "pkg/model.py": MODEL,
             "pkg/kernels.py": KERNELS, "pkg/train_utils.py": ONLY_TRAINING}
    files.update(extra or {})
    return write(tmp_path, files)


def phases_of(report, path: str) -> set[tuple[str, ...]]:
    return {tuple(f.phases) for f in report.findings if f.path == path}


def test_phases_propagate_through_absolute_and_relative_imports(tmp_path):
    report = run(phase_project(tmp_path, {"train.py": TRAIN.replace("import torch\n", "import torch\nimport pkg.train_utils\n", 1)}))
    entries = {e.path: e.phases for e in report.phase_matrix.entries}
    assert entries == {"serve.py": ["inference"], "train.py": ["training"]}
    assert phases_of(report, "pkg/kernels.py") == {("training", "inference")}  # reached from both, via `from .kernels`
    assert phases_of(report, "pkg/train_utils.py") == {("training",)}
    assert report.phase_matrix.phases == ["training", "inference"]
    row = next(r for r in report.phase_matrix.rows if r.item.startswith("DEV501"))
    assert row.cells == {"training": "P0", "inference": "P0"}
    auto = next(r for r in report.phase_matrix.rows if r.item.startswith("transfer_to_npu"))
    assert auto.count == sum(1 for f in report.findings if f.severity == "info" and f.migration == "auto")


def test_phase_specific_items_are_p1_and_only_in_their_minimal_set(tmp_path):
    serve = SERVE + "\nimport os\nos.environ['CUDA_VISIBLE_DEVICES'] = '0'\n"
    report = run(phase_project(tmp_path, {"serve.py": serve}))
    rows = {r.item.split()[0]: r for r in report.phase_matrix.rows}
    specific = [r for r in rows.values() if r.cells.get("training") == "-"]
    assert specific, rows
    for row in specific:
        assert row.cells["inference"] == "P1"
        assert row.item in report.phase_matrix.minimal_sets["inference"]
        assert row.item not in report.phase_matrix.minimal_sets["training"]


def test_overrides_add_phases_by_glob(tmp_path):
    project = phase_project(tmp_path, {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n[tool.ascend-feasibility.phases]\nexport = ["pkg/train_utils.py"]\n'
    })
    report = run(project)
    assert phases_of(report, "pkg/train_utils.py") == {("export",)}


def test_shell_launch_lines_make_entries_and_take_their_phases(tmp_path):
    project = write(tmp_path, {
        "run.sh": "#!/bin/bash\nexport CUDA_VISIBLE_DEVICES=0\ntorchrun --nproc_per_node 8 tools/finetune.py --lr 1e-4\n",
        "tools/finetune.py": "import torch\n\ndef main():\n    torch.cuda.synchronize()\n",
    })
    report = run(project)
    assert [e.path for e in report.phase_matrix.entries] == ["tools/finetune.py"]
    assert phases_of(report, "run.sh") == {("training",)}


def test_console_scripts_are_entries(tmp_path):
    project = write(tmp_path, {
        "pyproject.toml": '[project]\nname = "p"\nversion = "0"\n[project.scripts]\np-export = "p.cli:main"\n',
        "p/__init__.py": "",
        "p/cli.py": "import torch\n\ndef main(model):\n    torch.onnx.export(model.cuda(), (), 'm.onnx')\n",
    })
    report = run(project)
    assert [(e.path, e.phases) for e in report.phase_matrix.entries] == [("p/cli.py", ["export"])]


# Architecture -----------------------------------------------------------------------------------------------
def test_architecture_lists_modules_layers_forward_and_family(tmp_path):
    report = run(phase_project(tmp_path))
    arch = report.architecture
    assert [(m.name, m.layers, m.forward) for m in arch.models] == [("Net", {"Linear": 1}, "pkg/model.py:10")]


def test_architecture_family_from_moe_layers(tmp_path):
    code = """
import torch.nn as nn

class Expert(nn.Module):
    def __init__(self):
        super().__init__()
        self.up = nn.Linear(8, 32)

class MoELayer(nn.Module):
    def __init__(self):
        super().__init__()
        self.router = nn.Linear(8, 4)
        self.experts = nn.ModuleList([Expert() for _ in range(4)])

    def forward(self, x):
        return x
"""
    arch = run(write(tmp_path, {"model.py": code})).architecture
    assert arch.family == "MoE"
    assert {m.name for m in arch.models} == {"Expert", "MoELayer"}
    assert arch.evidence


def test_config_files_take_the_phases_of_what_names_them(tmp_path):
    project = phase_project(tmp_path, {
        "train.py": TRAIN + "\nDS_CONFIG = 'configs/ds.json'\n",
        # NCCL variables: a site-scoped rule (DeepSpeed configs make one project-level finding)
        "configs/ds.json": '{"env": {"NCCL_SOCKET_IFNAME": "eth0"}, "train_micro_batch_size_per_gpu": 4}\n',
        "configs/unnamed.json": '{"env": {"NCCL_SOCKET_IFNAME": "eth1"}}\n',
    })
    report = run(project)
    assert phases_of(report, "configs/ds.json") == {("training",)}
    assert phases_of(report, "configs/unnamed.json") == {("training", "inference")}  # unplaced: every phase


def test_scripts_without_a_main_guard_are_entries_but_imported_modules_are_not(tmp_path):
    project = write(tmp_path, {
        # nanoGPT style: top-level training loop, no __main__ guard
        "train.py": "import torch\nfrom model import GPT\nmodel = GPT().cuda()\nopt = torch.optim.AdamW(model.parameters())\n"
                    "for step in range(10):\n    model(torch.ones(1)).sum().backward()\n    opt.step()\n",
        "model.py": "import torch\n\nclass GPT(torch.nn.Module):\n    pass\n\nprint('imported')\n",
    })
    report = run(project)
    assert [(e.path, e.phases) for e in report.phase_matrix.entries] == [("train.py", ["training"])]


def test_weak_signals_do_not_add_a_phase_to_an_entry(tmp_path):
    train = TRAIN + "\n@torch.no_grad()\ndef estimate_loss(net):\n    return net(torch.randn(2))\n"
    report = run(phase_project(tmp_path, {"train.py": train}))
    assert {e.path: e.phases for e in report.phase_matrix.entries}["train.py"] == ["training"]


def test_architecture_ignores_test_fixtures_and_counts_family_evidence(tmp_path):
    project = write(tmp_path, {
        "model.py": "import torch.nn as nn\n\nclass LlamaDecoderLayer(nn.Module):\n    pass\n\n"
                    "class LlamaForCausalLM(nn.Module):\n    pass\n\nclass RouterLogger(nn.Module):\n    pass\n",
        "tests/test_moe.py": "import torch.nn as nn\n\nclass FakeExpert(nn.Module):\n    pass\n\nclass FakeMoE(nn.Module):\n    pass\n",
    })
    arch = run(project).architecture
    assert {m.name for m in arch.models} == {"LlamaDecoderLayer", "LlamaForCausalLM", "RouterLogger"}
    assert arch.family == "decoder LLM"
    assert arch.evidence[0].startswith("2 class")


def test_phase_signals_are_knowledge_data():
    from knowledge import load_phase_signals

    signals = load_phase_signals()
    for table in (signals.names, signals.methods, signals.name_hints):
        assert set(table) == set(PHASES)
    assert [f.name for f in signals.family][:2] == ["vision-language", "MoE"]  # tie-break order is data too
    assert signals.attention_by_rule["ATT001"] == "flash-attn"
