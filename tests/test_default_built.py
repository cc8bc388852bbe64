"""A no-CUDA raise in the constructor of a class the default path builds (analyzer/context/default_built.py; round 28
verdicts V4): a device check that runs, priced with what follows it, not a CUDA-only feature's gate."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.default_built import built_by_default, gate_of
from ascend_feasibility.analyzer.reading import parsing

from tests.helpers import scan

CLASS = ("import torch\n"
         "class Cache:\n"
         "    def __init__(self):\n"
         "        if not torch.cuda.is_available():\n"
         "            raise RuntimeError(\"Cache needs a GPU\")\n"
         "        self.stream = torch.cuda.Stream()\n")


def _gate(code: str):
    root = parsing.parse("python", code.encode())
    probe = next(n for n in parsing.walk(root) if n.type == "call" and parsing.text(n) == "torch.cuda.is_available()")
    return gate_of(probe)


@pytest.mark.parametrize("builder", [
    "def generate(x, use_cache: bool = True):\n    cache = Cache() if use_cache else None\n    return cache\n",
    "def generate(x, use_cache=True):\n    if use_cache:\n        cache = Cache()\n    return x\n",
    "def generate(x):\n    caches = [Cache() for _ in range(2)]\n    return caches\n",
    "cache = Cache()\n",
    # either arm of a test of the data, under the default-on switch
    "def generate(ids, use_cache: bool = True):\n    if isinstance(ids, list):\n        c = [Cache() for _ in ids] if use_cache else None\n"
    "    else:\n        c = Cache() if use_cache else None\n    return c\n",
])
def test_a_class_the_default_path_builds(builder):
    gate = _gate(CLASS + builder)
    assert gate is not None and built_by_default(gate) is not None


@pytest.mark.parametrize("builder", [
    "def generate(x, use_cache: bool = False):\n    cache = Cache() if use_cache else None\n    return cache\n",
    "def generate(x, use_cache=None):\n    if use_cache:\n        cache = Cache()\n    return x\n",
    "def generate(x, plain: bool = True):\n    cache = None if plain else Cache()\n    return cache\n",
    "def generate(x, flag=True):\n    if flag:\n        pass\n    else:\n        cache = Cache()\n",
    "def generate(x, config):\n    cache = Cache() if config.cache else None\n    return cache\n",
    "def generate(x, config):\n    if config.cache:\n        cache = Cache()\n    return x\n",
    "def generate(x, plain=True):\n    if plain:\n        return x\n    elif x:\n        return Cache()\n",
    "",  # built in no place of this file
])
def test_a_class_built_only_behind_an_opt_in_or_elsewhere(builder):
    gate = _gate(CLASS + builder)
    assert gate is not None and built_by_default(gate) is None


def test_only_a_constructors_negated_gate_with_no_else():
    not_init = CLASS.replace("__init__", "setup") + "cache = Cache()\n"
    assert built_by_default(_gate(not_init)) is None
    with_else = CLASS.replace("            raise RuntimeError(\"Cache needs a GPU\")\n",
                              "            raise RuntimeError(\"Cache needs a GPU\")\n        else:\n            pass\n")
    assert built_by_default(_gate(with_else + "cache = Cache()\n")) is None
    computes = CLASS.replace("            raise RuntimeError(\"Cache needs a GPU\")\n", "            self.n = 1\n")
    assert built_by_default(_gate(computes + "cache = Cache()\n")) is None
    positive = CLASS.replace("if not torch.cuda", "if torch.cuda") + "cache = Cache()\n"
    assert _gate(positive) is None


def _found(code: str) -> dict[str, tuple[str, str, str]]:
    return {f.rule: (f.severity, f.migration, f.reach) for f in scan(code).findings if f.rule in {"DEV104", "DEV110"}}


def test_the_gate_and_its_stream_are_priced_on_the_default_path():
    code = CLASS + "def generate(x, use_cache: bool = True):\n    return Cache() if use_cache else None\nout = generate(1)\n"
    found = _found(code)
    assert found["DEV104"] == ("medium", "rewrite", "runs")
    assert found["DEV110"][2] == "runs"
    opt_in = _found(code.replace("use_cache: bool = True", "use_cache: bool = False"))
    assert opt_in["DEV104"][2] == "cuda-only-guarded" and opt_in["DEV110"][2] == "cuda-only-guarded"
