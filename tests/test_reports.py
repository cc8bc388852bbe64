"""The Markdown, HTML, SARIF and CSV reports, the UI strings, and the rule documentation."""

from __future__ import annotations

import csv
import io
import json
import re
from pathlib import Path

import jsonschema
import pytest
from ascend_feasibility.analyzer.core.cli import main
from ascend_feasibility.analyzer.core.models import DOMAINS, MIGRATIONS, PHASES, SEVERITIES
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.outputs import render_to_string
from ascend_feasibility.analyzer.reporting.render_sarif import FINGERPRINT_KEY, to_sarif
from ascend_feasibility.analyzer.reporting.rule_docs import expected_docs, render_rule
from ascend_feasibility.analyzer.reporting.ui_strings import LANGUAGES, load_strings, placeholders
from ascend_feasibility.knowledge import load_knowledge
from ascend_feasibility.report_templates import TEMPLATES_DIR

from tests.golden_format import SAMPLES, sample_names, sample_report
from tests.helpers import write_tree

ROOT = Path(__file__).resolve().parent.parent
SARIF_SCHEMA = Path(__file__).resolve().parent / "data" / "sarif-schema-2.1.0.json"
ATTACK = "</script><script>alert(1)</script>"
CJK = re.compile(r"[\u4e00-\u9fff]")


# ---- UI strings -------------------------------------------------------------------------------------------------

def test_every_language_has_the_same_keys_and_placeholders():
    english = load_strings("en")
    for language in LANGUAGES[1:]:
        other = load_strings(language)
        assert set(other) == set(english), f"{language}: keys differ: {set(other) ^ set(english)}"
        for key, text in english.items():
            assert placeholders(other[key]) == placeholders(text), f"{language}:{key} placeholders differ"


def test_chinese_strings_are_written_in_chinese():
    chinese = load_strings("zh")
    untranslated = [k for k, v in chinese.items()
                    if not CJK.search(v) and v == load_strings("en")[k] and not k.startswith("term.")]
    # API names and product names stay as they are; everything else is written for Chinese engineers.
    # Operator, model and product names (term.*) stay as written.
    assert set(untranslated) <= {"architecture.forward", "ops_path.triton-ascend", "ops_path.ascend-c", "role.ci"}, untranslated


def test_templates_use_only_known_keys():
    known = set(load_strings("en"))
    for template in TEMPLATES_DIR.glob("*.j2"):
        text = template.read_text(encoding="utf-8")
        for name in re.findall(r"""\bt(?:_in)?\((?:[a-z]+, *|'[a-z]+', *|"[a-z]+", *)?["']([a-z_]+\.[a-z_\-]+)["'] *[,)]""", text):
            assert name in known, f"{template.name} uses unknown UI string {name}"
        for prefix in re.findall(r"""\bt(?:_in)?\((?:[a-z]+, *)?["']([a-z_]+\.[a-z_]*)["'] *~""", text):
            assert any(k.startswith(prefix) for k in known), f"{template.name}: no strings under {prefix}"
    for group, values in (("domain", DOMAINS), ("severity", SEVERITIES), ("migration", MIGRATIONS), ("phase", PHASES)):
        assert {f"{group}.{v}" for v in values} <= known


# ---- Markdown and HTML --------------------------------------------------------------------------------------------

def test_markdown_has_every_section_in_both_languages():
    document = render_to_string(sample_report("dit_train"), "markdown")
    for heading in ("## Executive summary", "## Dependencies", "## Findings by domain", "## Custom operator inventory",
                    "## Phase matrix", "## Bottlenecks", "### Risk matrix", "### Roadmap", "## Architecture overview",
                    "## 评估摘要", "## 依赖分析", "## 阶段矩阵", "### 风险矩阵", "### 迁移路线图"):
        assert heading in document
    assert "**Needs adaptation**" in document and "**需适配**" in document


def test_language_choice_limits_the_output():
    report = sample_report("llm_train")
    english = render_to_string(report, "markdown", ("en",))
    chinese = render_to_string(report, "markdown", ("zh",))
    assert "## Executive summary" in english and "## 评估摘要" not in english
    assert "## 评估摘要" in chinese and "## Executive summary" not in chinese
    page = render_to_string(report, "html", ("zh",))
    assert 'class="lang-switch"' not in page and '<span lang="en">' not in page and 'lang="zh-CN"' in page


def test_html_is_self_contained():
    page = render_to_string(sample_report("dit_train"), "html")
    assert not re.search(r"""(src|href)=["']?(https?:)?//""", page), "the page must not load anything"
    assert "@import" not in page and "url(http" not in page
    assert page.count("<script") == 1 and "<svg" in page and "@media print" in page
    assert "default-src 'none'" in page


def _attack_project(tmp_path: Path) -> Path:
    project = tmp_path / "proj<img src=x onerror=alert(2)>"
    write_tree(project, {
        "train.py": (
            "import torch\n"
            f"x = torch.zeros(3, device=\"cuda\")  # {ATTACK}\n"
            f"torch.cuda.set_device(\"{ATTACK}\")\n"
            f"y = torch.ones(2).cuda()  # ` | [link](javascript:alert(3)) *bold* <b>\n"
        ),
        f"evil{ATTACK.replace('/', '')}.py": "import torch\ntorch.cuda.synchronize()\n",
        "requirements.txt": f"flash-attn==2.5.8  # {ATTACK}\n",
    })
    return project


def test_project_text_is_escaped_in_html_and_markdown(tmp_path):
    report = analyze(_attack_project(tmp_path), AnalyzeOptions(jobs=1))
    assert any(ATTACK in f.snippet for f in report.findings), "the attack must reach the report to test escaping"
    assert any("<script>" in f.path for f in report.findings)

    page = render_to_string(report, "html")
    assert "<script>alert" not in page and "onerror=alert" not in page.replace("onerror=alert(2)&gt;", "")
    assert len(re.findall(r"<script", page)) == 1
    assert "&lt;/script&gt;&lt;script&gt;alert(1)&lt;/script&gt;" in page or "&lt;script&gt;alert(1)" in page

    for language in ("en", "zh"):
        document = render_to_string(report, "markdown", (language,))
        outside_code = re.sub(r"(`+)(?:(?!\1).)+?\1", "", document)
        assert "<script" not in outside_code and "<img" not in outside_code
        assert "](javascript:" not in outside_code
        for line in document.splitlines():
            if line.startswith("| `train.py:"):
                assert len(re.findall(r"(?<!\\)\|", re.sub(r"(`+)(?:(?!\1).)+?\1", "", line))) == 8, line


def test_html_view_of_a_sample_with_notebooks_and_kernels():
    for name in ("notebook_finetune", "fused_kernels"):
        page = render_to_string(sample_report(name), "html")
        assert 'id="findings-table"' in page and "</html>" in page


# ---- SARIF --------------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sample_names())
def test_sarif_is_valid_and_has_what_github_requires(name):
    sarif = json.loads(render_to_string(sample_report(name), "sarif"))
    jsonschema.Draft4Validator(json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))).validate(sarif)
    assert sarif["version"] == "2.1.0" and sarif["$schema"]
    run = sarif["runs"][0]
    driver = run["tool"]["driver"]
    assert driver["name"] == "ascend-feasibility" and driver["version"]
    ids = [rule["id"] for rule in driver["rules"]]
    assert len(ids) == len(set(ids)), "rules must be deduplicated"
    for rule in driver["rules"]:
        assert rule["shortDescription"]["text"] and rule["fullDescription"]["text"]
        assert rule["help"]["text"] and rule["help"]["markdown"].startswith(f"### {rule['id']}")
        assert rule["defaultConfiguration"]["level"] in ("error", "warning", "note")
    for result in run["results"]:
        assert ids[result["ruleIndex"]] == result["ruleId"]
        assert result["message"]["text"]
        physical = result["locations"][0]["physicalLocation"]
        assert physical["artifactLocation"]["uri"] and not physical["artifactLocation"]["uri"].startswith("/")
        assert physical["region"]["startLine"] >= 1
        assert result["partialFingerprints"][FINGERPRINT_KEY]


def test_sarif_fingerprints_survive_moved_lines_and_suppressions_are_kept(tmp_path):
    code = "import torch\nx = torch.zeros(3).cuda()\ny = torch.zeros(3).cuda()  # ascend: ignore[DEV004]\n"
    write_tree(tmp_path / "a", {"m.py": code})
    write_tree(tmp_path / "b", {"m.py": "\n\n\n# moved down\n" + code})
    first = to_sarif(analyze(tmp_path / "a", AnalyzeOptions(jobs=1)))["runs"][0]["results"]
    second = to_sarif(analyze(tmp_path / "b", AnalyzeOptions(jobs=1)))["runs"][0]["results"]
    assert [r["partialFingerprints"] for r in first] == [r["partialFingerprints"] for r in second]
    assert [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in first] != \
        [r["locations"][0]["physicalLocation"]["region"]["startLine"] for r in second]
    suppressed = [r for r in first if r.get("suppressions")]
    assert len(suppressed) == 1 and suppressed[0]["suppressions"][0]["kind"] == "inSource"


def test_sarif_gives_a_folded_finding_one_result_with_its_other_sites_as_related_locations(tmp_path):
    write_tree(tmp_path, {"cfg/a.yaml": "run:\n  device: cuda\n", "cfg/b.yaml": "x: 1\nrun:\n  device: cuda\n"})
    results = [r for r in to_sarif(analyze(tmp_path, AnalyzeOptions(jobs=1)))["runs"][0]["results"]
               if r["ruleId"] == "DEV001"]
    assert len(results) == 1 and results[0]["locations"][0]["physicalLocation"]["artifactLocation"]["uri"] == "cfg/a.yaml"
    related = results[0]["relatedLocations"]
    assert [(r["physicalLocation"]["artifactLocation"]["uri"], r["physicalLocation"]["region"]["startLine"])
            for r in related] == [("cfg/b.yaml", 3)]


# ---- CSV ----------------------------------------------------------------------------------------------------------

def test_findings_csv_has_one_row_per_finding_and_defuses_formulas(tmp_path):
    write_tree(tmp_path, {"launch.sh": "export NCCL_DEBUG=INFO\n", "m.py": "import torch\n-torch.zeros(1).cuda()\n@torch.compile\ndef f(): pass\n",
                          "notes.py": "import os\nos.environ['NCCL_SOCKET_IFNAME'] = '=HYPERLINK(\"http://x\")'\n"})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    rows = list(csv.DictReader(io.StringIO(render_to_string(report, "csv"))))
    assert len(rows) == len(report.findings)
    assert all(not str(value).startswith(("=", "+", "-", "@")) for row in rows for value in row.values())
    assert any(row["snippet"].startswith("'") for row in rows)


def test_phase_matrix_csv(tmp_path):
    out = tmp_path / "out"
    assert main(["analyze", str(SAMPLES / "dit_train"), "--format", "csv", "-o", str(out / "dit.csv")]) in (0,)
    matrix = list(csv.reader((out / "dit.phase-matrix.csv").open(encoding="utf-8")))
    assert matrix[0] == ["item", "kind", "count", "training", "inference"]
    assert matrix[-1][0] == "effort days (high)" and float(matrix[-1][3]) > 0


# ---- command line -------------------------------------------------------------------------------------------------

@pytest.mark.parametrize("name", sample_names())
def test_output_dir_writes_every_format(tmp_path, name):
    assert main(["analyze", str(SAMPLES / name), "--output-dir", str(tmp_path), "--jobs", "1"]) == 0
    expected = {"report.txt", "report.json", "report.md", "report.html", "report.sarif", "findings.csv", "phase-matrix.csv"}
    assert {p.name for p in tmp_path.iterdir()} == expected
    assert all((tmp_path / f).stat().st_size > 0 for f in expected)
    json.loads((tmp_path / "report.json").read_text(encoding="utf-8"))
    json.loads((tmp_path / "report.sarif").read_text(encoding="utf-8"))


def test_markdown_format_to_a_file_in_one_language(tmp_path):
    target = tmp_path / "r.md"
    assert main(["analyze", str(SAMPLES / "llm_infer"), "--format", "markdown", "--lang", "zh", "-o", str(target)]) == 0
    text = target.read_text(encoding="utf-8")
    assert text.startswith("# 昇腾迁移可行性评估") and "Executive summary" not in text


def test_explain_and_rules(capsys):
    assert main(["explain", "att001"]) == 0
    out = capsys.readouterr().out
    for part in ("### ATT001 flash-attn-func", "**What it detects**", "**Why it matters on Ascend**", "**Replacement**",
                 "**Fix safety**", "**Examples**", "**References**", "npu_fusion_attention"):
        assert part in out
    assert main(["explain", "ATT001", "--lang", "zh"]) == 0
    assert "**替代方案**" in capsys.readouterr().out
    assert main(["explain", "NOPE01"]) == 2
    assert main(["rules"]) == 0
    listed = capsys.readouterr().out
    assert all(code in listed for code in load_knowledge().rules)


# ---- rule documentation -------------------------------------------------------------------------------------------

def test_docs_rules_are_up_to_date():
    folder = ROOT / "docs" / "rules"
    expected = expected_docs()
    on_disk = {str(p.relative_to(folder)): p.read_text(encoding="utf-8") for p in folder.rglob("*.md")}
    assert set(on_disk) == set(expected), "run `ascend-feasibility rules --write-docs docs/rules`"
    stale = [name for name, text in expected.items() if on_disk[name] != text]
    assert not stale, f"stale rule docs {stale}: run `ascend-feasibility rules --write-docs docs/rules`"


def test_rule_docs_show_the_rules_own_examples():
    kb = load_knowledge()
    for rule in kb.rules.values():
        text = render_rule(rule, "en", kb)
        for group in rule.examples:
            for case in (*group.invalid, *group.valid):
                assert case.code.rstrip("\n") in text, f"{rule.code}: example missing from its doc"


# ---- Markdown structure, parsed as GitHub would -------------------------------------------------------------------

def _markdown_problems(document: str) -> list[str]:
    """Raw HTML other than our language anchors, and table rows whose cell count differs from their header's."""
    from markdown_it import MarkdownIt

    anchor = re.compile(r'\s*(<a id="report-(en|zh)">)?(</a>)?\s*')
    tokens = MarkdownIt("commonmark").enable("table").parse(document)
    problems, header_cells, row_cells, in_head = [], 0, 0, False
    for token in tokens:
        if token.type == "html_block" and not anchor.fullmatch(token.content):
            problems.append(f"raw HTML: {token.content!r}")
        if token.type == "inline":
            problems += [f"raw HTML: {child.content!r}" for child in token.children or []
                         if child.type == "html_inline" and not anchor.fullmatch(child.content)]
        if token.type == "thead_open":
            in_head, header_cells = True, 0
        elif token.type == "thead_close":
            in_head = False
        elif token.type == "tr_open":
            row_cells = 0
        elif token.type in ("th_open", "td_open"):
            row_cells += 1
        elif token.type == "tr_close":
            if in_head:
                header_cells = row_cells
            elif row_cells != header_cells:
                problems.append(f"row with {row_cells} cells under a header of {header_cells}")
    # GFM drops surplus cells silently: count the unescaped pipes of each table line against its header's.
    header_pipes = None
    for line in document.splitlines():
        if not line.startswith("|"):
            header_pipes = None
            continue
        pipes = len(re.findall(r"(?<!\\)\|", line))
        if header_pipes is None:
            header_pipes = pipes
        elif pipes != header_pipes:
            problems.append(f"table line with {pipes} pipes under a header with {header_pipes}: {line[:80]}")
    return problems


@pytest.mark.parametrize("name", sample_names())
def test_markdown_reports_parse_cleanly(name):
    document = render_to_string(sample_report(name), "markdown")
    assert "<table>" not in document
    assert _markdown_problems(document) == []


def test_markdown_of_hostile_project_parses_cleanly(tmp_path):
    report = analyze(_attack_project(tmp_path), AnalyzeOptions(jobs=1))
    document = render_to_string(report, "markdown")
    assert _markdown_problems(document) == []


# ---- Chinese for the phrases the analysis composes ----------------------------------------------------------------

def test_composed_phrases_and_terms_have_chinese():
    from ascend_feasibility.analyzer.reporting.localize import recognised
    from ascend_feasibility.domains.phases.plan import FAMILIES

    strings = load_strings("zh")
    for name in sample_names():
        report = sample_report(name)
        phrases = [e for entry in report.phase_matrix.entries for e in entry.evidence]
        phrases += report.architecture.evidence
        assert all(recognised(p) for p in phrases), [p for p in phrases if not recognised(p)]
        for item in report.effort.items:  # each item's arithmetic is composed in both languages
            assert item.arithmetic is not None and item.arithmetic.zh != item.arithmetic.en
        for op in report.custom_ops:
            assert f"term.{op.classification}" in strings
        chinese = render_to_string(report, "markdown", ("zh",))
        assert "name suggests" not in chinese and "signals in the" not in chinese and "sub-linear" not in chinese
    for family, _ in FAMILIES:
        assert f"term.{family}" in strings
    for kernel_class in load_knowledge().kernel_classes:
        assert f"term.{kernel_class.name}" in strings


def test_terminal_summary_shows_step0_and_the_largest_cost_drivers():
    import io

    from ascend_feasibility.analyzer.reporting.render_text import render_text
    from rich.console import Console

    from tests.golden_format import sample_report

    report = sample_report("llm_train")
    for language, step0, drivers in (("en", "Step 0", "Largest cost drivers"), ("zh", "第 0 步", "最大的成本来源")):
        out = io.StringIO()
        render_text(report, Console(file=out, width=200, color_system=None), language)
        text = out.getvalue()
        assert step0 in text and drivers in text
        assert "train.py" in text.split(step0, 1)[1].split(drivers, 1)[0]  # the entry file is named in Step 0


def test_the_chinese_report_translates_item_names_suppression_reasons_and_route_sentences():
    report = sample_report("llm_infer")  # a transfer_to_npu item, an unused suppression, the transformers route
    assert any(row.item == "transfer_to_npu (informational auto sites)" for row in report.phase_matrix.rows)
    assert report.unused_suppressions and report.verdict.routes
    for format_name in ("markdown", "html"):
        chinese = render_to_string(report, format_name, ("zh",))
        assert "informational auto sites" not in chinese and "transfer_to_npu（提示级自动位置）" in chinese
        assert "(unused)" not in chinese and "(未生效)" in chinese
        tail = report.verdict.routes[0].route.zh.rsplit("`", 1)[-1]  # after the last code span, as written
        assert tail + "。" in chinese and tail + ". " not in chinese


def test_a_kernel_class_bottleneck_is_titled_in_chinese():
    report = sample_report("fused_kernels")  # OPS001 kernels of the rms_norm and gather_scatter classes
    titles = [b.title for b in report.bottlenecks if b.title.en.startswith("OPS001 cuda-kernel [rms_norm]")]
    assert titles and titles[0].en == "OPS001 cuda-kernel [rms_norm] (1×)"
    for format_name in ("markdown", "html", "text"):
        chinese = render_to_string(report, format_name, ("zh",))
        assert "OPS001 cuda-kernel（RMSNorm）（1 处）" in chinese, format_name
        assert "[rms_norm]" not in chinese.replace("\\[rms\\_norm\\]", "[rms_norm]"), format_name
    english = render_to_string(report, "markdown", ("en",))
    assert "OPS001 cuda-kernel \\[rms\\_norm\\] (1×)" in english
