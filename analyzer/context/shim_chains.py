"""A backend chain that only picks a torch device, probing CUDA with `torch.cuda.is_available()` alone.

`if torch.cuda.is_available(): self.device = torch.device("cuda") elif torch.backends.mps.is_available(): ...
else: self.device = torch.device("cpu")` (round 28 A1 C8, B2 C7). transfer_to_npu makes torch.cuda torch_npu.npu, so
the probe answers NPU availability and the CUDA arm is taken on an Ascend host; its value, a torch.device built from
"cuda", reaches the calls the shim wraps (`.to(device)`, `device=` of factories, torch.Generator), which put the work
on the NPU (Ascend/pytorch v2.12.0-26.1.0 torch_npu/contrib/transfer_to_npu.py). Without the shim the chain falls
through to the CPU: the same case as DEV104's `"cuda" if torch.cuda.is_available() else "cpu"`, which DEV104 rates
auto with its note for a native port. DEV220's missing-arm text (per-platform dependency lists, kernel grids from the
vector-core count) is for chains whose arms size kernels or pick kernel libraries; this chain's arms only assign
(or return) a device value, with at most a log line beside it, so the scanner leaves it to DEV104 at the probe, and the
guard reader (guards.py) gives its CUDA arm no `other-backend` reach: under the shim that arm is the one the NPU takes.

The signal is structure: the chain's first arm is CUDA's (a CUDA arm after another backend's arm is read as that
chain's other-backend code, so DEV104 there would not count), every arm whose condition names CUDA has the bare call `torch.cuda.is_available()` (resolved
through the file's imports) as its whole condition, every other arm's condition is a bare availability call
(`torch.backends.mps.is_available()`), or one and-ed with a host-platform test (`sys.platform == "darwin" and
torch.backends.mps.is_available()`, round 33 B2 class 3), and every statement of every arm, the else included, assigns
or returns a torch.device (`torch.device("cuda")`), assigns a device-name string (`device = "cuda"`, round 33 A1 13,
B1 5, B2 45), or is a log call. A returned string ("cuda") is left out: a function returning one is often the
project's backend selector (get_device_type() -> DEVICE_TYPE, compared all over), whose missing "npu" value is the
port's gap. A flag (`HAS_CUDA`), a version probe
(`torch.version.hip is not None`, a platform's, for its dependency list) or an arm that does anything else keeps DEV220.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.dispatch_chains import BackendWords, Chain, cuda_arm
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from tree_sitter import Node

PROBE = "torch.cuda.is_available"
PLATFORM_READS = {"sys.platform", "platform.system", "platform.machine"}  # the host's OS or CPU, not a device
DEVICE_BUILDERS = {"torch.device"}
LOG_METHODS = {"info", "warning", "warn", "debug", "print"}


def shim_covered_device_choice(chain: Chain, backends: BackendWords, imports) -> bool:
    """Is `chain` a device pick whose only CUDA probe is torch.cuda.is_available() and whose arms only yield a device?"""
    first, body = chain.arms[0]
    if not cuda_arm(chain, body, backends) or not _is_probe(first, imports):
        return False  # a CUDA arm after another backend's is that backend's chain (its probe reads other-backend)
    cuda_arms = [(condition, body) for condition, body in chain.arms if cuda_arm(chain, body, backends)]
    if not all(_is_probe(condition, imports) for condition, _ in cuda_arms):
        return False
    if not all(_availability_probe(condition) or _platform_and_probe(condition, imports) for condition, _ in chain.arms):
        return False  # `torch.version.hip is not None` -> "rocm": a platform (its dependencies), not a device pick
    bodies = [body for _, body in chain.arms] + ([chain.else_body] if chain.else_body is not None else [])
    return all(_only_yields_device(body, imports) for body in bodies)


def _is_probe(condition: Node, imports) -> bool:
    condition = _unwrap(condition)
    if condition.type != "call":
        return False
    arguments = condition.child_by_field_name("arguments")
    if arguments is not None and arguments.named_children:
        return False
    function = condition.child_by_field_name("function")
    return function is not None and qualified_name(function, imports) == PROBE


def _availability_probe(condition: Node) -> bool:
    """`torch.backends.mps.is_available()`, `is_torch_xpu_available()`: a bare call asking whether a device is there."""
    condition = _unwrap(condition)
    if condition.type != "call":
        return False
    arguments = condition.child_by_field_name("arguments")
    function = condition.child_by_field_name("function")
    if function is None or (arguments is not None and arguments.named_children):
        return False
    last = function.child_by_field_name("attribute") if function.type == "attribute" else function
    return last is not None and last.type == "identifier" and parsing.text(last).endswith("available")


def _platform_and_probe(condition: Node, imports) -> bool:
    """`sys.platform == "darwin" and torch.backends.mps.is_available()`: an availability call and-ed with tests of the
    host's platform only (which OS or CPU it is), so the arm still just asks whether that device is there."""
    conjuncts = _conjuncts(_unwrap(condition))
    probes = [c for c in conjuncts if _availability_probe(c)]
    return bool(probes) and all(c in probes or _platform_test(c, imports) for c in conjuncts)


def _conjuncts(node: Node) -> list[Node]:
    if node.type == "boolean_operator" and parsing.text(node.child_by_field_name("operator")) == "and":
        return [*_conjuncts(_unwrap(node.child_by_field_name("left"))),
                *_conjuncts(_unwrap(node.child_by_field_name("right")))]
    return [node]


def _platform_test(node: Node, imports) -> bool:
    """`sys.platform == "darwin"`, `platform.system() != "Windows"`, `sys.platform.startswith("linux")`."""
    if node.type == "comparison_operator":
        operands = node.named_children
        return any(_platform_read(o, imports) for o in operands) and all(
            _platform_read(o, imports) or o.type == "string" for o in operands)
    if node.type == "call":
        function = node.child_by_field_name("function")
        return (function is not None and function.type == "attribute"
                and _platform_read(function.child_by_field_name("object"), imports))
    return False


def _platform_read(node: Node | None, imports) -> bool:
    if node is None:
        return False
    if node.type == "call":
        function = node.child_by_field_name("function")
        arguments = node.child_by_field_name("arguments")
        return (function is not None and not (arguments is not None and arguments.named_children)
                and qualified_name(function, imports) in PLATFORM_READS)
    return node.type == "attribute" and qualified_name(node, imports) in PLATFORM_READS


def _only_yields_device(body: Node, imports) -> bool:
    statements = [s for s in body.named_children if s.type != "comment"]
    return bool(statements) and all(_yields_device(s, imports) or log_line(s) for s in statements)


def _yields_device(statement: Node, imports) -> bool:
    if statement.type == "return_statement":
        values = statement.named_children
        return len(values) == 1 and _device_value(values[0], imports)
    if statement.type != "expression_statement" or len(statement.named_children) != 1:
        return False
    assignment = statement.named_children[0]
    if assignment.type != "assignment":
        return False
    value = assignment.child_by_field_name("right")
    return value is not None and (_device_value(value, imports) or _device_name(value))


def _device_value(value: Node, imports) -> bool:
    value = _unwrap(value)
    if value.type != "call":  # a string ("cuda") may be a backend name the project compares everywhere (a selector)
        return False
    function = value.child_by_field_name("function")
    if function is None or qualified_name(function, imports) not in DEVICE_BUILDERS:
        return False
    arguments = value.child_by_field_name("arguments")
    return arguments is not None and all(a.type in {"string", "integer", "identifier"} for a in arguments.named_children)


def _device_name(value: Node) -> bool:
    """`"cuda"`, `"cuda:0"`, `"mps"`, `"cpu"`: a plain string naming a device type (an assignment's value: a returned
    one is left out, see the module's text)."""
    value = _unwrap(value)
    if value.type != "string" or any(part.type == "interpolation" for part in value.named_children):
        return False
    content = parsing.text(value).strip("\"'")
    kind, _, index = content.partition(":")
    return kind.isalpha() and kind.islower() and (not index or index.isdigit())


def log_line(statement: Node) -> bool:
    """`logger.info("...")`, `print("...")`, `warnings.warn("...")`: a line that tells, not one that computes."""
    if statement.type != "expression_statement" or len(statement.named_children) != 1:
        return False
    call = statement.named_children[0]
    if call.type != "call":
        return False
    function = call.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "identifier":
        return parsing.text(function) == "print"
    return function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) in LOG_METHODS


def _unwrap(node: Node) -> Node:
    while node.type == "parenthesized_expression" and node.named_children:
        node = node.named_children[0]
    return node
