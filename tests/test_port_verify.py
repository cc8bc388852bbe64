"""analyzer/port/verify.py without an analysis or a subprocess: the values verify_npu.py is generated with (the
patched modules an import reaches, the tests folder, each phase's tests, the probes matching the report's rules) and
how the exported probe script is spliced in, as the module's docstrings state them."""

from __future__ import annotations

import os
from types import SimpleNamespace

import pytest
from ascend_feasibility.analyzer.port import verify
from ascend_feasibility.analyzer.port.core import PortResult
from ascend_feasibility.analyzer.port.verify import (
    MAX_TEST_FILES,
    imported_modules,
    patched_modules,
    phase_tests,
    test_folder,
    verify_script,
)
from ascend_feasibility.analyzer.probes.export import script_text
from ascend_feasibility.analyzer.reading.parsing import parse
from ascend_feasibility.knowledge import load_knowledge

test_folder.__test__ = False  # a function of the module under test, not a test


def _result(rewrites=(), new_files=()):
    return PortResult(rewrites=[SimpleNamespace(path=p) for p in rewrites], new_files={p: "" for p in new_files})


def _report(entries=None, findings=()):
    matrix = None if entries is None else SimpleNamespace(
        entries=[SimpleNamespace(path=p, phases=list(phases)) for p, phases in entries])
    return SimpleNamespace(phase_matrix=matrix, findings=list(findings))


def _write(root, files: dict[str, str]):
    for name, content in files.items():
        (root / name).parent.mkdir(parents=True, exist_ok=True)
        (root / name).write_text(content, encoding="utf-8")
    return root


def test_patched_modules_are_the_importable_python_files_in_path_order():
    result = _result(rewrites=["train.py", "pkg/sub/model.py", "pkg/__init__.py", "__init__.py", "run.sh",
                               "my-pkg/x.py", "pkg/2x.py", "pkg/a.b.py", "scripts/go.pyw"],
                     new_files=["pkg/_device.py", "train.py"])
    assert patched_modules(result) == ["pkg", "pkg._device", "pkg.sub.model", "train"]
    assert patched_modules(_result()) == []


def test_test_folder_prefers_tests_and_ignores_files_and_links(tmp_path):
    assert test_folder(tmp_path) is None
    (tmp_path / "tests").write_text("", encoding="utf-8")  # a file, not a folder
    (tmp_path / "test").mkdir()
    assert test_folder(tmp_path) == "test"
    (tmp_path / "tests").unlink()
    (tmp_path / "tests").mkdir()
    assert test_folder(tmp_path) == "tests"
    other = tmp_path / "other"
    other.mkdir()
    os.symlink(tmp_path / "tests", other / "tests")
    assert test_folder(other) is None


def test_imported_modules_names_each_import_and_its_names():
    source = b"""import os, numpy as np
import a.b.c
from x.y import z, w as v
from . import rel
from .m import n
def f():
    import inner.mod
    from q import (r)
"""
    assert imported_modules(parse("python", source)) == {
        "os", "numpy", "a.b.c", "x.y", "x.y.z", "x.y.w", "inner.mod", "q", "q.r"}
    assert imported_modules(parse("python", b"x = 1\n")) == set()
    assert imported_modules(parse("python", b"from m import *\n")) == {"m"}


def test_phase_tests_map_each_phase_to_the_test_files_importing_its_entries(tmp_path):
    root = _write(tmp_path, {
        "tests/test_train.py": "import train\n",
        "tests/unit/test_serve.py": "from pkg.serve import handler\n",
        "tests/test_both.py": "import train\nfrom pkg import serve\n",
        "tests/test_other.py": "import os\n",
        "tests/helper.txt": "import train\n",
        "tests/data.py/x.py": "import train\n",  # a folder named like a file: its file still counts
    })
    report = _report([("train.py", ["training"]), ("pkg/serve.py", ["inference", "serving"]),
                      ("pkg/__init__.py", ["training"]), ("run.sh", ["training"]), ("__init__.py", ["inference"])])
    assert phase_tests(root, report, "tests") == {
        "inference": ["tests/test_both.py", "tests/unit/test_serve.py"],
        "serving": ["tests/test_both.py", "tests/unit/test_serve.py"],
        "training": ["tests/data.py/x.py", "tests/test_both.py", "tests/test_train.py"],
    }  # pkg/__init__.py is the module pkg, which test_both imports through `from pkg import serve`


def test_phase_tests_need_a_folder_and_a_phase_matrix(tmp_path):
    root = _write(tmp_path, {"tests/test_train.py": "import train\n"})
    assert phase_tests(root, _report([("train.py", ["training"])]), None) == {}
    assert phase_tests(root, _report(None), "tests") == {}
    assert phase_tests(root, _report([]), "tests") == {}


def test_phase_tests_skip_links_and_files_too_big_to_read(tmp_path):
    root = _write(tmp_path, {"tests/test_a.py": "import train\n", "outside.py": "import train\n",
                             "tests/test_c.py": "import train\n"})
    os.symlink(root / "outside.py", root / "tests" / "test_link.py")
    (root / "tests" / "test_big.py").write_bytes(b"import train\n" + b"#" * (verify.MAX_FILE_BYTES + 1))
    found = phase_tests(root, _report([("train.py", ["training"])]), "tests")
    assert found["training"] == ["tests/test_a.py", "tests/test_c.py"]  # the big file is skipped, not the end
    assert "tests/test_link.py" not in found["training"] and "tests/test_big.py" not in found["training"]


def test_phase_tests_read_at_most_the_first_files(tmp_path, monkeypatch):
    assert MAX_TEST_FILES == 2000
    root = _write(tmp_path, {f"tests/test_{i}.py": "import train\n" for i in range(4)})
    monkeypatch.setattr(verify, "MAX_TEST_FILES", 2)
    assert phase_tests(root, _report([("train.py", ["training"])]), "tests") == {
        "training": ["tests/test_0.py", "tests/test_1.py"]}


def _values(script: str) -> dict[str, str]:
    """The assignments verify_npu.py is generated with, as written."""
    names = ("PATCHED_MODULES", "TEST_FOLDER", "PHASE_TESTS", "MATCHING_PROBES")
    return {line.split(" = ")[0]: line.split(" = ", 1)[1] for line in script.splitlines()
            if line.split(" = ")[0] in names}


def test_the_script_carries_the_patch_the_tests_and_the_matching_probes(tmp_path):
    root = _write(tmp_path, {"tests/test_train.py": "import train\n"})
    findings = [SimpleNamespace(rule="PRC020", suppressed=False), SimpleNamespace(rule="DST001", suppressed=False),
                SimpleNamespace(rule="ATT001", suppressed=True), SimpleNamespace(rule="DEV001", suppressed=False)]
    report = _report([("train.py", ["training"])], findings)
    script = verify_script(report, _result(["train.py"], ["_device.py"]), "tests", root)
    assert _values(script) == {"PATCHED_MODULES": "['_device', 'train']", "TEST_FOLDER": "'tests'",
                               "PHASE_TESTS": "{'training': ['tests/test_train.py']}",
                               "MATCHING_PROBES": "['rms-norm', 'collectives']"}  # the catalog's order
    assert "# --phases only those of these phases: training), the probes" in script
    compile(script, "verify_npu.py", "exec", dont_inherit=True)


def test_without_a_root_or_a_tests_folder_no_phase_tests(tmp_path):
    report = _report([("train.py", ["training"])])
    script = verify_script(report, _result())
    assert _values(script) == {"PATCHED_MODULES": "[]", "TEST_FOLDER": "None", "PHASE_TESTS": "{}",
                               "MATCHING_PROBES": "[]"}
    assert "--phases only those of these phases: none found)" in script
    root = _write(tmp_path, {"tests/test_train.py": "import train\n"})
    assert _values(verify_script(report, _result(), "tests"))["PHASE_TESTS"] == "{}"  # no root: not read
    assert _values(verify_script(report, _result(), None, root))["PHASE_TESTS"] == "{}"


def test_the_probe_script_is_spliced_in_without_its_own_header_and_main_guard():
    script = verify_script(_report(), _result())
    base = script_text(load_knowledge())
    body = base[base.index("from __future__"):-len(verify._MAIN_GUARD)]
    assert base.endswith(verify._MAIN_GUARD)
    assert script.startswith(verify._HEADER.format(phases="none found") + body)
    assert script.count("from __future__") == 1 and "ascend_feasibility_probes.py run" not in script
    assert script.count('if __name__ == "__main__":') == 1
    assert script.endswith('if __name__ == "__main__":\n    sys.exit(verify_main())\n')


def test_a_probe_script_without_the_main_guard_is_taken_whole(monkeypatch):
    monkeypatch.setattr(verify, "script_text", lambda kb: "# usage\nfrom __future__ import annotations\nimport sys\n")
    script = verify_script(_report(), _result())
    assert script.startswith(verify._HEADER.format(phases="none found") + "from __future__ import annotations\n"
                             "import sys\n\n\n# ---- verify_npu")


@pytest.mark.parametrize("rules", [("ATT010",), ("ATT050", "ATT003")])
def test_a_probe_matches_when_any_of_its_rules_is_reported(rules):
    report = _report(findings=[SimpleNamespace(rule=r, suppressed=False) for r in rules])
    probes = eval(_values(verify_script(report, _result()))["MATCHING_PROBES"])  # noqa: S307 - a repr we wrote
    expected = {("ATT010",): ["attention-training", "attention-diffusion"],
                ("ATT050", "ATT003"): ["attention-training", "attention-diffusion", "attention-inference"]}[rules]
    assert probes == expected


def test_a_package_entry_is_its_package_and_only_python_entries_count(tmp_path):
    root = _write(tmp_path, {"tests/test_pkg.py": "import pkg\n", "tests/test_run.py": "import run\n"})
    report = _report([("pkg/__init__.py", ["training"]), ("run.sh", ["inference"])])
    assert phase_tests(root, report, "tests") == {"training": ["tests/test_pkg.py"]}


def test_the_header_lists_every_phase_with_tests(tmp_path):
    root = _write(tmp_path, {"tests/test_train.py": "import train\n", "tests/test_serve.py": "import serve\n"})
    report = _report([("train.py", ["training"]), ("serve.py", ["inference"])])
    script = verify_script(report, _result(), "tests", root)
    assert "# --phases only those of these phases: inference, training), the probes" in script
