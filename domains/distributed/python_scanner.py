"""The distributed domain over Python: process-group backends, device meshes, data/model-parallel wrappers,
collectives with their HCCL status, DeepSpeed and Megatron entry points, NCCL environment variables."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.device import literals
from ascend_feasibility.domains.distributed.backend_defaults import backend_call_fed
from ascend_feasibility.domains.distributed.gloo_groups import on_gloo_group
from ascend_feasibility.domains.distributed.interface_exclusions import (
    DEFAULT_EXCLUSION,
    excludes_only_default_skipped,
)
from ascend_feasibility.domains.distributed.keyword_arms import nccl_arm_only_adds_keywords
from ascend_feasibility.domains.distributed.load_adapters import unwrapped_after_load
from ascend_feasibility.domains.python_refs import (
    ENV_REMOVED,
    PythonDomainScanner,
    PythonScan,
    Reference,
    argument,
    assigned_string,
    removes_variable,
)
from ascend_feasibility.domains.python_words import words
from ascend_feasibility.domains.rule_index import RuleIndex
from tree_sitter import Node

NCCL_QUERY = r"""
((string) @string (#match? @string "nccl"))
((comparison_operator) @comparison (#match? @comparison "nccl|NCCL"))
((identifier) @nccl_flag (#match? @nccl_flag "^(is|use|using|IS|USE)_(nccl|NCCL)(_backend|_BACKEND)?$"))
((string) @env_string (#match? @env_string "NCCL"))
"""
QUERY = r"""
(import_statement name: (dotted_name) @imported_module)
(import_statement name: (aliased_import name: (dotted_name) @imported_module))
(import_from_statement module_name: (dotted_name) @imported_module)
"""

# Where a backend argument goes, and what makes transfer_to_npu turn "nccl" into "hccl" there.
BACKEND_CALLS = {
    "torch.distributed.init_process_group": (0, "backend", ("feature:hccl_backend",)),
    "torch.distributed.new_group": (2, "backend", ("feature:new_group_wrap",)),
    "deepspeed.init_distributed": (0, "dist_backend", ()),
}
MESH_CALLS = {
    "torch.distributed.init_device_mesh": "device_type",
    "torch.distributed.device_mesh.init_device_mesh": "device_type",
    "torch.distributed.device_mesh.DeviceMesh": "device_type",
    "torch.distributed.DeviceMesh": "device_type",
}
# transfer_to_npu rebinds only torch.distributed.device_mesh.init_device_mesh on the 7.0.0/7.1.0 lines; the rule's own
# capability (DeviceMesh.__init__ wrapped, 7.2.0 on) covers every spelling.
MESH_CAPABILITIES = {"torch.distributed.device_mesh.init_device_mesh": ("feature:device_mesh_wrap", "feature:device_mesh_init_wrap")}

DATA_PARALLEL = frozenset({"torch.nn.DataParallel", "torch.nn.parallel.DataParallel",
                           "torch.nn.parallel.data_parallel.DataParallel"})
KEYWORD_ONLY_ARM = "keyword-only-arm"  # DST003's facet: the NCCL arm is the else arm plus NCCL-only keywords
# DistributedDataParallel's device arguments (position, keyword): device indices there (`device_ids=[rank]`) or none
# at all need no change on the NPU, with transfer_to_npu or without it (Ascend/pytorch test/nn/test_dataparallel_layers.py
# wraps `model.npu()` with `device_ids=[0]` over hccl): the work is the backend and set_device lines, each its own finding
DDP_NAMES = frozenset({"torch.nn.parallel.DistributedDataParallel", "torch.nn.parallel.distributed.DistributedDataParallel"})
DDP_DEVICE_ARGUMENTS = ((1, "device_ids"), (2, "output_device"))
DEVICE_NEUTRAL = "device-neutral"  # DST011's facet: the wrap names device indices only
LOAD_ADAPTER = "load-adapter"  # DST010's facet: wrapped only to load a checkpoint, unwrapped before any call
ONE_DEVICE = "one-device"  # DST010's facet: `device_ids` a literal list or tuple of one entry
INDEX_CALLS = frozenset({"int", "torch.cuda.current_device", "torch.npu.current_device"})  # calls returning an index
TRAINING_ATTRIBUTES = frozenset({"backward", "zero_grad", "train"})  # `loss.backward()`, `optimizer.zero_grad()`, `m.train()`


class _DistributedScan(PythonScan):
    QUERY = QUERY
    GATED = ((("nccl", "NCCL"), NCCL_QUERY),)

    def __init__(self, index: RuleIndex, unit: Unit) -> None:
        super().__init__(index, unit)
        self.claimed: set[int] = set()  # string nodes already reported as backend or mesh arguments
        self.compares_nccl = False  # the file compares a backend name with "nccl" (the handler runs before strings)

    HANDLERS = (("comparison", "_comparison"), ("string", "_string"), ("env_string", "env_string"),
                ("nccl_flag", "_nccl_flag"))

    def env_facets(self, name: str, node: Node) -> tuple[str, ...] | None:
        # removing an NCCL variable (vLLM's worker pops NCCL_ASYNC_ERROR_HANDLING that Ray sets) changes nothing
        # torch_npu reads: there is no HCCL twin to set
        if removes_variable(node):
            return (ENV_REMOVED,)
        value = assigned_string(node)
        return (DEFAULT_EXCLUSION,) if value is not None and excludes_only_default_skipped(value) else ()

    def finish(self, found) -> None:
        megatron = [n for n in found.get("imported_module", []) if parsing.text(n).split(".")[0].strip() == "megatron"]
        if megatron:  # one finding per file: the work is porting the framework, not each import
            self.hit("megatron-import", "".join(parsing.text(megatron[0]).split()), megatron[0].parent)

    def on_reference(self, reference: Reference) -> None:
        name, call = reference.name, reference.call
        if _names_accelerate_multi_gpu(name):
            test = _multi_gpu_test(reference.node)
            if test is not None:
                self.hit("accelerate-multi-gpu-test", " ".join(parsing.text(test).split()), test)
            return
        if name in BACKEND_CALLS and call is not None:
            position, keyword, capabilities = BACKEND_CALLS[name]
            value = argument(call, position, keyword)
            if value is None and name == "torch.distributed.init_process_group":
                if not _splats_keywords(call):  # `init_process_group(**kwargs)`: the caller may name the backend
                    self.hit("default-backend", f"{name}()", call)
                return
            if value is not None and value.type == "string" and "nccl" in literals.string_parts(value)[1]:
                self.claimed.add(value.id)
                npu = parsing.text(value).replace("cuda:nccl", "npu:hccl").replace("nccl", "hccl")  # keeps "cpu:gloo,"
                self.hit("nccl-backend-argument", f"{name}({parsing.text(value)})", value, npu, auto_when=capabilities)
            return
        if name in MESH_CALLS and call is not None:
            value = argument(call, 0, MESH_CALLS[name])
            literal = literals.device_literal(value) if value is not None else None
            if literal is not None:
                self.claimed.add(value.id)
                self.hit("device-mesh-cuda", f"{name}({parsing.text(value)})", call, literal.npu_text,
                         auto_when=MESH_CAPABILITIES.get(name))
            return
        if call is not None and name.startswith("torch.distributed.") and on_gloo_group(call, self.imports):
            return  # a collective over a gloo group runs on CPU tensors: HCCL's advice is not about it
        if name in DDP_NAMES and call is not None and _names_device_indices(call):
            match = self.index.match_name(name)
            if match is not None:
                self.hit(match[0], match[1], reference.node, facets=(DEVICE_NEUTRAL,))
                return
        if name in DATA_PARALLEL and call is not None and unwrapped_after_load(call):
            match = self.index.match_name(name)
            if match is not None:
                self.hit(match[0], match[1], reference.node, facets=(LOAD_ADAPTER,))
                return
        if name in DATA_PARALLEL and call is not None and _one_device(call):
            match = self.index.match_name(name)
            if match is not None:
                self.hit(match[0], match[1], reference.node, facets=(ONE_DEVICE,))
                return
        if name in DATA_PARALLEL and call is not None and _wraps_an_eval_model(call):
            self.hit("data-parallel-inference", name, reference.node)
            return
        self.name_rule(reference)

    def _comparison(self, comparison: Node) -> None:
        operators = {parsing.text(op) for op in comparison.children_by_field_name("operators")}
        allowed = _backend_allow_list(comparison, operators)
        if allowed is not None:
            self.hit("backend-allow-list", " ".join(parsing.text(comparison).split()), allowed)
            return
        if operators & {"==", "!=", "in", "not in"} and any(_names_nccl(o) for o in comparison.named_children):
            self.compares_nccl = True
            facets = (KEYWORD_ONLY_ARM,) if nccl_arm_only_adds_keywords(comparison) else ()
            self.hit("nccl-backend-comparison", " ".join(parsing.text(comparison).split()), comparison, facets=facets)

    def _nccl_flag(self, name: Node) -> None:
        """`if self.is_nccl_backend:` / `x if use_nccl else y`: a flag saying the backend is NCCL, tested where the
        backend is chosen; on Ascend it is false and the branch is skipped like a comparison with "nccl"."""
        tested = name.parent if name.parent is not None and name.parent.type == "attribute" else name
        if tested.parent is not None and tested.parent.type == "not_operator":
            tested = tested.parent
        holder = tested.parent
        if holder is None:
            return
        if holder.type == "boolean_operator":
            holder = holder.parent
        is_condition = (holder is not None and holder.type in {"if_statement", "elif_clause", "conditional_expression", "while_statement"}
                        and any(_same_node(c, tested) or _same_node(c, tested.parent) for c in _conditions_of(holder)))
        if is_condition:
            self.compares_nccl = True
            self.hit("nccl-backend-comparison", parsing.text(tested), tested)

    def _string(self, node: Node) -> None:
        if node.id in self.claimed or not _names_nccl(node):
            return
        if literals.is_docstring(node) or literals.is_lookup_key(node) or literals.is_message_argument(node):
            return
        if literals.inside(node, {"comparison_operator"}) is not None or _beside_hccl(node) or _names_its_constant(node):
            return
        if _in_class_naming_hccl(node):
            return  # `CUDA = ("cuda", "GPU", "nccl")` beside `NPU = ("npu", "NPU", "hccl")`: a table of backends
        if _framework_setting(node):
            return  # mmengine's `dist_cfg=dict(backend="nccl")`: init_dist passes backend="hccl" itself on torch_npu
        if _reassigned_for_npu(node):
            return  # `backend = "nccl"` then `elif current_platform.is_npu(): backend = "hccl"`: the NPU arm exists
        fed = backend_call_fed(node, BACKEND_CALLS, lambda function: qualified_name(function, self.imports))
        if fed is not None:  # a parameter's default its function only hands to init_process_group: rewritten there
            auto_when = BACKEND_CALLS[fed][2]
        else:  # a default that feeds the file's own `== "nccl"` comparison is never rewritten by transfer_to_npu
            auto_when = () if self.compares_nccl else None
        self.hit("nccl-string", parsing.text(node), node, parsing.text(node).replace("nccl", "hccl", 1), auto_when=auto_when)


def _names_accelerate_multi_gpu(name: str) -> bool:
    """`accelerate.DistributedType.MULTI_GPU`, `accelerate.utils.DistributedType.MULTI_GPU`, ... (any accelerate
    module that re-exports the enum)."""
    return name.startswith("accelerate.") and name.endswith(".DistributedType.MULTI_GPU")


def _multi_gpu_test(member: Node) -> Node | None:
    """The comparison testing for `member` (`x == MULTI_GPU`, `x != MULTI_GPU`, `x in [..., MULTI_GPU, ...]`) where
    neither it nor the statement holding it (an assert, the whole if/elif chain) names MULTI_NPU; None otherwise."""
    operand = member.parent
    if operand is not None and operand.type in {"list", "tuple", "set"}:
        operand = operand.parent
    if operand is None or operand.type != "comparison_operator":
        return None
    operators = {parsing.text(op) for op in operand.children_by_field_name("operators")}
    if not operators & {"==", "!=", "in", "not in"}:
        return None
    statement = operand
    while statement.parent is not None and statement.type not in {"assert_statement", "if_statement",
                                                                   "return_statement", "expression_statement"}:
        statement = statement.parent
    if statement.type == "if_statement" and statement.parent is not None and statement.parent.type == "elif_clause":
        statement = statement.parent
    while statement.type == "elif_clause" and statement.parent is not None:
        statement = statement.parent
    return None if b"MULTI_NPU" in (statement.text or b"") else operand


def _names_device_indices(call: Node) -> bool:
    """`DDP(model, device_ids=[rank])`, `DDP(model, device_ids=[args.gpu], output_device=args.gpu)`, `DDP(model)`:
    each device argument is absent, None, or an index (an integer, a name whose last part does not say it holds a
    device, `int(...)`, `torch.cuda.current_device()`), alone or in a list or tuple; no `*`/`**` splat could hand a
    device in. A string, a `torch.device(...)` or a name such as `device` may name a CUDA device: not neutral."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None or any(c.type in {"list_splat", "dictionary_splat"} for c in arguments.named_children):
        return False
    for position, keyword in DDP_DEVICE_ARGUMENTS:
        value = argument(call, position, keyword)
        if value is None:
            continue
        items = value.named_children if value.type in {"list", "tuple"} else [value]
        if not all(_device_index(item) for item in items if item.type != "comment"):
            return False
    return True


def _device_index(node: Node) -> bool:
    if node.type in {"integer", "none"}:
        return True
    if node.type in {"identifier", "attribute"}:
        last = parsing.text(node).rsplit(".", 1)[-1].lower()
        return "device" not in last and last not in {"dev", "cuda"}
    if node.type == "call":
        function = node.child_by_field_name("function")
        return function is not None and "".join(parsing.text(function).split()) in INDEX_CALLS
    return False


def _one_device(call: Node) -> bool:
    """`DataParallel(model, device_ids=[0])`, `DataParallel(model, device_ids=[args.gpu])`: the device list is a literal
    list or tuple of one entry (no splat, no comprehension), so the wrapper spans one device whatever the script does."""
    ids = argument(call, 1, "device_ids")
    if ids is None or ids.type not in {"list", "tuple"}:
        return False
    items = [item for item in ids.named_children if item.type != "comment"]
    return len(items) == 1 and items[0].type not in {"list_splat", "parenthesized_list_splat", "starred_expression"}


def _wraps_an_eval_model(call: Node) -> bool:
    """`i3d = InceptionI3d(...).eval().to(device); i3d = torch.nn.DataParallel(i3d)` in a file that never trains
    (Open-Sora-Plan's FVD feature extractors): a model put in eval mode in the same function (or module), no
    `device_ids` naming several devices, and no backward, zero_grad, train() or optimizer anywhere in the file. The
    eval mode may be set before the wrap on the model, or after it on the wrapper: Restormer's test scripts'
    `model = nn.DataParallel(model)` then `model.eval()`, BasicSR's `nn.DataParallel(inception).eval()`."""
    wrapped = argument(call, 0, "module")
    ids = argument(call, 1, "device_ids")
    if wrapped is None or wrapped.type != "identifier" or (ids is not None and (ids.type not in {"list", "tuple"}
                                                                                 or len(ids.named_children) > 1)):
        return False
    names = {parsing.text(wrapped)} | _owners_of_loop_variable(wrapped, call)
    wrapper = call.parent.child_by_field_name("left") if call.parent is not None and call.parent.type == "assignment" else None
    wrappers = {parsing.text(wrapper)} if wrapper is not None and wrapper.type == "identifier" else set()
    scope, root = call, call
    while scope.parent is not None and scope.type != "function_definition":
        scope = scope.parent
    while root.parent is not None:
        root = root.parent
    chained = call.parent is not None and call.parent.type == "attribute" and parsing.text(
        call.parent.child_by_field_name("attribute")) == "eval"
    evaluated = chained
    for node in parsing.walk(scope, limit=20000):
        if node.type == "call" and node.start_byte != call.start_byte:
            function = node.child_by_field_name("function")
            if function is not None and function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) == "eval":
                holder = node
                while holder.parent is not None and holder.type not in {"assignment", "expression_statement"}:
                    holder = holder.parent
                target = holder.child_by_field_name("left") if holder.type == "assignment" else None
                obj = function.child_by_field_name("object")
                if node.start_byte < call.start_byte:
                    evaluated |= (target is not None and parsing.text(target) in names) or (obj is not None and parsing.text(obj) in names)
                else:
                    evaluated |= obj is not None and parsing.text(obj) in wrappers
    if not evaluated:
        return False
    for node in parsing.walk(root, limit=200000):
        if node.type == "attribute" and parsing.text(node.child_by_field_name("attribute")) in TRAINING_ATTRIBUTES:
            return False
        if node.type == "identifier" and "optim" in parsing.text(node).lower():
            return False
    return True


def _owners_of_loop_variable(name_node: Node, call: Node) -> set[str]:
    """`for key, module in model._modules.items(): model._modules[key] = DataParallel(module)` (open-instruct's
    embedding model): the wrapped name is bound by a loop over the parts of `model`, so what is wrapped is the
    submodules of `model`; the name the loop's iterable starts at, else nothing."""
    name = parsing.text(name_node)
    loop = call.parent
    while loop is not None and loop.type not in {"for_statement", "function_definition", "module"}:
        loop = loop.parent
    if loop is None or loop.type != "for_statement":
        return set()
    left, right = loop.child_by_field_name("left"), loop.child_by_field_name("right")
    if left is None or right is None or not any(n.type == "identifier" and parsing.text(n) == name for n in parsing.walk(left, limit=50)):
        return set()
    root = right
    while root.type in {"call", "attribute", "subscript"}:
        inner = root.child_by_field_name("function") if root.type == "call" else \
            root.child_by_field_name("object") if root.type == "attribute" else root.child_by_field_name("value")
        if inner is None:
            return set()
        root = inner
    return {parsing.text(root)} if root.type == "identifier" else set()


def _conditions_of(holder: Node) -> list[Node]:
    if holder.type == "conditional_expression":
        return holder.named_children[1:2]
    condition = holder.child_by_field_name("condition")
    return [condition] if condition is not None else []


def _same_node(a: Node | None, b: Node | None) -> bool:
    return a is not None and b is not None and a.start_byte == b.start_byte and a.end_byte == b.end_byte


def _names_nccl(node: Node) -> bool:
    if node.type == "attribute":  # Backend.NCCL, dist.Backend.NCCL
        attribute = node.child_by_field_name("attribute")
        return attribute is not None and parsing.text(attribute) == "NCCL"
    if node.type != "string" or node.child_count < 2:
        return False
    prefix, inner = literals.string_parts(node)
    return "f" not in prefix and (inner == "nccl" or inner.startswith(("nccl:", "cuda:nccl")))


def _backend_allow_list(comparison: Node, operators: set[str]) -> Node | None:
    """The literal list, tuple or set of `assert backend in ["gloo", "nccl"]`, or of `if backend not in (...): raise`,
    when it names "nccl" and not "hccl": a check that stops the run under HCCL before the code after it (pytorchvideo's
    and YOLOX's _serialize_to_tensor, round 41 port hunk 2). A list that is only listed (argparse `choices=`, a
    docstring) stops nothing: the comparison is the whole test of an assert or of an if that only raises."""
    if len(operators) != 1 or not operators <= {"in", "not in"} or comparison.named_child_count != 2:
        return None
    names = comparison.named_children[1]
    while names.type == "parenthesized_expression" and names.named_child_count == 1:
        names = names.named_children[0]
    if names.type not in {"list", "tuple", "set"}:
        return None
    inner = [literals.string_parts(item)[1] for item in names.named_children if item.type == "string"]
    if "nccl" not in inner or "hccl" in inner:
        return None
    holder = comparison.parent
    while holder is not None and holder.type == "parenthesized_expression":
        holder = holder.parent
    if operators == {"in"} and holder is not None and holder.type == "assert_statement" \
            and holder.named_children and holder.named_children[0].start_byte == comparison.start_byte:
        return names
    if operators == {"not in"} and holder is not None and holder.type == "if_statement" \
            and holder.child_by_field_name("condition") is not None \
            and holder.child_by_field_name("condition").start_byte == comparison.start_byte:
        body = holder.child_by_field_name("consequence")
        statements = [c for c in body.named_children if c.type != "comment"] if body is not None else []
        if statements and all(c.type == "raise_statement" for c in statements):
            return names
    return None


def _names_its_constant(node: Node) -> bool:
    """`NCCL_BACKEND = 'nccl'`: a constant named after the backend it spells (beside GLOO_BACKEND, MPI_BACKEND) is a
    table of names, not a choice of backend."""
    parent = node.parent
    if parent is None or parent.type != "assignment" or parent.child_by_field_name("right") != node:
        return False
    left = parent.child_by_field_name("left")
    return left is not None and left.type == "identifier" and "NCCL" in parsing.text(left).upper().split("_")


# Settings that a framework reads and overrides on Ascend: mmengine's init_dist (mmengine/dist/utils.py) calls
# init_process_group(backend='hccl') whenever torch_npu is available, whatever `env_cfg.dist_cfg.backend` says.
FRAMEWORK_BACKEND_SETTINGS = frozenset({"dist_cfg"})
# mmcv 1.x's runtime key: a 1.x tools/train.py passed `**cfg.dist_params` to mmcv's init_dist, which hands the backend to
# init_process_group as it is. mmengine's Runner never reads it: Runner.setup_env (mmengine/runner/runner.py) calls
# `init_dist(self.launcher, **env_cfg.get('dist_cfg', {}))`. In a config module of mmengine's era (one that sets
# mmengine's own `env_cfg` or `default_scope` beside it) the key is a leftover nothing reads.
LEGACY_BACKEND_SETTINGS = frozenset({"dist_params"})
MMENGINE_CONFIG_KEYS = frozenset({"env_cfg", "default_scope"})


def _framework_setting(node: Node) -> bool:
    """`dist_cfg=dict(backend="nccl")` (an mmengine config's env_cfg), or a legacy `dist_params=dict(backend="nccl")` in
    a module that sets mmengine's own keys (`env_cfg`, `default_scope`)."""
    keyword = node.parent
    call = keyword.parent.parent if keyword is not None and keyword.type == "keyword_argument" and keyword.parent is not None else None
    holder = call.parent if call is not None and call.type == "call" else None
    if holder is None or holder.type not in {"keyword_argument", "assignment", "pair"}:
        return False
    name = holder.child_by_field_name("name") or holder.child_by_field_name("left") or holder.child_by_field_name("key")
    key = parsing.text(name).strip("'\"") if name is not None else None
    if key in FRAMEWORK_BACKEND_SETTINGS:
        return True
    return key in LEGACY_BACKEND_SETTINGS and holder.type == "assignment" and _sets_mmengine_keys(holder)


def _sets_mmengine_keys(assignment: Node) -> bool:
    """The module holding `assignment` at its top level assigns one of mmengine's config keys at its top level."""
    statement = assignment.parent
    module = statement.parent if statement is not None and statement.type == "expression_statement" else None
    if module is None or module.type != "module":
        return False
    for child in module.named_children:
        first = child.named_children[0] if child.type == "expression_statement" and child.named_child_count else None
        left = first.child_by_field_name("left") if first is not None and first.type == "assignment" else None
        if left is not None and left.type == "identifier" and parsing.text(left) in MMENGINE_CONFIG_KEYS:
            return True
    return False


def _splats_keywords(call: Node) -> bool:
    arguments = call.child_by_field_name("arguments")
    return arguments is not None and any(a.type == "dictionary_splat" for a in arguments.named_children)


def _in_class_naming_hccl(node: Node) -> bool:
    """The string is in a class body (an enum of device types) another assignment of which names "hccl"."""
    current, depth = node.parent, 0
    while current is not None and current.type not in {"block", "module"} and depth < 8:
        current, depth = current.parent, depth + 1
    if current is None or current.type != "block" or current.parent is None or current.parent.type != "class_definition":
        return False
    for statement in current.named_children[:200]:
        for string in _strings(statement):
            if literals.string_parts(string)[1] == "hccl":
                return True
    return False


def _strings(node: Node, limit: int = 50) -> list[Node]:
    found = []
    for current in parsing.walk(node, prune=_NOT_ENTERED):
        if current.type == "string":
            found.append(current)
            if len(found) >= limit:
                break
    return found


_NOT_ENTERED = frozenset({"string", "function_definition", "class_definition"})
_SCOPES = frozenset({"function_definition", "class_definition", "module"})
_BRANCHES = frozenset({"if_statement", "elif_clause"})


def _reassigned_for_npu(node: Node) -> bool:
    """`backend = "nccl"` (alone or as an arm of a conditional) that the same scope assigns again, later, to a
    string naming "hccl" inside an `if`/`elif` whose condition names the NPU (`current_platform.is_npu()`,
    `device.type == "npu"`, `is_torch_npu_available()`): a default the code already replaces on Ascend."""
    assignment = node.parent
    while assignment is not None and assignment.type in {"conditional_expression", "parenthesized_expression"}:
        assignment = assignment.parent
    if assignment is None or assignment.type != "assignment":
        return False
    left = assignment.child_by_field_name("left")
    if left is None or left.type not in {"identifier", "attribute"}:
        return False
    target = parsing.text(left)
    scope = parsing.enclosing(assignment, _SCOPES)
    if scope is None:
        return False
    for other in parsing.walk(scope, limit=20000, prune=_SCOPES - {"module"}, enter_root=True):
        if other.type != "assignment" or other.start_byte <= assignment.end_byte:
            continue
        other_left, value = other.child_by_field_name("left"), other.child_by_field_name("right")
        if other_left is None or value is None or parsing.text(other_left) != target or value.type != "string":
            continue
        if "hccl" in literals.string_parts(value)[1] and _under_npu_test(other, scope):
            return True
    return False


def _under_npu_test(node: Node, scope: Node) -> bool:
    """The node sits in the body of an `if`/`elif` whose condition names the NPU (within its scope)."""
    current = node.parent
    while current is not None and current.id != scope.id:
        if current.type in _BRANCHES:
            condition = current.child_by_field_name("condition")
            if condition is not None and "npu" in words(condition):
                return True
        current = current.parent
    return False


def _beside_hccl(node: Node) -> bool:
    """Already ported: "nccl" sits beside "hccl" in a list, a table or a conditional."""
    parent = node.parent
    if parent is None:
        return False
    siblings = parent.named_children
    if parent.type == "pair" and parent.parent is not None:
        siblings = [part for pair in parent.parent.named_children for part in pair.named_children]
    return any(s.type == "string" and literals.string_parts(s)[1] == "hccl" for s in siblings if s.child_count >= 2)


class DistributedPythonScanner(PythonDomainScanner):
    domain = "distributed"
    triggers = ("distributed", "nccl", "NCCL", "DataParallel", "deepspeed", "megatron", "fully_shard", "DeviceMesh", "ReduceOp",
                "MULTI_GPU")
    scan_class = _DistributedScan
