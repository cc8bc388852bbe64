"""One-time steps reported once per project (analyzer/context/project_scope.py), on plain findings: a rule's findings
dropped when the project has none of the findings it needs, and each project-scoped rule collapsed into one finding
that lists every site."""

from __future__ import annotations

from ascend_feasibility.analyzer.context import project_scope as ps
from ascend_feasibility.analyzer.core.models import EffortHours, Finding, ReplacementText, Text


def finding(rule: str, path: str = "a.py", line: int = 1, *, suppressed: bool = False, reach: str = "runs",
            role: str = "product", cell: int | None = None) -> Finding:
    return Finding(
        rule=rule, name="some-rule", domain="device", path=path, line=line, column=1, end_line=line, end_column=2,
        cell=cell, snippet="x", symbol="x", severity="low", migration="auto", confidence="high",
        message=Text(en="m", zh="m"), replacement=ReplacementText(en="r", zh="r", code=None),
        effort_hours=EffortHours(low=0.0, high=0.25), references=[], fingerprint=f"{rule}{path}{line}",
        suppressed=suppressed, role=role, reach=reach)


def keys(findings: list[Finding]) -> list[tuple[str, str, int]]:
    return [(f.rule, f.path, f.line) for f in findings]


# drop_without_cause ------------------------------------------------------------------------------------------
def test_a_rule_stays_when_the_project_has_a_finding_it_needs():
    findings = [finding("DST013", "a.py", 1), finding("DEV101", "b.py", 2), finding("DEV102", "c.py", 3)]
    assert keys(ps.drop_without_cause(findings, {"DST013": frozenset({"DEV101", "DEV999"})})) == keys(findings)


def test_a_rule_goes_when_none_of_the_findings_it_needs_is_there():
    findings = [finding("DST013", "a.py", 1), finding("DEV102", "c.py", 3), finding("DST013", "d.py", 4)]
    assert keys(ps.drop_without_cause(findings, {"DST013": frozenset({"DEV101"})})) == [("DEV102", "c.py", 3)]


def test_a_suppressed_finding_is_no_cause():
    findings = [finding("DST013"), finding("DEV101", "b.py", 2, suppressed=True)]
    assert keys(ps.drop_without_cause(findings, {"DST013": frozenset({"DEV101"})})) == [("DEV101", "b.py", 2)]


def test_an_uncounted_but_unsuppressed_finding_is_a_cause():
    findings = [finding("DST013"), finding("DEV101", "tests/b.py", 2, role="test", reach="optional")]
    assert len(ps.drop_without_cause(findings, {"DST013": frozenset({"DEV101"})})) == 2


def test_a_rule_that_needs_nothing_always_stays():
    findings = [finding("DST013"), finding("DEV102", "c.py", 3)]
    assert keys(ps.drop_without_cause(findings, {"DST013": frozenset()})) == keys(findings)
    assert keys(ps.drop_without_cause(findings, {})) == keys(findings)


def test_only_the_rules_missing_their_cause_go():
    findings = [finding("DST013"), finding("DST014", "b.py"), finding("DEV101", "c.py")]
    needs = {"DST013": frozenset({"DEV101"}), "DST014": frozenset({"DEV555"})}
    assert keys(ps.drop_without_cause(findings, needs)) == [("DST013", "a.py", 1), ("DEV101", "c.py", 1)]


# collapse_project_scoped -------------------------------------------------------------------------------------
def test_a_project_scoped_rule_keeps_its_first_site_listing_every_site():
    findings = [finding("DEV101", "z.py", 9), finding("DST001", "a.py", 3), finding("DEV102", "b.py", 1),
                finding("DST001", "c.py", 7, cell=4), finding("DST001", "d.py", 2)]
    result = ps.collapse_project_scoped(findings, {"DST001"})
    assert keys(result) == [("DEV101", "z.py", 9), ("DST001", "a.py", 3), ("DEV102", "b.py", 1)]
    assert result[1].sites == ["a.py:3", "c.py:7 (cell 4)", "d.py:2"]
    assert result[0].sites == [] and result[2].sites == []
    assert findings[1].sites == []  # a copy is changed, not the caller's finding


def test_the_first_site_that_counts_is_kept():
    findings = [finding("DST001", "tests/a.py", 1, role="test"), finding("DST001", "b.py", 2, reach="optional"),
                finding("DST001", "c.py", 3), finding("DST001", "d.py", 4)]
    result = ps.collapse_project_scoped(findings, {"DST001"})
    assert keys(result) == [("DST001", "c.py", 3)]
    assert result[0].sites == ["tests/a.py:1", "b.py:2", "c.py:3", "d.py:4"]


def test_without_a_counted_site_the_first_is_kept():
    findings = [finding("DST001", "tests/a.py", 1, role="test"), finding("DST001", "tests/b.py", 2, role="test")]
    result = ps.collapse_project_scoped(findings, {"DST001"})
    assert keys(result) == [("DST001", "tests/a.py", 1)]
    assert result[0].sites == ["tests/a.py:1", "tests/b.py:2"]


def test_a_single_site_is_left_as_it_is():
    findings = [finding("DST001", "a.py", 1), finding("DEV101", "b.py", 2)]
    result = ps.collapse_project_scoped(findings, {"DST001"})
    assert result == findings and result[0].sites == []


def test_suppressed_sites_are_neither_grouped_nor_dropped():
    findings = [finding("DST001", "a.py", 1, suppressed=True), finding("DST001", "b.py", 2),
                finding("DST001", "c.py", 3)]
    result = ps.collapse_project_scoped(findings, {"DST001"})
    assert keys(result) == [("DST001", "a.py", 1), ("DST001", "b.py", 2)]
    assert result[0].sites == [] and result[1].sites == ["b.py:2", "c.py:3"]
    only_one_left = [finding("DST001", "a.py", 1, suppressed=True), finding("DST001", "b.py", 2)]
    assert ps.collapse_project_scoped(only_one_left, {"DST001"}) == only_one_left


def test_rules_not_project_scoped_are_untouched_and_each_rule_groups_apart():
    findings = [finding("DEV101", "a.py", 1), finding("DEV101", "b.py", 2), finding("DST001", "c.py", 3),
                finding("DST002", "d.py", 4), finding("DST001", "e.py", 5), finding("DST002", "f.py", 6)]
    result = ps.collapse_project_scoped(findings, {"DST001", "DST002"})
    assert keys(result) == [("DEV101", "a.py", 1), ("DEV101", "b.py", 2), ("DST001", "c.py", 3), ("DST002", "d.py", 4)]
    assert result[2].sites == ["c.py:3", "e.py:5"] and result[3].sites == ["d.py:4", "f.py:6"]
    assert result[0].sites == [] and result[1].sites == []


def test_the_sites_listed_are_bounded():
    exactly = [finding("DST001", f"m{i}.py", i + 1) for i in range(ps.MAX_SITES)]
    result = ps.collapse_project_scoped(exactly, {"DST001"})
    assert len(result) == 1 and len(result[0].sites) == ps.MAX_SITES and result[0].sites[-1] == "m99.py:100"
    over = [finding("DST001", f"m{i}.py", i + 1) for i in range(ps.MAX_SITES + 3)]
    sites = ps.collapse_project_scoped(over, {"DST001"})[0].sites
    assert len(sites) == ps.MAX_SITES + 1
    assert sites[ps.MAX_SITES - 1] == "m99.py:100" and sites[-1] == "... 3 more"


def test_a_cell_zero_is_not_written():
    # cells are counted from 1; a falsy cell says no notebook
    assert ps._site(finding("DST001", "n.ipynb", 2, cell=1)) == "n.ipynb:2 (cell 1)"
    assert ps._site(finding("DST001", "a.py", 2)) == "a.py:2"


def test_a_single_site_rule_before_another_does_not_stop_the_grouping():
    findings = [finding("DST002", "a.py", 1), finding("DST001", "b.py", 2), finding("DST001", "c.py", 3)]
    result = ps.collapse_project_scoped(findings, {"DST001", "DST002"})
    assert keys(result) == [("DST002", "a.py", 1), ("DST001", "b.py", 2)]
    assert result[0].sites == [] and result[1].sites == ["b.py:2", "c.py:3"]


# fold_repeated_settings --------------------------------------------------------------------------------------
def setting(path: str, symbol: str = "run.device: cuda", line: int = 3, *, rule: str = "DEV001",
            role: str = "product", reach: str = "runs", suppressed: bool = False) -> Finding:
    return finding(rule, path, line, role=role, reach=reach, suppressed=suppressed).model_copy(
        update={"symbol": symbol, "message": Text(en="Device literal.", zh="设备字面量。")})


def test_one_setting_in_many_config_files_is_one_finding_with_its_sites_and_count():
    findings = [setting("configs/a.yaml"), setting("configs/b.yml", line=7), setting("configs/c.json", line=2),
                finding("DEV001", "train.py", 4)]
    folded = ps.fold_repeated_settings(findings)
    assert keys(folded) == [("DEV001", "configs/a.yaml", 3), ("DEV001", "train.py", 4)]
    assert folded[0].sites == ["configs/a.yaml:3", "configs/b.yml:7", "configs/c.json:2"]
    assert "3 config files" in folded[0].message.en and "3 个配置文件" in folded[0].message.zh
    assert folded[0].counted


def test_different_key_paths_or_values_stay_apart():
    findings = [setting("a.yaml"), setting("b.yaml", "model.device: cuda"), setting("c.yaml", "run.device: cuda:1")]
    assert ps.fold_repeated_settings(findings) == findings


def test_one_config_file_or_python_sites_are_not_folded():
    same_file = [setting("a.yaml", line=3), setting("a.yaml", line=9)]
    assert ps.fold_repeated_settings(same_file) == same_file
    python = [setting("a.py"), setting("b.py")]
    assert ps.fold_repeated_settings(python) == python


def test_a_test_or_suppressed_config_never_folds_into_a_counted_one():
    findings = [setting("a.yaml"), setting("tests/b.yaml", role="test"), setting("c.yaml", suppressed=True)]
    assert ps.fold_repeated_settings(findings) == findings


def test_one_package_in_two_environment_files_with_importer_sites_is_one_finding():
    # round 34 B2 class 5 (instruct-pix2pix: DEP001 pytorch-lightning at environment.yaml:24 and
    # stable_diffusion/environment.yaml:20, each listing its importers main.py:6, stable_diffusion/main.py:6)
    importers = ["main.py:6", "stable_diffusion/main.py:6"]
    findings = [setting("environment.yaml", "pytorch-lightning", 24, rule="DEP001").model_copy(update={"sites": importers}),
                setting("stable_diffusion/environment.yaml", "pytorch-lightning", 20, rule="DEP001").model_copy(
                    update={"sites": importers})]
    folded = ps.fold_repeated_settings(findings)
    assert keys(folded) == [("DEP001", "environment.yaml", 24)]
    assert folded[0].sites == ["environment.yaml:24", "stable_diffusion/environment.yaml:20", *importers]
    # a shell finding with sites keeps them, unfolded
    sited = [exported("a.sh", "export NCCL_DEBUG=INFO", "NCCL_DEBUG").model_copy(update={"sites": ["a.sh:5", "a.sh:9"]}),
             exported("b.sh", "export NCCL_DEBUG=INFO", "NCCL_DEBUG")]
    assert ps.fold_repeated_settings(sited) == sited


# fold_repeated_settings: launch scripts -----------------------------------------------------------------------
def exported(path: str, line_text: str, symbol: str, line: int = 5, *, rule: str = "DST039", role: str = "product",
             severity: str = "info") -> Finding:
    return finding(rule, path, line, role=role).model_copy(
        update={"symbol": symbol, "snippet": line_text, "severity": severity,
                "message": Text(en=f"{symbol} tunes NCCL.", zh="调优 NCCL。")})


def test_one_variable_with_one_value_in_many_launch_scripts_is_one_finding_with_its_sites():
    findings = [exported("scripts/a.sh", "export NCCL_IB_HCA=\"^=mlx5_bond_0\"", "NCCL_IB_HCA"),
                exported("scripts/b.sh", "export NCCL_IB_HCA='^=mlx5_bond_0'", "NCCL_IB_HCA", 9),
                exported("scripts/c.sbatch", "NCCL_IB_HCA=^=mlx5_bond_0", "NCCL_IB_HCA", 2),
                exported("scripts/a.sh", "export NCCL_PROTO=Simple", "NCCL_PROTO", 6)]
    folded = ps.fold_repeated_settings(findings)
    assert keys(folded) == [("DST039", "scripts/a.sh", 5), ("DST039", "scripts/a.sh", 6)]
    assert folded[0].sites == ["scripts/a.sh:5", "scripts/b.sh:9", "scripts/c.sbatch:2"]
    assert "3 launch scripts" in folded[0].message.en and "3 个启动脚本" in folded[0].message.zh
    assert ps.setting_files(folded[0]) == ["scripts/a.sh", "scripts/b.sh", "scripts/c.sbatch"]


def test_different_values_reads_tests_and_port_edited_rules_stay_apart_in_scripts():
    values = [exported("a.sh", "export NCCL_SOCKET_IFNAME=ib", "NCCL_SOCKET_IFNAME"),
              exported("b.sh", "export NCCL_SOCKET_IFNAME=enp0s12", "NCCL_SOCKET_IFNAME")]
    assert ps.fold_repeated_settings(values) == values
    reads = [exported("a.sh", "echo $NCCL_DEBUG", "NCCL_DEBUG"), exported("b.sh", "echo $NCCL_DEBUG", "NCCL_DEBUG")]
    assert ps.fold_repeated_settings(reads) == reads
    roles = [exported("a.sh", "export NCCL_DEBUG=INFO", "NCCL_DEBUG"),
             exported("tests/b.sh", "export NCCL_DEBUG=INFO", "NCCL_DEBUG", role="test")]
    assert ps.fold_repeated_settings(roles) == roles
    pins = [exported("a.sh", "export CUDA_VISIBLE_DEVICES=0", "CUDA_VISIBLE_DEVICES", rule="DEV201"),
            exported("b.sh", "export CUDA_VISIBLE_DEVICES=0", "CUDA_VISIBLE_DEVICES", rule="DEV201")]
    assert ps.fold_repeated_settings(pins, frozenset({"DEV201"})) == pins  # port edits each script
    assert len(ps.fold_repeated_settings(pins)) == 1


# fold_identical_files ----------------------------------------------------------------------------------------
def test_a_finding_in_byte_identical_copies_is_reported_once_with_the_copies_as_sites():
    """OLMo vendors lm_eval twice (scout 12 B N1: the same models/gpt2.py under two folders, DEV007 on line 23 twice)."""
    digests = {"a/gpt2.py": "d1", "b/gpt2.py": "d1", "c/other.py": "d2", "tests/gpt2.py": "d1"}
    findings = [finding("DEV007", "a/gpt2.py", 23), finding("DEV007", "b/gpt2.py", 23), finding("DEV007", "c/other.py", 23),
                finding("DEV007", "tests/gpt2.py", 23, role="test")]
    folded = ps.fold_identical_files(findings, digests)
    assert keys(folded) == [("DEV007", "a/gpt2.py", 23), ("DEV007", "c/other.py", 23), ("DEV007", "tests/gpt2.py", 23)]
    assert folded[0].sites == ["a/gpt2.py:23", "b/gpt2.py:23"] and "copied byte for byte at 1 more path" in folded[0].message.en
    assert not folded[1].sites and not folded[2].sites  # another file; a copy the report counts otherwise (a test)


def test_a_finding_with_sites_in_its_own_file_folds_with_its_copies():
    """Round 32 B1 row 2: a CUDA kernel's OPS050 in four byte-identical softsplat.py, each with its wrapper's lines
    as sites: one finding, the copies' lines added to its sites."""
    digests = {"a/splat.py": "d1", "b/splat.py": "d1"}
    findings = [finding("OPS050", path, 225).model_copy(update={"sites": [f"{path}:225", f"{path}:283"]})
                for path in ("a/splat.py", "b/splat.py")]
    folded = ps.fold_identical_files(findings, digests)
    assert keys(folded) == [("OPS050", "a/splat.py", 225)]
    assert folded[0].sites == ["a/splat.py:225", "a/splat.py:283", "b/splat.py:225"]
    # sites in another file (a finding already folded across files): left as it is
    elsewhere = [f.model_copy(update={"sites": [f"{f.path}:225", "c/other.py:1"]}) for f in findings]
    assert keys(ps.fold_identical_files(elsewhere, digests)) == keys(elsewhere)


def test_files_that_differ_keep_their_own_findings():
    findings = [finding("DEV007", "a/gpt2.py", 23), finding("DEV007", "b/gpt2.py", 23)]
    assert keys(ps.fold_identical_files(findings, {"a/gpt2.py": "d1", "b/gpt2.py": "d2"})) == keys(findings)
    # the same digest, another line: no counterpart to fold into
    findings = [finding("DEV007", "a/gpt2.py", 23), finding("DEV007", "b/gpt2.py", 24)]
    assert keys(ps.fold_identical_files(findings, {"a/gpt2.py": "d1", "b/gpt2.py": "d1"})) == keys(findings)


# fold_script_lines ---------------------------------------------------------------------------------------------
def pin(line: int, value: str, *, path: str = "eval/run.sh", severity: str = "medium", snippet: str | None = None) -> Finding:
    return finding("DEV201", path, line).model_copy(update={
        "symbol": "CUDA_VISIBLE_DEVICES", "severity": severity, "message": Text(en="It selects GPUs.", zh="选择 GPU。"),
        "snippet": snippet or f"CUDA_VISIBLE_DEVICES={value} python3 sample.py --part {value} &"})


def test_one_variable_set_on_many_lines_of_a_script_is_one_finding_with_its_lines():
    """Round 23 Show-o (B1 rows 7, 25): eight `CUDA_VISIBLE_DEVICES=0..7 python ...` lines of one launcher are one
    change, made the same way on each line, whatever value each gives."""
    findings = [pin(line, str(line - 1)) for line in range(1, 9)] + [pin(3, "0", path="eval/other.sh")]
    folded = ps.fold_script_lines(findings)
    assert keys(folded) == [("DEV201", "eval/run.sh", 1), ("DEV201", "eval/other.sh", 3)]
    assert folded[0].sites == [f"eval/run.sh:{line}" for line in range(1, 9)] and not folded[1].sites
    assert "on 8 lines" in folded[0].message.en and "8 行" in folded[0].message.zh


def test_script_lines_alike_only_fold_and_reads_stay_apart():
    read = pin(4, "", snippet='echo "using $CUDA_VISIBLE_DEVICES"')
    findings = [pin(1, "0"), pin(2, "7", severity="low"), read]
    assert ps.fold_script_lines(findings) == findings  # a low one-job pin and a read are not the medium line's
    python = [pin(1, "0", path="a.py"), pin(2, "1", path="a.py")]
    assert ps.fold_script_lines(python) == python
