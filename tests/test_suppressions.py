from tests.helpers import scan


def test_trailing_comment_suppresses_and_keeps_the_finding():
    result = scan("import torch\ntorch.cuda.synchronize()  # ascend: ignore[DEV101]\n")
    [finding] = result.findings
    assert finding.rule == "DEV101" and finding.suppressed
    assert result.unused_suppressions == []


def test_comment_on_the_line_above_suppresses_the_next_code_line():
    result = scan("import torch\n# ascend: ignore[DEV101]\ntorch.cuda.synchronize()\ntorch.cuda.synchronize()\n")
    assert [f.suppressed for f in result.findings] == [True, False]


def test_file_level_suppression():
    result = scan("# ascend: ignore-file[DEV004]\na = x.cuda()\nb = y.cuda()\n")
    assert [f.suppressed for f in result.findings] == [True, True]


def test_other_codes_are_not_suppressed_and_unused_ones_are_reported():
    result = scan("import torch\ntorch.cuda.synchronize()  # ascend: ignore[DEV102, XYZ999]\n")
    assert [f.suppressed for f in result.findings] == [False]
    assert [(u.code, u.reason, u.line) for u in result.unused_suppressions] == [
        ("DEV102", "unused", 2),
        ("XYZ999", "unknown-rule", 2),
    ]


def test_shell_and_yaml_suppressions():
    shell = scan("export CUDA_VISIBLE_DEVICES=0  # ascend: ignore[DEV201]\n", "shell")
    assert [f.suppressed for f in shell.findings] == [True]
    yaml_result = scan("env:\n  # ascend: ignore[DEV201]\n  CUDA_VISIBLE_DEVICES: '0'\n", "yaml")
    assert [f.suppressed for f in yaml_result.findings] == [True]


def test_fingerprints_survive_moved_lines_and_tell_repeats_apart():
    before = scan("import torch\ntorch.cuda.synchronize()\ntorch.cuda.synchronize()\n").findings
    after = scan("import torch\n\n\n# moved down\nx = 1\ntorch.cuda.synchronize()\ntorch.cuda.synchronize()\n").findings
    assert [f.fingerprint for f in before] == [f.fingerprint for f in after]
    assert before[0].fingerprint != before[1].fingerprint
    assert [f.line for f in before] != [f.line for f in after]


def test_codes_are_case_insensitive_and_a_bare_ignore_is_invalid():
    result = scan("import torch\ntorch.cuda.synchronize()  # ASCEND: Ignore[dev101]\nx.cuda()  # ascend: ignore\n")
    assert [(f.rule, f.suppressed) for f in result.findings] == [("DEV101", True), ("DEV004", False)]
    assert [(u.line, u.code, u.reason) for u in result.unused_suppressions] == [(3, "", "invalid")]
