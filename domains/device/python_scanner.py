"""The device domain over Python: torch.cuda APIs, device literals, .cuda(), AMP, backends, compile, profiler."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.cuda_arms import pytorch_fallback_arm
from ascend_feasibility.analyzer.context.default_built import built_by_default, gate_of
from ascend_feasibility.analyzer.context.roles import file_role
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.device import (
    context_operands,
    cuda_method_device,
    literals,
    mask_guards,
    mask_hides,
    mask_reads,
    npu_extended,
    own_runtimes,
    provider_names,
    selectors,
)
from ascend_feasibility.domains.device.amp_imports import BARE_DECORATOR, bare_decorator
from ascend_feasibility.domains.device.autocast_reads import (
    AUTOCAST_OFF,
    CUDA_AUTOCAST_DTYPE_READ,
    only_turns_autocast_off,
    reads_other_autocast_dtype,
)
from ascend_feasibility.domains.device.build_probes import only_chooses_build
from ascend_feasibility.domains.device.compiled_use import never_called
from ascend_feasibility.domains.device.cuda_features import ASSIGNS_DEFAULT, assigns_default
from ascend_feasibility.domains.device.cudnn_conjunct import CUDNN_CONJUNCT, cudnn_conjunct
from ascend_feasibility.domains.device.existence_probes import existence_probe
from ascend_feasibility.domains.device.fast_path import fast_path_arms, fast_path_facets, only_fixes_layout
from ascend_feasibility.domains.device.lightning_gpus import requested_gpus
from ascend_feasibility.domains.device.mapping_keys import is_key_test
from ascend_feasibility.domains.device.none_fields import (
    NONE_EQUALITY,
    NONE_FIELD_COMPUTED,
    computed_none_fields,
    only_equality_operand,
)
from ascend_feasibility.domains.device.rank_suffix import (
    non_cuda_arm_uses_setting,
    only_adds_rank_suffix,
    passes_setting_through,
)
from ascend_feasibility.domains.device.runtime_indexes import feeds_runtime_index
from ascend_feasibility.domains.device.scripted_use import file_keeps_script, only_called
from ascend_feasibility.domains.device.splat_accelerator import splatted_accelerator
from ascend_feasibility.domains.device.test_arms import (
    CUDA_ARM,
    RUNTIME_PROVIDER,
    SHIM_MAPS_ARM,
    autocast_enabled_test,
    cuda_specifics,
    facets,
    identical_arms,
    provider_choice,
)
from ascend_feasibility.domains.device.torchscript_constants import graph_constant_test
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference, argument, keywords
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

CUDA_TEXT_QUERY = r"""
((string) @string (#match? @string "cuda"))
((comparison_operator) @comparison (#match? @comparison "cuda"))
"""
ENV_QUERY = r"""
((string) @env_string (#match? @env_string "(CUDA|CUDNN|CUBLAS|NVIDIA|NVTE)"))
"""
# Gated, not in QUERY: its predicate was tested at every attribute of every unit, and the words are rare. (`to` is
# not gateable: it occurs all over a unit; nor `device`: gating kwname cost more than it saved on diffusers.)
MEMBERS = ("is_cuda", "multi_processor_count", "major", "minor")
MEMBER_QUERY = "((attribute attribute: (identifier) @member) (#any-of? @member " + " ".join(f'"{m}"' for m in MEMBERS) + "))"
QUERY = r"""
((call function: (attribute attribute: (identifier) @method)) (#any-of? @method "cuda" "to" "startswith" "__contains__"))
((keyword_argument name: (identifier) @kwname) (#any-of? @kwname "device" "device_id" "map_location" "device_map"))
"""

RUNTIME_INDEX = "runtime-index"  # the test's function makes an ONNX Runtime session's device index (ctx_id=, device_id=)
DEFAULT_PATH_GATE = "default-path-gate"  # a no-CUDA raise in the constructor of a class the default path builds
# string methods that test a device's text for a literal, as `"cuda" in str(device)` does (DEV007, not a device argument)
STRING_TESTS = ("startswith", "__contains__")
OWN_RUNTIME_PIN = "own-runtime-pin"  # a CUDA mask set in an arm whose only device work is another runtime's model
DEVICE_ARGUMENT = "device-argument"  # `.cuda(<a device name>)`, which the shim's `.npu` alias raises on
ENABLED_BY_DEVICE_TEST = "enabled-by-device-test"  # the autocast's `enabled=` holds a CUDA device test
AUTOCAST_BY_SPELLING = {
    "torch.autocast": "torch-autocast-cuda",
    "torch.amp.autocast": "amp-autocast-cuda",
    "torch.amp.autocast_mode.autocast": "amp-autocast-cuda",
}
# autocast constructors: in `with A and B:` only the entered operand is a context (domains/device/context_operands.py)
AUTOCASTS = {*AUTOCAST_BY_SPELLING, "torch.cuda.amp.autocast", "torch.cuda.amp.autocast_mode.autocast"}
GRAD_SCALERS = {"torch.amp.GradScaler", "torch.amp.grad_scaler.GradScaler"}
PROFILERS = {"torch.autograd.profiler.profile", "torch.profiler.profile", "torch.autograd.profile"}
INTEGER_DEVICE_KWARGS = {"device", "device_id", "map_location"}
# Calls whose device literals the distributed domain reports (process groups and device meshes).
# Lightning's entry points that take an accelerator name (Fabric's and Trainer's first argument)
LIGHTNING_ENTRIES = frozenset({
    "lightning.Fabric", "lightning.fabric.Fabric", "lightning.fabric.fabric.Fabric", "lightning_fabric.Fabric",
    "lightning.Trainer", "lightning.pytorch.Trainer", "lightning.pytorch.trainer.trainer.Trainer",
    "pytorch_lightning.Trainer", "pytorch_lightning.trainer.trainer.Trainer",
})
CUDA_ACCELERATORS = frozenset({"cuda", "gpu"})
GPUS_KEYWORD = "gpus-keyword"  # Lightning 1.x `Trainer(gpus=...)`, removed in 2.0
CPU_FALLBACK = "cpu-fallback"  # the accelerator is CUDA's under a test, another (the CPU) otherwise
PROCESS_COUNTS = frozenset({"torch.cuda.device_count"})  # torch.cuda reads a script takes as its number of workers
# Dynamo's settings are backend-neutral (recompile limits, dynamic shapes, guards: torch/_dynamo/config.py, torch 2.x)
# except those of the CUDA-graph backend (`cudagraph_backend_keep_input_mutation`, ...) and any naming Triton:
# only a key holding one of these parts is tuned for CUDA (DEV502); `config.patch(...)` is judged by its keys.
DYNAMO_CONFIG = "torch._dynamo.config."
CUDA_BACKEND_KEY_PARTS = ("cuda", "triton")
OTHER_DOMAIN_CALLEES = {
    "torch.distributed.init_process_group",
    "torch.distributed.new_group",
    "torch.distributed.init_device_mesh",
    "torch.distributed.device_mesh.init_device_mesh",
    "torch.distributed.device_mesh.DeviceMesh",
    "torch.distributed.DeviceMesh",
}
# torch APIs that take a device and that transfer_to_npu wraps through a feature rather than its torch
# function list; a direct torch.X callee is automatic only when X is in that release's torch_fn_white_list.
WRAPPED_BY_FEATURE = {
    "torch.Generator": ("feature:generator_proxy", "torch_fn:Generator"),
    "torch.Event": ("feature:event_proxy",),
    "torch.nn.parallel.DistributedDataParallel": ("feature:ddp_wrap",),
    "torch.distributed.fsdp.FullyShardedDataParallel": ("feature:fsdp_wrap",),
    "torch.fft.fftfreq": ("feature:fft_wrap",),
    "torch.fft.rfftfreq": ("feature:fft_wrap",),
    # device_types / dispatch keys of an operator registration: transfer_to_npu wraps no torch.library function,
    # so a "cuda" registration stays CUDA's and the operator has no NPU kernel until one is registered
    "torch.library.custom_op": (),
    "torch.library.triton_op": (),
    "torch.library.register_kernel": (),
    "torch.library.impl": (),
    "torch.library.register_autocast": (),
    # the device type of a custom autograd Function's AMP decorators: transfer_to_npu wraps neither (only autocast's
    # __init__), so custom_fwd keeps asking is_autocast_enabled("cuda") (AMP_DECORATOR_CALLS)
    "torch.amp.custom_fwd": (),
    "torch.amp.custom_bwd": (),
    "torch.amp.autocast_mode.custom_fwd": (),
    "torch.amp.autocast_mode.custom_bwd": (),
}
AMP_DECORATOR_CALLS = frozenset(n for n in WRAPPED_BY_FEATURE if n.rpartition(".")[2] in {"custom_fwd", "custom_bwd"})
SHIM = "cuda_alias"  # the capability transfer_to_npu gives a torch.cuda name (knowledge/torch_npu/releases.toml)
MAX_ARM_NAMES = 6  # the CUDA names a device test's advice lists
COMPILED_NEVER_CALLED = "compiled-never-called"  # domains/device/compiled_use.py
AMP_DECORATOR = "amp-decorator"  # the facet of a "cuda" handed to one of them as its device_type


class _FileScan(PythonScan):
    """Also remembers call nodes whose literals another rule reported."""

    QUERY = QUERY
    GATED = ((("cuda",), CUDA_TEXT_QUERY), (("CUDA", "CUDNN", "CUBLAS", "NVIDIA", "NVTE"), ENV_QUERY), (MEMBERS, MEMBER_QUERY))

    def __init__(self, index: RuleIndex, unit: Unit) -> None:
        super().__init__(index, unit)
        self.claimed_calls: set[int] = set()
        self.reported_not_entered = False

    HANDLERS = (
        ("method", "_method_call"), ("member", "_member"), ("kwname", "_keyword"), ("comparison", "_comparison"),
        ("string", "_string"), ("env_string", "env_string"),
    )

    def env_facets(self, name: str, node: Node) -> tuple[str, ...] | None:
        if name not in mask_reads.MASKS:
            return ()
        access = mask_reads.access(node)
        if access == "write" and own_runtimes.pins_only_own_runtime(node, self.imports):
            return (OWN_RUNTIME_PIN,)
        if access == "write" and mask_hides.hides_every_device(node):
            return (mask_hides.HIDES_ALL,)
        if access == "write" and mask_guards.identity_default(node):
            return (mask_guards.IDENTITY_DEFAULT,)
        if access == mask_reads.READ and (mask_guards.only_guards_own_write(node)
                                          or mask_guards.bound_read_guards_own_write(node)):
            return None  # `if M not in env: env[M] = v`: one edit, reported at the write
        if access != "write" and mask_reads.serves_nvidia_smi(node):
            return None  # part of the nvidia-smi probe DEV211 reports
        return (access,) if access in {mask_reads.READ, mask_reads.READ_USED} else ()

    # Qualified names ---------------------------------------------------------------------------------
    def on_reference(self, reference: Reference) -> None:
        name, chain, call = reference.name, reference.node, reference.call
        if call is not None and name in AUTOCASTS and self._autocast_not_entered(name, call):
            return
        if call is not None and name in OTHER_DOMAIN_CALLEES:
            self.claimed_calls.add(call.id)  # their device literals are reported by that domain
        if name.startswith("torch.cuda.") and self._public_name_probe(name, chain):
            return  # `hasattr(torch.cuda.amp, "autocast")`: asks whether a name exists, uses nothing
        if name.startswith("torch.cuda."):
            entry_name, entry = self.index.cuda_entry(name)
            if call is not None and entry_name in PROCESS_COUNTS and _counts_launched_processes(self.unit):
                self.hit("shell-process-count-cuda", entry_name, chain, entry.npu)
            elif call is not None and entry_name == "torch.cuda.is_available" and self._build_file() \
                    and only_chooses_build(call):
                pass  # it picks what setup.py compiles: the build finding's (OPS062), no device call
            else:
                arm = self._pytorch_arm(chain) if entry_name == "torch.cuda.is_available" else None
                npu, seen = arm or (entry.npu, ())
                fields = _fields_read(call) if entry.filled_fields and call is not None else None
                if fields is not None and fields <= set(entry.filled_fields):
                    seen = (*seen, FILLED_FIELDS)
                if entry_name in AMP_DECORATOR_NAMES and bare_decorator(call, chain, self.unit.tree()):
                    seen = (*seen, BARE_DECORATOR)
                edit = self.index.kb.rules[entry.rule].edit
                if call is not None and edit is not None and reads_other_autocast_dtype(
                        call, frozenset(edit.argument_calls), self.imports):
                    seen = (*seen, CUDA_AUTOCAST_DTYPE_READ)
                if call is not None and name in AUTOCASTS and only_turns_autocast_off(call):
                    seen = (*seen, AUTOCAST_OFF)  # `torch.cuda.amp.autocast(enabled=False)`: casts nothing anywhere
                if call is not None and entry.rule in load_context_conventions().guards.none_under_shim_rules \
                        and only_equality_operand(call):
                    seen = (*seen, NONE_EQUALITY)  # `get_device_capability(i) == (7, 5)`: None makes it False
                computed = computed_none_fields(call, frozenset(entry.none_fields)) if entry.none_fields and call is not None else []
                if computed:
                    # `props.major < 6`: None there under the shim's mapping, a TypeError; no automatic site
                    self.hit(entry.rule, entry_name, chain, npu, auto_when=(), facets=(*seen, NONE_FIELD_COMPUTED))
                elif arm is None and call is not None and entry_name == "torch.cuda.is_available" \
                        and cudnn_conjunct(call, self.imports) is not None:
                    # `... and torch.backends.cudnn.is_available()`: the cuDNN probe stays False on the NPU under
                    # transfer_to_npu too, so the shim does not cover the choice (domains/device/cudnn_conjunct.py)
                    self.hit(entry.rule, entry_name, chain, npu, auto_when=(), facets=(CUDNN_CONJUNCT,))
                elif arm is None and call is not None and entry_name == "torch.cuda.is_available" \
                        and provider_choice(call, self.imports):
                    # it picks ONNX Runtime's NVIDIA provider, not a torch device: the shim's answer (true on
                    # the NPU) would ask for that provider there, so the site is no automatic one
                    self.hit(entry.rule, entry_name, chain, npu, auto_when=(), facets=(RUNTIME_PROVIDER,))
                elif arm is None and call is not None and entry_name == "torch.cuda.is_available" \
                        and (gate := gate_of(call)) is not None and built_by_default(gate) is not None:
                    # `if not torch.cuda.is_available(): raise` in the constructor of a class the default path
                    # builds: a device check on that path (a native port raises there), not an opt-in feature's gate
                    self.hit(entry.rule, entry_name, chain, npu, auto_when=(), facets=(DEFAULT_PATH_GATE,))
                else:
                    self.hit(entry.rule, entry_name, chain, npu, facets=seen)
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
        if name in LIGHTNING_ENTRIES and call is not None:
            self._lightning(name, call)
            return
        if name.startswith(DYNAMO_CONFIG) and not _cuda_backend_setting(name, call):
            return  # a backend-neutral Dynamo setting means the same on torch_npu's compile backend
        if name == DYNAMO_CONFIG[:-1] and _neutral_config_access(chain):
            return  # `getattr(torch._dynamo.config, "recompile_limit", 8)`: the same setting, read by its key
        if name == "torch.compile" and call is not None and never_called(call):
            match = self.index.match_name(name)  # the wrapper is only read for attributes: nothing compiles
            if match is not None:
                self.hit(match[0], match[1], chain, facets=(COMPILED_NEVER_CALLED,))
                return
        if name == "torch.jit.script" and call is not None and only_called(call):
            self.hit("torch-jit-script-only-called", f"{name}(...)", call)
            return
        if name == "torch.jit.script_method" and not file_keeps_script(self.unit.tree(), self.unit.cache):
            self.hit("torch-jit-script-method-unsaved", name, reference.node)
            return
        if call is None and assigns_default(name, chain):
            match = self.index.match_name(name)  # `torch.backends.cudnn.deterministic = False`: PyTorch's own default
            if match is not None:
                self.hit(match[0], match[1], chain, facets=(ASSIGNS_DEFAULT,))
                return
        self.name_rule(reference)

    def _autocast_not_entered(self, name: str, call: Node) -> bool:
        """An autocast in `with A and B:` that the statement never enters: no device site (porting it would add the
        autocast the CUDA run lacks), and one project-bug finding per file."""
        statement = context_operands.not_entered(call)
        if statement is None:
            return False
        self.claimed_calls.add(call.id)
        if not self.reported_not_entered:
            self.reported_not_entered = True
            item = call.parent
            while item.type != "with_item":
                item = item.parent
            self.hit("autocast-never-entered", " ".join(parsing.text(item).split())[:120], statement)
        return True

    def _lightning(self, name: str, call: Node) -> None:
        """`L.Fabric(accelerator="cuda")`, `Trainer(accelerator="gpu")`: Lightning has no NPU accelerator of its own;
        `L.Fabric(devices=1)` (accelerator "auto", the default) picks the CPU on Ascend. The accelerator is a keyword
        (Fabric's and Trainer's are keyword-only; Lightning 1.x Trainer's first positional argument is the logger)."""
        value = keywords(call).get("accelerator")
        splatted = splatted_accelerator(call) if value is None else None
        if splatted is not None and _accelerator_word(splatted) in CUDA_ACCELERATORS:
            # `trainer_config["accelerator"] = "gpu"` then `Trainer(**trainer_config)`: the assignment is the choice
            self.hit("lightning-cuda-accelerator", f"{name}(accelerator={parsing.text(splatted)})", splatted)
            return
        gpus = keywords(call).get("gpus")
        if gpus is not None and ((value is None and splatted is None) or (value is not None and _accelerator_word(value) == "auto")) \
                and requested_gpus(gpus):
            # Lightning 1.x `Trainer(gpus=-1)`: GPU ids, so the CUDA accelerator; it raises where no CUDA device
            # is present, and Lightning 2.0 removed the keyword (domains/device/lightning_gpus.py)
            self.claimed_calls.add(call.id)
            self.hit("lightning-cuda-accelerator", f"{name}(gpus={parsing.text(gpus)})", gpus, facets=(GPUS_KEYWORD,))
            return
        if value is None:
            arguments = call.child_by_field_name("arguments")
            if arguments is not None and not any(c.type in {"dictionary_splat", "list_splat"} for c in arguments.named_children):
                self.hit("lightning-auto-accelerator", f"{name}()", call)
            return
        word = _accelerator_word(value)
        if word in CUDA_ACCELERATORS:
            self.claimed_calls.add(call.id)
            self.hit("lightning-cuda-accelerator", f"{name}(accelerator={parsing.text(value)})", value)
        elif value.type == "conditional_expression" and any(
                _accelerator_word(branch) in CUDA_ACCELERATORS for branch in value.named_children[::2]):
            # `accelerator="gpu" if torch.cuda.is_available() else "cpu"` (round 25 B2 48): no NPU accelerator to
            # choose, and on an Ascend host the CUDA test fails, so the Trainer trains on the CPU
            self.claimed_calls.add(call.id)
            self.hit("lightning-cuda-accelerator", f"{name}(accelerator={parsing.text(value)})", value,
                     facets=(CPU_FALLBACK,))
        elif word == "auto":
            self.hit("lightning-auto-accelerator", f"{name}(accelerator={parsing.text(value)})", value)

    def _autocast(self, detector: str, name: str, call: Node) -> None:
        device = _device_argument(call, "device_type")
        literal = literals.device_literal(device) if device is not None else None
        if literal is not None:
            self.claimed_calls.add(call.id)
            if autocast_enabled_test(call) is not None:
                # `enabled=... and device.type == "cuda"`: false on NPU with the shim too, which rewrites only the
                # device_type: the region stays off there unless the test changes with it (DEV007 at the test)
                self.hit(detector, f"{name}({parsing.text(device)})", call, f"{name}({literal.npu_text})",
                         auto_when=(), facets=(ENABLED_BY_DEVICE_TEST,))
            else:
                self.hit(detector, f"{name}({parsing.text(device)})", call, f"{name}({literal.npu_text})")

    def _grad_scaler(self, name: str, call: Node) -> None:
        device = _device_argument(call, "device")
        if device is None:
            self.hit("amp-grad-scaler-cuda", f"{name}()", call)
        elif literals.device_literal(device) is not None:
            self.claimed_calls.add(call.id)
            self.hit("amp-grad-scaler-cuda", f"{name}({parsing.text(device)})", call)

    def _torch_device(self, call: Node) -> None:
        device = _device_argument(call, "type")
        if device is None:
            return
        if device.type == "integer":
            self.claimed_calls.add(call.id)
            self.hit("integer-device", parsing.text(call), call, f'torch.device("npu:{parsing.text(device)}")')
            return
        literal = literals.device_literal(device)
        if literal is not None:
            self.claimed_calls.add(call.id)
            npu = parsing.text(call).replace(parsing.text(device), literal.npu_text, 1)
            self.hit("torch-device-cuda", parsing.text(call), call, npu)

    def _profiler(self, name: str, call: Node) -> None:
        for keyword in _keywords(call):
            key = parsing.text(keyword.child_by_field_name("name"))
            value = keyword.child_by_field_name("value")
            if (key == "use_cuda" and parsing.text(value) == "True") or (
                key == "use_device" and literals.device_literal(value) is not None
            ):
                self.claimed_calls.add(call.id)
                self.hit("autograd-profiler-use-cuda", f"{name}({parsing.text(keyword)})", call)

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
            if obj is not None and obj.type == "call" and parsing.text(obj.child_by_field_name("function")) == "super":
                return  # an override of Module.cuda forwarding to its parent runs only when a caller asks for CUDA
            device = cuda_method_device.device_argument(call)
            if cuda_method_device.names_a_device(device, self.imports):
                # `.cuda("cuda:0")`: the shim's alias `.npu` takes an index only and raises on a device name
                written = parsing.text(device)
                npu = f".to({written if device.type == 'identifier' else written.replace('cuda', 'npu')})"
                self.claimed_calls.add(call.id)  # a literal written in the call is this item's, not a DEV001 of its own
                self.hit("tensor-cuda-method", f".cuda({parsing.text(device)})", call, npu, auto_when=(),
                         facets=(DEVICE_ARGUMENT,))
                return
            self.hit("tensor-cuda-method", ".cuda()", call, ".npu()")
        elif method_name == "to" and first is not None and first.type == "integer":
            self.hit("integer-device", f".to({parsing.text(first)})", call, f'.to("npu:{parsing.text(first)}")')
        elif method_name in STRING_TESTS and first is not None and literals.device_literal(first) is not None:
            # `str(device).__contains__("cuda")` is `"cuda" in str(device)` spelt as a call: a comparison, not a device
            if not graph_constant_test(attribute.child_by_field_name("object")):  # a TorchScript constant's patch
                self._device_test(parsing.text(call), call)

    def _build_file(self) -> bool:
        return file_role(self.unit.path, load_context_conventions().roles) == "build"

    def _pytorch_arm(self, node: Node) -> tuple[str | None, tuple[str, ...]] | None:
        """(npu, facets) of a CUDA test whose CUDA arm applies an autograd Function and whose else arm runs PyTorch
        code (cuda_arms.pytorch_fallback_arm): NPU tensors take that arm as it is; npu names the NPU operator of what
        the PyTorch function computes, where the kernel classes know one."""
        fallback = pytorch_fallback_arm(node)
        if fallback is None:
            return None
        operator = self.index.kb.classify_kernel(fallback.rsplit(".", 1)[-1]).npu_operator
        return (operator, ("pytorch-arm", "npu-operator")) if operator else (None, ("pytorch-arm",))

    def _member(self, member: Node) -> None:
        attribute = member.parent
        name = parsing.text(member)
        if name == "is_cuda":
            npu, seen = self._pytorch_arm(attribute) or (".is_npu", ())
            self.hit("is-cuda-attribute", ".is_cuda", attribute, npu, facets=seen)
        elif name == "multi_processor_count":
            self.hit("multi-processor-count", ".multi_processor_count", attribute)
        elif self._is_device_properties_call(attribute.child_by_field_name("object")):
            self.hit("cuda-capability-field", f"get_device_properties(...).{name}", attribute)

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
                self.hit("device-map-cuda", parsing.text(keyword), keyword)
        elif key in INTEGER_DEVICE_KWARGS and value.type == "integer":
            self.hit("integer-device", parsing.text(keyword), keyword, f'{key}="npu:{parsing.text(value)}"')

    def _comparison(self, comparison: Node) -> None:
        operators = {parsing.text(op) for op in comparison.children_by_field_name("operators")}
        if not operators & {"==", "!=", "in", "not in"}:
            return
        operands = comparison.named_children
        if any(literals.cuda_literal_in(o) is not None for o in operands) and not any(_mentions_npu(o) for o in operands):
            if selectors.is_selector_test(comparison):
                return  # `impl in ['ref', 'cuda']`: a choice of implementation, not a device test
            if is_key_test(comparison):
                return  # `'cuda' in rng_state_dict`: a key of a mapping the code fills, not a device test
            self._device_test(" ".join(parsing.text(comparison).split()), comparison)

    def _public_name_probe(self, name: str, chain: Node) -> bool:
        """A probe for a public torch.cuda name (the table lists it): torch has it on every build, and transfer_to_npu
        keeps or replaces it, so the answer is the same on the NPU. A probe for anything else (a method of
        torch.cuda.CUDAGraph) may answer differently there, and stays a use."""
        key = existence_probe(chain)
        return key is not None and self.index.kb.cuda_api(f"{name}.{key}") is not None

    def _device_test(self, symbol: str, test: Node) -> None:
        if identical_arms(test):
            return  # `torch.float if device == "cuda" else torch.float`: no device changes what runs
        if provider_names.beside_provider_choice(test):
            return  # `provider_options=... if d == "cuda" else []` beside that provider pick: one finding, there
        arms = fast_path_arms(test)
        if arms is not None:
            self.hit("device-type-fast-path", symbol, test, facets=fast_path_facets(arms, self.imports))
        elif only_fixes_layout(test):
            self.hit("device-type-layout-workaround", symbol, test)
        else:
            found = facets(test, self.imports)
            if feeds_runtime_index(test):
                found = (*found, RUNTIME_INDEX)
            if only_adds_rank_suffix(test):
                found = (*found, RANK_SUFFIX)
            elif passes_setting_through(test):
                found = (*found, INDEX_PASSTHROUGH)
            elif non_cuda_arm_uses_setting(test):
                found = (*found, SETTING_AS_DEVICE)
            named = self._arm_names(test) if CUDA_ARM in found else None
            if named is not None and named[1]:
                found = (*found, SHIM_MAPS_ARM)
            self.hit("device-type-comparison", symbol, test, named[0] if named else None, facets=found)

    def _arm_names(self, test: Node) -> tuple[str, bool] | None:
        """The CUDA-specific names the test's arm uses, each with its torch.npu counterpart (`torch.cuda.set_device
        (torch.npu.set_device)`), and whether every one is a torch.cuda name with a counterpart that transfer_to_npu
        maps it to (its torch.cuda module is torch_npu.npu there)."""
        described, mapped = [], True
        for item in cuda_specifics(test, self.imports)[:MAX_ARM_NAMES]:
            if item.startswith("torch.cuda."):
                name, entry = self.index.cuda_entry(item)
                described.append(f"{name} ({entry.npu})" if entry.npu else f"{name} (no NPU counterpart)")
                # the shim's mapping answers as CUDA's does only where the name's own finding is automatic under it
                # (not get_device_capability, whose NPU answer is None; not a properties object, some of whose fields
                # torch_npu leaves unfilled)
                mapped = (mapped and bool(entry.npu) and not entry.alias and not entry.filled_fields
                          and SHIM in self.index.kb.rules[entry.rule].auto_when)
            else:
                described.append(item)
                mapped = False
        return (", ".join(dict.fromkeys(described)), mapped) if described else None

    def _string(self, node: Node) -> None:
        literal = literals.device_literal(node)
        if literal is None or literals.is_docstring(literal.node) or literals.in_annotation(literal.node):
            return  # an annotation's "cuda" is a type, never a device
        table = literals.device_table(literal.node) if not literal.formatted else None
        if table is not None:
            if npu_extended.extended_with_npu(table):
                return  # `dp_factory['npu'] = NPUDataParallel` in the same scope: the table serves the NPU
            self.hit("device-list", " ".join(parsing.text(table).split())[:80], table, _with_npu_entry(table, literal.node))
            return
        if literals.is_lookup_key(literal.node) or (not literal.formatted and self._names_a_path(literal.node)):
            return
        if literals.is_message_argument(literal.node) or self._claimed(literal.node):
            return
        if literals.already_npu_aware(literal.node) or literals.names_device_family(literal.node):
            return
        if not literal.formatted and literals.build_flavour(literal.node):
            return  # `("cuda", "hip", "vulkan")`, `return "metal"` ... `return "cuda"`: a build's name, not a device
        if literals.inside(literal.node, {"comparison_operator"}) is not None:
            return
        keyword = literal.node.parent
        if keyword is not None and keyword.type == "keyword_argument":
            key = parsing.text(keyword.child_by_field_name("name"))
            if key == "device_map":
                return  # reported by the device-map rule
        call = literals.inside(literal.node, {"call"})
        if call is not None and _method_name(call) in {*STRING_TESTS, "endswith"}:
            return
        collection = literals.device_collection(literal.node) if not literal.formatted else None
        if collection is not None:
            if npu_extended.extended_with_npu(collection):
                return
            text = parsing.text(collection)
            quote = '"' if parsing.text(literal.node).startswith('"') else "'"
            self.hit("device-list", text, collection, f"{text[:-1].rstrip().rstrip(',')}, {quote}npu{quote}{text[-1]}")
            return
        if not literal.formatted and selectors.is_selector_value(literal.node):
            return  # `impl='cuda'` beside `assert impl in ['ref', 'cuda']`: an implementation's name, not a device
        detector = "device-string-formatted" if literal.formatted else "device-string"
        runtime = own_runtimes.own_runtime_of(literal.node, self.imports)
        if runtime is not None:  # faster-whisper's CTranslate2 device: not torch's, and no NPU device there
            quote = '"' if parsing.text(literal.node).endswith('"') else "'"
            self.hit("own-runtime-device", parsing.text(literal.node), literal.node,
                     f"{quote}{runtime.npu_device}{quote} ({runtime.runtime} takes {', '.join(runtime.devices)})")
            return
        if not literal.formatted and provider_names.names_runtime_provider(literal.node):
            # `onnx_provider = kwargs.get("onnx_provider", "cuda")` read only to pick CUDAExecutionProvider
            self.hit(detector, parsing.text(literal.node), literal.node, literal.npu_text, auto_when=(),
                     facets=(RUNTIME_PROVIDER,))
            return
        if cuda_method_device.only_cuda_method_argument(literal.node):
            # `device = f"cuda:{rank}"` read only by `.cuda(device)`: no wrapped API ever rewrites it
            self.hit(detector, parsing.text(literal.node), literal.node, literal.npu_text, auto_when=(),
                     facets=(DEVICE_ARGUMENT,))
            return
        self.hit(detector, parsing.text(literal.node), literal.node, literal.npu_text,
                  auto_when=self._callee_capabilities(literal.node), facets=self._amp_decorator(literal.node))

    def _amp_decorator(self, node: Node) -> tuple[str, ...]:
        """`torch.amp.custom_fwd(device_type="cuda")`: the decorator reads CUDA's autocast state, not the NPU's."""
        parent = node.parent
        if parent is None or parent.type != "keyword_argument" or parsing.text(parent.child_by_field_name("name")) != "device_type":
            return ()
        call = parent.parent.parent if parent.parent is not None else None
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is None or function.type not in {"identifier", "attribute"}:
            return ()
        return (AMP_DECORATOR,) if qualified_name(function, self.imports) in AMP_DECORATOR_CALLS else ()

    def _names_a_path(self, node: Node) -> bool:
        """`os.path.join(root, "cuda", "*.cu")`, `Path(root) / "cuda"`, `sources=["cuda"]`: a folder or file named
        cuda (a kernel's source folder), not a device (the path data of knowledge/context/conventions.toml)."""
        parent = node.parent
        if parent is not None and parent.type == "binary_operator" and parent.child_by_field_name("operator") is not None \
                and parsing.text(parent.child_by_field_name("operator")) == "/":
            return True  # a string on either side of `/` is a path part: str / str is no Python
        if parent is not None and parent.type in {"list", "tuple"}:
            parent = parent.parent  # `sources=[..., "cuda"]`
        backends = load_context_conventions().backends
        if parent is not None and parent.type == "keyword_argument":
            if parsing.text(parent.child_by_field_name("name")) in backends.path_keywords:
                return True
            parent = parent.parent
        if parent is None or parent.type != "argument_list" or parent.parent is None:
            return False
        function = parent.parent.child_by_field_name("function")
        if function is None:
            return False
        if function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) in backends.path_methods:
            return True
        return qualified_name(function, self.imports) in backends.path_calls

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



def _counts_launched_processes(unit: Unit) -> bool:
    """A `python -c` string whose printed value a script passes to a launcher as its process count, in an interpreter
    without transfer_to_npu (domains/shell_python.py)."""
    return (unit.embedded is not None and unit.embedded.use == "process_count"
            and "transfer_to_npu" not in unit.source.text)


def _mentions_npu(operand: Node) -> bool:
    if operand.type == "string":
        return literals.names_npu(operand)
    return operand.type in {"tuple", "list", "set"} and any(literals.names_npu(c) for c in operand.named_children)


def _keywords(call: Node) -> list[Node]:
    args = call.child_by_field_name("arguments")
    return [c for c in args.named_children if c.type == "keyword_argument"] if args is not None else []


def _device_argument(call: Node, keyword: str) -> Node | None:
    """The first positional argument, or the named one."""
    return argument(call, 0, keyword)


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


class DevicePythonScanner(PythonDomainScanner):
    domain = "device"
    triggers = (
        "cuda", "CUDA", "cudnn", "CUDNN", "CUBLAS", "NVIDIA", "NVTE", "nvtx", "compile", "jit", "_dynamo",
        "device", ".to(", "GradScaler", "multi_processor_count", "profiler", "Fabric", "Trainer",
    )
    scan_class = _FileScan


def _with_npu_entry(table: Node, key: Node) -> str:
    """The dispatch table with an `"npu"` row added after its last entry, its value left to fill (`...`): the gap is
    the missing row, not the `cuda` one. A table too long to show gets the row alone, as a comment."""
    quote = '"' if parsing.text(key).startswith('"') else "'"
    row = f"{quote}npu{quote}: ..."
    text = " ".join(parsing.text(table).split())
    if len(text) > 200 or not text.endswith("}"):
        return f"# add to the table: {row}"
    body = text[:-1].rstrip().rstrip(",")
    return f"{body}, {row}}}"



RANK_SUFFIX = "rank-suffix"  # DEV007's facet: the test's arm only appends ":<rank>" to the compared device name
INDEX_PASSTHROUGH = "index-passthrough"  # DEV007's: `f"{d}:{i}" if d == "cuda" else d`, only the index is lost
SETTING_AS_DEVICE = "setting-as-device"  # DEV007's: `if d != "cuda": device_map = {"": d}`, "npu" is placed as given
AMP_DECORATOR_NAMES = frozenset({"torch.cuda.amp.custom_fwd", "torch.cuda.amp.custom_bwd"})
FILLED_FIELDS = "filled-fields"  # every field read from the result is one torch_npu fills (DEV121's info variant)


def _fields_read(call: Node) -> set[str] | None:
    """The attributes read from what `call` returns: `f(...).total_memory`, or `props = f(...)` whose every later use
    in the scope is `props.X`; None where the value goes anywhere else (returned, handed on, stored on an object)."""
    parent = call.parent
    if parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == call:
        return {parsing.text(parent.child_by_field_name("attribute"))}
    if parent is None or parent.type != "assignment" or parent.child_by_field_name("right") != call:
        return None
    binding = parsing.named_binding(parent)
    if binding is None:
        return None
    name, scope = binding
    fields: set[str] = set()
    for node in parsing.walk(scope, limit=20_000):
        if node.type == "identifier" and node.start_byte >= parent.end_byte and parsing.text(node) == name:
            holder = node.parent
            if holder is None or holder.type != "attribute" or holder.child_by_field_name("object") != node:
                return None
            fields.add(parsing.text(holder.child_by_field_name("attribute")))
    return fields or None


CONFIG_ACCESSORS = frozenset({"getattr", "hasattr", "setattr"})


def _neutral_config_access(module: Node) -> bool:
    """`getattr(torch._dynamo.config, "recompile_limit", 8)` (or hasattr, setattr): the config module handed to an
    accessor with a literal key that is no CUDA-graph or Triton setting (judged as `torch._dynamo.config.<key>`)."""
    arguments = module.parent
    call = arguments.parent if arguments is not None and arguments.type == "argument_list" else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    if function is None or parsing.text(function) not in CONFIG_ACCESSORS:
        return False
    given = arguments.named_children
    if len(given) < 2 or given[0] != module or given[1].type != "string":
        return False
    key = parsing.text(given[1]).strip("'\"")
    return key.isidentifier() and not _cuda_backend_setting(DYNAMO_CONFIG + key, None)


def _cuda_backend_setting(name: str, call: Node | None) -> bool:
    """Is this `torch._dynamo.config` key (or a `config.patch(...)`'s keys) a CUDA-graph or Triton setting?"""
    keys = [name[len(DYNAMO_CONFIG):]]
    if keys[0] == "patch" and call is not None:
        arguments = call.child_by_field_name("arguments")
        keys = [parsing.text(a) for a in (arguments.named_children if arguments is not None else [])]
    return any(part in key.lower() for key in keys for part in CUDA_BACKEND_KEY_PARTS)


def _accelerator_word(value: Node) -> str | None:
    """The accelerator a string literal names, lower-cased ("gpu"); None for anything else."""
    return literals.string_parts(value)[1].strip().lower() if value.type == "string" else None
