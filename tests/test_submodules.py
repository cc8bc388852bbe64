"""A git submodule the tree does not hold is named as not scanned (analyzer/reading/submodules.py; round 19 verdicts
V9: CosyVoice's third_party/Matcha-TTS, listed in .gitmodules, empty, and imported by the default flow decoder, went
unmentioned). A submodule that is checked out is read like any folder and listed nowhere."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading.submodules import REASON, declared_paths, missing_submodules

from tests.helpers import write_tree

GITMODULES = """[submodule "third_party/Matcha-TTS"]
\tpath = third_party/Matcha-TTS
\turl = https://example.invalid/Matcha-TTS.git
[submodule "vendor/kernels"]
\tpath = vendor/kernels
\turl = https://example.invalid/kernels.git
[submodule "tools/absent"]
\tpath = tools/absent
\turl = https://example.invalid/absent.git
"""


def test_an_empty_or_absent_submodule_is_listed_as_not_scanned(tmp_path):
    write_tree(tmp_path, {
        ".gitmodules": GITMODULES,
        "requirements.txt": "torch\n",
        "model/flow.py": "import torch\nfrom matcha.models.components.decoder import Decoder\n",
        "vendor/kernels/ops.py": "import torch\n",  # checked out: read, not listed
    })
    (tmp_path / "third_party" / "Matcha-TTS").mkdir(parents=True)  # what a clone without --recursive leaves
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    listed = {entry.path: entry.reason for entry in report.skipped}
    assert listed.get("third_party/Matcha-TTS/") == REASON and listed.get("tools/absent/") == REASON
    assert "vendor/kernels/" not in listed and not any(p.startswith("vendor/") for p in listed)
    assert "not scanned" in REASON


def test_a_checked_out_submodule_or_no_gitmodules_lists_nothing(tmp_path):
    write_tree(tmp_path, {"vendor/kernels/ops.py": "import torch\n", "lib/.keep": ""})
    assert missing_submodules(tmp_path) == []
    write_tree(tmp_path, {".gitmodules": '[submodule "k"]\n\tpath = vendor/kernels\n[submodule "l"]\n\tpath = lib\n'})
    assert missing_submodules(tmp_path) == []


def test_gitmodules_paths_outside_the_tree_or_malformed_files_name_nothing():
    assert declared_paths('[submodule "a"]\n\tpath = ../outside\n[submodule "b"]\n\tpath = /abs\n') == []
    assert declared_paths("path = x\nnot an ini file [") == []
    assert declared_paths('[submodule "a"]\n\turl = https://example.invalid/a.git\n') == []
    assert declared_paths('[submodule "a"]\n\tpath = third_party/a/\n') == ["third_party/a"]


def test_the_reason_is_said_in_chinese():
    from ascend_feasibility.analyzer.reporting.localize import phrase

    assert phrase("zh", REASON) == "未读取的文件夹：git 子模块（.gitmodules）未检出，其代码未被扫描"


def test_a_submodule_path_through_a_link_is_not_followed(tmp_path):
    # `outside/sub` where `outside` links out of the tree to an empty folder: nothing beyond the link is looked at
    (tmp_path / "elsewhere" / "sub").mkdir(parents=True)
    tree = tmp_path / "tree"
    tree.mkdir()
    (tree / "outside").symlink_to(tmp_path / "elsewhere")
    (tree / ".gitmodules").write_text('[submodule "s"]\n\tpath = outside/sub\n')
    assert missing_submodules(tree) == []
