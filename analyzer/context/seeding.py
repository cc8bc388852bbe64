"""`torch.cuda.manual_seed(s)` beside `torch.manual_seed(s)`: torch.manual_seed already seeds every device, the
registered custom backend included (torch/random.py `_seed_custom_device` calls torch.npu.manual_seed_all), so on
Ascend the CUDA call adds nothing and NPU seeding is already in place."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import Guard
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

CUDA_SEEDS = {"torch.cuda.manual_seed", "torch.cuda.manual_seed_all"}
ALL_DEVICES_SEED = "torch.manual_seed"
MAX_SIBLINGS = 60


def seeded_for_every_device(node: Node) -> Guard | None:
    """The statement holding a `torch.cuda.manual_seed(...)` call, when its block also calls `torch.manual_seed`."""
    call, depth = node, 0
    while call is not None and call.type != "call" and depth < 4:
        call, depth = call.parent, depth + 1
    function = call.child_by_field_name("function") if call is not None else None
    if function is None or parsing.text(function) not in CUDA_SEEDS:
        return None
    statement = call.parent
    if statement is None or statement.type != "expression_statement" or statement.parent is None:
        return None
    for sibling in statement.parent.named_children[:MAX_SIBLINGS * 2]:
        inner = sibling.named_children[0] if sibling.type == "expression_statement" and sibling.named_children else None
        callee = inner.child_by_field_name("function") if inner is not None and inner.type == "call" else None
        if callee is not None and parsing.text(callee) == ALL_DEVICES_SEED:
            return Guard("npu-path", sibling)
    return None
