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
`trainer_state_dict` / `restore_rng_state`): the function that holds the check writes or reads the state file
(torch.save / torch.load), or it is named for a checkpoint (save, load, restore, resume, checkpoint, state_dict) and
also captures or restores Python's or NumPy's generator, which no recomputation replays. There the skip costs a
bit-exact resume, no result: the site gets the facet `resume`, which picks the rule's low variant. Python's and
NumPy's generators alone are not enough: nanotron's `get_current_random_state` / `set_random_state` snapshot all
four to keep tensor-parallel ranks drawing the same dropout masks, a silent wrong result when skipped."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
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
HOST_GENERATORS = frozenset({"random.getstate", "random.setstate", "numpy.random.get_state", "numpy.random.set_state"})
STATE_FILES = frozenset({"torch.save", "torch.load"})
CHECKPOINT_WORDS = frozenset({"save", "load", "restore", "resume", "checkpoint", "ckpt"})
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
    """Does the function holding the check save or load the state file, or, named for a checkpoint, also capture or
    restore the host generators? A check outside any function says nothing of its use."""
    function = check_call.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    if function is None:
        return False
    names = {r.name for r in found if function.start_byte <= r.node.start_byte < function.end_byte}
    if names & STATE_FILES:
        return True
    name = function.child_by_field_name("name")
    spelled = parsing.text(name).lower() if name is not None else ""
    named = bool(set(spelled.split("_")) & CHECKPOINT_WORDS) or "state_dict" in spelled
    return named and bool(names & HOST_GENERATORS)


class DeviceRngStateScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("rng_state", "fork_rng")
    scan_class = _RngStateScan
