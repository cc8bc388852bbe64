"""`torch.cuda.manual_seed(s)` beside `torch.manual_seed(s)`, `torch.cuda.seed()` beside `torch.seed()`: the torch
call already seeds every device, the registered custom backend included (torch/random.py `_seed_custom_device` calls
torch.npu.manual_seed_all), so on Ascend the CUDA call adds nothing and NPU seeding is already in place. The pairs
stay apart: a fixed CUDA seed beside `torch.seed()` (a random one) leaves the NPU without the fixed seed. The CUDA call
may sit alone in an `if` (`torch.seed()` / `if torch.cuda.is_available(): torch.cuda.seed()`), or beside CUDA backend
switches that nothing on the NPU reads (`torch.manual_seed(s)` / `if torch.cuda.is_available(): torch.cuda.manual_seed(s);
torch.backends.cudnn.deterministic = True`, round 32 A2 rows 51, 52, 58)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.feature_gates import sets_switch
from ascend_feasibility.analyzer.context.guards import Guard
from ascend_feasibility.analyzer.context.seed_calls import ALL_DEVICES_SEED, MAX_SIBLINGS, covered_by, seeding_sibling
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable
from tree_sitter import Node

MAX_FILE_NODES = 50_000  # the walk over a file for a seeding helper's calls
# the reason's note: the site's NPU path is torch's own seeding, nothing the project ported (the verdict's "already
# ported" count leaves such sites out: domains/phases/estimate.py)
SEEDS_EVERY_DEVICE = "torch's call seeds every device, the NPU's included: no NPU code of the project's own"


def seeded_by_torch(reason: str | None) -> bool:
    """Is this a reach reason seeded_for_every_device gave, or one derived from it (a CUDA check guarding only such a
    call: "the check guards only code that is npu-path (line 436: torch.manual_seed(seed) (...))")?"""
    return reason is not None and SEEDS_EVERY_DEVICE in reason


def seeded_for_every_device(node: Node, imports: ImportTable | None = None) -> Guard | None:
    """The statement holding a CUDA seeding call, when its block also makes the torch call that seeds every device: the
    call's own block, or the block around an `if` whose body makes only CUDA seeding calls (`if
    torch.cuda.is_available(): torch.cuda.manual_seed(s); torch.cuda.manual_seed_all(s)`), or, for a function of the
    file that does only such seeding, the block of every call of it (`torch.manual_seed(s)` then `seed_cuda(s)`).
    With the file's `imports`, CUDA backend switch assignments among those calls (`torch.backends.cudnn.deterministic =
    True`) are left aside: they act on CUDA kernels only."""
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
        found = seeding_sibling(block, every_device)
        if found is not None:
            return Guard("npu-path", found, SEEDS_EVERY_DEVICE)
        if not _only_cuda_seeding(block, every_device, imports):
            return None
        guard = block.parent
        if guard is not None and guard.type == "function_definition":
            return _seeded_at_every_call(guard, every_device)
        if guard is None or guard.type != "if_statement" or not _covered_arms(guard, every_device) or guard.parent is None:
            return None
        block = guard.parent
    if block.parent is not None and block.parent.type == "function_definition" and _only_cuda_seeding(block, every_device, imports):
        return _seeded_at_every_call(block.parent, every_device)
    return None


def _covered_arms(statement: Node, every_device: str) -> bool:
    """Is every alternative of the `if` an `elif` seeding another backend with a call torch's `every_device` call
    covers (`elif is_xpu_available(): torch.xpu.manual_seed_all(seed)`; no alternative at all counts)?"""
    for clause in statement.children_by_field_name("alternative"):
        body = clause.child_by_field_name("consequence") if clause.type == "elif_clause" else None
        if body is None or covered_by(body) != every_device:
            return False
    return True


def _only_cuda_seeding(block: Node, every_device: str, imports: ImportTable | None = None) -> bool:
    """Does `block` make only CUDA seeding calls that torch's `every_device` call covers (an `if` without else holding
    only such calls counts as one of them; a docstring, and with `imports` a CUDA backend switch assignment, are left
    aside)?"""
    statements = [c for c in block.named_children if c.type != "comment"]
    if statements and statements[0].type == "expression_statement" and statements[0].named_children \
            and statements[0].named_children[0].type == "string":
        statements = statements[1:]
    if not statements or len(statements) > MAX_SIBLINGS:
        return False
    for statement in statements:
        if statement.type == "if_statement" and not statement.children_by_field_name("alternative"):
            body = statement.child_by_field_name("consequence")
            if body is None or not _only_cuda_seeding(body, every_device, imports):
                return False
            continue
        if imports is not None and sets_switch(statement, imports):
            continue
        inner = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        callee = inner.child_by_field_name("function") if inner is not None and inner.type == "call" else None
        if callee is None or ALL_DEVICES_SEED.get(parsing.text(callee)) != every_device:
            return False
    return True


def _seeded_at_every_call(definition: Node, every_device: str) -> Guard | None:
    """A module-level function of the file that only seeds CUDA: npu-path where every call of it by its plain name
    in the file is a statement whose block makes torch's `every_device` call too."""
    if definition.parent is None or definition.parent.type != "module":
        return None
    name = parsing.text(definition.child_by_field_name("name"))
    found = None
    for node in parsing.walk(parsing.root_of(definition), limit=MAX_FILE_NODES):
        if node.type != "call":
            continue
        callee = node.child_by_field_name("function")
        if callee is None or callee.type != "identifier" or parsing.text(callee) != name:
            continue
        statement = node.parent
        if statement is None or statement.type != "expression_statement" or statement.parent is None:
            return None  # its value is used, or it is handed on: not a plain seeding step
        found = seeding_sibling(statement.parent, every_device)
        if found is None:
            return None
    return Guard("npu-path", found, SEEDS_EVERY_DEVICE) if found is not None else None
