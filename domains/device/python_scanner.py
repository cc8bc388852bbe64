"""The device domain over Python: torch.cuda APIs, device literals, .cuda(), AMP, backends, compile, profiler."""

from __future__ import annotations

from tree_sitter import Node

from analyzer import parsing
from analyzer.python_names import enclosing_call, outermost_chain, qualified_name
from domains.base import Hit, Scanner, Span, Unit
from domains.device import literals
from domains.device.rule_index import DeviceRuleIndex

QUERY = r"""
((attribute object: (identifier) @chain_root) (#not-any-of? @chain_root "self" "cls"))
(call function: (identifier) @called_name)
(decorator (identifier) @decorator_name)
((string) @string (#match? @string "cuda"))
((comparison_operator) @comparison (#match? @comparison "cuda"))
((call function: (attribute attribute: (identifier) @method)) (#any-of? @method "cuda" "to" "startswith"))
((attribute attribute: (identifier) @member) (#any-of? @member "is_cuda" "multi_processor_count" "major" "minor"))
((keyword_argument name: (identifier) @kwname) (#any-of? @kwname "device" "device_id" "map_location" "device_map"))
((string) @env_string (#match? @env_string "(CUDA|CUDNN|CUBLAS|NVIDIA|NVTE)"))
"""

AUTOCAST_BY_SPELLING = {
    "torch.autocast": "torch-autocast-cuda",
    "torch.amp.autocast": "amp-autocast-cuda",
    "torch.amp.autocast_mode.autocast": "amp-autocast-cuda",
}
GRAD_SCALERS = {"torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler"}
PROFILERS = {"torch.autograd.profiler.profile", "torch.profiler.profile", "torch.autograd.profile"}
INTEGER_DEVICE_KWARGS = {"device", "device_id", "map_location"}
# torch APIs that take a device and that transfer_to_npu wraps through a feature rather than its torch
# function list; a direct torch.X callee is automatic only when X is in that release's torch_fn_white_list.
WRAPPED_BY_FEATURE = {
    "torch.Generator": ("feature:generator_proxy", "torch_fn:Generator"),
    "torch.Event": ("feature:event_proxy",),
    "torch.distributed.init_process_group": ("feature:hccl_backend",),
    "torch.distributed.init_device_mesh": ("feature:device_mesh_wrap",),
    "torch.distributed.device_mesh.init_device_mesh": ("feature:device_mesh_wrap",),
    "torch.distributed.device_mesh.DeviceMesh": ("feature:device_mesh_wrap",),
    "torch.nn.parallel.DistributedDataParallel": ("feature:ddp_wrap",),
    "torch.distributed.fsdp.FullyShardedDataParallel": ("feature:fsdp_wrap",),
    "torch.fft.fftfreq": ("feature:fft_wrap",),
    "torch.fft.rfftfreq": ("feature:fft_wrap",),
}


class DevicePythonScanner(Scanner):
    domain = "device"
    kinds = frozenset({"python"})
    triggers = (
        "cuda", "CUDA", "cudnn", "CUDNN", "CUBLAS", "NVIDIA", "NVTE", "nvtx", "compile", "jit", "_dynamo",
        "device", ".to(", "GradScaler", "multi_processor_count", "profiler",
    )

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = DeviceRuleIndex(kb)

    def scan(self, unit: Unit) -> list[Hit]:
        return _FileScan(self.index, unit).run()


class _FileScan:
    """The state of scanning one unit: hits so far and call nodes whose literals another rule reported."""

    def __init__(self, index: DeviceRuleIndex, unit: Unit) -> None:
        self.index = index
        self.unit = unit
        self.imports = unit.imports()
        self.hits: list[Hit] = []
        self.claimed_calls: set[int] = set()
        self.seen_chains: set[int] = set()

    def run(self) -> list[Hit]:
        found = parsing.captures(parsing.query("python", QUERY), self.unit.tree())
        for root in found.get("chain_root", []):
            self._chain(outermost_chain(root))
        for name in found.get("called_name", []) + found.get("decorator_name", []):
            self._chain(name)
        for node in found.get("method", []):
            self._method_call(node)
        for node in found.get("member", []):
            self._member(node)
        for node in found.get("kwname", []):
            self._keyword(node)
        for node in found.get("comparison", []):
            self._comparison(node)
        for node in found.get("string", []):
            self._string(node)
        for node in found.get("env_string", []):
            self._env_string(node)
        return self.hits

    def _hit(self, detector_or_code: str, symbol: str, node: Node, npu: str | None = None) -> None:
        code = self.index.code_for(detector_or_code)
        self.hits.append(Hit(code, symbol, Span.of(node), npu))

    # Qualified names ---------------------------------------------------------------------------------
    def _chain(self, chain: Node) -> None:
        if chain.id in self.seen_chains:
            return
        self.seen_chains.add(chain.id)
        if _is_definition_name(chain):
            return
        name = qualified_name(chain, self.imports)
        if name is None:
            return
        call = enclosing_call(chain)
        if name.startswith("torch.cuda."):
            entry_name, entry = self.index.cuda_entry(name)
            self._hit(entry.rule, entry_name, chain, entry.npu)
            if call is not None:
                self.claimed_calls.add(call.id)
            return
        if name in AUTOCAST_BY_SPELLING and call is not None:
            self._autocast(AUTOCAST_BY_SPELLING[name], name, call)
            return
        if name in GRAD_SCALERS and call is not None:
            self._grad_scaler(name, call)
            return
        if name == "torch.device" and call is not None:
            self._torch_device(call)
            return
        if name in PROFILERS and call is not None:
            self._profiler(name, call)
            return
        rule = self.index.rule_for_name(name)
        if rule is not None:
            self._hit(rule, name, chain)

    def _autocast(self, detector: str, name: str, call: Node) -> None:
        device = _device_argument(call, "device_type")
        literal = literals.device_literal(device) if device is not None else None
        if literal is not None:
            self.claimed_calls.add(call.id)
            self._hit(detector, f"{name}({parsing.text(device)})", call, f"{name}({literal.npu_text})")

    def _grad_scaler(self, name: str, call: Node) -> None:
        device = _device_argument(call, "device")
        if device is None:
            self._hit("amp-grad-scaler-cuda", f"{name}()", call)
        elif literals.device_literal(device) is not None:
            self.claimed_calls.add(call.id)
            self._hit("amp-grad-scaler-cuda", f"{name}({parsing.text(device)})", call)

    def _torch_device(self, call: Node) -> None:
        device = _device_argument(call, "type")
        if device is None:
            return
        if device.type == "integer":
            self.claimed_calls.add(call.id)
            self._hit("integer-device", parsing.text(call), call, f'torch.device("npu:{parsing.text(device)}")')
            return
        literal = literals.device_literal(device)
        if literal is not None:
            self.claimed_calls.add(call.id)
            npu = parsing.text(call).replace(parsing.text(device), literal.npu_text, 1)
            self._hit("torch-device-cuda", parsing.text(call), call, npu)

    def _profiler(self, name: str, call: Node) -> None:
        for keyword in _keywords(call):
            key = parsing.text(keyword.child_by_field_name("name"))
            value = keyword.child_by_field_name("value")
            if (key == "use_cuda" and parsing.text(value) == "True") or (
                key == "use_device" and literals.device_literal(value) is not None
            ):
                self.claimed_calls.add(call.id)
                self._hit("autograd-profiler-use-cuda", f"{name}({parsing.text(keyword)})", call)

    # Syntax patterns -----------------------------------------------------------------------------------
    def _method_call(self, method: Node) -> None:
        attribute = method.parent
        call = attribute.parent
        method_name = parsing.text(method)
        args = call.child_by_field_name("arguments")
        first = args.named_children[0] if args is not None and args.named_children else None
        if method_name == "cuda":
            obj = attribute.child_by_field_name("object")
            if obj is not None and qualified_name(obj, self.imports) is not None and obj.type == "identifier":
                return  # a module's own `cuda` function, e.g. numba's, is not a tensor method
            self._hit("tensor-cuda-method", ".cuda()", call, ".npu()")
        elif method_name == "to" and first is not None and first.type == "integer":
            self._hit("integer-device", f".to({parsing.text(first)})", call, f'.to("npu:{parsing.text(first)}")')
        elif method_name == "startswith" and first is not None and literals.device_literal(first) is not None:
            self._hit("device-type-comparison", parsing.text(call), call)

    def _member(self, member: Node) -> None:
        attribute = member.parent
        name = parsing.text(member)
        if name == "is_cuda":
            self._hit("is-cuda-attribute", ".is_cuda", attribute, ".is_npu")
        elif name == "multi_processor_count":
            self._hit("multi-processor-count", ".multi_processor_count", attribute)
        elif self._is_device_properties_call(attribute.child_by_field_name("object")):
            self._hit("cuda-capability-field", f"get_device_properties(...).{name}", attribute)

    def _is_device_properties_call(self, node: Node | None) -> bool:
        if node is None or node.type != "call":
            return False
        function = node.child_by_field_name("function")
        return function is not None and qualified_name(function, self.imports) == "torch.cuda.get_device_properties"

    def _keyword(self, name: Node) -> None:
        keyword = name.parent
        value = keyword.child_by_field_name("value")
        key = parsing.text(name)
        if value is None:
            return
        if key == "device_map":
            if value.type == "integer" or literals.cuda_literal_in(value) is not None or _dict_of_devices(value):
                self._hit("device-map-cuda", parsing.text(keyword), keyword)
        elif key in INTEGER_DEVICE_KWARGS and value.type == "integer":
            self._hit("integer-device", parsing.text(keyword), keyword, f'{key}="npu:{parsing.text(value)}"')

    def _comparison(self, comparison: Node) -> None:
        operators = {parsing.text(op) for op in comparison.children_by_field_name("operators")}
        if not operators & {"==", "!=", "in", "not in"}:
            return
        operands = comparison.named_children
        if any(literals.cuda_literal_in(o) is not None for o in operands) and not any(_mentions_npu(o) for o in operands):
            self._hit("device-type-comparison", " ".join(parsing.text(comparison).split()), comparison)

    def _string(self, node: Node) -> None:
        literal = literals.device_literal(node)
        if literal is None or literals.is_docstring(literal.node) or literals.is_lookup_key(literal.node):
            return
        if literals.is_message_argument(literal.node) or self._claimed(literal.node):
            return
        if literals.already_npu_aware(literal.node):
            return
        if literals.inside(literal.node, {"comparison_operator"}) is not None:
            return
        keyword = literal.node.parent
        if keyword is not None and keyword.type == "keyword_argument":
            key = parsing.text(keyword.child_by_field_name("name"))
            if key == "device_map":
                return  # reported by the device-map rule
        call = literals.inside(literal.node, {"call"})
        if call is not None and _method_name(call) in {"startswith", "endswith"}:
            return
        detector = "device-string-formatted" if literal.formatted else "device-string"
        code = self.index.code_for(detector)
        self.hits.append(
            Hit(code, parsing.text(literal.node), Span.of(literal.node), literal.npu_text, self._callee_capabilities(literal.node))
        )

    def _callee_capabilities(self, node: Node) -> tuple[str, ...] | None:
        """For a literal passed straight to a torch API: what makes that API rewrite it. None otherwise."""
        parent = node.parent
        if parent is not None and parent.type == "keyword_argument":
            parent = parent.parent
        if parent is None or parent.type != "argument_list":
            return None
        function = parent.parent.child_by_field_name("function")
        if function is None or function.type not in {"identifier", "attribute"}:
            return None
        callee = qualified_name(function, self.imports)
        if callee is None or not callee.startswith("torch."):
            return None
        if callee in WRAPPED_BY_FEATURE:
            return WRAPPED_BY_FEATURE[callee]
        module, _, name = callee.rpartition(".")
        # torch.nn.Linear(device=...) and the like reach wrapped factories inside, so only direct torch.X
        # functions are judged by the list.
        return (f"torch_fn:{name}",) if module == "torch" else None

    def _claimed(self, node: Node) -> bool:
        current = node.parent
        while current is not None and current.type not in {"block", "module"}:
            if current.type == "call" and current.id in self.claimed_calls:
                return True
            current = current.parent
        return False

    def _env_string(self, node: Node) -> None:
        if literals.is_docstring(node):
            return
        prefix, inner = literals.string_parts(node)
        if "f" in prefix:
            return
        code = self.index.env_rule(inner)
        if code is not None:
            self._hit(code, inner, node)


def _mentions_npu(operand: Node) -> bool:
    if operand.type == "string":
        return literals.names_npu(operand)
    return operand.type in {"tuple", "list", "set"} and any(literals.names_npu(c) for c in operand.named_children)


def _is_definition_name(node: Node) -> bool:
    parent = node.parent
    if parent is None:
        return False
    if parent.type in {"function_definition", "class_definition"}:
        return parent.child_by_field_name("name") is not None and parent.child_by_field_name("name").id == node.id
    if parent.type == "keyword_argument":
        return parent.child_by_field_name("name").id == node.id
    return parent.type in {"dotted_name", "aliased_import", "import_from_statement", "import_statement"}


def _keywords(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [c for c in args.named_children if c.type == "keyword_argument"] if args is not None else []


def _device_argument(call: Node, keyword: str) -> Node | None:
    """The first positional argument, or the named one."""
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    for child in args.named_children:
        if child.type == "keyword_argument":
            if parsing.text(child.child_by_field_name("name")) == keyword:
                return child.child_by_field_name("value")
        elif child.type not in {"list_splat", "dictionary_splat", "comment"}:
            return child
    return None


def _dict_of_devices(node: Node) -> bool:
    if node.type != "dictionary":
        return False
    for pair in node.named_children:
        value = pair.child_by_field_name("value") if pair.type == "pair" else None
        if value is not None and (value.type == "integer" or literals.device_literal(value) is not None):
            return True
    return False


def _method_name(call: Node) -> str | None:
    function = call.child_by_field_name("function")
    if function is not None and function.type == "attribute":
        return parsing.text(function.child_by_field_name("attribute"))
    return None
