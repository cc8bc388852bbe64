"""The HTML report in a real headless Chromium: the language switch, the findings filters and sorting work, the page
makes no network request, and project text cannot run as script.

Needs Debian's `chromium` (installed by .ci/run, which also sets ASCEND_FEASIBILITY_REQUIRE_BROWSER=1 so that a missing
browser fails there instead of skipping)."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.outputs import render_to_string

from tests.golden_format import sample_report
from tests.helpers import write_tree

CHROMIUM = shutil.which("chromium") or shutil.which("chromium-browser")
REQUIRED = os.environ.get("ASCEND_FEASIBILITY_REQUIRE_BROWSER") == "1"
ATTACK = "</script><script>alert(1)</script>"
CHROMIUM_ARGS = ["--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run", "--disable-background-networking",
                 "--disable-component-update", "--disable-sync"]

if not CHROMIUM and not REQUIRED:
    pytest.skip("chromium is not installed (CI installs it)", allow_module_level=True)


@pytest.fixture(scope="module")
def browser():
    assert CHROMIUM, "chromium is required here: install Debian's chromium package"
    from playwright.sync_api import sync_playwright

    with sync_playwright() as playwright:
        instance = playwright.chromium.launch(executable_path=CHROMIUM, args=CHROMIUM_ARGS)
        yield instance
        instance.close()


class Page:
    """A report opened from disk, with every request, console error and dialog recorded."""

    def __init__(self, browser, html: str, folder: Path) -> None:
        path = folder / "report.html"
        path.write_text(html, encoding="utf-8")
        self.url = path.as_uri()
        self.requests: list[str] = []
        self.errors: list[str] = []
        self.dialogs: list[str] = []
        self.page = browser.new_page(viewport={"width": 1400, "height": 900})
        self.page.on("request", lambda request: self.requests.append(request.url))
        self.page.on("pageerror", lambda error: self.errors.append(str(error)))
        self.page.on("console", lambda message: message.type == "error" and self.errors.append(message.text))
        self.page.on("dialog", lambda dialog: (self.dialogs.append(dialog.message), dialog.dismiss()))
        self.page.goto(self.url)
        self.page.wait_for_load_state("load")

    def visible_rows(self) -> list:
        return self.page.locator("#findings-table tbody tr:visible").all()


def test_language_switch_filters_sorting_and_no_network(browser, tmp_path):
    report = sample_report("dit_train")
    view = Page(browser, render_to_string(report, "html"), tmp_path)
    page = view.page
    english_title, chinese_title = page.locator("h1 [lang=en]"), page.locator("h1 [lang=zh]")
    assert english_title.is_visible() and not chinese_title.is_visible()

    page.click("button[data-set-lang=zh]")
    assert chinese_title.is_visible() and not english_title.is_visible()
    assert "昇腾迁移可行性评估" in chinese_title.inner_text()
    assert page.evaluate("document.documentElement.lang") == "zh-CN"
    assert page.locator("#filter-severity option[value=high]").inner_text() == "高"
    page.click("button[data-set-lang=en]")
    assert english_title.is_visible()
    assert page.locator("#filter-severity option[value=high]").inner_text() == "high"

    active = [f for f in report.findings if not f.suppressed]
    assert len(view.visible_rows()) == len(active)
    page.select_option("#filter-severity", "high")
    high = [f for f in active if f.severity == "high"]
    assert len(view.visible_rows()) == len(high) > 0
    assert page.locator("#shown-count").inner_text() == str(len(high))
    page.select_option("#filter-domain", "attention")
    assert len(view.visible_rows()) == len([f for f in high if f.domain == "attention"]) > 0
    page.select_option("#filter-severity", "")
    page.select_option("#filter-domain", "")
    page.select_option("#filter-phase", "inference")
    assert len(view.visible_rows()) == len([f for f in active if "inference" in f.phases]) > 0
    page.select_option("#filter-phase", "")
    page.fill("#filter-file", "launch.sh")
    rows = view.visible_rows()
    assert rows and all(row.get_attribute("data-path") == "scripts/launch.sh" for row in rows)
    page.fill("#filter-file", "")
    page.select_option("#filter-context", "not-counted")
    uncounted = [f for f in active if not f.counted]
    assert len(view.visible_rows()) == len(uncounted) > 0
    page.select_option("#filter-context", "reach:optional")
    assert len(view.visible_rows()) == len([f for f in active if f.reach == "optional"]) > 0
    page.select_option("#filter-context", "counted")
    assert len(view.visible_rows()) == len(active) - len(uncounted)
    page.select_option("#filter-context", "")
    assert page.locator("#not-counted summary").inner_text().startswith("Not counted")

    # The effort breakdown: one visible row per estimated item, each with its arithmetic; Step 0 and the drivers.
    effort_rows = page.locator("#effort-table tbody tr")
    assert effort_rows.count() == len(report.effort.items) > 0
    assert effort_rows.first.is_visible() and "×" in page.locator("#effort-table").inner_text()
    assert page.locator("#step0 li").count() >= 2 and page.locator("#top-drivers li").count() > 0

    severity_header = page.locator("#findings-table th", has_text="Severity")
    severity_header.click()
    assert severity_header.get_attribute("aria-sort") == "ascending"
    severity_header.click()
    assert severity_header.get_attribute("aria-sort") == "descending"
    assert view.visible_rows()[0].get_attribute("data-severity") == "info"

    page.screenshot(path=str(tmp_path / "report.png"), full_page=True)
    assert view.requests == [view.url], f"the report made network requests: {view.requests}"
    assert not view.errors and not view.dialogs


def test_project_text_never_runs_as_script(browser, tmp_path):
    project = tmp_path / "project"
    write_tree(project, {"train.py": f"import torch\nx = torch.zeros(3, device=\"cuda\")  # {ATTACK}\n"
                                     f"torch.cuda.set_device(\"{ATTACK}\")\n"})
    report = analyze(project, AnalyzeOptions(jobs=1))
    view = Page(browser, render_to_string(report, "html"), tmp_path)
    assert not view.dialogs and not view.errors
    assert ATTACK in view.page.locator("#findings-table").inner_text()
    assert view.requests == [view.url]
