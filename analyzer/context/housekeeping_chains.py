"""A per-backend chain whose arms only do housekeeping: a cache release, a wait, a memory figure for a log line.

`if self.device.type == "cuda": torch.cuda.empty_cache() elif self.device.type == "mps": mps.empty_cache()` (round
34 B1 class 5, XMem fbrs/controller.py:42, gui.py:929). Without an NPU arm a native port takes no arm there and only
skips the release; under transfer_to_npu a torch.device built from "cuda" keeps its type, the CUDA arm is taken and its
torch.cuda calls are torch.npu's. No result changes either way, so DEV220 lists the chain without counting it.

The signal: every statement of every arm is a housekeeping call of the module its own condition names
(`torch.cuda.empty_cache()` under a "cuda" test, `torch.mps.empty_cache()` under an "mps" one; [backends]
housekeeping), a general one (`gc.collect()`; housekeeping_general), or a log line whose calls are those (a memory
figure printed); every arm makes at least one such call; the chain's else, which a native port takes on the NPU, does
nothing but those or log lines. An assignment is never housekeeping: a memory reading kept in a name may size a batch,
or divide (XMem gui.py:866's else `info = (0, 0)` is divided by at :878, which fails where no arm is taken).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import Chain, words
from ascend_feasibility.analyzer.context.shim_chains import log_line
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import ImportTable, qualified_name
from ascend_feasibility.knowledge.models import BackendConventions
from tree_sitter import Node

MAX_ARM_NODES = 400


def only_housekeeping(chain: Chain, imports: ImportTable, conventions: BackendConventions) -> bool:
    """Does every arm of `chain` (and its else) only do housekeeping of its own backend?"""
    calls, general = frozenset(conventions.housekeeping), frozenset(conventions.housekeeping_general)
    for condition, body in chain.arms:
        if not _housekeeping_block(body, words(condition), imports, calls, general, needs_call=True):
            return False
    return chain.else_body is None or _housekeeping_block(chain.else_body, set(), imports, calls, general,
                                                          needs_call=False)


def _housekeeping_block(body: Node, own: set[str], imports: ImportTable, calls: frozenset[str],
                        general: frozenset[str], needs_call: bool) -> bool:
    statements = [s for s in body.named_children if s.type not in {"comment", "pass_statement"}]
    if not statements:
        return False
    made = False
    for statement in statements:
        if statement.type != "expression_statement" or len(statement.named_children) != 1:
            return False
        expression = statement.named_children[0]
        if expression.type == "call" and _housekeeping_call(expression, own, imports, calls, general):
            made = True
        elif log_line(statement):
            inner = [c for c in parsing.walk(expression, limit=MAX_ARM_NODES) if c.type == "call" and c.id != expression.id]
            if not all(_housekeeping_call(c, own, imports, calls, general) for c in inner):
                return False
            made = made or bool(inner)
        else:
            return False
    return made or not needs_call


def _housekeeping_call(call: Node, own: set[str], imports: ImportTable, calls: frozenset[str],
                       general: frozenset[str]) -> bool:
    """`torch.<backend>.<housekeeping>(...)` whose backend is one the arm's condition names, or a general one."""
    function = call.child_by_field_name("function")
    name = qualified_name(function, imports) if function is not None else None
    if name is None:
        return False
    if name in general:
        return True
    parts = name.split(".")
    return len(parts) == 3 and parts[0] == "torch" and parts[1] in own and parts[2] in calls
