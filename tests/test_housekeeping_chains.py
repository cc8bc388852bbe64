"""Per-backend chains whose arms only do housekeeping (analyzer/context/housekeeping_chains.py, round 34 B1 class 5):
every statement of every arm a cache release, wait, memory-statistics call or log line through the module its own
condition names ([backends] housekeeping in knowledge/context/conventions.toml), or gc.collect; the else, if any, no
more than that. DEV220 lists such a chain at info, not counted."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context import dispatch_chains as dc
from ascend_feasibility.analyzer.context.housekeeping_chains import only_housekeeping
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable
from ascend_feasibility.knowledge import load_context_conventions

from tests.helpers import scan

CONVENTIONS = load_context_conventions()
WORDS = dc.backend_words(CONVENTIONS.guards, CONVENTIONS.backends)


def _housekeeping(code: str) -> bool:
    root = parsing.parse("python", code.encode())
    imports = ImportTable()
    imports.add_tree(root)
    statement = next(n for n in parsing.walk(root) if n.type == "if_statement")
    chain = dc.dispatch_chain(statement, WORDS)
    assert chain is not None
    return only_housekeeping(chain, imports, CONVENTIONS.backends)


XMEM = ("import torch\ntry:\n    from torch import mps\nexcept ImportError:\n    pass\ndef clear(self):\n"
        "    if self.device.type == 'cuda':\n        torch.cuda.empty_cache()\n    elif self.device.type == 'mps':\n"
        "        mps.empty_cache()\n")


@pytest.mark.parametrize("code", [
    XMEM,
    # a run of separate ifs, a gc.collect and a printed memory figure beside the release
    "import gc\nimport torch\ndef clear(device):\n    if device.type == 'cuda':\n        gc.collect()\n"
    "        torch.cuda.empty_cache()\n        print(torch.cuda.max_memory_allocated() / 2**20)\n"
    "    if device.type == 'xpu':\n        torch.xpu.synchronize()\n        torch.xpu.empty_cache()\n",
    # an else that only collects garbage
    "import gc\nimport torch\nif torch.cuda.is_available():\n    torch.cuda.ipc_collect()\nelif torch.backends.mps.is_available():\n"
    "    torch.mps.empty_cache()\nelse:\n    gc.collect()\n",
])
def test_arms_that_only_release_wait_or_log_a_figure_are_housekeeping(code):
    assert _housekeeping(code)


@pytest.mark.parametrize("code", [
    # a reading kept in a name: the else's (0, 0) may be divided by (XMem gui.py:866)
    "import torch\ndef usage(device):\n    if device.type == 'cuda':\n        info = torch.cuda.mem_get_info()\n"
    "    elif device.type == 'mps':\n        info = (0, torch.mps.current_allocated_memory())\n    else:\n"
    "        info = (0, 0)\n    return info[0] / info[1]\n",
    # the mps arm calls torch.cuda's module: not its own backend's
    "import torch\ndef clear(device):\n    if device.type == 'cuda':\n        torch.cuda.empty_cache()\n"
    "    elif device.type == 'mps':\n        torch.cuda.synchronize()\n",
    # an arm that only logs releases nothing
    "import torch\ndef clear(device):\n    if device.type == 'cuda':\n        torch.cuda.empty_cache()\n"
    "    elif device.type == 'mps':\n        print('mps')\n",
    # an else the NPU takes natively that computes
    "import torch\ndef clear(device, x):\n    if device.type == 'cuda':\n        torch.cuda.empty_cache()\n"
    "    elif device.type == 'mps':\n        torch.mps.empty_cache()\n    else:\n        x = x.float()\n",
    # a per-device property for a kernel grid
    "import torch\nif device == 'cuda':\n    n = torch.cuda.get_device_properties(0).multi_processor_count\n"
    "elif device == 'xpu':\n    n = torch.xpu.get_device_properties(0).gpu_eu_count\n",
])
def test_anything_else_is_no_housekeeping(code):
    assert not _housekeeping(code)


def test_dev220_lists_a_housekeeping_chain_at_info_and_does_not_count_it():
    findings = [f for f in scan(XMEM).findings if f.rule == "DEV220"]
    assert [(f.line, f.severity) for f in findings] == [(7, "info")]
    assert not findings[0].counted
    assert "No result changes" in findings[0].message.en and "Nothing to port" in findings[0].replacement.en
