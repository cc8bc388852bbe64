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


AUTOCAST_OFF = "autocast-off"  # DEV140's and DEV007's facet: `enabled=False`, in a file that turns no autocast on
MAX_FILE_NODES = 200_000  # the walk over a file for an autocast that is on


def only_turns_autocast_off(call: Node) -> bool:
    """Is `call` (an autocast) passed the literal `enabled=False`, in a file where no autocast call turns autocast on
    (every autocast call there passes `enabled=False`)? Then the region casts nothing on any device, and no autocast the
    file enables surrounds it (round 31 A2 row 82, B1 row 12). A file that enables one (Wan's `@amp.autocast(enabled=
    False)` rope helpers beside `amp.autocast(dtype=...)`) keeps the site's own finding: there it turns that off."""
    if not turns_autocast_off(call):
        return False
    module = call
    while module.parent is not None:
        module = module.parent
    for node in parsing.walk(module, limit=MAX_FILE_NODES):
        if node.type == "call" and parsing.callee_name(node) == "autocast" and not turns_autocast_off(node):
            return False
    return True


def turns_autocast_off(call: Node) -> bool:
    """Does `call` (an autocast) pass the literal `enabled=False`? Such a region casts nothing on any device: entering
    it sets its device type's autocast state off (torch/amp/autocast_mode.py autocast.__enter__,
    `torch.set_autocast_enabled(self.device, self._enabled)`), and leaves every other device type's as it was."""
    arguments = call.child_by_field_name("arguments")
    for argument in arguments.named_children if arguments is not None else []:
        if argument.type == "keyword_argument" and parsing.text(argument.child_by_field_name("name")) == "enabled":
            value = argument.child_by_field_name("value")
            return value is not None and value.type == "false"
    return False
