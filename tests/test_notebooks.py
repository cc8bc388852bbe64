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
