"""Does a call that selects SDPA backends ask for PyTorch's math path only?

torch_npu's SDPA does not pick its kernel by torch.backends.cuda's flags (op-plugin
op_plugin/ops/opapi/ScaledDotProductAttentionKernelNpuOpApi.cpp): it runs the fused kernel where the inputs fit and
the math path otherwise. The one selection it honours (the 26.1.0 line, after torch_npu.npu.use_compatible_impl(True))
is math on with flash off. So a switch is worth more than a note only where the project asks for the math path, which
the NPU then silently replaces by its fused kernel:

- `torch.backends.cuda.sdp_kernel(enable_flash=False, enable_mem_efficient=False)` (math left on, its default);
- `torch.nn.attention.sdpa_kernel(SDPBackend.MATH)`, or a list of backends holding only MATH;
- `torch.backends.cuda.enable_flash_sdp(False)` where the same unit also turns the memory-efficient path off and
  never turns math off (diffusers scripts/convert_amused.py: flash off, mem-efficient off, math on).

Only literal arguments are read: a selection computed elsewhere (`sdp_kernel(**BACKEND_MAP[name])`) is no request
the code shows."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from tree_sitter import Node

SDP_KERNEL = "torch.backends.cuda.sdp_kernel"
SDPA_KERNEL = "torch.nn.attention.sdpa_kernel"
ENABLE_FLASH = "torch.backends.cuda.enable_flash_sdp"
ENABLE_MEM_EFFICIENT = "torch.backends.cuda.enable_mem_efficient_sdp"
ENABLE_MATH = "torch.backends.cuda.enable_math_sdp"
SELECTORS = frozenset({SDP_KERNEL, SDPA_KERNEL, ENABLE_FLASH})
SWITCHES = frozenset({ENABLE_FLASH, ENABLE_MEM_EFFICIENT, ENABLE_MATH})
SDP_KERNEL_PARAMS = ("enable_flash", "enable_math", "enable_mem_efficient", "enable_cudnn")


def switch_values(calls: list[tuple[str, Node]]) -> set[tuple[str, str]]:
    """(name, literal first argument) of the unit's enable_*_sdp calls: `(ENABLE_MATH, "False")`."""
    values = set()
    for name, call in calls:
        if name not in SWITCHES:
            continue
        first = _argument(call, 0, "enabled")
        if first is not None:
            values.add((name, parsing.text(first)))
    return values


def asks_for_math(name: str, call: Node, imports, switches: set[tuple[str, str]]) -> bool:
    if name == SDP_KERNEL:
        values = {p: _argument(call, i, p) for i, p in enumerate(SDP_KERNEL_PARAMS)}
        literal = {p: parsing.text(v) for p, v in values.items() if v is not None}
        return (literal.get("enable_flash") == "False" and literal.get("enable_mem_efficient") == "False"
                and literal.get("enable_math", "True") != "False")
    if name == SDPA_KERNEL:
        backends = _argument(call, 0, "backends")
        if backends is None:
            return False
        items = backends.named_children if backends.type in {"list", "tuple"} else [backends]
        return bool(items) and all(_is_math_backend(item, imports) for item in items)
    if name == ENABLE_FLASH:
        first = _argument(call, 0, "enabled")
        return (first is not None and parsing.text(first) == "False" and (ENABLE_MEM_EFFICIENT, "False") in switches
                and (ENABLE_MATH, "False") not in switches)
    return False


def _is_math_backend(node: Node, imports) -> bool:
    if node.type not in {"attribute", "identifier"}:
        return False
    name = qualified_name(node, imports) or parsing.text(node)
    return name.endswith("SDPBackend.MATH")


def _argument(call: Node, position: int, keyword: str) -> Node | None:
    args = call.child_by_field_name("arguments")
    if args is None:
        return None
    positional = [a for a in args.named_children if a.type not in {"keyword_argument", "comment"}]
    for arg in args.named_children:
        if arg.type == "keyword_argument" and parsing.text(arg.child_by_field_name("name")) == keyword:
            return arg.child_by_field_name("value")
    if any(a.type in {"list_splat", "dictionary_splat"} for a in args.named_children):
        return None
    return positional[position] if position < len(positional) else None
