"""Shell scripts whose every launch runs a test are test tooling (analyzer/context/test_launchers.py): a CI folder of
any name (lmms-eval's cicd/) holding `python $REPO_DIR/test/eval/run_cicd.py` or `python -m pytest`. A script that
also launches product code, or a script the tree lacks, stays the product's."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

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
    for product in ("cicd/run_both.sh", "scripts/train.sh", "cicd/run_missing.sh"):
        assert {role for role, _ in roles[product]} == {"product"}, product
