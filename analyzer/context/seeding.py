"""`torch.cuda.manual_seed(s)` beside `torch.manual_seed(s)`, `torch.cuda.seed()` beside `torch.seed()`: the torch
call already seeds every device, the registered custom backend included (torch/random.py `_seed_custom_device` calls
torch.npu.manual_seed_all), so on Ascend the CUDA call adds nothing and NPU seeding is already in place. The pairs
stay apart: a fixed CUDA seed beside `torch.seed()` (a random one) leaves the NPU without the fixed seed. The CUDA call
may sit alone in an `if` (`torch.seed()` / `if torch.cuda.is_available(): torch.cuda.seed()`)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import Guard
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

# a CUDA seeding call → the torch call that already does it on every device
ALL_DEVICES_SEED = {"torch.cuda.manual_seed": "torch.manual_seed", "torch.cuda.manual_seed_all": "torch.manual_seed",
                    "torch.cuda.seed": "torch.seed", "torch.cuda.seed_all": "torch.seed"}
MAX_SIBLINGS = 60
# the reason's note: the site's NPU path is torch's own seeding, nothing the project ported (the verdict's "already
# ported" count leaves such sites out: domains/phases/estimate.py)
SEEDS_EVERY_DEVICE = "torch's call seeds every device, the NPU's included: no NPU code of the project's own"


def seeded_by_torch(reason: str | None) -> bool:
    """Is this a reach reason seeded_for_every_device gave, or one derived from it (a CUDA check guarding only such a
    call: "the check guards only code that is npu-path (line 436: torch.manual_seed(seed) (...))")?"""
    return reason is not None and SEEDS_EVERY_DEVICE in reason


def seeded_for_every_device(node: Node) -> Guard | None:
    """The statement holding a CUDA seeding call, when its block also makes the torch call that seeds every device."""
    call, depth = node, 0
    while call is not None and call.type != "call" and depth < 4:
        call, depth = call.parent, depth + 1
    function = call.child_by_field_name("function") if call is not None else None
    every_device = ALL_DEVICES_SEED.get(parsing.text(function)) if function is not None else None
    if every_device is None:
        return None
    statement = call.parent
    if statement is None or statement.type != "expression_statement" or statement.parent is None:
        return None
    block = statement.parent
    for _ in range(2):  # the call's block, then the block around `if torch.cuda.is_available(): torch.cuda.seed()`
        for sibling in block.named_children[:MAX_SIBLINGS * 2]:
            inner = sibling.named_children[0] if sibling.type == "expression_statement" and sibling.named_children else None
            if inner is not None and inner.type == "assignment":  # `s = torch.seed()`
                inner = inner.child_by_field_name("right")
            callee = inner.child_by_field_name("function") if inner is not None and inner.type == "call" else None
            if callee is not None and parsing.text(callee) == every_device:
                return Guard("npu-path", sibling, SEEDS_EVERY_DEVICE)
        guard = block.parent
        if (guard is None or guard.type != "if_statement" or guard.children_by_field_name("alternative")
                or guard.parent is None or len([c for c in block.named_children if c.type != "comment"]) != 1):
            return None
        block = guard.parent
    return None
