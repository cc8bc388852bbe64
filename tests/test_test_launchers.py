"""Shell scripts whose every launch runs a test are test tooling (analyzer/context/test_launchers.py): a CI folder of
any name (lmms-eval's cicd/) holding `python $REPO_DIR/test/eval/run_cicd.py` or `python -m pytest`. A script that
also launches product code, or a script the tree lacks, stays the product's."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

PIN = "export CUDA_VISIBLE_DEVICES=0,1\n"


def _roles(root) -> dict[str, set[tuple[str, str | None]]]:
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in analyze(root, AnalyzeOptions(jobs=1)).findings:
        if f.path.endswith(".sh"):  # the pin of visible devices
            found.setdefault(f.path, set()).add((f.role, f.reach_reason))
    return found


def test_a_script_launching_only_tests_is_test_tooling_and_one_launching_product_code_is_not(tmp_path):
    write_tree(tmp_path, {
        "train.py": "import torch\nprint(torch.ones(1))\n",
        "test/eval/run_cicd.py": "import unittest\n",
        "cicd/run_evalcicd.sh": PIN + "python $REPO_DIR/test/eval/run_cicd.py --fast\n",
        "cicd/run_pytest.sh": PIN + "python -m pytest tests/ -x\n",
        "cicd/run_both.sh": PIN + "python $REPO_DIR/test/eval/run_cicd.py\npython train.py\n",
        "scripts/train.sh": PIN + "python train.py\n",
        "cicd/run_missing.sh": PIN + "python test/eval/not_here.py\n",
    })
    roles = _roles(tmp_path)
    assert roles["cicd/run_evalcicd.sh"] == {
        ("test", "a test launcher: every command it runs is a test (test/eval/run_cicd.py)")}
    assert roles["cicd/run_pytest.sh"] == {("test", "a test launcher: every command it runs is a test (pytest)")}
    assert phrase("zh", "a test launcher: every command it runs is a test (pytest)") != "a test launcher: every command it runs is a test (pytest)"
    for product in ("cicd/run_both.sh", "scripts/train.sh", "cicd/run_missing.sh"):
        assert {role for role, _ in roles[product]} == {"product"}, product


NOTE = ("accelerate launch --num_processes=1 -m harness --model llava --tasks mme\n\ngpu = 8 bs 1:\n"
        "|  Tasks  |Version|Filter|n-shot|  Metric   |Value |\n"
        "|---------|-------|------|-----:|-----------|-----:|\n"
        "|mme      |N/A    |none  |     0|cognition  |322.5 |\n"
        "|mme      |N/A    |none  |     0|perception |1510  |\n\ngpu = 1 bs 1:\n"
        "|mme      |N/A    |none  |     0|cognition  |320.1 |\n")


def test_a_launch_line_beside_pasted_result_tables_is_a_note_and_a_script_is_not(tmp_path):
    launch = "export CUDA_VISIBLE_DEVICES=0,1\n"
    write_tree(tmp_path, {
        "harness/__init__.py": "", "harness/__main__.py": "import torch\n",
        "miscs/script.sh": launch + NOTE,
        # a real script: every line parses, though it also pipes output through a filter
        "scripts/eval.sh": launch + "set -e\nMODEL=llava\n"
                           "accelerate launch -m harness --model $MODEL | tee log.txt\ngrep mme log.txt | sort\n",
    })
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings:
        if f.path.endswith(".sh"):
            found.setdefault(f.path, set()).add((f.role, f.reach_reason))
    assert {role for role, _ in found["miscs/script.sh"]} == {"docs"}
    assert all(why.startswith("a note, not a script: ") and phrase("zh", why) != why for _, why in found["miscs/script.sh"])
    assert {role for role, _ in found["scripts/eval.sh"]} == {"product"}
