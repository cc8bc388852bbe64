"""Which seeding calls torch's own call already makes on every device: `torch.manual_seed(s)` seeds CUDA, MPS, XPU and
the registered custom backend (torch/random.py on torch 2.12: manual_seed and seed call torch.cuda.manual_seed_all,
torch.mps.manual_seed, torch.xpu.manual_seed_all, then _seed_custom_device, which calls torch.npu.manual_seed_all).
Read by seeding.py (a CUDA seeding call beside it) and dispatch_chains.py (a cuda/mps seeding chain beside it); it
imports no guard reader, which reads dispatch_chains."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

# a CUDA seeding call → the torch call that already does it on every device
ALL_DEVICES_SEED = {"torch.cuda.manual_seed": "torch.manual_seed", "torch.cuda.manual_seed_all": "torch.manual_seed",
                    "torch.cuda.seed": "torch.seed", "torch.cuda.seed_all": "torch.seed"}
# the other backends' seeding calls torch's call covers as well (torch/random.py on torch 2.12: manual_seed and seed
# call torch.mps.manual_seed and torch.xpu.manual_seed_all before _seed_custom_device): a cuda/mps/xpu seeding chain
# beside `torch.manual_seed(s)` has every device seeded, the NPU's included
OTHER_DEVICES_SEED = {"torch.mps.manual_seed": "torch.manual_seed", "torch.xpu.manual_seed": "torch.manual_seed",
                      "torch.xpu.manual_seed_all": "torch.manual_seed", "torch.mps.seed": "torch.seed",
                      "torch.xpu.seed": "torch.seed", "torch.xpu.seed_all": "torch.seed"}
COVERED_SEED = ALL_DEVICES_SEED | OTHER_DEVICES_SEED
MAX_SIBLINGS = 60


def chain_seeded_by_torch(statement: Node, bodies: list[Node]) -> Node | None:
    """The statement beside a per-backend dispatch chain (`if torch.cuda.is_available(): torch.cuda.manual_seed(s)` /
    `if torch.backends.mps.is_available(): torch.mps.manual_seed(s)`) that makes torch's call seeding every device,
    when each arm of the chain only seeds its backend with calls that torch call covers: on Ascend the missing NPU arm
    changes nothing (DEV220 is no finding there). None otherwise."""
    block = statement.parent
    if block is None or not bodies:
        return None
    covering = {covered_by(body) for body in bodies}
    if len(covering) != 1 or None in covering:
        return None
    return seeding_sibling(block, covering.pop())


def covered_by(body: Node) -> str | None:
    """The torch call covering every statement of `body`, each a seeding call of one backend (None otherwise)."""
    statements = [c for c in body.named_children if c.type != "comment"]
    if not statements or len(statements) > MAX_SIBLINGS:
        return None
    found = set()
    for statement in statements:
        inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        callee = inner.child_by_field_name("function") if inner is not None and inner.type == "call" else None
        found.add(COVERED_SEED.get(parsing.text(callee)) if callee is not None else None)
    return found.pop() if len(found) == 1 else None


def seeding_sibling(block: Node, every_device: str) -> Node | None:
    """The statement of `block` that makes the torch call seeding every device (`torch.manual_seed(s)`, `s =
    torch.seed()`)."""
    for sibling in block.named_children[:MAX_SIBLINGS * 2]:
        inner = sibling.named_children[0] if sibling.type == "expression_statement" and sibling.named_children else None
        if inner is not None and inner.type == "assignment":  # `s = torch.seed()`
            inner = inner.child_by_field_name("right")
        callee = inner.child_by_field_name("function") if inner is not None and inner.type == "call" else None
        if callee is not None and parsing.text(callee) == every_device:
            return sibling
    return None
