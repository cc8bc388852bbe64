"""A device collection its own scope extends with "npu" is NPU-aware: no DEV009 (domains/device/npu_extended.py;
round 40 A1 class 2, B2 class 1: mmrotate's and mmtracking's dp_factory)."""

from __future__ import annotations

import pytest

from tests.helpers import scan

TABLE = "import torch\nfactory = {'cuda': torch.nn.DataParallel, 'cpu': torch.nn.DataParallel}\n"


@pytest.mark.parametrize("extension", [
    "def build(device):\n    if device == 'npu':\n        factory['npu'] = object\n    return factory[device]\n",
    "factory.update({'npu': object})\n",
    "factory.update(npu=object)\n",
    "factory.setdefault('npu', object)\n",
])
def test_a_table_extended_with_npu_in_its_module_is_no_finding(extension):
    assert not [f for f in scan(TABLE + extension).findings if f.rule == "DEV009"]


@pytest.mark.parametrize("extension", [
    "other = {}\nother['npu'] = object\n",  # another table
    "factory['xpu'] = object\n",  # another device
    "def build():\n    factory = {'cuda': 1, 'cpu': 1}\n    return factory\n"
    "def extend(factory):\n    factory['npu'] = 2\n",  # a local name of another function
])
def test_a_table_not_extended_with_npu_stays_a_finding(extension):
    assert [f.line for f in scan(TABLE + extension).findings if f.rule == "DEV009"][:1] == [2]


@pytest.mark.parametrize("code, flagged", [
    ("def devices():\n    found = ['cuda', 'cpu']\n    found += ['npu']\n    return found\n", False),
    ("def devices():\n    found = ['cuda', 'cpu']\n    found.insert(0, 'npu')\n    return found\n", False),
    ("def devices():\n    found = ['cuda', 'cpu']\n    return found\n\ndef more(found):\n    found.append('npu')\n", True),
])
def test_a_local_list_is_read_in_its_function(code, flagged):
    assert bool([f for f in scan(code).findings if f.rule == "DEV009"]) == flagged
