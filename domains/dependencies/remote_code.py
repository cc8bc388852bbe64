"""Model code a project loads from the Hugging Face Hub when it runs (DEP040): `AutoModel*.from_pretrained(...,
trust_remote_code=True)` and `pipeline(..., trust_remote_code=True)` execute the checkpoint's own modeling_*.py, which
is not in the tree, so no finding speaks for it; such files often import flash_attn or launch their own CUDA kernels
(MiniCPM-V, CogVLM, InternLM load their models this way). One project-level finding lists the sites: the estimate rests
on code this analysis never read. Tokenizers, processors and configs run no device code: their remote code is no
concern."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan
from tree_sitter import Node

DETECTOR = "remote-model-code"
KEYWORD = "trust_remote_code"
MODEL_LOADER_PREFIX = "AutoModel"  # AutoModel, AutoModelForCausalLM, AutoModelForVision2Seq, ...
PIPELINE = "pipeline"

QUERY = rf"""
((keyword_argument name: (identifier) @remote_keyword value: (true)) (#eq? @remote_keyword "{KEYWORD}"))
"""


class _RemoteCodeScan(PythonScan):
    GATED = (((KEYWORD,), QUERY),)

    def run(self):
        for name in self.captures().get("remote_keyword", []):
            call = enclosing_call(name)
            if call is not None and loads_a_model(call.child_by_field_name("function")):
                self.hit(DETECTOR, parsing.text(call.child_by_field_name("function")), name.parent)
        return self.hits


def enclosing_call(keyword: Node) -> Node | None:
    arguments = keyword.parent.parent if keyword.parent is not None else None
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    return call if call is not None and call.type == "call" else None


def loads_a_model(function: Node | None) -> bool:
    """`AutoModelForCausalLM.from_pretrained`, `transformers.AutoModel.from_pretrained`, `pipeline`."""
    if function is None:
        return False
    if function.type == "identifier":
        return parsing.text(function) == PIPELINE
    if function.type != "attribute":
        return False
    owner, attribute = function.child_by_field_name("object"), function.child_by_field_name("attribute")
    if attribute is None or owner is None:
        return False
    if parsing.text(attribute) == PIPELINE:  # transformers.pipeline(...)
        return True
    owner_name = parsing.text(owner).rsplit(".", 1)[-1]
    return parsing.text(attribute) == "from_pretrained" and owner_name.startswith(MODEL_LOADER_PREFIX)


class RemoteCodeScanner(PythonDomainScanner):
    domain = "dependencies"
    triggers = (KEYWORD,)
    scan_class = _RemoteCodeScan

    def scan(self, unit):
        return _RemoteCodeScan(self.index, unit).run()
