"""Device RNG state saved or restored only behind `torch.cuda.is_available()`.

`if torch.cuda.is_available(): state["cuda"] = torch.cuda.get_rng_state()` (fairseq's get_rng_state feeding activation
checkpointing), `torch.cuda.set_rng_state(s) if torch.cuda.is_available() else None` (nanotron's random state around
tensor-parallel dropout): on Ascend without transfer_to_npu the check is False, so the NPU generator's state is never
captured nor restored. Nothing fails: a recomputed forward, or ranks meant to share a random state, draw other random
numbers (other dropout masks). That is a silent wrong result, not the harmless skip DEV104 describes for a check in
general, so the check gets its own rule (DEV144), which subsumes DEV104 on its line.

Only a positive check is read (`if torch.cuda.is_available():`, `x if torch.cuda.is_available() else y`, a check
and-ed with others): under `not torch.cuda.is_available()` the body is the CPU side.

A checkpoint's RNG snapshot is another matter (a Trainer's `_save_checkpoint` / `_load_rng_state`, OLMo's
`trainer_state_dict` / `restore_rng_state`): the function that holds the check also captures or restores Python's or
NumPy's generator, or writes or reads the state file (torch.save / torch.load). Neither is part of a recomputation,
which replays only torch's generators around a forward. There the skip costs a bit-exact resume, no result: the
site gets the facet `resume`, which picks the rule's low variant."""

from __future__ import annotations

from ascend_feasibility.domains.base import Hit
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, unit_references

CHECKS = frozenset({"torch.cuda.is_available"})
# the calls that capture or restore the device generator's state (torch.random.fork_rng saves and restores it around
# its block for the devices it is given)
RNG_STATE = frozenset({
    "torch.cuda.get_rng_state", "torch.cuda.set_rng_state", "torch.cuda.get_rng_state_all",
    "torch.cuda.set_rng_state_all", "torch.cuda.random.get_rng_state", "torch.cuda.random.set_rng_state",
    "torch.cuda.random.get_rng_state_all", "torch.cuda.random.set_rng_state_all", "torch.random.fork_rng",
    "torch.fork_rng",
})
# calls that only a checkpoint's snapshot of the generators makes beside the device one: a recomputation (torch.utils.
# checkpoint, Megatron's CheckpointFunction and RNG tracker, fork_rng) replays torch's generators only
RESUME = frozenset({
    "random.getstate", "random.setstate", "numpy.random.get_state", "numpy.random.set_state", "torch.save", "torch.load",
})
FORK = frozenset({"torch.random.fork_rng", "torch.fork_rng"})
# the nodes a positive check may sit in between the call and its if / conditional expression
TRANSPARENT = frozenset({"boolean_operator", "parenthesized_expression"})


def guarded_body(check_call):
    """The body a positive availability check guards: an if statement's consequence, or a conditional expression's
    value when true. None when the call is no such condition (an assignment, a negated test, an argument)."""
    child, parent = check_call, check_call.parent
    while parent is not None and parent.type in TRANSPARENT:
        if parent.type == "boolean_operator" and parent.child_by_field_name("operator").type != "and":
            return None  # `a or is_available()`: the body also runs without CUDA
        child, parent = parent, parent.parent
    if parent is None:
        return None
    if parent.type in {"if_statement", "elif_clause"} and parent.child_by_field_name("condition") == child:
        return parent.child_by_field_name("consequence")
    if parent.type == "conditional_expression" and len(parent.named_children) == 3 and parent.named_children[1] == child:
        return parent.named_children[0]
    return None


class _RngStateScan(PythonScan):
    def run(self) -> list[Hit]:
        found = unit_references(self.unit)
        checks = [r for r in found if r.name in CHECKS and r.call is not None]
        states = [r for r in found if r.name in RNG_STATE and r.call is not None]
        for check in checks:
            body = guarded_body(check.call)
            if body is None:
                continue
            inside = [r for r in states if body.start_byte <= r.call.start_byte and r.call.end_byte <= body.end_byte]
            if inside:
                resume = not any(r.name in FORK for r in inside) and _snapshots_for_resume(check.call, found)
                # the symbol stays the check's name: DEV104's edit (port) and transfer_to_npu's redirect read it
                self.hit("device-rng-state-behind-cuda-check", check.name, check.node, "torch.npu.is_available",
                         facets=("resume",) if resume else ())
        return self.hits


def _snapshots_for_resume(check_call, found) -> bool:
    """Does the function holding the check also capture or restore Python's or NumPy's generator, or save or load a
    file (RESUME)? A check outside any function says nothing of its use."""
    function = check_call.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None:
        return False
    return any(r.name in RESUME and function.start_byte <= r.node.start_byte < function.end_byte for r in found)


class DeviceRngStateScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("rng_state", "fork_rng")
    scan_class = _RngStateScan
