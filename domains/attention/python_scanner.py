"""The attention domain over Python: flash-attn 2/3, xformers, SDPA and its backend switches, Hugging Face
attention selection and availability gates, sequence-parallel attention libraries, hand-written attention.

Each flash-attn/xformers call is placed in a context — inference (inside no_grad/inference_mode, or a file
that only generates) or training — because the NPU replacement differs: training needs an operator with a
backward, npu_fusion_attention; inference can use the incremental/prompt operators."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.guards import only_raises
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.attention import sdp_selection
from ascend_feasibility.domains.attention.allowed_values import in_allowed_values
from ascend_feasibility.domains.attention.attn_tables import (
    IMPORTS_FOR_TABLE,
    TRANSFORMERS_TABLE,
    import_only_gate,
    in_transformers_table,
)
from ascend_feasibility.domains.attention.bias_kind import bias_facet
from ascend_feasibility.domains.attention.facts import AttentionFacts, AttentionSelection
from ascend_feasibility.domains.attention.loader_defaults import reaches_loader
from ascend_feasibility.domains.attention.no_autograd import no_autograd_facet
from ascend_feasibility.domains.attention.qkv_rank import QKV_3D, rank_facet
from ascend_feasibility.domains.attention.result_use import OUTPUT_ONLY, output_facet
from ascend_feasibility.domains.attention.sdpa_mask import MASK_WITHIN_LIMITS, mask_facet
from ascend_feasibility.domains.base import Hit, Unit, code_context
from ascend_feasibility.domains.device import literals
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, Reference, unit_references
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

IMPLEMENTATION_QUERY = r"""
((string) @attn_impl (#match? @attn_impl "flash_attention_[23]"))
(keyword_argument name: (identifier) @fa2_keyword (#eq? @fa2_keyword "use_flash_attention_2"))
"""
SOFTMAX_QUERY = r"""
((call function: (attribute attribute: (identifier) @softmax)) (#eq? @softmax "softmax"))
((call function: (identifier) @softmax) (#eq? @softmax "softmax"))
"""
QUERY = r"""
(try_statement) @try
(import_statement name: (dotted_name) @imported_module)
(import_statement name: (aliased_import name: (dotted_name) @imported_module))
(import_from_statement module_name: (dotted_name) @imported_module)
"""

# library methods that switch a model onto xformers (diffusers' enable_xformers_memory_efficient_attention;
# knowledge/context/conventions.toml opt_in.library_hooks), called as a method of any object
LIBRARY_HOOKS = tuple(sorted(load_context_conventions().opt_in.library_hooks))
HOOK_QUERY = "((call function: (attribute attribute: (identifier) @library_hook)) (#any-of? @library_hook {}))".format(
    " ".join(f'"{name}"' for name in LIBRARY_HOOKS))
GATED_MODULES = ("flash_attn", "flash_attn_interface", "xformers")
SEQUENCE_PARALLEL_MODULES = ("yunchang", "ring_flash_attn")
INFERENCE_CONTEXTS = ("no_grad", "inference_mode")
MATMUL_CALLS = ("matmul", "bmm", "einsum", "baddbmm")
HF_LOADERS = ("from_pretrained", "from_config")  # Hugging Face loaders: their attn_implementation is transformers'


class _AttentionScan(PythonScan):
    QUERY = QUERY
    GATED = ((("flash_attention_",), IMPLEMENTATION_QUERY), (("softmax",), SOFTMAX_QUERY), (LIBRARY_HOOKS, HOOK_QUERY))

    def __init__(self, index: RuleIndex, unit: Unit) -> None:
        super().__init__(index, unit)
        self.file_context = code_context(unit.source.text)
        self.facts = AttentionFacts()
        unit.cache["attention"] = self.facts

    def run(self) -> list[Hit]:
        found = self.captures()
        gated = set()
        for node in found.get("try", []):
            gated.update(self._import_gate(node))
        references = unit_references(self.unit)
        switches = sdp_selection.switch_values([(r.name, r.call) for r in references if r.call is not None])
        for reference in references:
            self._reference(reference, switches)
        for node in found.get("attn_impl", []):
            self._attn_implementation(node)
        for node in found.get("fa2_keyword", []):  # the older from_pretrained(..., use_flash_attention_2=True)
            if _asks_for_flash(node.parent.child_by_field_name("value")):
                self.hit("hf-flash-attention-implementation", "use_flash_attention_2=True", node.parent,
                         "attn_implementation=\"sdpa\"")
        for node in found.get("softmax", []):
            self._manual_attention(node)
        for node in found.get("library_hook", []):  # `unet.enable_xformers_memory_efficient_attention()`
            if not _forwards_hook(node):
                self.hit("xformers-enable-call", parsing.text(node), node.parent.parent)
        seen_modules = set()
        for node in found.get("imported_module", []):
            module = "".join(parsing.text(node).split()).split(".")[0]
            if module in SEQUENCE_PARALLEL_MODULES and module not in seen_modules:
                seen_modules.add(module)
                self.hit("sequence-parallel-attention", module, node.parent)
        return self.hits

    def _reference(self, reference: Reference, switches: set[tuple[str, str]]) -> None:
        if (reference.call is not None and reference.name in sdp_selection.SELECTORS
                and sdp_selection.asks_for_math(reference.name, reference.call, self.imports, switches)
                and not _condition_mentions_npu(reference.node)):
            facet = no_autograd_facet(reference.node, self.imports)  # no backward can need the math path
            self.hit("sdp-math-request", reference.name, reference.node, facets=(facet,) if facet else ())
            return
        match = self.index.match_name(reference.name)
        if match is None:
            return
        code, name = match
        rule = self.index.kb.rules[code]
        if rule.match.calls_only and reference.call is None:
            return  # `find_nodes(target=F.scaled_dot_product_attention)` names the function, calls nothing
        if rule.match.qualified_names and _condition_mentions_npu(reference.node):
            return  # `if is_flash_attn_2_available() or is_torch_npu_available():` already handles Ascend
        if rule.match.qualified_names and _gate_rebound_for_npu(reference.node):
            return  # `if is_npu_available: from ...npu_flash_attention import npu_flash_attn_func as flash_attn_func`
        context = self._context(reference.node) if rule.replacement_inference is not None else None
        facet, lengths = bias_facet(reference.call, self.imports) \
            if reference.call is not None and rule.replacement is not None and "attn_bias" in rule.replacement.params \
            else (None, None)
        if facet is None and reference.call is not None and any(v.when == [OUTPUT_ONLY] for v in rule.variants):
            facet = output_facet(reference.call)  # flash-attn's private forward whose LSE is never kept
        if facet is None and reference.call is not None and any(v.when == [MASK_WITHIN_LIMITS] for v in rule.variants):
            facet = mask_facet(reference.call)  # an SDPA call with no mask or a boolean one: nothing to change
        facets = (facet,) if facet else ()
        if reference.call is not None and any(QKV_3D in v.when for v in rule.variants):
            facets += tuple(f for f in (rank_facet(reference.call),) if f)  # q/k/v reshaped to 3-D above the call
        if any(IMPORTS_FOR_TABLE in v.when for v in rule.variants) and import_only_gate(reference.node):
            facets += (IMPORTS_FOR_TABLE,)  # `if is_flash_attn_2_available(): from flash_attn import ...` beside
            # `ATTENTION_CLASSES[config._attn_implementation]`: transformers' choice, sdpa by default, decides
        self.hit(code, name, reference.node, lengths, context=context, facets=facets)

    def _context(self, node: Node) -> str | None:
        current = node.parent
        while current is not None:
            if current.type == "with_statement" and any(t in parsing.text(current.child(1)) for t in INFERENCE_CONTEXTS):
                return "inference"
            if current.type == "decorated_definition":
                decorators = [parsing.text(d) for d in current.named_children if d.type == "decorator"]
                if any(t in d for d in decorators for t in INFERENCE_CONTEXTS):
                    return "inference"
            current = current.parent
        return self.file_context

    def _import_gate(self, node: Node) -> list[int]:
        """`try: import flash_attn ... except ImportError:` — the CUDA path is silently skipped on NPU."""
        body = node.child_by_field_name("body")
        handlers = [c for c in node.children if c.type == "except_clause"]
        if body is None or not handlers or all(only_raises(h) for h in handlers):
            return []  # an except that raises again is no gate: the import is required (and fails on Ascend)
        for statement in body.named_children:
            if statement.type not in {"import_statement", "import_from_statement"}:
                continue
            module = parsing.text(statement).split()[1].split(".")[0]
            if module in GATED_MODULES:
                self.hit("attention-import-gate", module, statement)
                return [statement.id]
        return []

    def _attn_implementation(self, node: Node) -> None:
        prefix, inner = literals.string_parts(node)
        if inner not in {"flash_attention_2", "flash_attention_3"} or literals.is_docstring(node):
            return
        if literals.is_message_argument(node) or literals.inside(node, {"comparison_operator"}) is not None:
            return
        if in_allowed_values(node):  # `valid = [None, "flash_attention_2", "sdpa"]` read only by `x not in valid`
            return
        # a default a Hugging Face loader receives: `def load(..., attn_implementation="flash_attention_2")` or a
        # dataclass field whose `args.attn_implementation` a `from_pretrained` call of the file passes
        to_loader = reaches_loader(node, self._loader_call)
        if not to_loader and (_in_type_literal(node) or _is_class_constant(node) or _in_translation_table(node)):
            return  # Literal["sdpa", "flash_attention_2"] annotations, enum members and name tables only name the option
        if _registry_key(node):  # {"flash_attention_2": flash_attention_forward, "sdpa": ...}: the project's own table
            self.facts.registry_keys.append(inner)
            self.hit("attention-registry-key", inner, node,
                     facets=(TRANSFORMERS_TABLE,) if in_transformers_table(node) else ())
            return
        if not to_loader and not self._reaches_transformers(node):  # may select the project's own registry entry
            self.facts.selections.append(AttentionSelection(self.unit.path, node.start_point.row + 1, inner))
        self.hit("hf-flash-attention-implementation", inner, node, "\"sdpa\"")

    def _reaches_transformers(self, node: Node) -> bool:
        """Is the string an argument of a call into transformers (`from_pretrained(..., attn_implementation=...)`,
        `transformers.AutoConfig(...)`)? A call of a project's own config class, an assignment or a default may name
        the project's own attention registry instead."""
        call = literals.inside(node, {"call"})
        return call is not None and self._loader_call(call)

    def _loader_call(self, call: Node) -> bool:
        """A Hugging Face loader (`X.from_pretrained`, `X.from_config`) or any callee of transformers."""
        function = call.child_by_field_name("function")
        if function is None:
            return False
        if function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) in HF_LOADERS:
            return True
        name = qualified_name(function, self.imports) if function.type in {"identifier", "attribute"} else None
        return name is not None and name.split(".")[0] == "transformers"

    def _manual_attention(self, name: Node) -> None:
        method = name.parent.type == "attribute"
        call = name.parent.parent if method else name.parent
        args = call.child_by_field_name("arguments")
        candidates = [args.named_children[0]] if args is not None and args.named_children else []
        if method:  # (q @ k.transpose(-2, -1)).softmax(dim=-1)
            candidates.append(name.parent.child_by_field_name("object"))
        if not any(c is not None and _is_qk_product(c) for c in candidates):
            return
        self.hit("manual-attention", " ".join(parsing.text(call).split())[:80], call)


def _asks_for_flash(value: Node | None) -> bool:
    """`use_flash_attention_2=True`, or a parameter of the enclosing function whose default is True passed on as it
    (`def __init__(..., use_flash_attention_2: bool = True)` then `super().__init__(...,
    use_flash_attention_2=use_flash_attention_2)` or `from_pretrained(..., use_flash_attention_2=use_flash_attention_2
    if not self.inference_mode else False)`): the default reaches the loader, so a call that passes nothing asks for
    flash-attn. A parameter without a default, or defaulting to False, is the caller's choice."""
    if value is None:
        return False
    if value.type == "true":
        return True
    if value.type == "conditional_expression":
        branches = [value.named_children[i] for i in (0, 2) if len(value.named_children) > i]
        return any(_asks_for_flash(b) for b in branches)
    if value.type != "identifier":
        return False
    function = literals.inside(value, {"function_definition"}, stop={"module", "class_definition"})
    parameters = function.child_by_field_name("parameters") if function is not None else None
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type in {"default_parameter", "typed_default_parameter"}:
            name, default = parameter.child_by_field_name("name"), parameter.child_by_field_name("value")
            if name is not None and parsing.text(name) == parsing.text(value):
                return default is not None and default.type == "true"
    return False


def _forwards_hook(name: Node) -> bool:
    """A hook call inside a method of the same name (diffusers' combined pipelines: `def
    enable_xformers_memory_efficient_attention(self, op): self.decoder_pipe.enable_xformers_memory_efficient_attention(op)`):
    the hook passing its caller's opt-in on, which the call of the outer method decides."""
    function = parsing.enclosing(name, {"function_definition"})
    outer = function.child_by_field_name("name") if function is not None else None
    return outer is not None and parsing.text(outer) == parsing.text(name)


def _registry_key(node: Node) -> bool:
    """The key of a dict entry whose value is code, not data: a function, a lambda or a call (a dispatch table)."""
    pair = node.parent
    if pair is None or pair.type != "pair" or pair.child_by_field_name("key") is None or pair.child_by_field_name("key").id != node.id:
        return False
    value = pair.child_by_field_name("value")
    return value is not None and value.type in {"identifier", "attribute", "lambda", "call"}


def _condition_mentions_npu(node: Node) -> bool:
    current = node.parent
    while current is not None and current.type not in {"block", "module"}:
        if current.type in {"if_statement", "conditional_expression", "boolean_operator"}:
            condition = current.child_by_field_name("condition") or current
            return "npu" in parsing.text(condition).lower()
        current = current.parent
    return False


def _gate_rebound_for_npu(node: Node) -> bool:
    """Is `node` in the condition of an `if` whose body imports names that a later `if` on an NPU condition, in
    the same block, imports again (verl's `if is_flash_attn_2_available(): from flash_attn import flash_attn_func`
    then `if is_npu_available: from transformers.integrations.npu_flash_attention import npu_flash_attn_func as
    flash_attn_func`)? On Ascend the NPU import binds the names, so the gate is already ported."""
    current, statement = node.parent, None
    while current is not None and current.type not in {"block", "module"}:
        if current.type == "if_statement":
            condition = current.child_by_field_name("condition")
            if condition is not None and condition.start_byte <= node.start_byte and node.end_byte <= condition.end_byte:
                statement = current
            break
        current = current.parent
    if statement is None:
        return False
    gated = _imported_names(statement.child_by_field_name("consequence"))
    sibling = statement.next_named_sibling
    while gated and sibling is not None:
        if sibling.type == "if_statement":
            condition = sibling.child_by_field_name("condition")
            if condition is not None and "npu" in parsing.text(condition).lower():
                if gated & _imported_names(sibling.child_by_field_name("consequence")):
                    return True
        sibling = sibling.next_named_sibling
    return False


def _imported_names(block: Node | None) -> set[str]:
    """The names the import statements directly in `block` bind."""
    names: set[str] = set()
    for statement in block.named_children if block is not None else []:
        if statement.type != "import_from_statement":
            continue
        for child in statement.children_by_field_name("name"):
            alias = child.child_by_field_name("alias") if child.type == "aliased_import" else None
            names.add(parsing.text(alias if alias is not None else child).split(".")[-1])
    return names


def _in_type_literal(node: Node) -> bool:
    current = node.parent
    while current is not None and current.type not in {"block", "module"}:
        if current.type == "type":  # any annotation
            return True
        if current.type == "subscript" and parsing.text(current.child_by_field_name("value")).endswith("Literal"):
            return True
        current = current.parent
    return False


PORTABLE_IMPLEMENTATIONS = frozenset({"sdpa", "eager"})


def _in_translation_table(node: Node) -> bool:
    """`{Backend.flash_2: "flash_attention_2", Backend.torch: "sdpa"}` (open-instruct's _OLMO_CORE_TO_HF_ATTN): a
    value of a dict that also maps a key to "sdpa" or "eager" translates one naming of the options into
    transformers' names; whatever picks the key makes the choice (and is reported where it names flash-attn)."""
    pair = node.parent
    if pair is None or pair.type != "pair" or pair.child_by_field_name("value") != node:
        return False
    table = pair.parent
    if table is None or table.type != "dictionary":
        return False
    for other in table.named_children:
        value = other.child_by_field_name("value") if other.type == "pair" else None
        if value is not None and value.type == "string" and literals.string_parts(value)[1] in PORTABLE_IMPLEMENTATIONS:
            return True
    return False


def _is_class_constant(node: Node) -> bool:
    assignment = node.parent
    if assignment is None or assignment.type != "assignment":
        return False
    block = assignment.parent.parent if assignment.parent is not None else None
    return block is not None and block.type == "block" and block.parent is not None and block.parent.type == "class_definition"


def _is_qk_product(node: Node) -> bool:
    """A matmul against a transposed operand somewhere in the softmax input: q @ k.transpose(-2, -1)."""
    for current in parsing.walk(node):
        if current.type == "binary_operator" and parsing.text(current.child_by_field_name("operator")) == "@":
            right = parsing.text(current.child_by_field_name("right"))
            if "transpose" in right or right.endswith((".T", ".mT")) or ".permute(" in right:
                return True
        if current.type == "call":
            function = parsing.text(current.child_by_field_name("function"))
            if function.rsplit(".", 1)[-1] in MATMUL_CALLS and "transpose" in parsing.text(current):
                return True
            if function.rsplit(".", 1)[-1] == "einsum" and "->" in parsing.text(current):
                return True
    return False


class AttentionPythonScanner(PythonDomainScanner):
    domain = "attention"
    triggers = ("flash_attn", "xformers", "scaled_dot_product_attention", "sdp", "attn_implementation",
                "flash_attention", "softmax", "yunchang", "ring_flash_attn")
    scan_class = _AttentionScan

