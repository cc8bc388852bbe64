"""The effort estimate's parts (domains/phases/estimate.py), each stated from its docstring and knowledge/phases/plan.toml:
central values, the main phase, the work of other routes and Step 0, one-time adoption items, the sub-linear arithmetic
in both languages, kernels, and what each item says of its sites (tests/test_phases_plan.py covers the totals)."""

from __future__ import annotations

import importlib
import math

import pytest
from ascend_feasibility.analyzer.core.models import EffortHours, PhaseEntry, ReplacementText
from ascend_feasibility.domains.phases.plan import plan_data
from ascend_feasibility.domains.phases.unscanned import importers

from tests.test_phases_plan import DAY, EST, effort, finding, kernel_row, required

e = importlib.import_module("ascend_feasibility.domains.phases.estimate")  # the package re-exports estimate()
DATA = plan_data()


def manual(rule="ATT001", *, path="a.py", line=1, hours=(8.0, 8.0), severity="medium", confidence="high",
           migration="manual", replacement="use the fused NPU kernel", symbol="x", phases=("training",)):
    f = finding(rule, migration=migration, severity=severity, confidence=confidence, hours=hours, path=path, line=line,
                domain="attention", phases=phases)
    return f.model_copy(update={"symbol": symbol, "replacement": ReplacementText(en=replacement, zh=replacement, code=None)})


def item(work, rule):
    return next(i for i in work.items if i.rule == rule)


def test_centre_is_the_geometric_mean_or_the_midpoint_from_zero():
    assert e.centre(EffortHours(low=4, high=16)) == 8
    assert e.centre(EffortHours(low=0.5, high=8)) == 2  # sqrt(4), not the midpoint 4
    assert e.centre(EffortHours(low=0, high=8)) == 4


def test_the_main_phase_is_the_readme_first_usage_else_the_most_product_entries():
    """Round 28 V1 V5 / V2 W10: one train.py beside an inference app, demo and notebook made the headline training
    although the README runs the app. The README's first launched product entry decides (training where it trains);
    without one, training where a product entry trains (not the phase most entries have: a fine-tuning library's
    probe scripts outnumber its trainers)."""
    def role(path):
        return "example" if path.startswith("examples/") else "product"

    train = PhaseEntry(path="train.py", phases=["training", "data"], evidence=[])
    app = PhaseEntry(path="app.py", phases=["inference"], evidence=[])
    predict = PhaseEntry(path="predict.py", phases=["inference"], evidence=[])
    demo = PhaseEntry(path="examples/demo.py", phases=["inference"], evidence=[])
    prep = PhaseEntry(path="prep.py", phases=["data"], evidence=[])
    entries = [app, predict, train, prep]
    assert e.main_phase(entries, role, ("setup.py", "app.py", "train.py")) == "inference"  # the README leads with app.py
    assert e.main_phase(entries, role, ("prep.py", "train.py", "app.py")) == "training"  # it leads with training
    assert e.main_phase(entries, role, ("examples/demo.py", "train.py")) == "training"  # an example is no product entry
    assert e.main_phase(entries, role) == "training"  # no README launch: a product entry trains
    assert e.main_phase(entries, role, ("missing.py",)) == "training"
    assert e.main_phase([app, predict, demo], role, ("train.py",)) == "inference"


def test_a_metric_script_the_readme_runs_first_leads_only_where_no_usage_follows_it():
    """Round 39 V-1: yolov7's README runs test.py (scores a checkpoint on COCO: inference and evaluation) before
    train.py (README.md:61, :83-124), and the headline was inference. A metric script is no usage of its own: the next
    launched training or inference entry leads; where none follows, it leads as inference (an evaluation repo). A plain
    inference app launched first still leads (round 28)."""
    def role(path):
        return "product"

    test = PhaseEntry(path="test.py", phases=["inference", "evaluation"], evidence=[])
    train = PhaseEntry(path="train.py", phases=["training"], evidence=[])
    detect = PhaseEntry(path="detect.py", phases=["inference"], evidence=[])
    export = PhaseEntry(path="export.py", phases=["export"], evidence=[])
    entries = [test, train, detect, export]
    assert e.main_phase(entries, role, ("test.py", "train.py", "detect.py", "export.py")) == "training"  # yolov7
    assert e.main_phase(entries, role, ("test.py", "detect.py", "train.py")) == "inference"  # detect.py leads
    assert e.main_phase(entries, role, ("detect.py", "test.py", "train.py")) == "inference"  # an app first: round 28
    assert e.main_phase(entries, role, ("test.py", "export.py")) == "inference"  # nothing else runs: it leads
    assert e.main_phase([test, export], role, ("test.py",)) == "inference"
    # an entry that trains and evaluates (a trainer with a validation loop) is a trainer
    fit = PhaseEntry(path="fit.py", phases=["training", "evaluation"], evidence=[])
    assert e.main_phase([fit, detect], role, ("fit.py", "detect.py")) == "training"


def test_the_main_phase_is_training_when_a_product_entry_trains_else_inference():
    def role(path):
        return "test" if path.startswith("tests/") else "product"

    train = PhaseEntry(path="train.py", phases=["training", "inference"], evidence=[])
    serve = PhaseEntry(path="serve.py", phases=["inference"], evidence=[])
    test_train = PhaseEntry(path="tests/train.py", phases=["training"], evidence=[])
    data = PhaseEntry(path="prep.py", phases=["data"], evidence=[])
    assert e.main_phase([serve, train], role) == "training"
    assert e.main_phase([serve, test_train], role) == "inference"  # a test's training is not the product's
    assert e.main_phase([test_train], role) is None
    assert e.main_phase([data], role) is None
    assert e.main_phase([], role) is None


def test_bucket_of():
    f = manual()
    assert e.bucket_of(f) == "required"
    assert e.bucket_of(f.model_copy(update={"reach": "optional"})) == "optional"
    assert e.bucket_of(f.model_copy(update={"reach": "npu-path"})) == "optional"
    assert e.bucket_of(f.model_copy(update={"role": "test"})) == "tests"
    assert e.bucket_of(f.model_copy(update={"role": "example"})) == "optional"
    assert e.bucket_of(f.model_copy(update={"role": "docs"})) is None
    assert e.bucket_of(f.model_copy(update={"role": "build"})) == "required"
    for reach in ("other-backend", "dead-at-target", "cosmetic"):
        assert e.bucket_of(f.model_copy(update={"reach": reach})) is None
    assert e.bucket_of(f.model_copy(update={"suppressed": True})) is None


# work of other routes, Step 0 ----------------------------------------------------------------------------------
def test_work_days_costs_the_findings_as_items_without_one_time_adoption():
    engineering = manual(hours=(8.0, 8.0))  # centre 8 h, one pattern, one site: 8 h; high confidence: ÷/× 1.4
    hccl = finding("DST001", migration="manual", severity="high", hours=(2, 4), domain="distributed")
    days = e.work_days([engineering, hccl], [], DATA)
    assert days.low_days == round(round(8 / 1.4, 2) / DAY, 2) and days.high_days == round(round(8 * 1.4, 2) / DAY, 2)
    assert e.work_days([hccl], [], DATA).high_days == 0  # an adoption item, costed once per project elsewhere
    kernel = kernel_row(lines=100, tier="medium")
    ops = finding("OPS002", migration="manual", severity="blocker", hours=(24, 80), path="k.cu", domain="custom_ops")
    hours = EST["kernel"]["tier_centre"]["medium"] + EST["kernel"]["per_line"]["medium"] * 100  # high confidence
    assert e.work_days([ops], [kernel], DATA).high_days == round(round(hours * 1.4, 2) / DAY, 2)


def test_step0_days_is_the_required_step0_items_in_days():
    work = effort([manual()], ["training"])
    step0 = [i for i in work.items if i.step0]
    assert {i.rule for i in step0} == {"adoption:environment", "adoption:entry-points"}
    assert all(i.bucket == "required" for i in step0)
    low, high = e.step0_days(work)
    assert low == pytest.approx(sum(i.hours.low for i in step0) / work.hours_per_day)
    assert high == pytest.approx(sum(i.hours.high for i in step0) / work.hours_per_day)
    optional = effort([manual().model_copy(update={"reach": "optional"})], ["training"])
    assert e.step0_days(optional) == (0, 0)  # no required work: no Step 0 either


# adoption items -----------------------------------------------------------------------------------------------
def entries(count):
    return [PhaseEntry(path=f"e{n:02d}.py", phases=["training"], evidence=[]) for n in range(count)]


def test_every_project_with_required_work_takes_both_always_adoption_steps():
    work = effort([manual()], ["training"])
    environment, entry_points = item(work, "adoption:environment"), item(work, "adoption:entry-points")
    assert environment.centre_hours == 3.0 and entry_points.centre_hours == 1.0  # no entry files
    assert environment.migration == "rewrite" and entry_points.migration == "rewrite"
    assert environment.replacement.en.startswith("Install CANN") and environment.item.startswith("Install CANN")
    assert environment.kind == "adoption" and environment.step0


def test_entry_points_cost_per_entry_file_up_to_the_maximum_and_list_them():
    work = effort([manual()], ["training"], entries=entries(3))
    entry_points = item(work, "adoption:entry-points")
    assert entry_points.centre_hours == 1.0 + 0.25 * 3
    assert entry_points.scaling.startswith("once per project: 1 h + 0.25 h × 3 entry files = 1.75 h;")
    assert entry_points.arithmetic.zh.startswith("每个项目一次：1 小时 + 0.25 小时 × 3 个入口文件 = 1.75 小时；")
    assert entry_points.sites == ["e00.py", "e01.py", "e02.py"]
    many = item(effort([manual()], ["training"], entries=entries(20)), "adoption:entry-points")
    assert many.centre_hours == 1.0 + 0.25 * 16
    assert many.scaling.startswith("once per project: 1 h + 0.25 h × 16 entry files (at most 16) = 5 h;")
    assert many.sites == [f"e{n:02d}.py" for n in range(10)] + ["... 10 more"]
    exactly = item(effort([manual()], ["training"], entries=entries(16)), "adoption:entry-points")
    assert "(at most" not in exactly.scaling and exactly.sites[-1] == "... 6 more"
    ten = item(effort([manual()], ["training"], entries=entries(10)), "adoption:entry-points")
    assert ten.sites == [f"e{n:02d}.py" for n in range(10)]


def test_an_adoption_item_found_at_sites_is_costed_once_and_lists_them():
    sites = [finding("DST001", migration="manual", severity="high", hours=(2, 4), path=f"d{n}.py", domain="distributed")
             for n in range(2)]
    hccl = item(effort(sites, ["training"]), "adoption:hccl")
    assert hccl.centre_hours == 2.0 and hccl.count == 2 and hccl.files == 2
    assert hccl.scaling.startswith("once per project, whatever the number of sites (2): 2 h;")
    assert hccl.arithmetic.zh.startswith("每个项目一次，与位置数（2）无关：2 小时；")
    assert hccl.sites == ["d0.py:1", "d1.py:1"] and hccl.migration == "manual" and not hccl.step0
    assert hccl.patterns == 0 and hccl.severity == "high"


# sub-linear items ---------------------------------------------------------------------------------------------
def test_the_engineering_arithmetic_in_both_languages():
    sites = [manual(path="a.py", line=n, symbol=f"api{n % 2}") for n in range(1, 5)]  # 2 patterns, 4 sites
    work = effort(sites, ["training"])
    eng = item(work, "ATT001")
    factor = 1 + 0.6 * (2 - 1) + 0.03 * (4 - 2)
    assert eng.centre_hours == round(8 * factor, 2) and eng.patterns == 2 and eng.files == 1
    assert eng.scaling.startswith(
        f"per API or call pattern: 8.00 h × min(10, 1 + 0.6 × (2 − 1 patterns) + 0.03 × (4 − 2 further call sites)) "
        f"= 8.00 × {factor:.2f} = {8 * factor:.2f} h;")
    assert eng.arithmetic.zh.startswith(
        f"按接口或调用模式计：8.00 小时 × min(10, 1 + 0.6 × (2 − 1 种模式) + 0.03 × (4 − 2 处其余调用)) "
        f"= 8.00 × {factor:.2f} = {8 * factor:.2f} 小时；")


def test_the_cap_is_said_only_when_it_cuts():
    capped = [manual(path=f"f{n}.py", symbol=f"api{n}") for n in range(20)]  # 1 + 0.6 × 19 = 12.4 > 10
    eng = item(effort(capped, ["training"]), "ATT001")
    assert eng.centre_hours == 80 and "= 8.00 × 10.00 (capped) = 80.00 h" in eng.scaling
    assert "= 8.00 × 10.00（已封顶） = 80.00 小时" in eng.arithmetic.zh
    exactly = [manual(path=f"f{n}.py", symbol=f"api{n}") for n in range(16)]  # 1 + 0.6 × 15 = 10: at the cap
    eng = item(effort(exactly, ["training"]), "ATT001")
    assert eng.centre_hours == 80 and "capped" not in eng.scaling and "封顶" not in eng.arithmetic.zh


def test_a_mechanical_item_lists_up_to_three_replacements_most_severe_first():
    texts = ["use a", "use b", "use c", "use d"]
    severities = ["low", "high", "medium", "blocker"]
    sites = [manual("DEV101", migration="rewrite", severity=s, replacement=t, line=n)
             for n, (t, s) in enumerate(zip(texts, severities), start=1)]
    sites.append(manual("DEV101", migration="rewrite", severity="info", replacement="use d", line=9))
    mech = item(effort(sites, ["training"]), "DEV101")
    assert mech.replacement.en == "use d; use b; use c; … 1 more"
    assert mech.replacement.zh == "use d；use b；use c；… 另 1 种"
    assert mech.kind == "mechanical" and mech.patterns == 0 and not mech.step0 and mech.severity == "blocker"
    three = item(effort(sites[:3], ["training"]), "DEV101")
    assert three.replacement.en == "use b; use c; use a"


def test_an_item_is_as_severe_as_its_worst_site_and_as_confident_as_its_weakest():
    sites = [manual(line=1, severity="low", confidence="medium"), manual(line=2, severity="medium", confidence="low")]
    eng = item(effort(sites, ["training"]), "ATT001")
    assert eng.severity == "medium" and eng.confidence == "low" and eng.confidence_factor == 1.9
    mixed = [manual(line=1, migration="manual"), manual(line=2, migration="unsupported")]
    assert item(effort(mixed, ["training"]), "ATT001").migration == "unsupported"


def test_hours_are_given_to_the_hundredth():
    eng = item(effort([manual(hours=(1.0, 2.0))], ["training"]), "ATT001")  # centre sqrt(2)
    assert eng.centre_hours == 1.41
    assert eng.hours.low == round(math.sqrt(2) / 1.4, 2) and eng.hours.high == round(math.sqrt(2) * 1.4, 2)
    low = item(effort([manual(hours=(0.0, 2.5), confidence="low")], ["training"]), "ATT001")  # centre 1.25, ÷/× 1.9
    assert low.hours.high == round(1.25 * 1.9, 2) and low.hours.low == round(1.25 / 1.9, 2)


def test_sites_are_listed_with_cells_and_project_level_sites():
    sites = [manual(line=n, path="nb.ipynb").model_copy(update={"cell": 3}) for n in range(1, 3)]
    eng = item(effort(sites, ["training"]), "ATT001")
    assert eng.sites == ["nb.ipynb:1 (cell 3)", "nb.ipynb:2 (cell 3)"]
    project = manual().model_copy(update={"sites": [f"s{n}.py:1" for n in range(12)]})
    eng = item(effort([project], ["training"]), "ATT001")
    assert eng.sites == ["a.py:1"] + [f"s{n}.py:1" for n in range(9)] + ["... 3 more"]
    many = [manual(line=n) for n in range(1, 13)]
    assert item(effort(many, ["training"]), "ATT001").sites == [f"a.py:{n}" for n in range(1, 11)] + ["... 2 more"]


# kernels --------------------------------------------------------------------------------------------------
def test_kernel_hours_say_their_sum_in_both_languages():
    row = kernel_row(lines=100, tier="high", features=["shared memory", "atomics", "not a costed feature"])
    hours, en, zh = e.kernel_hours(row, EST)
    assert hours == 12.0 + 0.1 * 100 + 3.0 + 1.0
    assert en == "12 + 0.1 × 100 lines + 3 (shared memory) + 1 (atomics) (high tier)"
    assert zh.startswith("12 + 0.1 × 100 行 + 3（") and zh.endswith("）（高档）") and zh.count(" + ") == 3
    trivial = kernel_row(lines=100, tier="high", cls="dropout", features=["shared memory"])
    hours, en, zh = e.kernel_hours(trivial, EST)
    assert hours == 2.0 + 0.02 * 100
    assert en == "2 + 0.02 × 100 lines (trivial class)" and zh == "2 + 0.02 × 100 行（简单类别）"


def test_only_a_triton_kernel_ported_with_triton_ascend_is_capped_at_its_tier():
    ascend_c = kernel_row(lines=40, tier="high").model_copy(update={"kind": "triton", "replacement_path": "ascend-c"})
    assert e.kernel_hours(ascend_c, EST)[0] == 12.0 + 0.1 * 40
    cuda = kernel_row(lines=40, tier="high").model_copy(update={"replacement_path": "triton-ascend"})
    assert e.kernel_hours(cuda, EST)[0] == 12.0 + 0.1 * 40
    low = kernel_row(lines=40, tier="low").model_copy(update={"kind": "triton", "replacement_path": "triton-ascend"})
    assert e.kernel_hours(low, EST)[0] == 2.0 + 0.02 * 40  # below the cap: kept


def kernels(count, reach="runs"):
    rows = [kernel_row(name=f"k{n}", line=n * 10 + 1, lines=10, tier="low") for n in range(count)]
    sites = [finding("OPS002", migration="manual", severity="blocker", hours=(24, 80), path="k.cu", line=r.line,
                     domain="custom_ops").model_copy(update={"reach": reach, "symbol": r.kernel}) for r in rows]
    return rows, sites


def test_a_kernel_item_shows_six_kernels_and_counts_the_rest():
    rows, sites = kernels(7)
    kernel = next(i for i in effort(sites, ["training"], kernels=rows).items if i.kind == "kernel")
    each = 2.0 + 0.02 * 10
    shown = "; ".join(f"k{n}: 2 + 0.02 × 10 lines (low tier) = {each:.1f} h" for n in range(6))
    assert kernel.scaling.startswith(f"sum over 7 kernels, each tier + per-line × lines + hard features: {shown}; … 1 more; "
                                     f"total {7 * each:.1f} h;")
    shown_zh = "；".join(f"k{n}：2 + 0.02 × 10 行（低档） = {each:.1f} 小时" for n in range(6))
    assert kernel.arithmetic.zh.startswith(f"7 个算子逐个相加（档位 + 每行 × 行数 + 难点特性）：{shown_zh}；… 另 1 个；")
    assert kernel.patterns == 7 and kernel.files == 1 and kernel.replacement.en == "other"
    assert kernel.item == "OPS002 some-rule [other]" and kernel.migration == "manual" and kernel.severity == "blocker"
    rows, sites = kernels(6)
    six = next(i for i in effort(sites, ["training"], kernels=rows).items if i.kind == "kernel")
    assert "more" not in six.scaling and "另" not in six.arithmetic.zh and six.scaling.count(" h; ") >= 5


def test_validation_items_say_their_arithmetic():
    rows, sites = kernels(2, reach="npu-path")
    validation = next(i for i in effort(sites, ["training"], kernels=rows).items if i.kind == "validation")
    assert validation.scaling.startswith("validation only (an NPU path or fallback exists): 1.5 h × 2 kernels = 3 h;")
    assert validation.arithmetic.zh.startswith("只需验证（已有 NPU 路径或回退实现）：1.5 小时 × 2 个算子 = 3 小时；")
    assert validation.centre_hours == 3.0 and validation.patterns == 2


def test_the_hardest_migration_of_a_kernel_item_decides():
    rows, sites = kernels(2)
    sites = [sites[0].model_copy(update={"migration": "rewrite"}), sites[1].model_copy(update={"migration": "manual"})]
    kernel = next(i for i in effort(sites, ["training"], kernels=rows).items if i.kind == "kernel")
    assert kernel.migration == "manual"
    sites = [sites[0].model_copy(update={"migration": "auto"}), sites[1].model_copy(update={"migration": "rewrite"})]
    kernel = next(i for i in effort(sites, ["training"], kernels=rows).items if i.kind == "kernel")
    assert kernel.migration == "rewrite"


# phases -----------------------------------------------------------------------------------------------------
def test_items_of_a_phase_come_in_the_order_of_their_first_finding_there():
    a = manual("ATT001", line=1, phases=("inference",), hours=(1, 1))
    b = manual("ATT002", line=2, phases=("training", "inference"), hours=(1, 1))
    c = manual("ATT003", line=3, phases=("training",), hours=(1, 1))
    work = effort([a, b, c], ["training", "inference"],
                  entries=[PhaseEntry(path="train.py", phases=["training"], evidence=[])])
    assert work.main_phase == "training"
    assert [i.rule for i in required(work) if not i.step0] == ["ATT002", "ATT003"]  # equal cost: by name
    other = [i.rule for i in work.items if i.bucket == "other-phases" and not i.rule.startswith("adoption:")]
    assert other == ["ATT001"]


# the whole estimate (from the second mutation run's survivors) -----------------------------------------------------
TRAIN = [PhaseEntry(path="train.py", phases=["training"], evidence=[])]


def test_totals_shares_order_and_domains_of_the_required_items():
    big = manual("ATT001", hours=(16, 16))
    small = manual("ATT002", line=2, hours=(4, 4))
    hccl = finding("DST001", migration="manual", severity="high", hours=(2, 4), domain="distributed", line=3)
    work = effort([small, hccl, big], ["training"])
    req = required(work)
    assert [i.rule for i in req] == ["adoption:environment", "adoption:entry-points", "ATT001", "ATT002", "adoption:hccl"]
    total_high = sum(i.hours.high for i in req)
    assert all(i.share == round(i.hours.high / total_high, 3) for i in req)
    assert item(work, "ATT002").share == round(4 * 1.4 / total_high, 3) != round(4 * 1.4 / total_high, 4)
    attention = [i for i in req if i.domain == "attention"]
    assert work.by_domain["attention"].low_days == round(sum(i.hours.low for i in attention) / DAY, 2)
    assert work.by_domain["attention"].high_days == round(sum(i.hours.high for i in attention) / DAY, 2)
    assert work.total.high_days == round(total_high / DAY, 2)


def test_optional_and_test_work_have_their_own_days_and_no_share():
    runs = manual("ATT001", hours=(8, 8))
    optional = manual("ATT002", hours=(4, 4)).model_copy(update={"reach": "optional"})
    test = manual("ATT003", hours=(2, 2), path="tests/test_a.py").model_copy(update={"role": "test"})
    work = effort([runs, optional, test], ["training"])
    assert item(work, "ATT002").bucket == "optional" and item(work, "ATT002").share == 0
    assert work.optional.high_days == round(round(4 * 1.4, 2) / DAY, 2)
    assert work.tests.high_days == round(round(2 * 1.4, 2) / DAY, 2)
    assert [i.bucket for i in work.items] == ["required"] * 3 + ["optional", "tests"]


def test_informational_auto_sites_cost_nothing_outside_the_required_work():
    info = finding("DEV101", migration="auto", severity="info", hours=(0, 0.25)).model_copy(update={"reach": "optional"})
    later = manual("ATT002", line=2, hours=(4, 4)).model_copy(update={"reach": "optional"})
    work = effort([info, later], ["training"])
    assert [i.rule for i in work.items if i.bucket == "optional"] == ["ATT002"]  # the info site skipped, not the rest
    required_info = finding("DEV101", migration="auto", severity="info", hours=(0, 0.25))
    assert item(effort([required_info], ["training"]), "adoption:entry-points").count == 1  # transfer_to_npu's sites
    auto = finding("DEV101", migration="auto", severity="low", hours=(0, 0.25))
    assert item(effort([auto], ["training"]), "DEV101").kind == "mechanical"  # auto but not info: an edit pass


def test_only_kernel_rules_are_sized_from_the_inventory():
    rows, sites = kernels(1)
    attention = manual("ATT001", path="k.cu", line=rows[0].line)  # another rule at the kernel's line
    work = effort([attention, *sites], ["training"], kernels=rows)
    assert item(work, "ATT001").kind == "engineering"
    two = [kernel_row(name="a", line=1, cls="softmax"), kernel_row(name="b", line=11, cls="other")]
    found = [finding("OPS002", migration="manual", severity="blocker", hours=(24, 80), path="k.cu", line=r.line,
                     domain="custom_ops") for r in two]
    assert len([i for i in effort(found, ["training"], kernels=two).items if i.kind == "kernel"]) == 2  # one per class
    mixed = [found[0], found[0].model_copy(update={"line": 11, "reach": "npu-path"})]
    both = [kernel_row(name="a", line=1), kernel_row(name="b", line=11)]
    kinds = sorted(i.kind for i in effort(mixed, ["training"], kernels=both).items if i.rule == "OPS002")
    assert kinds == ["kernel", "validation"]


def test_kernels_inside_and_outside_the_main_phase_are_sized():
    rows, sites = kernels(2)
    sites = [sites[0], sites[1].model_copy(update={"phases": ["inference"]})]
    work = effort(sites, ["training", "inference"], kernels=rows, entries=TRAIN)
    assert work.main_phase == "training"
    assert [i.kind for i in work.items if i.rule == "OPS002"] == ["kernel", "kernel"]
    assert {i.bucket for i in work.items if i.rule == "OPS002"} == {"required", "other-phases"}
    assert work.by_phase["inference"].high_days > 0 and work.whole.high_days > work.total.high_days


def test_the_whole_is_given_only_beside_a_main_phase():
    runs = manual(hours=(8, 8))
    assert effort([runs], ["training"]).whole is None
    work = effort([runs], ["training"], entries=TRAIN)
    assert work.main_phase == "training" and work.whole == work.total
    assert effort([runs], [], entries=TRAIN).main_phase is None  # no phases asked for: no main phase


def test_a_main_phase_that_reaches_none_of_the_required_work_gives_way_to_the_whole():
    serving = manual(phases=("inference",), hours=(8, 8))
    work = effort([serving], ["training", "inference"], entries=TRAIN)
    assert work.main_phase is None and work.whole is None
    assert work.total.high_days == round(sum(i.hours.high for i in required(work)) / DAY, 2)
    mixed = [serving, manual("ATT002", line=2, hours=(8, 8))]
    assert effort(mixed, ["training", "inference"], entries=TRAIN).main_phase == "training"


def test_a_phase_that_needs_part_of_the_work_is_costed_on_its_own():
    a = manual("ATT001", hours=(8, 8), phases=("training", "inference"))
    b = manual("ATT002", line=2, hours=(16, 16), phases=("training",))
    work = effort([a, b], ["training", "inference"], entries=TRAIN)
    inference = [i for i in required(work) if i.rule != "ATT002"]
    assert work.by_phase["inference"].high_days == round(sum(i.hours.high for i in inference) / DAY, 2)
    assert work.by_phase["training"] == work.total


def test_ported_sites_count_the_running_code_that_already_has_an_npu_path():
    runs = manual()
    ported = manual(line=2).model_copy(update={"reach": "npu-path"})
    test = manual(line=3, path="tests/test_a.py").model_copy(update={"reach": "npu-path", "role": "test"})
    suppressed = manual(line=4).model_copy(update={"suppressed": True, "reach": "npu-path"})
    optional = manual(line=5).model_copy(update={"reach": "optional"})
    work = effort([runs, ported, test, suppressed, optional], ["training"])
    assert (work.ported.npu_path, work.ported.total) == (1, 2)
    assert effort([runs], ["training"]).ported is None
    assert effort([runs], ["training"], npu_code=["npu/ops.py"]).ported.total == 1  # said once the tree has NPU code


def test_the_assumptions_name_the_hours_per_day_in_both_languages():
    work = effort([manual()], ["training"])
    assert len(work.assumptions) == len(EST["assumptions"])
    assert f"{DAY:g} working hours per person-day" in work.assumptions[1].en
    assert f"每人天 {DAY:g} 个工作小时" in work.assumptions[1].zh


def test_texts_without_a_tail():
    from ascend_feasibility.analyzer.reporting.localize import term

    rows, sites = kernels(6)
    six = next(i for i in effort(sites, ["training"], kernels=rows).items if i.kind == "kernel")
    assert "(low tier) = 2.2 h; total 13.2 h;" in six.scaling and "（低档） = 2.2 小时；合计 13.2 小时；" in six.arithmetic.zh
    texts = ["use a", "use b"]
    sites = [manual("DEV101", migration="rewrite", replacement=t, line=n) for n, t in enumerate(texts, start=1)]
    assert item(effort(sites, ["training"]), "DEV101").replacement.zh == "use a；use b"
    row = kernel_row(lines=100, tier="high", features=["shared memory", "atomics"])
    zh = e.kernel_hours(row, EST)[2]
    assert zh == f"12 + 0.1 × 100 行 + 3（{term('zh', 'shared memory')}） + 1（{term('zh', 'atomics')}）（高档）"


def test_sites_past_the_shown_ten():
    eleven = [manual(line=n) for n in range(1, 12)]
    assert item(effort(eleven, ["training"]), "ATT001").sites[-1] == "... 1 more"
    ten = [manual(line=n) for n in range(1, 10)] + [manual(line=10).model_copy(update={"sites": ["s.py:1", "s.py:2"]})]
    assert item(effort(ten, ["training"]), "ATT001").sites == [f"a.py:{n}" for n in range(1, 11)] + ["... 2 more"]


def test_an_always_step_is_one_required_item_whatever_the_phase_of_its_sites():
    """Round 19 (dino): DEP013 on an evaluation script's `import torch` (inference) beside training work made the
    environment item twice, required with no site and "other phases" with that site."""
    env = finding("DEP013", severity="low", migration="rewrite", hours=(0.5, 1.0), path="eval.py", phases=("inference",),
                  domain="dependencies")
    train = manual("ATT001", line=2, phases=("training",), hours=(1, 1))
    elsewhere = manual("ATT002", line=3, phases=("inference",), hours=(1, 1))
    work = effort([env, train, elsewhere], ["training", "inference"], entries=TRAIN)
    assert work.main_phase == "training"
    environment = [i for i in work.items if i.rule == "adoption:environment"]
    assert [(i.bucket, i.sites) for i in environment] == [("required", ["eval.py:1"])]
    assert [i.rule for i in work.items if i.bucket == "other-phases"] == ["ATT002"]  # other work still split off
    assert work.by_phase["inference"].high_days > 0


def test_a_phase_without_required_work_still_costs_nothing():
    train = manual("ATT001", line=2, phases=("training",), hours=(1, 1))
    work = effort([train], ["training", "inference"], entries=TRAIN)
    assert work.by_phase["inference"].high_days == 0


def test_a_verdict_names_the_product_files_importing_an_unchecked_out_submodule(tmp_path):
    """Round 28 V2 W1: dust3r's product imports `croco.utils.misc` from the croco submodule, absent from the clone;
    the verdict now says the estimate excludes it. Not said for a submodule nothing imports, for imports only a test
    makes, or where the tree holds a package of that name."""
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    from tests.helpers import write_tree

    files = {".gitmodules": '[submodule "croco"]\n\tpath = croco\n\turl = https://example.invalid/croco\n'
                            '[submodule "third_party/unused"]\n\tpath = third_party/unused\n\turl = https://example.invalid/u\n',
             "requirements.txt": "torch\n",
             "pkg/__init__.py": "",
             "pkg/training.py": "import torch\nimport croco.utils.misc as misc\n\ndef train():\n    torch.ones(1).cuda()\n",
             "pkg/model.py": "import torch\nfrom croco.models.blocks import Block\n",
             "train.py": "from pkg.training import train\n\nif __name__ == '__main__':\n    train()\n",
             "tests/test_x.py": "import unused\n"}
    write_tree(tmp_path / "a", files)
    report = analyze(tmp_path / "a", AnalyzeOptions(jobs=1))
    caveats = [d.en for d in report.verdict.drivers if "git submodule" in d.en]
    assert len(caveats) == 1 and caveats[0].startswith("2 product files import into the git submodule croco/")
    assert "pkg/model.py" in caveats[0] and "excludes" in caveats[0]
    assert any(s.path == "croco/" for s in report.skipped)
    files["croco/__init__.py"] = ""  # checked out: scanned, no caveat
    files["croco/utils/misc.py"] = "x = 1\n"
    files["croco/models/blocks.py"] = "class Block:\n    pass\n"
    write_tree(tmp_path / "b", files)
    report = analyze(tmp_path / "b", AnalyzeOptions(jobs=1))
    assert not [d for d in report.verdict.drivers if "git submodule" in d.en]
    assert importers("croco", [("pkg/a.py", ["croco.x"])], ["src/croco/__init__.py"], lambda p: "product") == []
    assert importers("croco", [("tests/a.py", ["croco.x"])], [], lambda p: "test") == []
    assert importers("third_party/Matcha-TTS", [("a.py", ["matcha"])], [], lambda p: "product") == []


def test_the_environment_item_grows_with_each_move_of_the_stack_priced_once_inside_it():
    """Rounds 28 V10, 29 V6, 30 V6/V8/B4/B6: a torch re-pin (DEP012, or DEP013 on the install document the environment
    comes from) was priced as an item of its own beside the environment item it belongs to, and a Python below the
    target's (DEP017) not at all. plan.toml's `grows`: each move adds, once, the centre of its largest finding's range."""
    def dep(rule, severity, hours, line=1, path="requirements.txt"):
        return finding(rule, severity=severity, migration="rewrite", hours=hours, path=path, line=line,
                       domain="dependencies", phases=("training",))
    train = manual("ATT001", line=2, hours=(1, 1))
    repin = dep("DEP012", "high", (2.0, 16.0))
    further = dep("DEP012", "high", (0.1, 0.5), path="docker/requirements.txt")  # the same move's further file
    python = dep("DEP017", "high", (1.0, 6.0), path="environment.yaml")
    work = effort([repin, further, python, train], ["training"], entries=TRAIN)
    (environment,) = [i for i in work.items if i.rule == "adoption:environment"]
    assert not [i for i in work.items if i.rule in {"DEP012", "DEP017"}]  # no item beside it
    assert environment.centre_hours == pytest.approx(3.0 + 5.66 + 2.45)
    assert "+ 5.66 h (torch re-pin) + 2.45 h (Python move)" in environment.arithmetic.en
    assert "torch 版本迁移" in environment.arithmetic.zh
    # an unsupported torch in the install document is the same move (DEP013 high), priced the same
    doc = dep("DEP013", "high", (2.0, 16.0), path="README.md")
    (environment,) = [i for i in effort([doc, train], ["training"], entries=TRAIN).items
                      if i.rule == "adoption:environment"]
    assert environment.centre_hours == pytest.approx(3.0 + 5.66)
    # not flagged: a pin that fits or a stale file nothing installs (info, low) moves nothing: the flat item
    for quiet in (dep("DEP010", "info", (0.0, 0.5)), dep("DEP012", "low", (0.1, 0.5)), dep("DEP013", "info", (0, 0.5))):
        (environment,) = [i for i in effort([quiet, train], ["training"], entries=TRAIN).items
                          if i.rule == "adoption:environment"]
        assert environment.centre_hours == 3.0 and "+" not in environment.arithmetic.en
