"""The target torch_npu release decides what transfer_to_npu handles ('auto')."""

import pytest
from ascend_feasibility.knowledge import KnowledgeError, load_knowledge
from packaging.version import Version

from tests.helpers import rules_found, scan

KB = load_knowledge()


def migration_of(code: str, snippet: str, torch_npu: str) -> list[str]:
    return [f.migration for f in scan(snippet, torch_npu=torch_npu).findings if f.rule == code]


@pytest.mark.parametrize(
    "requested, release",
    [("2.12.0", "2.12.0"), ("2.6.0.post3", "2.6.0.post3"), ("2.6.0.post4", "2.6.0.post3"), ("2.0.0", "2.1.0")],
)
def test_resolves_to_known_release(requested, release):
    assert KB.resolve_target(requested).release.torch_npu == release


def test_newer_than_the_table_assumes_the_newest_line_and_says_so():
    target = KB.resolve_target("2.14.0")
    assert target.release.torch_npu == "2.12.0"
    assert "newer" in target.note


def test_rejects_a_non_version():
    with pytest.raises(KnowledgeError):
        KB.resolve_target("latest")


def test_torch_amp_autocast_is_auto_only_from_the_7_2_line():
    snippet = 'import torch\nwith torch.amp.autocast("cuda"):\n    pass'
    assert migration_of("DEV302", snippet, "2.12.0") == ["auto"]
    assert migration_of("DEV302", snippet, "2.6.0") == ["rewrite"]  # v2.6.0-7.1.0
    assert migration_of("DEV302", snippet, "2.6.0.post3") == ["auto"]  # v2.6.0-7.2.0


def test_torch_autocast_was_covered_by_the_function_list_before_7_2():
    snippet = 'import torch\nwith torch.autocast("cuda"):\n    pass'
    assert migration_of("DEV301", snippet, "2.1.0") == ["rewrite"]  # v2.1.0-5.0.0 had no autocast entry
    assert migration_of("DEV301", snippet, "2.1.0.post10") == ["auto"]
    assert migration_of("DEV301", snippet, "2.12.0") == ["auto"]


def test_torch_cuda_names_follow_torch_npu_all_of_the_release():
    snippet = "import torch\ntorch.cuda.ipc_collect()"
    assert migration_of("DEV100", snippet, "2.12.0") == ["auto"]
    assert migration_of("DEV100", snippet, "2.1.0") == ["rewrite"]


def test_graph_alias_arrives_with_the_7_1_line():
    snippet = "import torch\ng = torch.cuda.CUDAGraph()"
    assert migration_of("DEV111", snippet, "2.5.1") == ["manual"]
    assert migration_of("DEV111", snippet, "2.6.0") == ["auto"]


def test_memory_submodule_is_never_redirected():
    snippet = "import torch\ntorch.cuda.memory.memory_allocated()"
    assert migration_of("DEV105", snippet, "2.12.0") == ["rewrite"]


def test_auto_findings_say_so_in_both_languages():
    finding = scan("import torch\ntorch.cuda.synchronize()").findings[0]
    assert finding.migration == "auto" and finding.severity == "info"
    assert "transfer_to_npu" in finding.message.en and "transfer_to_npu" in finding.message.zh


def test_device_literals_passed_to_torch_functions_follow_the_wrapped_list():
    assert migration_of("DEV001", 'import torch\ns = torch.load(p, map_location="cuda")', "2.12.0") == ["auto"]
    assert migration_of("DEV001", 'import torch\ns = torch.load(p, map_location="cuda")', "2.1.0") == ["rewrite"]
    assert migration_of("DEV001", 'import torch\ng = torch.Generator(device="cuda")', "2.1.0") == ["rewrite"]
    assert migration_of("DEV001", 'import torch\ng = torch.Generator(device="cuda")', "2.6.0") == ["auto"]
    assert migration_of("DEV001", 'import torch\nlayer = torch.nn.Linear(2, 2, device="cuda")', "2.1.0") == ["auto"]


# Without --torch-npu the target follows the project's own torch requirement ------------------------------------
def _project(tmp_path, files: dict[str, str]):
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    for name, text in files.items():
        (tmp_path / name).write_text(text)
    (tmp_path / "train.py").write_text("import torch\ntorch.cuda.synchronize()\n")
    return analyze(tmp_path, AnalyzeOptions(jobs=1))


def test_a_pinned_torch_selects_that_torch_line(tmp_path):
    report = _project(tmp_path, {"requirements.txt": "torch==2.1.0\n"})
    newest_for_2_1 = max((r for r in KB.releases if r.torch == "2.1.0"), key=lambda r: Version(r.torch_npu))
    assert report.target.chosen_by == "project"
    assert report.target.torch == "2.1.0"
    assert report.target.release == newest_for_2_1.torch_npu
    assert "requirements.txt" in report.target.reason.en and "requirements.txt" in report.target.reason.zh


def test_an_open_requirement_selects_the_newest_release(tmp_path):
    report = _project(tmp_path, {"requirements.txt": "torch>=2.1\n"})
    assert (report.target.chosen_by, report.target.release) == ("project", KB.default_release)


def test_no_requirement_or_no_fit_keeps_the_default_and_says_why(tmp_path):
    report = _project(tmp_path, {})
    assert (report.target.chosen_by, report.target.release) == ("default", KB.default_release)
    assert "declares no torch" in report.target.reason.en
    unfit = _project(tmp_path, {"requirements.txt": "torch==1.13.1\n"})
    assert unfit.target.chosen_by == "default" and "fits no release" in unfit.target.reason.en


def test_a_pin_of_a_patch_the_table_lacks_takes_its_lines_newest_release(tmp_path):
    line = max((r for r in KB.releases if r.torch == "2.7.1"), key=lambda r: Version(r.torch_npu))
    report = _project(tmp_path, {"requirements.txt": "torch==2.7.0\n"})
    assert (report.target.chosen_by, report.target.release) == ("project", line.torch_npu)
    assert "torch==2.7.0 (requirements.txt)" in report.target.reason.en and "patch differs" in report.target.reason.en
    ranged = _project(tmp_path, {"requirements.txt": "torch>=2.7.0,<2.7.1\n"})  # a range: no line to read
    assert ranged.target.chosen_by == "default"


def test_the_user_choice_wins_and_pins_that_conflict_are_reported(tmp_path):
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    (tmp_path / "requirements.txt").write_text("torch==2.1.0\n")
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\ndependencies = ["torch>=2.5"]\n')
    (tmp_path / "train.py").write_text("import torch\n")
    chosen = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert chosen.target.torch != "2.1.0"  # pyproject is the main manifest
    assert chosen.torch_fit.conflicts == ["requirements.txt: torch==2.1.0"]
    requested = analyze(tmp_path, AnalyzeOptions(jobs=1, torch_npu="2.6.0"))
    assert (requested.target.chosen_by, requested.target.reason) == ("requested", None)
    assert requested.torch_fit.conflicts == ["requirements.txt: torch==2.1.0"]


def test_the_main_manifest_is_the_one_nearest_the_root_and_not_an_examples(tmp_path):
    # diffusers-like: an example pins an old torch; DeepSpeed-like: requirements-readthedocs.txt sorts before
    # requirements.txt; Megatron-like: a nested package's pyproject pins another torch than the root's
    for folder in ("examples", "requirements", "pkg/sub"):
        (tmp_path / folder).mkdir(parents=True)
    report = _project(tmp_path, {
        "examples/requirements.txt": "torch==2.1.0\n",  # as deep as the real one, and sorts first
        "requirements/requirements-readthedocs.txt": "torch==2.1.0\n",
        "requirements/requirements.txt": "torch>=2.5\n",
        "pkg/sub/pyproject.toml": '[project]\nname = "s"\nversion = "0"\ndependencies = ["torch==2.1.0"]\n',
    })
    assert report.target.chosen_by == "project"
    assert "requirements/requirements.txt" in report.target.reason.en and report.target.torch != "2.1.0"
    (tmp_path / "pyproject.toml").write_text('[project]\nname = "p"\nversion = "0"\ndependencies = ["torch==2.1.0"]\n')
    rooted = analyze_again(tmp_path)
    assert rooted.target.torch == "2.1.0" and "(pyproject.toml)" in rooted.target.reason.en


def analyze_again(tmp_path):
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    return analyze(tmp_path, AnalyzeOptions(jobs=1))


def test_fused_adamw_is_flagged_only_at_a_target_without_its_kernel():
    code = "import torch\nopt = torch.optim.AdamW(model.parameters(), lr=1e-3, fused=True)\n"
    assert rules_found(code, torch_npu="2.12.0").count("OPS060") == 0
    assert rules_found(code, torch_npu="2.1.0.post8").count("OPS060") == 0  # v2.1.0-6.0.rc3 has it for torch 2.1
    flagged = [f for f in scan(code, torch_npu="2.3.1.post2").findings if f.rule == "OPS060"]  # v2.3.1-6.0.rc3
    assert len(flagged) == 1 and "torch_npu.optim.NpuFusedAdamW" in flagged[0].replacement.en
    adam = "import torch\nopt = torch.optim.Adam(model.parameters(), lr=1e-3, fused=True)\n"
    assert "Use torch_npu.optim.NpuFusedAdam," in next(f for f in scan(adam).findings if f.rule == "OPS060").replacement.en


def test_reduce_op_avg_is_native_only_from_the_7_0_line():
    code = "import torch.distributed as dist\ndist.all_reduce(t, op=dist.ReduceOp.AVG)\n"
    assert migration_of("DST020", code, "2.12.0") == ["auto"]  # 26.1.0: summed, then divided
    assert migration_of("DST020", code, "2.1.0.post12") == ["auto"]  # v2.1.0-7.0.0
    assert migration_of("DST020", code, "2.1.0.post10") == ["rewrite"]  # v2.1.0-6.0.0: "Cannot use ReduceOp.AVG"
    finding = next(f for f in scan(code, torch_npu="2.1.0.post10").findings if f.rule == "DST020")
    assert finding.severity == "high" and "transfer_to_npu" not in finding.message.en
    native = next(f for f in scan(code, torch_npu="2.12.0").findings if f.rule == "DST020")
    assert native.severity == "info" and "transfer_to_npu" not in native.message.en


def test_a_package_carried_by_an_unknown_rule_is_refused(monkeypatch):
    import ascend_feasibility.knowledge as knowledge

    real = knowledge._read_toml

    def read(path):
        data = real(path)
        if path.name == "packages.toml":
            data = {**data, "package": [dict(p) for p in data["package"]]}
            carried = next(p for p in data["package"] if p.get("carried_by"))
            carried["carried_by"] = [*carried["carried_by"], "DEV999"]
        return data

    monkeypatch.setattr(knowledge, "_read_toml", read)
    with pytest.raises(KnowledgeError, match=r"carried_by names unknown rules \['DEV999'\]"):
        knowledge.load_knowledge.__wrapped__()  # the loader itself, not the process's cached knowledge base


def test_another_platforms_manifest_is_not_the_targets_source(tmp_path):
    # LivePortrait (round 27 C10): requirements_macOS.txt pins torch for Apple Silicon; requirements.txt has none
    report = _project(tmp_path, {"requirements.txt": "numpy\n", "requirements_macOS.txt": "torch==2.1.0\n"})
    assert report.target.chosen_by == "default"
    alone = _project(tmp_path / "alone" if (tmp_path / "alone").mkdir() is None else tmp_path,
                     {"requirements_macOS.txt": "torch==2.1.0\n"})
    assert (alone.target.chosen_by, alone.target.torch) == ("project", "2.1.0")  # its only manifest is its install
