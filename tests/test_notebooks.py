import json

from tests.helpers import scan_bytes


def notebook(*cells):
    return json.dumps({"cells": list(cells), "nbformat": 4, "nbformat_minor": 5, "metadata": {}}).encode()


def code(source):
    return {"cell_type": "code", "source": source, "metadata": {}, "outputs": [], "execution_count": None}


def test_findings_map_to_cell_and_line_and_imports_carry_across_cells():
    data = notebook(
        {"cell_type": "markdown", "source": ["# Demo: torch.cuda.synchronize()"], "metadata": {}},
        code(["import torch as t\n", "!pip install flash-attn\n"]),
        code(["%matplotlib inline\n", "x = t.ones(2).cuda()\n", "t.cuda.synchronize()"]),
        code("%%bash\nexport CUDA_VISIBLE_DEVICES=0\n"),
    )
    result = scan_bytes(data, "notebook", name="demo.ipynb")
    assert [(f.rule, f.cell, f.line) for f in result.findings] == [
        ("DEV004", 3, 2),
        ("DEV101", 3, 3),
        ("DEV201", 4, 2),  # the %%bash cell is read as shell
    ]
    assert result.skipped == []
    assert result.lines == 7


def test_shell_escapes_and_env_magic_are_read_as_shell():
    data = notebook(code(["!CUDA_VISIBLE_DEVICES=1 python train.py\n", "%env CUDA_LAUNCH_BLOCKING=1\n", "x = 1\n"]))
    result = scan_bytes(data, "notebook", name="demo.ipynb")
    assert [(f.rule, f.cell, f.line, f.column) for f in result.findings] == [("DEV201", 1, 1, 2), ("DEV202", 1, 2, 6)]


def test_a_statement_repeated_in_many_cells_is_one_finding_with_every_cell_listed(tmp_path):
    """Round 28 A1/A2: a tutorial repeating `guider = Guider(models).cuda()` in one cell per model section counted each
    copy. The copies fold into one finding at the first cell with every cell a site (as a module's repeated site is
    one edit pass of its file); a different statement, or the same one in another notebook, keeps its own."""
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    from tests.helpers import write_tree

    repeated = "guider = Guider(models).cuda()\n"
    cells = [code(["import torch\n", "class Guider(torch.nn.Module):\n", "    pass\n", "models = []\n"])]
    cells += [code([f"models = [{n}]\n", repeated]) for n in range(4)]
    cells.append(code(["x = torch.ones(1).cuda()\n"]))
    write_tree(tmp_path, {"requirements.txt": "torch\n", "tutorial.ipynb": notebook(*cells).decode(),
                          "other.ipynb": notebook(code(["import torch\n", repeated])).decode()})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    dev004 = [f for f in report.findings if f.rule == "DEV004"]
    folded = [f for f in dev004 if f.path == "tutorial.ipynb" and "Guider" in f.snippet]
    assert len(folded) == 1 and folded[0].cell == 2
    assert folded[0].sites == [f"tutorial.ipynb:2 (cell {n})" for n in range(2, 6)]
    assert "4 cells" in folded[0].message.en
    others = [f for f in dev004 if f not in folded]
    assert sorted((f.path, f.cell, len(f.sites)) for f in others) == [("other.ipynb", 1, 0), ("tutorial.ipynb", 6, 0)]
