"""The precision domain over Python: what changes numbers or speed on Ascend — float64/complex128 on the
device, narrow-support dtypes, dtype assertions, RMSNorm upcasts with a fused NPU op, complex-valued RoPE.

Noise is a defect here: a dtype on its own is not a finding. `.double()` on a metric, a loss or a CPU tensor,
and float64 work that stays on the CPU, are left alone."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.host_values import device_on_host, read_back_later, stays_on_host
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains import launch_flags
from ascend_feasibility.domains.base import Hit, Unit
from ascend_feasibility.domains.metric_classes import in_metric_code
from ascend_feasibility.domains.precision.dtype_premises import cast_back, promoted_float32
from ascend_feasibility.domains.precision.float32_outputs import (
    FACTS_KEY,
    PrecisionFacts,
    ProducedAssertion,
    produced_operands,
    under_autocast,
)
from ascend_feasibility.domains.precision.float64_containers import reduced_through_container
from ascend_feasibility.domains.precision.float64_use import DETECTORS, fate_hit
from ascend_feasibility.domains.precision.host_scripts import HOST_ONLY, host_only_script
from ascend_feasibility.domains.precision.host_tables import HOST_TABLE, built_on_host
from ascend_feasibility.domains.precision.norm_inputs import norm_input_assertion
from ascend_feasibility.domains.precision.norm_scale import COMPUTED_SCALE, called_attributes, computed_scale
from ascend_feasibility.domains.precision.numpy_dtype import is_float64
from ascend_feasibility.domains.precision.reported_values import only_reported
from ascend_feasibility.domains.precision.rope_layout import ADJACENT, PER_HEAD, pairing, per_head_table
from ascend_feasibility.domains.precision.rotary_use import (
    COMPLEX_CONTAINER,
    REAL_TABLE,
    complex_container,
    is_rotary,
    real_table,
)
from ascend_feasibility.domains.python_refs import (
    REFERENCE_PATTERNS,
    PythonDomainScanner,
    PythonScan,
    Reference,
    argument,
    keywords,
    references,
    unit_references,
)
from ascend_feasibility.knowledge import availability
from tree_sitter import Node

QUERY = r"""
(assert_statement) @assertion
(class_definition name: (identifier) @class_name) @class
"""
# Gated (domains.query_set): each capture spells its word, so only the words' occurrences are walked; in QUERY the
# predicates were tested at every method call of every unit. A gated capture cannot lie after its word (the walk stops
# at the word's end), so `.double(...)` is captured by its name and its call's arguments are tested by the reader.
CALL_QUERY = r"""
((call function: (attribute attribute: (identifier) @double)) (#eq? @double "double"))
((call function: (attribute attribute: (identifier) @from_numpy)) (#eq? @from_numpy "from_numpy"))
"""
TF32_QUERY = r"""
((keyword_argument name: (identifier) @tf32) (#eq? @tf32 "tf32"))
"""

FLOAT64 = {"torch.float64", "torch.double"}
COMPLEX128 = {"torch.complex128", "torch.cdouble"}
# dtypes reported only where they are given to a tensor-making or converting call, never in comparisons
DTYPE_REFERENCES = FLOAT64 | COMPLEX128 | {"torch.uint16", "torch.uint32", "torch.uint64"} | {
    "torch.float8_e4m3fn", "torch.float8_e5m2", "torch.float8_e4m3fnuz", "torch.float8_e5m2fnuz", "torch.float8_e8m0fnu",
}
DTYPE_CONSUMERS = {"to", "type", "set_default_dtype", "zeros", "ones", "empty", "full", "tensor", "arange", "linspace",
                   "randn", "rand", "as_tensor", "from_numpy", "eye", "zeros_like", "ones_like", "empty_like", "full_like"}
FLOAT32 = frozenset({"torch.float32", "torch.float"})
ASSERTED_DTYPES = FLOAT32 | {"torch.float16", "torch.bfloat16", "torch.half"}
# autocast constructors (the device domain's AUTOCASTS, and torch_npu's own)
AUTOCASTS = frozenset({"torch.autocast", "torch.amp.autocast", "torch.amp.autocast_mode.autocast", "torch.cuda.amp.autocast",
                       "torch.cuda.amp.autocast_mode.autocast", "torch.npu.amp.autocast", "torch_npu.npu.amp.autocast"})
HOST_SIDE_NAMES = ("loss", "metric", "acc", "score", "stat", "count", "hist", "numpy")
NORM_CLASS_TOKENS = ("rmsnorm",)
# Tensor factories: without a device they make a CPU tensor.
CREATORS = {"tensor", "zeros", "ones", "empty", "full", "arange", "linspace", "logspace", "randn", "rand", "randint",
            "eye", "as_tensor"}
TF32_SWITCHES = {"torch.backends.cuda.matmul.allow_tf32", "torch.backends.cudnn.allow_tf32"}
# The value of each switch that restates torch_npu's own default for its HF32 twin (Ascend/pytorch v2.12.0-26.1.0
# torch_npu/csrc/framework/LazyInitAclops.cpp SetHF32DefaultValue: matmul HF32 "default value is False", conv True).
NPU_DEFAULT_VALUE = {"torch.backends.cuda.matmul.allow_tf32": "false", "torch.backends.cudnn.allow_tf32": "true"}
METRIC_CODE = "metric-code"  # PRC001's facet: inside an evaluation metric class or function (domains/metric_classes.py)
NPU_DEFAULT = "npu-default"  # PRC010's facet: the twin it asks for would set what the NPU already has
UPCAST_TOKENS = (".float()", "torch.float32", ".to(torch.float)")


class _PrecisionScan(PythonScan):
    QUERY = QUERY
    GATED = ((("double", "from_numpy"), CALL_QUERY), (("tf32",), TF32_QUERY))

    def run(self) -> list[Hit]:
        found = self.captures()
        for reference in unit_references(self.unit):
            self._reference(reference)
        for node in found.get("double", []):
            call = node.parent.parent
            arguments = call.child_by_field_name("arguments")
            if arguments is not None and arguments.type == "argument_list":  # not `.double(x for x in xs)`
                self._double_call(call)
        for node in found.get("assertion", []):
            self._assertion(node)
        for node in found.get("class", []):
            self._norm_class(node)
        for node in found.get("from_numpy", []):
            self._numpy_float64_to_device(node.parent.parent)
        for node in found.get("tf32", []):
            if launch_flags.training_arguments_tf32(node.parent):  # TrainingArguments(tf32=True) raises on the NPU
                self.hit("hf-tf32-argument", "tf32=True", node.parent)
        return self.hits

    def _numpy_float64_to_device(self, call: Node) -> None:
        """torch.from_numpy(arr).to(device) where arr is a float64 array: float64 reaches the NPU."""
        moved = call.parent
        if moved is None or moved.type != "attribute":
            return
        method = parsing.text(moved.child_by_field_name("attribute"))
        outer = moved.parent
        moves = method == "cuda" or (method == "to" and outer is not None and outer.type == "call" and _moves_to_device(outer))
        if not moves or (method == "to" and "dtype" in keywords(outer)):
            return  # a dtype given with the move converts before the device sees float64
        array = argument(call, 0, "ndarray")
        if array is not None and is_float64(array, call):
            self.hit("numpy-float64-to-device", " ".join(parsing.text(call).split())[:80], call)

    def _reference(self, reference: Reference) -> None:
        if reference.name in DTYPE_REFERENCES:
            stored = reduced_through_container(reference.node) if reference.name in FLOAT64 else None
            if stored is not None:  # a dict/list item later grouped on the device and reduced (HCCL rejects float64)
                self.hit(DETECTORS["reduced"], stored, reference.node)
                return
            if not _used_as_device_dtype(reference.node):
                return
            where = fate_hit(reference.node) if reference.name in FLOAT64 else None
            if where is not None:  # reduced across NPUs (HCCL rejects float64) or only reported
                self.hit(where[0], where[1], reference.node)
            else:  # in an evaluation metric, the value is reported, not trained on
                metric = reference.name in FLOAT64 and in_metric_code(reference.node)
                self.name_rule(reference, facets=(METRIC_CODE,) if metric else ())
            return
        if reference.name in {"torch.view_as_complex", "torch.polar"} and reference.call is None:
            return
        if reference.name == "torch.view_as_complex" and _restores_complex(reference.call):
            return
        if reference.name in {"torch.view_as_complex", "torch.polar"} and not is_rotary(reference.call):
            return  # a complex buffer or an FFT filter: views and FFTs run on the NPU, and no RoPE advice fits
        if reference.name == "torch.polar" and real_table(reference.call):
            match = self.index.match_name(reference.name)
            if match is not None:
                host = (HOST_TABLE,) if built_on_host(reference.call) else ()  # no complex op reaches the NPU
                self.hit(match[0], match[1], reference.node, facets=(REAL_TABLE, *host))
            return
        if reference.name == "torch.view_as_complex":
            match = self.index.match_name(reference.name)
            if match is not None and complex_container(reference.call):
                self.hit(match[0], match[1], reference.node, facets=(COMPLEX_CONTAINER,))
                return  # filled with table values, never multiplied here: no rotation to rewrite
            layout = pairing(reference.call)
            facets = (layout,) if layout else ()
            if layout == ADJACENT and per_head_table(reference.call):
                facets += (PER_HEAD,)  # interleave mode takes no head axis in the table on A2/A3
            if match is not None:
                self.hit(match[0], match[1], reference.node, facets=facets)
            return
        if reference.name in TF32_SWITCHES:
            self._tf32_switch(reference)
            return
        self.name_rule(reference)

    def _tf32_switch(self, reference: Reference) -> None:
        """Only a setting needs its NPU twin (reading the CUDA flag changes nothing), and the twin takes the same
        value: `allow_tf32 = False` means keep HF32 off, never turn it on. cuDNN's `allow_tf32 = True` restates the NPU's
        own conv default (HF32 on), so it gets the info rule that says so; matmul's `allow_tf32 = False` restates the
        NPU's matmul default (HF32 off), PRC010's `npu-default` variant."""
        assignment = reference.node.parent
        if assignment is None or assignment.type != "assignment":
            return
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is None or right is None or left.id != reference.node.id:
            return
        restates_default = right.type == NPU_DEFAULT_VALUE[reference.name]
        if reference.name == "torch.backends.cudnn.allow_tf32" and restates_default:
            self.hit("cudnn-allow-tf32-npu-default", parsing.text(assignment), reference.node)
            return
        match = self.index.match_name(reference.name)
        if match is not None:
            root = parsing.root_of(assignment)
            facets = (NPU_DEFAULT,) if restates_default else ()
            facets += (HOST_ONLY,) if host_only_script(root) else ()  # no tensor of the script meets a CUDA matmul
            self.hit(match[0], match[1], reference.node, parsing.text(right), facets=facets)

    def _double_call(self, call: Node) -> None:
        receiver = call.child_by_field_name("function").child_by_field_name("object")
        if receiver is None or _host_side(call, receiver) or _constant_tensor(receiver):
            return
        if stays_on_host(call, _moved_to_device(call)):
            return  # `.double()` of a tensor the code put on the CPU (`.cpu()`, `device="cpu"`), kept there
        if read_back_later(call):
            return  # the function reads the result with `.numpy()`: it only runs on host tensors
        if only_reported(call):
            return  # a figure only printed, logged or shown on a progress bar: float32 there changes no result
        if cast_back(call):  # element-wise only, returned cast back to the input's dtype: float32 gives the same
            self.hit("double-cast-back", ".double()", call)
            return
        self.hit("double-method", ".double()", call, ".float()")

    def _assertion(self, assertion: Node) -> None:
        """Only in a forward pass: asserts on parameter dtypes in tests or loaders behave the same on NPU."""
        text = parsing.text(assertion)
        if ".dtype" not in text or _enclosing_function_name(assertion) != "forward":
            return
        found = {r.name for r in references(parsing.captures(parsing.query("python", REFERENCE_PATTERNS), assertion), self.unit)}
        pinned = found & ASSERTED_DTYPES
        if not pinned:
            return
        if norm_input_assertion(assertion):
            return  # a norm layer checking its own argument, no autocast in between: the same on every device
        if pinned <= FLOAT32 and self._float32_autocast_holds(assertion):
            return  # inside autocast(dtype=torch.float32), which the target's NPU autocast runs as CUDA's does
        if pinned <= FLOAT32 and promoted_float32(assertion):
            return  # `table + temb.float()`: float32 by type promotion on every device, no autocast op in between
        if pinned <= FLOAT32 and not under_autocast(assertion):  # made by a module that may cast it (float32_outputs.py)
            operands = produced_operands(assertion)
            if operands is not None:
                self.unit.cache.setdefault(FACTS_KEY, PrecisionFacts()).assertions.append(
                    ProducedAssertion(self.unit.path, assertion.start_point.row + 1, operands))
        self.hit("dtype-assertion", " ".join(text.split())[:120], assertion)

    def _float32_autocast_holds(self, assertion: Node) -> bool:
        """The assertion sits in `with <autocast>(dtype=torch.float32):` in its function (Wan2.1's time embedding,
        `assert e.dtype == torch.float32`), and the target release's NPU autocast accepts float32
        (torch_npu.npu.get_amp_supported_dtype, knowledge/torch_npu/names.toml autocast_dtype): the ops it covers run
        in float32 there as on CUDA. On older lines NPU autocast disables itself for that dtype, and the check stays."""
        if not availability.autocast_dtype_supported(self.index.kb, "torch.float32", self.target.release):
            return False
        current = assertion.parent
        while current is not None and current.type not in _DEFINITIONS:
            if current.type == "with_statement" and any(self._float32_autocast(item) for item in _with_calls(current)):
                return True
            current = current.parent
        return False

    def _float32_autocast(self, call: Node) -> bool:
        function = call.child_by_field_name("function")
        if function is None or qualified_name(function, self.imports) not in AUTOCASTS:
            return False
        dtype = keywords(call).get("dtype")
        return dtype is not None and qualified_name(dtype, self.imports) in FLOAT32

    def _norm_class(self, cls: Node) -> None:
        name = parsing.text(cls.child_by_field_name("name"))
        if not any(token in name.lower() for token in NORM_CLASS_TOKENS):
            return
        body = cls.child_by_field_name("body")
        for method in body.named_children if body is not None else []:
            definition = method if method.type == "function_definition" else None
            if definition is None or parsing.text(definition.child_by_field_name("name")) != "forward":
                continue
            source = parsing.text(definition)
            compact = "".join(source.split())
            if any(token in compact for token in UPCAST_TOKENS) and ("rsqrt" in compact or "pow(2)" in compact):
                if computed_scale(definition):  # an adaptive norm: no gamma tensor to name, the code is the text's
                    self.hit("rms-norm-upcast", f"{name}.forward", cls.child_by_field_name("name"), facets=(COMPUTED_SCALE,))
                    return
                self.hit("rms-norm-upcast", f"{name}.forward", cls.child_by_field_name("name"), _rms_norm_call(definition, body))
                return


def _rms_norm_call(forward: Node, body: Node | None = None) -> str | None:
    """npu_rms_norm over the forward's own names: its input parameter, its `self.*weight*`-like scale (Gemma's
    `1 + self.weight` kept) and its `self.*eps*` attribute (`self.variance_epsilon` in LLaMA's, `self.eps` elsewhere).
    Where the forward does not name one, the class's own `__init__` assignments do (the epsilon stored from the `eps`
    argument); None when one of them is not plain to see: the advice then names no attribute."""
    parameters = forward.child_by_field_name("parameters")
    names = [parsing.text(p) for p in (parameters.named_children if parameters is not None else []) if p.type == "identifier"]
    if len(names) < 2:
        return None
    source = parsing.text(forward)
    attributes = sorted(_self_attributes(forward))
    modules = called_attributes(forward)  # a submodule the forward calls is never gamma
    weights = [a for a in attributes if any(t in a.lower() for t in ("weight", "scale", "gamma")) and a not in modules]
    epsilons = [a for a in attributes if "eps" in a.lower()]
    if not epsilons or not weights:
        stored = _init_attributes(body)
        weights = weights or [a for a in stored if any(t in a.lower() for t in ("weight", "scale", "gamma")) and a not in modules]
        # a forward that adds its own literal (`+ 1e-6`) keeps it: the stored epsilon is not what it uses
        literal = any(n.type == "float" for n in parsing.walk(forward))
        epsilons = epsilons or ([] if literal else [a for a in stored if "eps" in a.lower()])
    if len(weights) != 1 or len(epsilons) != 1:
        return None
    compact = "".join(source.split())
    weight = f"self.{weights[0]}"
    if f"(1+{weight})" in compact or f"(1.0+{weight})" in compact:
        weight = f"1 + {weight}"
    return f"torch_npu.npu_rms_norm({names[1]}, {weight}, epsilon=self.{epsilons[0]})[0]"


_DEFINITIONS = frozenset({"function_definition", "class_definition"})  # __init__'s nested scopes are not read


def _init_attributes(body: Node | None) -> list[str]:
    """The `self.<name>` attributes the class's `__init__` assigns, sorted."""
    for method in body.named_children if body is not None else []:
        if method.type == "function_definition" and parsing.text(method.child_by_field_name("name")) == "__init__":
            found = set()
            for current in parsing.walk(method, prune=_DEFINITIONS, enter_root=True):
                if current.type == "assignment":
                    left = current.child_by_field_name("left")
                    if left is not None and left.type == "attribute":
                        found |= _self_attributes(left)
            return sorted(found)
    return []


def _self_attributes(node: Node) -> set[str]:
    found = set()
    for current in parsing.walk(node):
        if current.type == "attribute":
            obj, attribute = current.child_by_field_name("object"), current.child_by_field_name("attribute")
            if obj is not None and attribute is not None and obj.type == "identifier" and parsing.text(obj) == "self":
                found.add(parsing.text(attribute))
    return found


def _moves_to_device(to_call: Node) -> bool:
    args = to_call.child_by_field_name("arguments")
    for child in args.named_children if args is not None else []:
        text = parsing.text(child)
        if child.type == "keyword_argument":
            if parsing.text(child.child_by_field_name("name")) == "device":
                return True
        elif "dtype" not in text and "float" not in text:
            return True
    return False


def _with_calls(statement: Node) -> list[Node]:
    """The calls a with-statement enters (`with amp.autocast(dtype=torch.float32), lock:`)."""
    clause = next((c for c in statement.named_children if c.type == "with_clause"), None)
    calls = []
    for item in clause.named_children if clause is not None else []:
        value = item.child_by_field_name("value") if item.type == "with_item" else None
        if value is not None and value.type == "as_pattern" and value.named_children:
            value = value.named_children[0]
        if value is not None and value.type == "call":
            calls.append(value)
    return calls


def _enclosing_function_name(node: Node) -> str | None:
    current = node.parent
    while current is not None:
        if current.type == "function_definition":
            return parsing.text(current.child_by_field_name("name"))
        current = current.parent
    return None


def _used_as_device_dtype(node: Node) -> bool:
    """torch.float64 passed as a dtype to a tensor-making or converting call that does not stay on the CPU."""
    parent = node.parent
    call = None
    if parent is not None and parent.type == "keyword_argument" and parsing.text(parent.child_by_field_name("name")) == "dtype":
        call = parent.parent.parent if parent.parent is not None else None
    elif parent is not None and parent.type == "argument_list":
        call = parent.parent
    if call is None or call.type != "call":
        return False
    function = call.child_by_field_name("function")
    callee = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
    if callee not in DTYPE_CONSUMERS:
        return False
    named = keywords(call)
    device = named.get("device")
    if device is not None and device_on_host(device):
        return False  # `device="cpu"`, or `device=freqs.device` of a tensor made on the CPU
    if callee in CREATORS and device is None and not _moved_to_device(call):
        return False  # made on the CPU; where it moves later, its dtype is judged there
    if callee in {"to", "type"} and "device" not in named and stays_on_host(call, _moved_to_device(call)):
        return False  # a conversion of a tensor the code put on the CPU (FID statistics after `.cpu()`), kept there
    if _in_cpu_device_context(call):
        return False  # `with torch.device("cpu"):` makes every tensor inside on the CPU (z_image's frequency tables)
    return not _host_side(call, function)


def _restores_complex(call: Node) -> bool:
    """`x = torch.view_as_complex(x)` after `x = torch.view_as_real(x)` in the same function: an optimizer's round
    trip for complex parameters (DeepSpeed's Adam), not rotary embeddings."""
    arguments = call.child_by_field_name("arguments")
    values = arguments.named_children if arguments is not None else []
    if len(values) != 1 or values[0].type not in {"identifier", "subscript", "attribute"}:
        return False
    target = parsing.text(values[0])
    function, depth = call.parent, 0
    while function is not None and function.type != "function_definition" and depth < 60:
        function, depth = function.parent, depth + 1
    if function is None:
        return False
    for node in parsing.walk(function, limit=20000):
        if node.type == "assignment" and node.start_byte < call.start_byte:
            left, right = node.child_by_field_name("left"), node.child_by_field_name("right")
            if (left is not None and right is not None and right.type == "call" and parsing.text(left) == target
                    and parsing.text(right.child_by_field_name("function")).endswith("view_as_real")):
                return True
    return False


def _constant_tensor(receiver: Node) -> bool:
    """`torch.tensor(0, ...).to(device).double()`: a number literal made into a tensor (a zero placeholder) has no
    precision to lose in float32."""
    current, depth = receiver, 0
    while current is not None and current.type == "call" and depth < 8:
        function = current.child_by_field_name("function")
        arguments = current.child_by_field_name("arguments")
        if function is None:
            return False
        if parsing.text(function) in {"torch.tensor", "tensor"}:
            values = [a for a in (arguments.named_children if arguments is not None else []) if a.type != "keyword_argument"]
            return len(values) == 1 and values[0].type in {"integer", "float"}
        if function.type != "attribute":
            return False
        current, depth = function.child_by_field_name("object"), depth + 1
    return False


def _in_cpu_device_context(node: Node) -> bool:
    """Inside `with torch.device("cpu"):` (within the same function)."""
    current, depth = node.parent, 0
    while current is not None and depth < 60:
        if current.type == "with_statement":
            for clause in current.named_children:
                if clause.type != "with_clause":
                    continue
                for item in clause.named_children:
                    value = item.child_by_field_name("value") or (item.named_children[0] if item.named_children else None)
                    if value is None or value.type != "call":
                        continue
                    function = value.child_by_field_name("function")
                    arguments = value.child_by_field_name("arguments")
                    args = arguments.named_children if arguments is not None else []
                    if (function is not None and parsing.text(function) in {"torch.device", "device"} and len(args) == 1
                            and args[0].type == "string" and parsing.text(args[0]).strip("'\"") == "cpu"):
                        return True
        if current.type in {"function_definition", "class_definition", "module"}:
            return False
        current, depth = current.parent, depth + 1
    return False


EXPRESSION_PARTS = {"binary_operator", "unary_operator", "parenthesized_expression", "argument_list", "call", "attribute",
                    "subscript"}


def _moved_to_device(call: Node) -> bool:
    """The tensor, or an expression computed from it in the same statement, is moved to a device:
    `torch.exp(-x * torch.arange(0, h, dtype=torch.float64) / h).to(t.device)`."""
    node = call
    for _ in range(40):
        parent = node.parent
        if parent is None or parent.type not in EXPRESSION_PARTS:
            return False
        if parent.type == "attribute" and parent.child_by_field_name("object") == node:
            method = parsing.text(parent.child_by_field_name("attribute"))
            outer = parent.parent
            if method == "cuda" or (method == "to" and outer is not None and outer.type == "call" and _moves_to_device(outer)):
                return True
        node = parent
    return False


def _host_side(call: Node, receiver: Node) -> bool:
    """Work that stays on the host: a `.cpu()` chain, a result read back with .item()/.numpy()/.tolist(), or a
    value named like a loss or a metric."""
    chain = parsing.text(receiver)
    if ".cpu()" in chain or "np." in chain or "numpy" in chain:
        return True
    parent = call.parent
    if parent is not None and parent.type == "attribute":
        member = parsing.text(parent.child_by_field_name("attribute"))
        if member in {"item", "numpy", "tolist", "cpu"}:
            return True
    root = chain.split(".")[0].split("(")[0].lower()
    return any(token in root for token in HOST_SIDE_NAMES)


class PrecisionPythonScanner(PythonDomainScanner):
    domain = "precision"
    triggers = ("float64", "double", "complex128", "from_numpy", "cdouble", "uint", "float8", "dtype", "RMSNorm", "RmsNorm",
                "view_as_complex", "polar", "allow_tf32", "tf32")
    scan_class = _PrecisionScan

    def scan(self, unit: Unit) -> list[Hit]:
        scan = self.scan_class(self.index, unit)
        scan.target = self.target  # the release whose NPU autocast a float32 assertion is judged against
        return scan.run()
