"""An autocast call whose arguments read another device's autocast state (round 30 A1 row 42: `torch.cuda.amp.autocast(
dtype=torch.get_autocast_gpu_dtype(), ...)`). torch.get_autocast_gpu_dtype() is torch.get_autocast_dtype("cuda")
(torch 2.4 and later) and no torch_npu release patches it (Ascend/pytorch v2.12.0-26.1.0: no file names it;
transfer_to_npu wraps only torch.amp's autocast.__init__ and torch.cuda.amp): inside an NPU autocast it answers CUDA's
dtype (float16 by default), not the NPU autocast's. The rule's edit names the calls (knowledge/models.py Edit
argument_calls), so the port's rewrite and this finding's text read the same list."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from tree_sitter import Node

CUDA_AUTOCAST_DTYPE_READ = "cuda-autocast-dtype-read"  # DEV140's facet
MAX_NODES = 500  # the walk over one call's arguments


def reads_other_autocast_dtype(call: Node, names: frozenset[str], imports: ImportTable) -> bool:
    """Does an argument of `call` call one of `names` (qualified) with no arguments?"""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or not names:
        return False
    for node in parsing.walk(arguments, limit=MAX_NODES):
        if node.type != "call":
            continue
        function, given = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is not None and given is not None and not given.named_children \
                and qualified_name(function, imports) in names:
            return True
    return False
