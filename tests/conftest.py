import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

# The CLI keeps a cache of per-file results in the user's cache folder: tests (and the commands they start) use a
# throwaway one, never the real one; each test its own (a test that changes the knowledge base in-process must not
# read another test's results).
import atexit  # noqa: E402
import os  # noqa: E402
import shutil  # noqa: E402
import tempfile  # noqa: E402

_CACHE_HOME = tempfile.mkdtemp(prefix="ascend-feasibility-test-cache-")
os.environ["XDG_CACHE_HOME"] = _CACHE_HOME
atexit.register(shutil.rmtree, _CACHE_HOME, ignore_errors=True)

import pytest  # noqa: E402


@pytest.fixture(autouse=True)
def _private_cache(tmp_path_factory, monkeypatch):
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path_factory.mktemp("xdg-cache")))


# Knowledge-base consistency checks compare the knowledge base with its own release data and texts: no code bug can
# fail them. They run with the rest but are counted apart, so the number of behaviour tests stays visible.
DATA_CHECKS = frozenset({
    "test_every_proposed_name_exists_at_the_default_release",
    "test_replacement_code_parses",
    "test_inference_replacements_name_no_training_only_operator",
    "test_every_rule_has_both_kinds_of_example",
    "test_every_rule_is_bilingual_and_cited",
    "test_detector_names_are_unique",
})


def pytest_configure(config):
    config.addinivalue_line("markers", "data_check: a knowledge-base consistency check (counted apart from behaviour tests)")


def pytest_collection_modifyitems(config, items):
    for item in items:
        if getattr(item, "originalname", item.name) in DATA_CHECKS:
            item.add_marker(pytest.mark.data_check)


def pytest_terminal_summary(terminalreporter, exitstatus, config):
    passed = terminalreporter.stats.get("passed", [])
    data = sum(1 for report in passed if "data_check" in report.keywords)
    terminalreporter.write_line(f"behaviour tests passed: {len(passed) - data}; knowledge-base data checks passed: {data}")
