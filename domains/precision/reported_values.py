"""A `.double()` whose value only reaches a report: a print or log line, a progress bar, TensorBoard's add_scalar, or
an exponential moving average kept only for those.

Round 40 A1 class 7 (row 17), B1 row 20, B2 class 4 (row 47), 4DGaussians train.py:203 and :369:
`psnr_ = psnr(image, gt).mean().double()` read only by `ema_psnr_for_log = 0.4 * psnr_ + 0.6 * ema_psnr_for_log`
(itself never read but by its own update) and `f"{psnr_:.2f}"` in `progress_bar.set_postfix(...)`;
`psnr_test += psnr(...).mean().double()` then `psnr_test /= len(cameras)`, `print(... psnr_test)` and
`tb_writer.add_scalar(..., psnr_test, iteration)`. On the NPU the cast gives float32 (rules.toml PRC006), which for a
displayed figure of a few dozen summed values changes only digits nobody reads; no loss, gradient or saved result
depends on it.

The value is only reported when the cast is shown where it stands (analyzer/context/display.py), or it is the right
side of an assignment (`=`, `+=`, ...) to a plain name of a function whose every use there is
- shown (an argument of a message call, a progress bar's text, a report table);
- an argument of a scalar-logging call (REPORT_CALLS);
- a binding of the name itself (`psnr_test = 0.0`, `psnr_test /= n`), or a read inside the right side of one (`x = x + v`);
- a read inside the right side of an assignment to another plain name whose own uses are such (the EMA), one level
  deep.
"""

from __future__ import annotations

from functools import cache

from ascend_feasibility.analyzer.context.display import DisplaySites
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

REPORT_CALLS = frozenset({"add_scalar", "add_scalars"})  # TensorBoard's SummaryWriter: a scalar for a chart
ASSIGNMENTS = frozenset({"assignment", "augmented_assignment"})
STATEMENTS = frozenset({"expression_statement", "return_statement", "if_statement", "for_statement", "while_statement",
                        "with_statement", "block", "function_definition", "module"})
MAX_USES = 20
DEPTH = 1  # names the value may pass through before it is shown (the EMA)


@cache
def _display() -> DisplaySites:
    return DisplaySites(load_context_conventions().guards)


def only_reported(cast: Node) -> bool:
    """Does the value of `cast` (a `.double()` call) reach nothing but reports (see the module's docstring)?"""
    display = _display()
    if display.shown(cast):
        return True
    binding = _bound_name(cast)
    if binding is None:
        return False
    name, assignment = binding
    function = parsing.enclosing(assignment, {"function_definition", "lambda", "class_definition"})
    if function is None or function.type != "function_definition":
        return False  # a module's or a class's name may be read from elsewhere
    return _uses_reported(function, name, display, DEPTH)


def _bound_name(value: Node) -> tuple[str, Node] | None:
    """(the plain name, the assignment) where `value` lies in the right side of an assignment to a plain name."""
    child, parent = value, value.parent
    while parent is not None and parent.type not in ASSIGNMENTS and parent.type not in STATEMENTS:
        child, parent = parent, parent.parent
    if parent is None or parent.type not in ASSIGNMENTS or parent.child_by_field_name("right") != child:
        return None
    left = parent.child_by_field_name("left")
    if left is None or left.type != "identifier":
        return None
    return parsing.text(left), parent


def _uses_reported(function: Node, name: str, display: DisplaySites, depth: int) -> bool:
    uses = parsing.identifiers_named(function.child_by_field_name("body"), name, 20_000)
    if len(uses) > MAX_USES or _declared_shared(function, name):
        return False
    for use in uses:
        if display.shown(use) or _logged_scalar(use) or _own_binding(use, name):
            continue
        binding = _bound_name(use)
        if depth > 0 and binding is not None and binding[0] != name \
                and _uses_reported(function, binding[0], display, depth - 1):
            continue
        return False
    return True


def _own_binding(use: Node, name: str) -> bool:
    """The name bound (`x = 0.0`, `x /= n`), or read in the right side of its own binding (`x = 0.4 * v + 0.6 * x`)."""
    parent = use.parent
    if parent is not None and parent.type in ASSIGNMENTS and parent.child_by_field_name("left") == use:
        return True
    binding = _bound_name(use)
    return binding is not None and binding[0] == name


def _logged_scalar(use: Node) -> bool:
    """An argument (or inside one) of a scalar-logging call (`writer.add_scalar(tag, value, step)`)."""
    parent = use.parent
    while parent is not None and parent.type not in STATEMENTS:
        if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call":
            function = parent.parent.child_by_field_name("function")
            if function is not None and function.type == "attribute" \
                    and parsing.text(function.child_by_field_name("attribute")) in REPORT_CALLS:
                return True
        parent = parent.parent
    return False


def _declared_shared(function: Node, name: str) -> bool:
    """`global name` / `nonlocal name`: the value leaves the function."""
    for node in parsing.walk(function.child_by_field_name("body"), limit=20_000):
        if node.type in {"global_statement", "nonlocal_statement"} \
                and any(parsing.text(c) == name for c in node.named_children):
            return True
    return False
