"""Commented-out import lines (analyzer/context/commented_imports.py): each comment holding `import` is parsed as
Python; only one that is a whole import statement names modules."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.commented_imports import commented_imports
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.phases.facts import _absolute


def _read(source: str, package: str = "lib.model") -> list[tuple[str, int]]:
    return commented_imports(parsing.parse("python", source.encode()), lambda module: _absolute(module, package))


def test_relative_and_absolute_import_lines_name_their_modules_and_submodules():
    source = ("import torch\n"
              "# from .modeling_llama import LlamaModel, LlamaForCausalLM\n"
              "from transformers import LlamaModel\n"
              "#import a.b as c, d\n"
              "def build():\n"
              "    # from ..encoders.dev.eva_vit import EvaViT as Vit\n"
              "    pass\n")
    assert _read(source) == [
        ("lib.model.modeling_llama", 2), ("lib.model.modeling_llama.LlamaModel", 2),
        ("lib.model.modeling_llama.LlamaForCausalLM", 2),
        ("a.b", 4), ("d", 4),
        ("lib.encoders.dev.eva_vit", 6), ("lib.encoders.dev.eva_vit.EvaViT", 6),
    ]


def test_prose_and_live_imports_name_nothing():
    source = ("from .live import x  # import order matters\n"  # a live import, and a trailing comment of prose
              "# import order matters here\n"
              "# from here on we import the weights\n"
              "# from x import (\n"  # half a statement: does not parse
              "x = 1  # see `import os` above\n"
              "'''# from .in_a_string import y'''\n")
    assert _read(source) == []
