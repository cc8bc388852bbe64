"""The planning layer: phase assignment through imports and overrides, effort arithmetic, verdict boundaries,
bottlenecks and calibration. Small projects are written to a temporary folder and analyzed end to end."""

from __future__ import annotations

import math
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.models import PHASES, CustomOpRow, EffortHours, Finding, PhaseEntry, ReplacementText, Text
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.domains.phases.calibration import RuleCalibration, calibrate
from ascend_feasibility.domains.phases.estimate import estimate, kernel_hours
from ascend_feasibility.domains.phases.plan import PhaseAssignment, bottlenecks, finding_phases, plan_data, verdict

from tests.helpers import scan
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


# Effort: work items, not sites ------------------------------------------------------------------------------
EST = plan_data()["estimate"]


def product_or_test(path: str) -> str:
    return "test" if path.startswith("tests/") else "product"


def effort(findings, phases, kernels=(), entries=(), npu_code=()):
    return estimate(list(findings), list(phases), list(entries), list(kernels), list(npu_code), product_or_test, plan_data())


def required(work, kind=None):
    return [i for i in work.items if i.bucket == "required" and (kind is None or i.kind == kind)]


def kernel_row(name="k", path="k.cu", line=1, lines=10, cls="other", tier="high", features=()):
    return CustomOpRow(kernel=name, path=path, line=line, kind="cuda", lines_of_code=lines, classification=cls,
                       features=list(features), callers=[], replacement_path="ascend-c", replacement=Text(en=cls, zh=cls),
                       effort_tier=tier)


def test_step0_items_come_once_whatever_the_number_of_sites_and_name_the_entry_files():
    entries = [PhaseEntry(path=p, phases=["training"], evidence=[]) for p in ("train.py", "eval.py", "tests/test_x.py")]
    one = effort([finding("DEV101", severity="info")], ["training"], entries=entries)
    many = effort([finding("DEV101", severity="info", path=f"m{n}.py") for n in range(200)], ["training"], entries=entries)
    for work in (one, many):
        step0 = [i for i in work.items if i.step0]
        assert [i.rule for i in step0] == ["adoption:environment", "adoption:entry-points"] or \
            sorted(i.rule for i in step0) == ["adoption:entry-points", "adoption:environment"]
    entry = next(i for i in many.items if i.rule == "adoption:entry-points")
    assert entry.count == 200 and entry.sites == ["train.py", "eval.py"]  # test entries are not the port's entry files
    assert entry.hours == next(i for i in one.items if i.rule == "adoption:entry-points").hours
    adoption = next(a for a in EST["adoption"] if a["id"] == "entry-points")
    assert entry.centre_hours == pytest.approx(adoption["centre"] + adoption["per_entry"] * 2)
    assert one.total == many.total  # informational sites transfer_to_npu rewrites cost nothing of their own


def test_project_level_adoption_items_are_costed_once():
    deepspeed = next(a for a in EST["adoption"] if a["id"] == "deepspeed")
    sites = [finding("DST014", migration="manual", severity="medium", hours=(2, 16), path=f"f{n}.py", domain="distributed")
             for n in range(40)]
    item = next(i for i in effort(sites, ["training"]).items if i.rule == "adoption:deepspeed")
    assert item.count == 40 and item.kind == "adoption"
    assert item.centre_hours == deepspeed["centre"]
    assert "once per project" in item.arithmetic.en and "每个项目一次" in item.arithmetic.zh


def test_mechanical_rewrites_grow_per_file_not_per_site():
    data = EST["mechanical"]
    one_file = effort([finding("DEV102", migration="rewrite", hours=(0.25, 1), line=n) for n in range(1, 31)], ["training"])
    item = required(one_file, "mechanical")[0]
    base = math.sqrt(0.25 * 1)
    assert item.files == 1 and item.count == 30
    assert item.centre_hours == pytest.approx(base * (1 + data["per_extra_site"] * 29), abs=0.01)
    spread = effort([finding("DEV102", migration="rewrite", hours=(0.25, 1), path=f"f{n}.py") for n in range(30)], ["training"])
    per_file = required(spread, "mechanical")[0]
    assert per_file.centre_hours == pytest.approx(base * min(data["cap"], 1 + data["per_extra_file"] * 29), abs=0.01)
    assert per_file.centre_hours > item.centre_hours * 3
    huge = effort([finding("DEV102", migration="rewrite", hours=(0.25, 1), path=f"f{n}.py") for n in range(500)], ["training"])
    assert required(huge, "mechanical")[0].centre_hours == pytest.approx(base * data["cap"], abs=0.01)  # capped


def test_engineering_items_count_distinct_apis_not_call_sites():
    data = EST["engineering"]
    same_api = [finding("DEV111", migration="manual", hours=(4, 16), line=n) for n in range(1, 21)]
    item = required(effort(same_api, ["training"]), "engineering")[0]
    assert item.patterns == 1
    assert item.centre_hours == pytest.approx(8 * (1 + data["per_extra_site"] * 19), abs=0.01)
    two_apis = same_api[:10] + [f.model_copy(update={"symbol": "other.api"}) for f in same_api[10:]]
    item2 = required(effort(two_apis, ["training"]), "engineering")[0]
    assert item2.patterns == 2
    assert item2.centre_hours == pytest.approx(8 * (1 + data["per_extra_pattern"] + data["per_extra_site"] * 18), abs=0.01)


def test_engineering_items_split_by_replacement_so_each_bottleneck_has_its_own_advice():
    a = finding("OPS010", migration="manual", severity="high", hours=(2, 8), line=1, domain="custom_ops")
    b = a.model_copy(update={"line": 2, "replacement": ReplacementText(en="other advice", zh="其他", code=None)})
    work = effort([a, b], ["training"])
    items = bottlenecks(work)
    ops = [x for x in items if x.rule == "OPS010"]
    assert sorted(x.replacement.en for x in ops) == ["other advice", "r"]
    assert len({x.id for x in ops}) == 2


def test_kernels_are_sized_by_their_lines_and_hard_features():
    data = EST["kernel"]
    small = kernel_row(lines=4)
    large = kernel_row(lines=105, line=20)
    hard = kernel_row(lines=105, line=200, features=["shared memory", "tensor-core MMA"])
    for row in (small, large, hard):
        work = effort([finding("OPS002", migration="manual", severity="blocker", hours=(24, 80), path="k.cu",
                               line=row.line, domain="custom_ops")], ["training"], kernels=[row])
        item = required(work, "kernel")[0]
        expected = data["tier_centre"]["high"] + data["per_line"]["high"] * row.lines_of_code + sum(
            data["features"][f] for f in row.features)
        assert item.centre_hours == pytest.approx(expected, abs=0.01)
        assert f"{row.lines_of_code} lines" in item.arithmetic.en
    assert kernel_hours(small, EST)[0] < kernel_hours(large, EST)[0] < kernel_hours(hard, EST)[0]


@pytest.mark.parametrize("cls", ["dropout", "transpose", "copy_fill", "gather_scatter", "elementwise"])
def test_trivial_kernel_classes_are_low_tier_compositions(cls):
    row = kernel_row(cls=cls, tier="high", lines=60, features=["shared memory", "warp intrinsics"])
    hours, how, _ = kernel_hours(row, EST)
    assert hours == pytest.approx(EST["kernel"]["tier_centre"]["low"] + EST["kernel"]["per_line"]["low"] * 60)
    assert "trivial" in how


def test_trivial_classes_named_in_the_plan_are_low_tier_pytorch_classes_of_the_knowledge_base():
    from ascend_feasibility.knowledge import load_knowledge

    kb = load_knowledge()
    for name in EST["kernel"]["trivial_classes"]:
        assert kb.kernel_class(name).name == name and kb.kernel_class(name).tier == "low"
    assert kb.classify_kernel("dropout_kernel").name == "dropout"
    assert kb.classify_kernel("transform_0213").name == "transpose"
    assert kb.classify_kernel("transformer_fwd").name != "transpose"
    assert set(EST["kernel"]["features"]) >= {"shared memory", "warp intrinsics", "tensor-core MMA", "inline PTX", "templates"}


def test_a_triton_kernel_ported_with_triton_ascend_stays_at_most_medium_tier():
    row = kernel_row(lines=40, tier="high").model_copy(update={"kind": "triton", "replacement_path": "triton-ascend"})
    cap = EST["kernel"]["triton_max_tier"]
    assert kernel_hours(row, EST)[0] == pytest.approx(EST["kernel"]["tier_centre"][cap] + EST["kernel"]["per_line"][cap] * 40)


def test_a_kernel_with_an_npu_path_or_fallback_costs_only_validation():
    row = kernel_row(lines=300, features=["inline PTX"])
    kernel = finding("OPS002", migration="manual", severity="blocker", hours=(24, 80), path="k.cu", domain="custom_ops")
    for reach in ("npu-path", "optional", "cuda-only-guarded"):
        work = effort([kernel.model_copy(update={"reach": reach})], ["training"], kernels=[row])
        assert not required(work, "kernel")
        item = next(i for i in work.items if i.kind == "validation")
        assert item.bucket == "optional" and item.centre_hours == EST["kernel"]["validation"]


def test_validation_only_kernels_are_costed_once_per_kernel():
    rows = [kernel_row(name=f"k{n}", line=n * 10 + 1, lines=200) for n in range(3)]
    kernels = [finding("OPS002", migration="manual", severity="blocker", hours=(24, 80), path="k.cu", line=r.line,
                       domain="custom_ops").model_copy(update={"reach": "npu-path", "symbol": r.kernel}) for r in rows]
    work = effort(kernels, ["training"], kernels=rows)
    validation = [i for i in work.items if i.kind == "validation"]
    assert len(validation) == 1 and validation[0].count == 3
    assert validation[0].centre_hours == pytest.approx(3 * EST["kernel"]["validation"])  # not one kernel's validation


def test_required_optional_and_tests_are_estimated_apart_and_only_required_decides():
    runs = finding("ATT001", migration="manual", severity="medium", hours=(8, 16), domain="attention")
    optional = runs.model_copy(update={"reach": "optional", "line": 2, "symbol": "y"})
    test = runs.model_copy(update={"role": "test", "path": "tests/test_a.py"})
    alone = effort([runs], ["training"])
    work = effort([runs, optional, test], ["training"])
    assert work.total == alone.total
    assert work.optional.high_days > 0 and work.tests.high_days > 0
    assert {i.bucket for i in work.items} == {"required", "optional", "tests"}
    assert verdict(work_findings := [runs, optional, test], work, ["training"], []).verdict == \
        verdict(work_findings[:1], alone, ["training"], []).verdict


def test_ranges_are_spread_by_confidence_and_stay_under_four_times():
    for confidence, spread in EST["spread"].items():
        item = required(effort([finding("DEV111", migration="manual", confidence=confidence, hours=(2, 8))], ["training"]),
                        "engineering")[0]
        assert item.hours.low == pytest.approx(4 / spread, abs=0.01)
        assert item.hours.high == pytest.approx(4 * spread, abs=0.01)
        assert item.hours.high / item.hours.low < 4


def test_totals_per_domain_phase_and_overall_are_sums_of_required_items_in_days():
    findings = [
        finding("DEV111", migration="manual", hours=(1, 4), phases=("training",)),
        finding("ATT001", migration="manual", hours=(8, 32), domain="attention", phases=("training", "inference")),
    ]
    work = effort(findings, ["training", "inference"])
    items = required(work)
    assert work.total.high_days == pytest.approx(sum(i.hours.high for i in items) / DAY, abs=0.02)
    attention = next(i for i in items if i.domain == "attention")
    assert work.by_domain["attention"].high_days == pytest.approx(attention.hours.high / DAY, abs=0.01)
    assert work.by_phase["inference"].high_days < work.by_phase["training"].high_days
    assert sum(i.share for i in items) == pytest.approx(1, abs=0.01)


def test_suppressed_findings_cost_nothing():
    suppressed = finding(migration="manual", hours=(8, 16)).model_copy(update={"suppressed": True})
    assert effort([suppressed], ["training"]).total.high_days == 0


def test_already_ported_sites_are_counted_and_said():
    runs = finding("DEV111", migration="manual", hours=(1, 4))
    ported = [runs.model_copy(update={"reach": "npu-path", "line": n}) for n in range(2, 5)]
    work = effort([runs, *ported], ["training"], npu_code=["acc/npu_accelerator.py"])
    assert (work.ported.npu_path, work.ported.total) == (3, 4)
    result = verdict([runs, *ported], work, ["training"], ["acc/npu_accelerator.py"])
    assert "already ported: 3 of 4 sites have an NPU path" in result.drivers[0].en


def test_torch_seeding_every_device_is_no_ported_site():
    # round 17 (LLaMA-Adapter, HunyuanDiT): `torch.cuda.manual_seed_all(s)` after `torch.manual_seed(s)` has an NPU
    # path because torch seeds every device, not because the project ported anything: no "already ported" line
    seeded = scan("import torch\n\ndef seed(s):\n    torch.manual_seed(s)\n    torch.cuda.manual_seed_all(s)\n"
                  "    return torch.ones(1).cuda()\n").findings
    assert [f.reach for f in seeded if f.rule == "DEV106"] == ["npu-path"]
    # so is a CUDA check that guards only such a call (diffusers' glm_image pipeline)
    checked = scan("import torch\n\ndef seed(s):\n    torch.manual_seed(s)\n    if torch.cuda.is_available():\n"
                   "        torch.cuda.manual_seed_all(s)\n").findings
    assert {f.rule: f.reach for f in checked if f.rule in {"DEV104", "DEV106"}} == {"DEV104": "npu-path", "DEV106": "npu-path"}
    assert effort(checked, ["training"]).ported is None
    work = effort(seeded, ["training"])
    assert work.ported is None
    assert not any("already ported" in d.en for d in verdict(seeded, work, ["training"], []).drivers)
    # the project's own NPU arm is a ported site
    own = scan("import torch\n\ndef seed(s, device):\n    if device.type == 'npu':\n        torch.npu.manual_seed(s)\n"
               "    else:\n        torch.cuda.manual_seed(s)\n").findings
    assert [f.reach for f in own if f.rule == "DEV106"] == ["npu-path"]
    assert effort(own, ["training"]).ported.npu_path == 1


def test_a_project_with_its_own_npu_backend_is_never_infeasible():
    everywhere = finding(migration="unsupported", severity="blocker", phases=("training",))
    work = effort([everywhere], ["training"], npu_code=["x/npu.py"])
    assert verdict([everywhere], work, ["training"], []).verdict == "infeasible"
    assert verdict([everywhere], work, ["training"], ["x/npu.py"]).verdict == "difficult"


# Verdict ----------------------------------------------------------------------------------------------------
def verdict_for(findings, phases=("training",)):
    return verdict(findings, effort(findings, list(phases)), list(phases), [])


def manual_hours(days: float) -> Finding:
    """One engineering item whose high end is `days` (the Step 0 items add their own hours)."""
    spread = EST["spread"]["high"]
    step0 = sum(a["centre"] for a in EST["adoption"] if a.get("always")) * EST["spread"]["medium"]
    centre = max(days * DAY - step0, 0.01) / spread
    return finding(migration="manual", severity="medium", hours=(centre, centre))


def test_effort_boundaries():
    feasible = THRESHOLDS["feasible_days"]
    assert verdict_for([manual_hours(feasible - 0.1)]).verdict == "feasible"
    assert verdict_for([manual_hours(feasible + 0.5)]).verdict == "needs adaptation"
    assert verdict_for([manual_hours(THRESHOLDS["adaptation_days"] - 0.1)]).verdict == "needs adaptation"
    assert verdict_for([manual_hours(THRESHOLDS["adaptation_days"] + 1)]).verdict == "difficult"
    assert verdict_for([manual_hours(THRESHOLDS["infeasible_days"] - 0.1)]).verdict == "difficult"
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
def test_bottlenecks_skip_trivial_items_and_sort_by_high_end_cost():
    findings = [
        finding("DEV101", hours=(0, 0.25)),  # trivial
        finding("ATT001", migration="manual", severity="medium", hours=(8, 40), domain="attention"),
        finding("OPS001", migration="manual", severity="high", hours=(2, 8), domain="custom_ops"),
    ]
    items = bottlenecks(effort(findings, ["training"]))
    ids = [b.id for b in items]
    assert ids.index("BN-ATT001") < ids.index("BN-OPS001")  # larger first, whatever the severity
    assert "BN-DEV101" not in ids
    assert [b.estimate.high_days for b in items] == sorted((b.estimate.high_days for b in items), reverse=True)
    ops = next(b for b in items if b.id == "BN-OPS001")
    assert ops.locations == ["a.py:1"] and ops.plan


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
    # the row counts the counted sites: train_only(), which nothing names in a package no build file publishes, is
    # optional (analyzer/context/unreferenced.py)
    assert auto.count == sum(1 for f in report.findings if f.severity == "info" and f.migration == "auto"
                             and f.reach == "runs")


def test_phase_specific_items_are_p1_and_only_in_their_minimal_set(tmp_path):
    serve = SERVE + "\nimport os\nos.environ['CUDA_VISIBLE_DEVICES'] = '1'\n"
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
        "configs/unnamed.json": '{"env": {"NCCL_IB_DISABLE": "1"}}\n',
    })
    report = run(project)
    assert phases_of(report, "configs/ds.json") == {("training",)}
    assert phases_of(report, "configs/unnamed.json") == {("training", "inference")}  # unplaced: every phase


def test_a_setting_folded_from_several_configs_takes_the_phases_of_its_referred_files(tmp_path):
    """V-Express (round 30 B2): DST050 folds zero2_config.json, which the training launcher passes, and
    zero2_config_bf16.json, which only a commented launcher line names. A file nothing refers to adds no phase beside
    one that has a referrer (the setting runs where that one runs); where none has one, every phase, as before."""
    project = phase_project(tmp_path, {
        "train.py": TRAIN + "\nDS_CONFIG = 'configs/ds.json'\n",
        "configs/ds.json": '{"env": {"NCCL_SOCKET_IFNAME": "eth0"}, "train_micro_batch_size_per_gpu": 4}\n',
        "configs/unnamed.json": '{"env": {"NCCL_SOCKET_IFNAME": "eth1"}}\n',
    })
    report = run(project)
    [folded] = [f for f in report.findings if f.symbol and "NCCL_SOCKET_IFNAME" in f.symbol]
    assert folded.path == "configs/ds.json" and len(folded.sites) == 2
    assert folded.phases == ["training"]  # ds.json's training; the unplaced file adds none
    # the other file named only in a commented launcher line: still no referrer
    write(tmp_path, {"train.sh": "# DS=configs/unnamed.json\nDS=configs/ds.json\npython train.py --ds $DS\n"})
    report = run(project)
    [folded] = [f for f in report.findings if f.symbol and "NCCL_SOCKET_IFNAME" in f.symbol]
    assert folded.phases == ["training"]
    # no file of the setting has a referrer: every phase
    write(tmp_path, {"train.py": TRAIN, "train.sh": "python train.py\n"})
    report = run(project)
    [folded] = [f for f in report.findings if f.symbol and "NCCL_SOCKET_IFNAME" in f.symbol]
    assert folded.phases == ["training", "inference"]


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
    from ascend_feasibility.knowledge import load_phase_signals

    signals = load_phase_signals()
    for table in (signals.names, signals.methods, signals.name_hints):
        assert set(table) == set(PHASES)
    assert [f.name for f in signals.family][:2] == ["vision-language", "MoE"]  # tie-break order is data too
    assert signals.attention_by_rule["ATT001"] == "flash-attn"


# Calibration from probes: only an NPU moves the estimate; timings move it only outside their spread ----------
def test_only_npu_measurements_apply():
    from types import SimpleNamespace

    from ascend_feasibility.analyzer.core.calibration import applies

    assert applies(SimpleNamespace(environment=SimpleNamespace(device_type="npu")))
    assert not applies(SimpleNamespace(environment=SimpleNamespace(device_type="cpu")))
    assert not applies(SimpleNamespace(environment=SimpleNamespace(device_type="cuda")))


def test_a_slower_timing_within_its_spread_is_no_difference():
    from types import SimpleNamespace

    from ascend_feasibility.analyzer.core.calibration import effective_verdict, timing_spread

    def result(speedup, p95):
        timing = SimpleNamespace(median_ms=10.0, p95_ms=p95)
        return SimpleNamespace(verdict="slower", speedup=speedup, reference_timing=timing, candidate_timing=timing)

    assert timing_spread(result(0.9, 12.0)) == pytest.approx(0.2)
    assert effective_verdict(result(0.9, 12.0)) == "good"  # 11 % slower inside a 20 % spread
    assert effective_verdict(result(0.5, 12.0)) == "slower"  # twice as slow is outside it


# Entries and families -------------------------------------------------------------------------------------
def test_name_hints_match_whole_words():
    from ascend_feasibility.domains.phases.facts import NAME_HINTS
    from ascend_feasibility.domains.phases.plan import hinted

    assert not hinted(".github/check-extraindexurl.py", NAME_HINTS["training"])
    assert hinted("train.py", NAME_HINTS["training"]) and hinted("scripts/run_training.py", NAME_HINTS["training"])
    assert hinted("pretrain_gpt.py", NAME_HINTS["training"])
    assert not hinted("apply_patch.py", NAME_HINTS["inference"])


def test_setup_py_and_launchers_are_not_entries(tmp_path):
    root = write(tmp_path, {
        "setup.py": "import torch\nfrom setuptools import setup\nif __name__ == '__main__':\n    setup(name='x')\n",
        "launch.py": "import subprocess\nif __name__ == '__main__':\n    subprocess.run(['python', 'train.py'])\n",
        "train.py": "import torch\nif __name__ == '__main__':\n    torch.optim.SGD([], lr=0.1).step()\n",
    })
    paths = [e.path for e in run(root).phase_matrix.entries]
    assert "train.py" in paths and "setup.py" not in paths and "launch.py" not in paths


def test_a_library_without_an_entry_has_no_model_family(tmp_path):
    root = write(tmp_path, {"setup.py": "from setuptools import setup\nsetup(name='lib')\n",
                            "lib/layers.py": "import torch.nn as nn\n\nclass GPTBlock(nn.Module):\n"
                                             "    def forward(self, x):\n        return x\n"})
    assert run(root).architecture.family == "library"


def test_whisper_like_models_are_speech_encoder_decoders(tmp_path):
    model = ("import torch.nn as nn\n\nclass AudioEncoder(nn.Module):\n    def forward(self, x):\n        return x\n\n"
             "class TextDecoder(nn.Module):\n    def forward(self, x):\n        return x\n\n"
             "class Whisper(nn.Module):\n    def forward(self, x):\n        return x\n")
    root = write(tmp_path, {"whisper/model.py": model,
                            "transcribe.py": "from whisper.model import Whisper\nif __name__ == '__main__':\n    Whisper()\n"})
    assert run(root).architecture.family == "speech (encoder-decoder)"


def test_a_src_layout_module_its_trainer_imports_serves_training(tmp_path):
    """nanotron (round-6 A89, B26): run_train.py imports nanotron.trainer, which imports nanotron.models.llama, all
    under src/; the module was labelled inference only (its own no_grad) because `nanotron.models.llama` did not name
    src/nanotron/models/llama.py."""
    report = run(write(tmp_path, {
        "run_train.py": "from nanotron.trainer import Trainer\nTrainer().train()\n",
        "run_generate.py": "import torch\nfrom nanotron.models.llama import Llama\nwith torch.no_grad():\n    Llama().generate()\n",
        "src/nanotron/__init__.py": "__version__ = '0'\n",
        "src/nanotron/trainer.py": ("import torch\nfrom nanotron.models.llama import Llama\n\n\nclass Trainer:\n"
                                    "    def train(self):\n        loss = Llama()(torch.ones(1))\n        loss.backward()\n"),
        "src/nanotron/models/__init__.py": "",
        "src/nanotron/models/llama.py": ("import torch\n\n\nclass Llama(torch.nn.Module):\n    def forward(self, x):\n"
                                         "        return x.cuda()\n\n    @torch.no_grad()\n    def generate(self):\n"
                                         "        torch.cuda.synchronize()\n"),
    }))
    by_line = {f.line: tuple(f.phases) for f in report.findings if f.path == "src/nanotron/models/llama.py"}
    assert by_line[6] == ("training", "inference")  # forward: both entries run it
    assert by_line[10] == ("inference",)  # inside generate


def test_a_demo_helper_package_imported_beside_the_app_serves_the_apps_phase(tmp_path):
    """CogVideo (round-6 B15): the gradio app imports rife_model beside it, which imports `rife.RIFE_HDv3` from the
    package beside them; the module, whose own code builds an optimizer and DDP, was labelled training because neither
    import named a file."""
    report = run(write(tmp_path, {
        "inference/demo/app.py": ("import gradio as gr\nimport utils\nfrom rife_model import load\nload()\n"
                                  "gr.Interface(fn=print).launch()\n"),
        "inference/demo/rife_model.py": "from rife.RIFE_HDv3 import Model\n\n\ndef load():\n    return Model()\n",
        "inference/demo/rife/__init__.py": "",
        "inference/demo/rife/RIFE_HDv3.py": ("import torch\nfrom torch.optim import AdamW\n\n\nclass Model:\n"
                                             "    def __init__(self):\n        self.optimG = AdamW([], lr=1e-6)\n"
                                             "        self.device = torch.device('cuda')\n\n    def update(self, loss):\n"
                                             "        self.optimG.zero_grad()\n        loss.backward()\n"),
        # `import utils` is the utils.py beside the app, not the training package finetune/utils/
        "inference/demo/utils.py": "import torch\nDEVICE = torch.device('cuda')\n",
        "finetune/train.py": "import torch\nfrom utils.memory_utils import free\nfree()\ntorch.ones(1).backward()\n",
        "finetune/utils/__init__.py": "from .memory_utils import free\n",
        "finetune/utils/memory_utils.py": "import torch\n\n\ndef free():\n    torch.cuda.empty_cache()\n",
    }))
    assert phases_of(report, "inference/demo/rife/RIFE_HDv3.py") == {("inference",)}
    assert phases_of(report, "finetune/utils/memory_utils.py") == {("training",)}


def test_a_kv_cache_attention_call_serves_inference_only(tmp_path):
    """nanotron starcoder2.py:832 (round-6 A3, B24): flash_attn_with_kvcache in the q_length=1 decode step of a model
    file that both the trainer and the generator import has no backward: its finding is inference's, the file's
    other findings both phases'."""
    model = ("import torch\nfrom flash_attn import flash_attn_func, flash_attn_with_kvcache\n\n\n"
             "def attend(q, k, v, store):\n    if store is None:\n        return flash_attn_func(q, k, v)\n"
             "    return flash_attn_with_kvcache(q, store['k'], store['v'])\n")
    report = run(write(tmp_path, {
        "train.py": "import torch\nfrom model import attend\nattend(1, 2, 3, None).backward()\n",
        "generate.py": "import torch\nfrom model import attend\nwith torch.no_grad():\n    attend(1, 2, 3, {})\n",
        "model.py": model,
    }))
    by_rule = {f.rule: tuple(f.phases) for f in report.findings if f.path == "model.py" and f.rule.startswith("ATT")}
    assert by_rule["ATT003"] == ("inference",)
    assert by_rule["ATT001"] == ("training", "inference")


def test_findings_inside_a_function_named_for_a_phase_serve_that_phase(tmp_path):
    """nanotron llama.py (round-6 A): `_forward_inference` (the KV-cache path) and `_forward_training` sit in one model
    file that the trainer and the generator both import; the last word of the function's name says which phase its code
    serves. A word that only contains a phase's word (`retrain_cache`'s `retrain`) says nothing."""
    model = ("import torch\n\n\nclass Attention(torch.nn.Module):\n"
             "    def _forward_inference(self, x):\n        torch.cuda.synchronize()\n        return x\n\n"
             "    def _forward_training(self, x):\n        return x.cuda()\n\n"
             "    def retrain_cache(self, x):\n        return torch.cuda.current_device()\n\n"
             "    def infer_init_method(self, x):\n        return torch.cuda.device_count()\n")
    report = run(write(tmp_path, {
        "train.py": "import torch\nfrom model import Attention\nAttention()._forward_training(1).backward()\n",
        "generate.py": "import torch\nfrom model import Attention\nwith torch.no_grad():\n    Attention()._forward_inference(1)\n",
        "model.py": model,
    }))
    by_line = {f.line: tuple(f.phases) for f in report.findings if f.path == "model.py"}
    assert by_line[6] == ("inference",) and by_line[10] == ("training",) and by_line[13] == ("training", "inference")
    assert by_line[16] == ("training", "inference")  # fairseq's infer_init_method: `infer` the verb, not a phase



def test_findings_inside_a_metric_class_serve_evaluation(tmp_path):
    """mmagic's Equivariance metric (round 28 A1 C10, B1 class 8, B2 C11): a class registered with a METRICS registry,
    or derived from a `*Metric` base, computes a reported score; its file is imported by the trainer (a validation
    loop) and by the test script, yet its code serves evaluation only. A class another registry registers
    (`@MODELS.register_module()`) keeps its file's phases, and without an evaluation phase in the project the metric
    keeps its file's phases too."""
    metrics = ("import torch\nfrom mmengine.registry import METRICS, MODELS\n\n\n@METRICS.register_module()\n"
               "class Equivariance:\n    def process(self, batch):\n        return batch.to(torch.float64).sum()\n\n\n"
               "class Psnr(BaseMetric):\n    def process(self, batch):\n        return batch.double().sum()\n\n\n"
               "@MODELS.register_module()\nclass Head:\n    def forward(self, x):\n        return x.to(torch.float64)\n")
    files = {
        "train.py": "import torch\nfrom metrics import Equivariance, Psnr, Head\nHead().forward(1).backward()\n",
        "evaluate.py": "import torch\nfrom metrics import Equivariance\nwith torch.no_grad():\n    Equivariance().process(1)\n",
        "metrics.py": metrics,
    }
    report = run(write(tmp_path, files))
    by_line = {f.line: (f.rule, tuple(f.phases), f.severity) for f in report.findings if f.path == "metrics.py"}
    assert by_line[8] == ("PRC001", ("evaluation",), "info")
    assert by_line[13][1] == ("evaluation",)
    assert by_line[19] == ("PRC001", ("training", "inference", "evaluation"), "medium")
    del files["evaluate.py"]
    files["serve.py"] = "import torch\nfrom metrics import Equivariance\nwith torch.no_grad():\n    Equivariance().process(1)\n"
    report = run(write(tmp_path / "no_eval", files))
    by_line = {f.line: tuple(f.phases) for f in report.findings if f.path == "metrics.py"}
    assert by_line[8] == ("training", "inference")


def test_findings_inside_a_metric_function_serve_evaluation(tmp_path):
    """BasicSR's PSNR helper (round 31 B1 class 7, B2 class 8): a function named with a metric word that returns the
    score serves evaluation, though the trainer's validation loop and the inference script import its file; its
    float64 is info. A loss-named function beside it (`psnr_loss`) keeps its file's phases and severity."""
    utils = ("import torch\n\n\ndef calculate_psnr_pt(img, img2):\n    img = img.to(torch.float64)\n"
             "    return 10.0 * torch.log10(1.0 / torch.mean((img - img2) ** 2))\n\n\n"
             "def psnr_loss(a, b):\n    return -torch.log10(torch.mean((a - b).to(torch.float64) ** 2))\n")
    files = {
        "train.py": ("import torch\nfrom utils import calculate_psnr_pt, psnr_loss\npsnr_loss(1, 2).backward()\n"
                     "with torch.no_grad():\n    print(calculate_psnr_pt(1, 2).mean().item())\n"),
        "evaluate.py": "import torch\nfrom utils import calculate_psnr_pt\nwith torch.no_grad():\n    calculate_psnr_pt(1, 2)\n",
        "utils.py": utils,
    }
    report = run(write(tmp_path, files))
    by_line = {f.line: (f.rule, tuple(f.phases), f.severity) for f in report.findings if f.path == "utils.py"}
    assert by_line[5] == ("PRC001", ("evaluation",), "info")
    assert by_line[10][0] == "PRC001" and by_line[10][2] == "medium" and "training" in by_line[10][1]

# A fine-tuning script whose own calls map datasets, running a vendored trainer (ChatGLM-6B ptuning/main.py with
# ptuning/trainer.py: `training_step`, `loss.backward()`, `self.optimizer.step()`).
FINETUNE = """import datasets
from trainer import Trainer

if __name__ == "__main__":
    data = datasets.load_dataset("json").map(len).map(len).shuffle()
    Trainer().train()
"""
TRAINER = """import torch


class Trainer:
    def train(self):
        for batch in range(3):
            loss = self.training_step(batch)
            torch.cuda.synchronize()

    def training_step(self, batch):
        loss = self.model(batch)
        loss.backward()
        self.optimizer.step()
        return loss
"""
# A data-preparation script whose helper module has no training step stays a data entry.
HELPER = """import torch


def pack(batch):
    torch.cuda.synchronize()
    return batch
"""


def test_a_training_loop_is_training_whichever_entry_reaches_it(tmp_path):
    report = run(write(tmp_path, {"main.py": FINETUNE, "trainer.py": TRAINER}))
    entry = next(e for e in report.phase_matrix.entries if e.path == "main.py")
    assert "training" in entry.phases and any("imports a training loop: trainer.py" in e for e in entry.evidence)
    assert all("training" in phases for phases in phases_of(report, "trainer.py"))
    assert ("training", "data") in phases_of(report, "trainer.py")
    assert report.effort.main_phase == "training"


def test_an_entry_reaching_no_training_loop_keeps_its_own_phase(tmp_path):
    report = run(write(tmp_path, {"main.py": FINETUNE.replace("trainer import Trainer", "trainer import pack")
                                  .replace("Trainer().train()", "pack(data)"), "trainer.py": HELPER}))
    entry = next(e for e in report.phase_matrix.entries if e.path == "main.py")
    assert entry.phases == ["data"]
    assert report.effort.main_phase is None


# qlora.py (scout 14): its own calls map datasets (data 15, training 3), and it builds a library trainer and runs it.
LIBRARY_FINETUNE = """import datasets
import torch
from transformers import Seq2SeqTrainer


def train():
    data = datasets.load_dataset("json").map(len).map(len).map(len).shuffle()
    model = torch.nn.Linear(2, 2).cuda()
    trainer = Seq2SeqTrainer(model=model, train_dataset=data)
    train_result = trainer.train()
    return train_result


if __name__ == "__main__":
    train()
"""


def test_an_entry_running_a_library_trainer_trains(tmp_path):
    report = run(write(tmp_path, {"qlora.py": LIBRARY_FINETUNE}))
    entry = next(e for e in report.phase_matrix.entries if e.path == "qlora.py")
    assert entry.phases == ["training", "data"] and "runs a training loop itself" in entry.evidence
    assert report.effort.main_phase == "training"


def test_a_library_trainer_built_but_not_run_or_a_mode_switch_is_no_training_loop(tmp_path):
    """`model.train()` switches a module's mode; a trainer built and only evaluated (or never run) trains nothing."""
    switched = LIBRARY_FINETUNE.replace("train_result = trainer.train()", "model.train()\n    train_result = trainer.evaluate()")
    report = run(write(tmp_path, {"qlora.py": switched}))
    entry = next(e for e in report.phase_matrix.entries if e.path == "qlora.py")
    assert "training" not in entry.phases


def test_an_evaluation_entry_or_one_reaching_a_loop_through_a_package_keeps_its_phase(tmp_path):
    evaluate = "import evaluate\nfrom trainer import Trainer\n\nif __name__ == \"__main__\":\n" \
               "    evaluate.load(\"rouge\")\n    Trainer().evaluate()\n"
    download = "import datasets\nfrom pkg import utils\n\nif __name__ == \"__main__\":\n" \
               "    datasets.load_dataset(\"json\").map(len).map(len)\n"
    report = run(write(tmp_path, {"evaluate_model.py": evaluate, "download.py": download, "trainer.py": TRAINER,
                                  "pkg/__init__.py": "from pkg import runner, utils\n", "pkg/utils.py": HELPER,
                                  "pkg/runner.py": TRAINER}))
    entries = {e.path: e.phases for e in report.phase_matrix.entries}
    assert entries["evaluate_model.py"] == ["evaluation"] and entries["download.py"] == ["data"]


def test_a_package_is_optional_for_the_matrix_only_when_every_use_of_it_is():
    from types import SimpleNamespace

    from ascend_feasibility.domains.phases.routes import optional_packages

    def finding(symbol, reach, domain="dependencies", role="product"):
        return SimpleNamespace(symbol=symbol, reach=reach, domain=domain, role=role)

    apex = [finding("apex", "optional"), finding("apex.amp.scale_loss", "optional")]  # a copied Trainer's opt-in arm
    assert optional_packages(apex) == {"apex"}
    assert optional_packages([*apex, finding("apex.amp.initialize", "runs")]) == frozenset()
    # Megatron's `try: import transformer_engine`: an import alone says nothing of the default path
    assert optional_packages([finding("transformer-engine", "optional")]) == frozenset()
    # another room's use that runs keeps it (llm-foundry's flash_attn.losses.cross_entropy under attn_impl "flash")
    flash = [finding("flash-attn", "optional"), finding("flash_attn.flash_attn_func", "optional", "attention"),
             finding("flash_attn.losses.cross_entropy.CrossEntropyLoss", "runs", "attention")]
    assert optional_packages(flash) == frozenset()
    assert optional_packages(flash[:2]) == {"flash_attn"}
    assert optional_packages([finding("vllm", "optional", role="example"), finding("vllm.LLM", "optional", role="example")]) == frozenset()


def test_kernels_one_host_function_launches_are_one_operator():
    """wkv6_cuda.cu's cuda_backward launches kernel_backward_101..201 and a cast helper: one backward to replace,
    booked at its largest kernel; a kernel of another host function (the forward) keeps its own hours."""
    def launched(name, line, lines, host, cls="other", tier="high"):
        return kernel_row(name=name, line=line, lines=lines, cls=cls, tier=tier).model_copy(update={"callers": [host]})

    rows = [launched("kernel_forward", 7, 50, "cuda_forward"), launched("kernel_backward_101", 64, 40, "cuda_backward"),
            launched("kernel_backward_102", 110, 60, "cuda_backward"),
            launched("cast_float_to_bf16_kernel", 172, 8, "cuda_backward", cls="elementwise", tier="low")]
    findings = [finding("OPS002", migration="manual", severity="blocker", hours=(24, 80), path="k.cu", line=row.line,
                        domain="custom_ops") for row in rows]
    work = effort(findings, ["training"], kernels=rows)
    hours = sum(i.centre_hours for i in required(work) if i.kind == "kernel")
    assert hours == pytest.approx(kernel_hours(rows[0], EST)[0] + kernel_hours(rows[2], EST)[0], abs=0.05)
    arithmetic = " ".join(i.arithmetic.en for i in required(work, "kernel"))
    assert "launched by cuda_backward() with kernel_backward_102" in arithmetic
    apart = [r.model_copy(update={"callers": [f"host_{r.line}"]}) for r in rows]
    separate = sum(i.centre_hours for i in required(effort(findings, ["training"], kernels=apart)) if i.kind == "kernel")
    assert separate == pytest.approx(sum(kernel_hours(r, EST)[0] for r in rows), abs=0.05)


def test_the_kernels_of_one_operator_are_one_finding_priced_as_before():
    """InternImage's DCNv3: an im2col forward and col2im backward variants in one folder, one operator (a one-operator
    class): one OPS001 finding, the other kernels its sites, and the estimate the same as with a finding per kernel.
    Kernels of other host functions and of a class ported kernel by kernel stay findings of their own."""
    from ascend_feasibility.domains.custom_ops.operators import fold_operator_kernels
    from ascend_feasibility.knowledge import load_one_operator_classes

    path = "ops_dcnv3/src/cuda/dcnv3_im2col_cuda.cuh"
    rows = [kernel_row(name=name, path=path, line=line, lines=lines, cls="deformable_conv_v3", tier="medium")
            .model_copy(update={"callers": [host]})
            for name, line, lines, host in (("dcnv3_im2col_gpu_kernel", 217, 59, "dcnv3_im2col_cuda"),
                                            ("dcnv3_col2im_gpu_kernel_shm_reduce_v1", 469, 90, "dcnv3_col2im_cuda"),
                                            ("dcnv3_col2im_gpu_kernel_gm", 776, 80, "dcnv3_col2im_cuda"))]
    other = [kernel_row(name=f"gemm_{n}", path="gemm/k.cu", line=n, lines=40).model_copy(update={"callers": [f"host_{n}"]})
             for n in (10, 90)]
    findings = [finding("OPS001", migration="manual", severity="high", hours=(8, 24), path=row.path, line=row.line,
                        domain="custom_ops") for row in [*rows, *other]]
    folded = fold_operator_kernels(findings, [*rows, *other], load_one_operator_classes())
    assert [(f.path, f.line) for f in folded] == [(path, 217), ("gemm/k.cu", 10), ("gemm/k.cu", 90)]
    assert folded[0].sites == [f"{path}:217", f"{path}:469", f"{path}:776"]
    assert "2 more kernels" in folded[0].message.en and "dcnv3_col2im_gpu_kernel_gm" in folded[0].message.en
    assert not folded[1].sites and not folded[2].sites
    before = effort(findings, ["training"], kernels=[*rows, *other])
    after = effort(folded, ["training"], kernels=[*rows, *other])
    assert after.total == before.total
    assert sum(i.centre_hours for i in required(after) if i.kind == "kernel") == pytest.approx(
        kernel_hours(max(rows, key=lambda r: kernel_hours(r, EST)[0]), EST)[0] + sum(kernel_hours(r, EST)[0] for r in other),
        abs=0.05)


def test_the_kernels_one_launcher_launches_are_one_finding_at_the_worst_severity_whatever_their_rule():
    """OpenPCDet's roiaware_pool3d_launcher launches an OPS001 mask kernel (elementwise, high) and OPS002 collect and
    pool kernels (other, blocker): one operator, one finding, the blocker's, the OPS001 kernel among its sites; the
    estimate is the one of a finding per kernel (round 36 B1 class 2). A kernel of another host stays apart."""
    from ascend_feasibility.domains.custom_ops.operators import fold_operator_kernels

    path = "ops/roiaware_pool3d/src/roiaware_pool3d_kernel.cu"
    rows = [kernel_row(name=name, path=path, line=line, lines=lines, cls=cls, tier=tier)
            .model_copy(update={"callers": [host]})
            for name, line, lines, cls, tier, host in (
                ("generate_pts_mask_for_box3d", 39, 30, "elementwise", "low", "roiaware_pool3d_launcher"),
                ("collect_inside_pts_for_box3d", 78, 25, "other", "high", "roiaware_pool3d_launcher"),
                ("roiaware_maxpool3d", 111, 45, "other", "high", "roiaware_pool3d_launcher"),
                ("points_in_boxes_kernel", 313, 20, "other", "high", "points_in_boxes_launcher"))]
    rules = ("OPS001", "OPS002", "OPS002", "OPS002")
    findings = [finding(rule, migration="manual", severity="high" if rule == "OPS001" else "blocker",
                        hours=(8, 24) if rule == "OPS001" else (24, 80), path=path, line=row.line, domain="custom_ops")
                for rule, row in zip(rules, rows)]
    folded = fold_operator_kernels(findings, rows, frozenset())
    assert [(f.rule, f.severity, f.line) for f in folded] == [("OPS002", "blocker", 78), ("OPS002", "blocker", 313)]
    assert folded[0].sites == [f"{path}:78", f"{path}:39", f"{path}:111"]
    assert "generate_pts_mask_for_box3d, roiaware_maxpool3d" in folded[0].message.en
    before = effort(findings, ["training"], kernels=rows)
    after = effort(folded, ["training"], kernels=rows)
    assert after.total == before.total


# composer (round 13): a training library whose only product entry was docker/generate_build_matrix.py, a helper that
# writes a YAML build matrix and imports no torch and no project module; its name word "generate" made the project's
# main phase inference, and the library's own Trainer loop was no entry of anything.
LIBRARY_TRAINER = """import torch


class Trainer:
    def fit(self, batches):
        for batch in batches:
            loss = self.model(batch)
            loss.backward()
            self.optimizer.step()
            torch.cuda.synchronize()
"""
BUILD_MATRIX = "import yaml\n\nif __name__ == \"__main__\":\n    print(yaml.safe_dump({\"cuda\": \"12.6\"}))\n"


def test_a_library_whose_core_is_a_training_loop_trains_beside_a_helper_named_like_a_phase(tmp_path):
    report = run(write(tmp_path, {"setup.py": "from setuptools import setup\nsetup(name='lib')\n",
                                  "lib/__init__.py": "", "lib/trainer.py": LIBRARY_TRAINER,
                                  "docker/generate_build_matrix.py": BUILD_MATRIX}))
    entries = {e.path: e for e in report.phase_matrix.entries}
    assert "docker/generate_build_matrix.py" not in entries
    assert entries["lib/trainer.py"].phases == ["training"] and not entries["lib/trainer.py"].script
    assert report.effort.main_phase == "training"


NOTEBOOK_CLI = ('{"cells": [{"cell_type": "code", "metadata": {}, "outputs": [], "execution_count": null, '
                '"source": ["!lib-eval --model hf --tasks boolq"]}], "metadata": {}, "nbformat": 4, "nbformat_minor": 5}')


def test_an_entry_named_for_a_phase_that_uses_the_model_keeps_the_phase_of_its_name(tmp_path):
    """The name still speaks for a script that imports the model stack (transformers) or the project, and an entry
    that serves keeps the library rule off: the project's main phase is inference."""
    generate = "from transformers import AutoModel\n\nif __name__ == \"__main__\":\n    AutoModel.from_pretrained('m')\n"
    serve = "from lib.trainer import Trainer\n\nif __name__ == \"__main__\":\n    Trainer()\n"
    report = run(write(tmp_path, {"setup.py": "from setuptools import setup\nsetup(name='lib')\n",
                                  "lib/__init__.py": "", "lib/trainer.py": LIBRARY_TRAINER.replace("loss.backward()", "loss")
                                  .replace("self.optimizer.step()", "pass"),
                                  "generate.py": generate, "serve.py": serve,
                                  "examples/evaluate_overview.ipynb": NOTEBOOK_CLI}))
    entries = {e.path: e.phases for e in report.phase_matrix.entries}
    assert entries["generate.py"] == ["inference"] and entries["serve.py"] == ["inference"]
    assert entries["examples/evaluate_overview.ipynb"] == ["evaluation"]  # a walkthrough driving the project's CLI
    assert "lib/trainer.py" not in entries
    assert report.effort.main_phase == "inference"
    # Megatron-LM: a deprecated wrapper that runs the new script by path, and a conversion through the project's
    # namespace package that lives beside the tree (megatron.bridge): both keep the phase of their names
    wrappers = run(write(tmp_path / "wrappers", {
        "lib/__init__.py": "", "lib/trainer.py": LIBRARY_TRAINER,
        "pretrain_old.py": "import runpy\n\nif __name__ == \"__main__\":\n    runpy.run_path(\"pretrain_new.py\")\n",
        "convert_from_hf.py": "from lib.bridge import AutoBridge\n\nif __name__ == \"__main__\":\n    AutoBridge.load('m')\n"}))
    entries = {e.path: e.phases for e in wrappers.phase_matrix.entries}
    assert entries["pretrain_old.py"] == ["training"] and entries["convert_from_hf.py"] == ["export"]


# RWKV-LM (round 13): RWKV-v1 ... RWKV-v8 side by side, each a full copy with its own train.py, model.py and
# kernels; the estimate summed every generation. The README points to one; the others are listed apart.
GENERATION_TRAIN = ("import torch\nfrom src.model import GPT\n\nif __name__ == \"__main__\":\n    model = GPT().cuda()\n"
                    "    loss = model(torch.ones(1))\n    loss.backward()\n    torch.cuda.synchronize()\n")
GENERATION_MODEL = "import torch\n\n\nclass GPT(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda()\n"


def generations_tree(names, readme=None, extra=None):
    files = {}
    for name in names:
        files |= {f"{name}/train.py": GENERATION_TRAIN, f"{name}/src/model.py": GENERATION_MODEL,
                  f"{name}/src/utils.py": "import os\n"}
    if readme is not None:
        files["README.md"] = readme
    return files | (extra or {})


def counted_paths(report):
    return {f.path.split("/")[0] for f in report.findings if f.counted}


def test_generations_side_by_side_are_priced_one_the_readme_points_to(tmp_path):
    readme = ("# RWKV\nUse https://github.com/x/RWKV-LM/tree/main/RWKV-v7 for training: `cd RWKV-v7/`.\n"
              "![loss](RWKV-v4-loss.png) ![RWKV-v5](RWKV-v5.png)\nOld: RWKV-v4/train.py\n")
    # the kernel file runs its own check (a `__main__` block): a definitions-only file nothing imports would be
    # optional for that alone (analyzer/context/unloaded.py unrun_definitions), whatever its generation
    kernel = {"RWKV-v5/src/wkv5.py": "import torch\n\n\ndef wkv(x):\n    return x.cuda()\n\n\n"
                                     "if __name__ == \"__main__\":\n    wkv(torch.ones(1))\n"}
    report = run(write(tmp_path, generations_tree(["RWKV-v4", "RWKV-v5", "RWKV-v7"], readme, kernel)))
    assert report.effort.generation is not None
    assert (report.effort.generation.priced, report.effort.generation.why) == ("RWKV-v7", "readme")
    assert report.effort.generation.others == ["RWKV-v4", "RWKV-v5"]
    # byte-identical copies fold at the first path (RWKV-v4's) with the others as sites: RWKV-v7's copy keeps them
    # counted; what only another generation holds (RWKV-v5's own kernel) is optional, its generation the reason
    assert counted_paths(report) == {"RWKV-v4"}
    assert all(any(s.startswith("RWKV-v7/") for s in f.sites) for f in report.findings if f.counted and f.rule != "DEP013")
    # a package's one finding sits at its first import by path (RWKV-v4's): RWKV-v7 imports torch too, so it stays
    assert [f.counted for f in report.findings if f.rule == "DEP013"] == [True]
    apart = [f for f in report.findings if f.path.startswith("RWKV-v5/")]
    assert apart and all(f.reach == "optional" and "another generation of the model than RWKV-v7" in f.reach_reason
                         for f in apart)
    assert "RWKV-v7" in report.verdict.drivers[0].en and "2 other generations" in report.verdict.drivers[0].en
    adoption = next(i for i in report.effort.items if i.rule == "adoption:entry-points" and i.bucket == "required")
    assert all(site.startswith("RWKV-v7/") for site in adoption.sites)


def test_generations_priced_beside_other_folders_say_so(tmp_path):
    # round 17 (LLaMA-Adapter): "priced for multimodal7b" while the total also held gorilla's, imagebind_LLM's and
    # alpaca_finetuning_v1's work; the line names the other folders the total covers
    readme = "# Adapter\nUse RWKV-v7/train.py.\n"
    extra = {f"{folder}/model.py": f"import torch\n{folder} = torch.ones({n}).cuda()\n" for n, folder in enumerate(("agent", "retrieval"))}
    report = run(write(tmp_path, generations_tree(["RWKV-v5", "RWKV-v7"], readme, extra)))
    assert report.effort.generation is not None and report.effort.generation.priced == "RWKV-v7"
    line = report.verdict.drivers[0]
    assert ("priced for RWKV-v7 (the one the README points to) together with 2 other folders of the project (agent, retrieval); "
            "1 other generation side by side (RWKV-v5) is listed as optional") in line.en
    assert "agent、retrieval" in line.zh
    alone = run(write(tmp_path / "alone", generations_tree(["RWKV-v5", "RWKV-v7"], readme)))
    assert "together with" not in alone.verdict.drivers[0].en and "以及" not in alone.verdict.drivers[0].zh


def test_generations_no_readme_names_are_priced_at_the_newest(tmp_path):
    report = run(write(tmp_path, generations_tree(["model-v2", "model-v10", "model-v3"],
                                                  extra={"model-v2/src/old.py": "import torch\nx = torch.ones(1).cuda()\n"})))
    assert (report.effort.generation.priced, report.effort.generation.why) == ("model-v10", "newest")
    assert counted_paths(report) == {"model-v10"}
    assert all(f.reach == "optional" for f in report.findings if f.path == "model-v2/src/old.py")


def test_versioned_folders_that_are_no_generations_all_count(tmp_path):
    """An API's v1/ and v2/ (no name before the version), folders that share no files, and versions an app outside
    imports together are no family: nothing is set apart."""
    bare = run(write(tmp_path / "bare", generations_tree(["v1", "v2"])))
    assert bare.effort.generation is None and counted_paths(bare) == {"v1"}  # v2's byte-identical copies fold into v1's
    unlike = generations_tree(["exp_v1"]) | {"exp_v2/run.py": GENERATION_TRAIN.replace("src.model", "nets"),
                                             "exp_v2/nets.py": GENERATION_MODEL}
    assert run(write(tmp_path / "unlike", unlike)).effort.generation is None
    configs = {f"configs/net_{v}/{name}": "import torch\nlr = 0.1\nprint(torch.cuda.is_available())\n"
               for v in ("v1", "v2") for name in ("base.py", "large.py")}
    assert run(write(tmp_path / "configs", configs)).effort.generation is None  # no model of their own
    named = {f"wav2vec{v}/{name}": text for v in ("", "2") for name, text in
             (("train.py", GENERATION_TRAIN), ("src/model.py", GENERATION_MODEL), ("src/utils.py", "import os\n"))}
    assert run(write(tmp_path / "named", named)).effort.generation is None  # a v and a digit inside a word
    served = generations_tree(["api_v1", "api_v2"], extra={
        "app.py": "import api_v1.src.model\nimport api_v2.src.model\n\nif __name__ == \"__main__\":\n    pass\n"})
    report = run(write(tmp_path / "served", served))
    assert report.effort.generation is None and "api_v1" in counted_paths(report)


def test_a_readme_linked_from_outside_the_root_is_not_read(tmp_path):
    """The README picks the generation only when it is a regular file inside the root (read_contained)."""
    outside = tmp_path / "outside.md"
    outside.write_text("Use RWKV-v4/ always: RWKV-v4/train.py\n")
    root = write(tmp_path / "project", generations_tree(["RWKV-v4", "RWKV-v7"]))
    (root / "README.md").symlink_to(outside)
    report = run(root)
    assert (report.effort.generation.priced, report.effort.generation.why) == ("RWKV-v7", "newest")


def test_a_finding_that_declares_its_phases_keeps_those_the_project_has():
    # a serving deployment's package item (analyzer/context/nvidia_kits.py fold_kits: inference) sits in a kit's
    # conversion script, whose file serves export: the item keeps what it declared, not its file's phases
    assignment = PhaseAssignment(phases=["inference", "export"], by_path={"kit/convert.py": {"export"}},
                                 entries=[PhaseEntry(path="kit/convert.py", phases=["export"], evidence=[])])
    assert finding_phases(finding("DEP002", path="kit/convert.py", phases=("inference",)), assignment) == ["inference"]
    # without a declaration, or declaring only phases the project lacks, the file decides
    assert finding_phases(finding("DEP002", path="kit/convert.py", phases=()), assignment) == ["export"]
    assert finding_phases(finding("DEP002", path="kit/convert.py", phases=("training",)), assignment) == ["export"]


SAMPLES_A_FOLDER = ("import torch\nfrom torchvision import transforms\n\n\ndef main(model, paths):\n"
                    "    load = transforms.Compose([transforms.ToTensor(), transforms.Normalize([0.5], [0.5])])\n"
                    "    with torch.no_grad():\n        for path in paths:\n            model(load(path).cuda())\n\n\n"
                    "if __name__ == '__main__':\n    main(None, [])\n")


def test_an_entry_that_runs_a_model_over_a_folder_is_an_inference_entry_whose_readme_lead_heads_the_report(tmp_path):
    """Round 32 V7: a super-resolution README leads with `python scripts/sr_val.py` (one torch.no_grad sampling loop
    over an input folder, three torchvision.transforms uses), then `python main.py --train`. The script's loading
    signals outnumber its model's, yet it runs the model: it is an inference entry and the headline is inference.
    Not flagged: a data script with no model signal stays data only, and the training command then leads."""
    train = ("import torch\n\ndef main():\n    model = torch.nn.Linear(2, 2).cuda()\n    opt = torch.optim.AdamW(model.parameters())\n"
             "    loss = model(torch.ones(2).cuda()).sum()\n    loss.backward()\n    opt.step()\n\n"
             "if __name__ == '__main__':\n    main()\n")
    prepares = SAMPLES_A_FOLDER.replace("    with torch.no_grad():\n        for path in paths:\n            model(load(path).cuda())\n",
                                        "    for path in paths:\n        torch.save(load(path).cuda(), path)\n")
    readme = "# SR\n```bash\npython scripts/sr_val.py --init-img in\n```\n```bash\npython main.py --train\n```\n"
    found = {}
    for name, script in (("samples", SAMPLES_A_FOLDER), ("prepares", prepares)):
        write(tmp_path / name, {"requirements.txt": "torch\ntorchvision\n", "main.py": train,
                                "ldm/__init__.py": "", "ldm/model.py": "import torch\n",
                                "scripts/sr_val.py": "import ldm.model\n" + script, "README.md": readme})
        report = analyze(tmp_path / name, AnalyzeOptions(jobs=1))
        found[name] = ({e.path: e.phases for e in report.phase_matrix.entries}.get("scripts/sr_val.py"),
                       report.effort.main_phase)
    assert found["samples"] == (["inference", "data"], "inference"), found
    assert found["prepares"] == (["data"], "training"), found


def test_a_data_entry_that_runs_its_own_training_loop_stays_training_and_an_evaluation_entry_stays_evaluation(tmp_path):
    """Not flagged (round 32 V7's rule): an entry whose own signals are mostly data (its two training lines fewer than
    half of them) with one torch.no_grad, and which runs a training loop itself, trains (the loop decides, not its
    no_grad); an evaluation entry with a no_grad keeps
    evaluation alone, an exporter tracing under no_grad export alone."""
    trains = ("import torch\nfrom torchvision import transforms\n\n\ndef loop(model, opt, batches):\n"
              "    for x in batches:\n        loss = model(x).sum()\n        loss.backward()\n        opt.step()\n\n\n"
              "def main(model, opt, paths):\n    load = transforms.Compose([transforms.Resize(8), transforms.CenterCrop(8), transforms.ToTensor(),\n"
              "                               transforms.Normalize([0.5], [0.5])])\n"
              "    loop(model, opt, [load(p) for p in paths])\n    with torch.no_grad():\n        model(load(paths[0]))\n\n\n"
              "if __name__ == '__main__':\n    main(None, None, [])\n")
    evaluates = SAMPLES_A_FOLDER.replace("import torch\n", "import torch\nimport torchmetrics\n").replace(
        "            model(load(path).cuda())\n",
        "            torchmetrics.functional.psnr(model(load(path).cuda()), load(path))\n"
        "            torchmetrics.functional.ssim(model(load(path).cuda()), load(path))\n")
    exports = SAMPLES_A_FOLDER.replace("            model(load(path).cuda())\n",
                                       "            torch.onnx.export(model, load(path), 'a.onnx')\n"
                                       "            torch.onnx.export(model, load(path), 'b.onnx')\n"
                                       "            torch.onnx.export(model, load(path), 'c.onnx')\n")
    write(tmp_path, {"requirements.txt": "torch\ntorchvision\ntorchmetrics\n", "main.py": trains, "score.py": evaluates,
                     "to_onnx.py": exports})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    entries = {e.path: e.phases for e in report.phase_matrix.entries}
    assert "export" in entries["to_onnx.py"] and "inference" not in entries["to_onnx.py"], entries
    assert "training" in entries["main.py"] and "inference" not in entries["main.py"], entries
    assert "inference" not in entries["score.py"], entries


# mmocr tools/train.py and tools/test.py (round 38 verdicts V-5): the loop is mmengine's Runner, built from a config
MMENGINE_SCRIPT = """import argparse
from mmengine.config import Config
from mmengine.runner import Runner


def main():
    cfg = Config.fromfile(argparse.ArgumentParser().parse_args().config)
    runner = Runner.from_cfg(cfg)
    runner.{run}()


if __name__ == '__main__':
    main()
"""


def test_a_script_running_a_config_driven_library_runner_is_an_entry_of_the_runs_phase(tmp_path):
    """mmengine's `Runner.from_cfg(cfg)` then `runner.train()` trains, `runner.test()` evaluates; detectron2's
    `DefaultTrainer(cfg).train()` trains, Lightning's `trainer.predict(...)` serves inference. The script imports none
    of the project's code (the config names it), yet it is the project's training or evaluation command."""
    detectron = "from detectron2.engine import DefaultTrainer\n\nif __name__ == '__main__':\n" \
                "    DefaultTrainer(cfg).train()\n"
    predict = "import lightning as L\n\nif __name__ == '__main__':\n    trainer = L.Trainer()\n" \
              "    trainer.predict(model, loader)\n"
    report = run(write(tmp_path, {"train.py": MMENGINE_SCRIPT.format(run="train"),
                                  "test.py": MMENGINE_SCRIPT.format(run="test"), "train_net.py": detectron,
                                  "predict.py": predict}))
    entries = {e.path: e.phases for e in report.phase_matrix.entries}
    assert {path: entries[path] for path in ("train.py", "test.py", "train_net.py")} == {
        "train.py": ["training"], "test.py": ["evaluation"], "train_net.py": ["training"]}
    # predict.py also keeps training: `lightning.Trainer` is itself a training name signal (signals.toml [names])
    assert "inference" in entries["predict.py"]
    assert report.effort.main_phase == "training"


def test_a_runner_built_and_not_run_or_another_objects_test_is_no_entry(tmp_path):
    """A config printer builds nothing to run (`Config.fromfile` alone); `model.test()` on an object no library
    trainer built, or a Runner built and only dumped, runs no loop: no phase from the runner."""
    printer = "from mmengine.config import Config\n\nif __name__ == '__main__':\n    print(Config.fromfile('c.py'))\n"
    unrun = MMENGINE_SCRIPT.replace("    runner.{run}()\n", "    model.test()\n    print(runner)\n")
    report = run(write(tmp_path, {"print_config.py": printer, "build_runner.py": unrun}))
    assert not [e for e in report.phase_matrix.entries if e.path in {"print_config.py", "build_runner.py"}]
