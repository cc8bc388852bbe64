"""Operator coverage (domains/operators): the generated tables, overload selection and the findings per release."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from ascend_feasibility.knowledge import load_knowledge
from ascend_feasibility.knowledge.aten_coverage import load_coverage

from tests.helpers import scan

FIXTURE = Path(__file__).parent / "data" / "operators" / "model.py"
RULES = {"OPS070", "OPS071", "OPS072"}
TARGETS = ("2.1.0", "2.3.1", "2.12.0")


def _expected(target: str) -> set[int]:
    lines = FIXTURE.read_text(encoding="utf-8").splitlines()
    return {n for n, text in enumerate(lines, start=1) if (m := re.search(r"# expect: (.*)$", text)) and target in m.group(1).split()}


@pytest.mark.parametrize("target", TARGETS)
def test_fixture_fallbacks_found_on_their_lines_and_no_control_flagged(target):
    result = scan(FIXTURE.read_text(encoding="utf-8"), torch_npu=target)
    flagged = [f.line for f in result.findings if f.rule in RULES]
    assert len(flagged) == len(set(flagged)), "one finding per call"
    assert set(flagged) == _expected(target)


def test_hot_and_cold_paths():
    result = scan(FIXTURE.read_text(encoding="utf-8"), torch_npu="2.12.0")
    rules = {f.line: f.rule for f in result.findings if f.rule in RULES}
    text = FIXTURE.read_text(encoding="utf-8").splitlines()
    lgamma = next(n for n, line in enumerate(text, 1) if "torch.lgamma(x)  #" in line)
    evaluate = max(n for n, line in enumerate(text, 1) if "torch.special.i1e" in line)
    assert rules[lgamma] == "OPS070" and rules[evaluate] == "OPS071"


def test_an_upgrade_within_reach_costs_nothing_and_is_named():
    result = scan("import torch\nclass M(torch.nn.Module):\n    def forward(self, a, b):\n        return torch.isin(a, b)\n",
                  torch_npu="2.1.0")
    finding = next(f for f in result.findings if f.rule == "OPS070")
    assert finding.symbol == "aten::isin.Tensor_Tensor"
    assert (finding.effort_hours.low, finding.effort_hours.high) == (0.0, 0.0)
    assert "v2.1.0-6.0.rc3" in finding.replacement.en
    never = scan("import torch\nclass M(torch.nn.Module):\n    def forward(self, a):\n        return torch.lgamma(a)\n",
                 torch_npu="2.1.0")
    assert next(f for f in never.findings if f.rule == "OPS070").effort_hours.high > 0


# Rows checked by hand against the yaml files (op-plugin at the pinned commit; torch_npu's npu_native_functions.yaml).
HAND_CHECKED = [
    # isin.Tensor_Tensor: absent from v2r1/v2r2 of op-plugin cd46cfb (5.0.0) and from b761d58 (6.0.rc2, unified yaml:
    # no entry); op_api [v2.1, newest] from b99362e (6.0.rc3) on — LLaMA-Factory #4836/#6671, Ascend/pytorch #40
    ("isin.Tensor_Tensor", "v2.1.0-5.0.0", False),
    ("isin.Tensor_Tensor", "v2.3.1-6.0.rc2", False),
    ("isin.Tensor_Tensor", "v2.1.0-6.0.rc3", True),
    ("isin.Tensor_Tensor", "v2.12.0-26.1.0", True),
    # isin.Scalar_Tensor: only isin.Scalar_Tensor_out is listed (acl_op/op_api all_version): the out form counts
    ("isin.Scalar_Tensor", "v2.12.0-26.1.0", True),
    # _transformer_encoder_layer_fwd: on no pinned commit, in no npu_native_functions.yaml — Ascend/pytorch #51
    ("_transformer_encoder_layer_fwd", "v2.1.0-5.0.0", False),
    ("_transformer_encoder_layer_fwd", "v2.12.0-26.1.0", False),
    # unique_dim: official, acl_op/op_api all_version at 09024aa (26.1.0); missing from cd46cfb's v2r1
    ("unique_dim", "v2.12.0-26.1.0", True),
    ("unique_dim", "v2.1.0-5.0.0", False),
    # lgamma / digamma: no entry on any line (op-plugin lists them in test/unsupported_ops_info_base.yaml)
    ("lgamma", "v2.12.0-26.1.0", False),
    ("digamma", "v2.9.0-7.3.0", False),
    # logit: no entry at b761d58 (6.0.rc2), b99362e (6.0.rc3), 06dba7a (6.0.0), 7b9ce1c (7.0.0); op_api [v2.1, newest]
    # at 3ec6c1f (7.1.0)
    ("logit", "v2.3.1-6.0.rc2", False),
    ("logit", "v2.5.1-7.0.0", False),
    ("logit", "v2.1.0-7.1.0", True),
    # composite: matmul and cross_entropy_loss decompose (CompositeImplicitAutograd in native_functions.yaml)
    ("matmul", "v2.1.0-5.0.0", True),
    ("cross_entropy_loss", "v2.1.0-5.0.0", True),
    # _foreach_add.List: no yaml entry on 5.0.0's commit; the code generator registers PyTorch's CPU kernel
    ("_foreach_add.List", "v2.1.0-5.0.0", True),
]


@pytest.mark.parametrize("overload, branch, runs", HAND_CHECKED)
def test_rows_checked_by_hand_against_the_yaml(overload, branch, runs):
    assert load_coverage().runs(overload, branch) is runs


def test_table_covers_every_release_and_pins_the_gitlink_commits():
    coverage = load_coverage()
    kb = load_knowledge()
    assert set(coverage.branches) == {r.branch for r in kb.releases}
    assert coverage.branches[0] == "v2.1.0-5.0.0" and coverage.branches[-1] == "v2.12.0-26.1.0"


def test_overload_selection_by_arguments():
    text = ("import torch\nclass M(torch.nn.Module):\n    def forward(self, a, b):\n"
            "        return torch.isin(3, b), torch.isin(a, 3), torch.isin(a, b)\n")
    result = scan(text, torch_npu="2.1.0")
    assert [f.symbol for f in result.findings if f.rule in RULES] == ["aten::isin.Tensor_Tensor"]


def test_report_section_lists_fallbacks_with_first_release():
    from tests.helpers import analyze_snippet_project

    report = analyze_snippet_project(FIXTURE.read_text(encoding="utf-8"), "python")
    section = report.operator_coverage
    assert section is not None and section.release == "2.12.0"
    names = {f.operator for f in section.fallbacks}
    assert "aten::lgamma" in names and "aten::isin.Tensor_Tensor" not in names
    assert section.on_npu < section.called
    encoder = next(f for f in section.fallbacks if f.operator == "aten::_transformer_encoder_layer_fwd")
    assert encoder.first_release is None and encoder.outcome == "cpu-fallback"


def test_operator_probe_on_cpu_measures_nothing():
    from ascend_feasibility.analyzer.probes.operators import run_operator_probe

    document = run_operator_probe(["lgamma", "isin.Tensor_Tensor"], "auto")
    assert document["device"] == "cpu"
    assert [r["outcome"] for r in document["results"]] == ["not measured", "not measured"]


def test_operator_probe_reads_fallback_warnings_and_unsupported_errors(monkeypatch):
    import warnings

    import torch
    from ascend_feasibility.analyzer.probes import operators

    def falls_back(*args):
        warnings.warn("CAUTION: The operator 'aten::lgamma' is not currently supported on the NPU backend and will "
                      "fall back to run on the CPU. This may have performance implications.")
        return args[0]

    def unsupported(*args):
        raise RuntimeError("CAUTION: The operator 'aten::x' is not currently supported on the NPU backend.")

    def wrong_inputs(*args):
        raise RuntimeError("expected scalar type Long but found Float")

    real = torch.ops.aten.lgamma.default
    for packet, outcome in ((falls_back, "cpu-fallback"), (unsupported, "error"), (wrong_inputs, "inconclusive"), (real, "npu")):
        class Packet:
            _schema = real._schema

            def __call__(self, *args, _run=packet):
                return _run(*args)

        monkeypatch.setattr(operators, "_packet", lambda overload, torch, _p=Packet(): _p)
        assert operators.probe_operator("lgamma", "cpu", torch)["outcome"] == outcome


def test_markdown_and_html_show_the_fallbacks_in_both_languages():
    from ascend_feasibility.analyzer.reporting.render_html import render_html
    from ascend_feasibility.analyzer.reporting.render_markdown import render_markdown

    from tests.helpers import analyze_snippet_project

    report = analyze_snippet_project(FIXTURE.read_text(encoding="utf-8"), "python")
    markdown, html = render_markdown(report), render_html(report)
    for text in (markdown, html):
        assert "Operator coverage" in text and "算子覆盖" in text
        assert "aten::lgamma" in text and "aten::_transformer_encoder_layer_fwd" in text
    assert "| `aten::lgamma` | CPU fallback" in markdown
    assert 'id="operator-coverage"' in html
