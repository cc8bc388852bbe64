"""A replacement's code keeps the call's meaning: rendered from the call's own arguments (analyzer/core/
replacement_code.py), every argument the call passes is in the snippet or the finding says why not, and the snippet
names no variable the call did not have. The property runs every flagged example of every rule with a code
replacement, at the default release and inside each of its release variants (the facts of issue 24 are in
tests/test_kb_release_facts.py)."""

from __future__ import annotations

import ast
import re

import pytest
from ascend_feasibility.analyzer.core import replacement_code
from ascend_feasibility.analyzer.core.findings import in_range
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.knowledge import availability, load_knowledge
from ascend_feasibility.knowledge.models import PLACEHOLDER

from tests.helpers import analyze_snippet_project, scan

KB = load_knowledge()
import builtins

ALLOWED_ROOTS = {"torch", "torch_npu", "math"} | set(dir(builtins))
LITERALS = {"true", "false", "none", "string", "integer", "float"}


def _replacements(rule):
    found = [rule.replacement, rule.replacement_inference]
    found += [r for v in rule.at_release for r in (v.replacement, v.replacement_inference)]
    found += [r for v in rule.variants for r in (v.replacement, v.replacement_inference)]  # a site variant's code (the bias kind read at the site)
    return [r for r in found if r is not None]


def _has_code(rule) -> bool:
    shapes = [s for r in _replacements(rule) for s in (r, *r.shapes)]
    if rule.match.detector == "package-call":
        shapes += [c for p in KB.packages.values() for c in p.calls]
    return any(s.code for s in shapes)


def _targets(rule) -> list[str]:
    """The default release and, per release variant, the newest release inside its range."""
    targets = [KB.default_release]
    for variant in rule.at_release:
        inside = [r for r in KB.releases if in_range(variant, r)]
        assert inside, f"{rule.code}: a release variant whose range holds no release of the table"
        targets.append(max(inside, key=lambda r: availability.line_key(availability.line_of(r.branch))).torch_npu)
    return targets


CODE_RULES = [rule for rule in KB.rules.values() if _has_code(rule)]
CASES = [
    pytest.param(rule.code, group.language, snippet, target, id=f"{rule.code}-{group.language}-{i}-{target}")
    for rule in CODE_RULES
    for group in rule.examples
    for i, snippet in enumerate(case.code for case in group.invalid)
    for target in _targets(rule)
]


def _findings(code: str, language: str, snippet: str, target: str):
    if KB.rules[code].domain == "dependencies" and language != "python":
        return [f for f in analyze_snippet_project(snippet, language).findings if f.rule == code]
    return [f for f in scan(snippet, language, target).findings if f.rule == code]


def _site_node(root, finding):
    start = (finding.line - 1, finding.column - 1)
    end = (finding.end_line - 1, finding.end_column - 1)
    return root.descendant_for_point_range(start, end)


KEYWORD_FRAGMENT = re.compile(r"^[A-Za-z_]\w*=[^=]")


def _identifiers(node) -> set[str]:
    """Names a piece of code reads: identifiers that are no attribute field, keyword name or lambda parameter."""
    names, bound, stack = set(), set(), [node]
    while stack:
        current = stack.pop()
        parent = current.parent
        if current.type == "lambda_parameters":
            bound.update(parsing.text(c) for c in current.named_children)
            continue
        if current.type == "identifier":
            if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == current:
                continue
            if parent is not None and parent.type == "keyword_argument" and parent.child_by_field_name("name") == current:
                continue
            names.add(parsing.text(current))
        stack.extend(current.named_children)
    return names - bound


def _shapes(rule, symbol: str):
    shapes = [r.shape_for(symbol) for r in _replacements(rule)]
    if rule.match.detector == "package-call":
        shapes += [c for p in KB.packages.values() for c in p.calls if symbol in c.names]
    return shapes


NPU_PROBE = "npu_text_of_the_finding"


def _renders(shape, site, symbol: str, rendered: str) -> bool:
    """Does this shape give the rendered code? The finding does not carry the `{npu}` text its rule filled in (a
    site variant's cumulative lengths), so a shape using it matches around that part."""
    if replacement_code.render(shape, site, symbol, None).code == rendered:
        return True
    probe = replacement_code.render(shape, site, symbol, NPU_PROBE).code  # an identifier: the code still folds
    if not probe or NPU_PROBE not in probe:
        return False
    head, _, tail = probe.partition(NPU_PROBE)
    return rendered.startswith(head) and rendered.endswith(tail) and len(rendered) >= len(head) + len(tail)


def _whole_call(parsed) -> bool:
    """Is the rendered code an expression that calls (a whole call rewritten), not a piece (a literal, a keyword)?"""
    statement = parsed.named_children[0] if parsed.named_children else None
    expression = statement.named_children[0] if statement is not None and statement.named_children else None
    return expression is not None and expression.type in {"call", "subscript", "conditional_expression"}


def _callee_only(code: str) -> bool:
    """A bare dotted name (`torch.npu.manual_seed_all`): it replaces the callee, the arguments stay where they are."""
    return all(part.isidentifier() for part in code.split("."))


def _literal(text: str) -> bool:
    parsed = parsing.parse("python", text.encode("utf-8"))
    statement = parsed.named_children[0] if parsed.named_children else None
    expression = statement.named_children[0] if statement is not None and statement.named_children else None
    return expression is not None and expression.type in LITERALS


@pytest.mark.parametrize("code, language, snippet, target", CASES)
def test_rendered_code_keeps_every_argument_and_names_only_the_calls_variables(code, language, snippet, target):
    findings = _findings(code, language, snippet, target)
    assert findings, f"{code} should flag its own example at {target}:\n{snippet}"
    rule = KB.rules[code]
    for finding in findings:
        rendered = finding.replacement.code
        if rendered is None:
            continue
        own = {name for shape in _shapes(rule, finding.symbol) for name in shape.params} | {"npu", "symbol", "rest", "assigned", "receiver"}
        assert not own & set(PLACEHOLDER.findall(rendered)) and "[?" not in rendered and "[!" not in rendered, rendered
        if language != "python" or rule.match.env_vars or _callee_only(rendered) or rendered.startswith(("from ", "import ")):
            continue
        root = parsing.parse("python", snippet.encode("utf-8"))
        node = _site_node(root, finding)
        site = replacement_code.python_site(node)
        text = ("x" + rendered) if rendered.startswith(".") else rendered
        parsed = parsing.parse("python", text.encode("utf-8"))
        assert not parsed.has_error, f"{code}: rendered code does not parse: {rendered}"
        try:  # CPython's own parser: tree-sitter accepts a positional argument after a keyword (`f(dtype=x, y)`)
            ast.parse(text)
        except SyntaxError as error:
            raise AssertionError(f"{code}: rendered code is no Python ({error.msg}): {rendered}") from error
        said = finding.message.en
        shapes = _shapes(rule, finding.symbol)
        producing = []
        if site.is_call and _whole_call(parsed):
            producing = [sh for sh in shapes if sh.code and _renders(sh, site, finding.symbol, rendered)]
            for shape in producing or [replacement_code.CallShape()]:
                bound, _ = replacement_code.bind(shape, site)
                placed = set(PLACEHOLDER.findall(shape.code or "")) | {m.group(2) for m in replacement_code.OPTIONAL.finditer(shape.code or "")}
                for argument in site.arguments:
                    param = next((p for p, (_, a) in bound.items() if a is argument), None)
                    carried = argument.text in rendered or (param in placed and _literal(argument.text))
                    explained = param in shape.dropped and shape.dropped[param].en in said
                    device = "cuda" in argument.text and (param in shape.replaced or not shape.params)
                    assert carried or explained or device, f"{code}: {rendered!r} drops {argument.text!r} of:\n{snippet}"
        if site.value is not None and not _whole_call(parsed) or (site.value is not None and "assigned" in str(shapes)):
            assert site.value in rendered, f"{code}: {rendered!r} drops the value {site.value!r}"
        call_text = parsing.text(node.parent if site.is_call and node.parent is not None else node)
        scope = root if not site.is_call and site.value is None else parsing.parse("python", call_text.encode("utf-8"))
        names_of = parsed
        if KEYWORD_FRAGMENT.match(rendered) and node.type == "keyword_argument":
            # a keyword argument in place of the call's own (use_flash_attention_2=True): its name is no variable
            names_of = parsing.parse("python", f"_call_({rendered})".encode("utf-8"))
        # text the rule read around the site (a mask's lengths assigned before the call) may name the file's variables
        read_around = _identifiers(root) if any(", {npu}" in (sh.code or "") for sh in producing) else set()
        # the value the site assigns (`flag = args.deterministic`) is the site's own text: its names are not invented
        assigned = _identifiers(parsing.parse("python", site.value.encode("utf-8"))) if site.value else set()
        invented = _identifiers(names_of) - ({"_call_"} if names_of is not parsed else set()) - ALLOWED_ROOTS - ({"x"} if rendered.startswith(".") else set()) - _identifiers(scope) - read_around - assigned
        assert not invented, f"{code}: {rendered!r} names {sorted(invented)}, which the call does not have"


def test_every_rule_with_code_is_covered_by_a_flagged_example_that_renders_code():
    rendered = set()
    for param in CASES:
        code, language, snippet, target = param.values
        if any(f.replacement.code for f in _findings(code, language, snippet, target)):
            rendered.add(code)
    assert rendered == {rule.code for rule in CODE_RULES}, sorted({r.code for r in CODE_RULES} - rendered)


def test_the_property_catches_a_dropped_argument():
    """The renderer refuses to bind what it does not know rather than drop it: a keyword the shape lacks."""
    shape = KB.rules["DEV140"].replacement
    site = replacement_code.Site((replacement_code.Argument("mystery", "1", True),), is_call=True)
    assert replacement_code.render(shape, site, "torch.cuda.amp.autocast", None).code is None


def test_a_shape_cannot_leave_a_parameter_out_silently():
    """Every parameter of a shape without {rest} is in its code, dropped with a reason or replaced: checked on load."""
    from pydantic import ValidationError

    with pytest.raises(ValidationError, match="neither in the code"):
        replacement_code.CallShape(code="f({a})", params=["a", "b"])
    replacement_code.CallShape(code="f({a})", params=["a", "b"], dropped={"b": {"en": "b: why", "zh": "b：原因"}})


RMS_NORMS = [  # InternVL clip_benchmark's LlamaRMSNorm (forward names the attribute), one whose forward delegates
    "    def forward(self, hidden_states):\n"
    "        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)\n"
    "        return self.weight * (hidden_states * torch.rsqrt(variance + self.variance_epsilon))\n",
    "    def forward(self, hidden_states):\n"
    "        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)\n"
    "        return self.weight * (hidden_states * torch.rsqrt(self._add(variance)))\n",
]


@pytest.mark.parametrize("forward", RMS_NORMS)
def test_rms_norm_replacement_names_the_classs_own_epsilon_attribute(forward):
    code = ("import torch\nclass LlamaRMSNorm(torch.nn.Module):\n    def __init__(self, hidden_size, eps=1e-6):\n"
            "        super().__init__()\n        self.weight = torch.nn.Parameter(torch.ones(hidden_size))\n"
            "        self.variance_epsilon = eps\n" + forward)
    finding = next(f for f in scan(code).findings if f.rule == "PRC020")
    assert finding.replacement.code == "torch_npu.npu_rms_norm(hidden_states, self.weight, epsilon=self.variance_epsilon)[0]"
    assert "self.eps" not in finding.replacement.en and "self.eps" not in finding.replacement.zh


def test_rms_norm_with_a_literal_epsilon_names_no_attribute():
    code = ("import torch\nclass LlamaRMSNorm(torch.nn.Module):\n    def __init__(self, hidden_size, eps=1e-6):\n"
            "        super().__init__()\n        self.weight = torch.nn.Parameter(torch.ones(hidden_size))\n"
            "        self.variance_epsilon = eps\n    def forward(self, x):\n"
            "        return self.weight * (x * torch.rsqrt(x.float().pow(2).mean(-1, keepdim=True) + 1e-6))\n")
    finding = next(f for f in scan(code).findings if f.rule == "PRC020")
    assert finding.replacement.code is None and "self.eps" not in finding.replacement.en


# Environment-variable twins whose values are host-specific (interfaces, host names, addresses, paths): the value of
# the GPU cluster means nothing on the Ascend host, so a twin's code never carries it.
HOST_SPECIFIC = re.compile(r"(IFNAME|_HCA|_HOST|_ADDR|_IP|_PATH|_HOME|_DIR|_FILE)$")


def test_no_twin_copies_a_host_specific_value():
    for rule in KB.rules.values():
        names = [n for n in rule.match.env_vars or [] if HOST_SPECIFIC.search(n)]
        codes = [r.code or "" for r in _replacements(rule)] + [s.code or "" for r in _replacements(rule) for s in r.shapes]
        assert not names or not any("{assigned}" in code for code in codes), (rule.code, names)


def test_a_unit_conversion_never_copies_the_value():
    """DST034: NCCL_BUFFSIZE counts bytes, HCCL_BUFFSIZE MB (default 200): converted up, dropped at or below the
    default, never copied when it is no literal integer."""
    shape = KB.rules["DST034"].replacement

    def rendered(value, literal=True):
        return replacement_code.render(shape, replacement_code.Site(value=value, literal=literal), "NCCL_BUFFSIZE", None)

    assert rendered("536870912").code == "HCCL_BUFFSIZE=512"
    assert rendered("209715201").code == "HCCL_BUFFSIZE=201"  # one byte over 200 MB rounds up
    assert rendered("209715200").code is None and "200 MB" in rendered("209715200").text.en
    assert rendered("8388608").code is None and "Drop it" in rendered("8388608").text.en
    for expression in ("$BUF", "${BUF:-8388608}", "$((1<<29))", "8M", "-1", ""):
        assert rendered(expression).code is None and "convert" in rendered(expression).text.en, expression
    assert rendered("536870912", literal=False).code is None  # a name or expression that looks like a number


def test_an_options_conversion_copies_only_options_every_release_reads():
    """DEV203: torch_npu stops on an allocator option it does not read, so such a value is never copied."""
    shape = KB.rules["DEV203"].replacement

    def rendered(value):
        return replacement_code.render(shape, replacement_code.Site(value=value, literal=True), "PYTORCH_CUDA_ALLOC_CONF", None)

    assert rendered("expandable_segments:True,max_split_size_mb:512").code == \
        "PYTORCH_NPU_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512"
    backend = rendered("expandable_segments:True,backend:cudaMallocAsync")
    assert backend.code is None and "not every release reads backend" in backend.text.en
    bracketed = rendered("roundup_power2_divisions:[256:1,512:2],max_split_size_mb:64")
    assert bracketed.code is None and "reads roundup_power2_divisions (" in bracketed.text.en


def test_async_error_handling_modes_two_and_three_are_copied_only_where_the_release_reads_them():
    """DST031: torch_npu before the 7.3.0 line stops on HCCL_ASYNC_ERROR_HANDLING=2 or 3 ('should be 0 or 1')."""
    from ascend_feasibility.knowledge.availability import line_key

    rule = KB.rules["DST031"]
    older = next(v for v in rule.at_release if v.before_line == "7.3.0").replacement
    site = replacement_code.Site(value="3", literal=True)
    assert replacement_code.render(rule.replacement, site, "TORCH_NCCL_ASYNC_ERROR_HANDLING", None).code == \
        "HCCL_ASYNC_ERROR_HANDLING=3"
    before = replacement_code.render(older, site, "TORCH_NCCL_ASYNC_ERROR_HANDLING", None)
    assert before.code is None and "stops at start-up on 3" in before.text.en
    assert replacement_code.render(older, replacement_code.Site(value="1", literal=True), "X", None).code == \
        "HCCL_ASYNC_ERROR_HANDLING=1"
    assert line_key("7.2.0") < line_key("7.3.0") < line_key("26.0.0")


def _positional(*texts: str, keyword: dict[str, str] | None = None) -> replacement_code.Site:
    arguments = [replacement_code.Argument(None, text, text.isidentifier()) for text in texts]
    arguments += [replacement_code.Argument(name, text, True) for name, text in (keyword or {}).items()]
    return replacement_code.Site(tuple(arguments), is_call=True)


def test_a_positional_argument_after_the_templates_keyword_is_passed_by_name():
    """Round 19 (dino, CosyVoice): `autocast(self.fp16)` rendered `torch.autocast("npu", dtype=torch.float16,
    self.fp16)`, a SyntaxError; the parameter's name makes it Python and keeps its meaning."""
    shape = KB.rules["DEV140"].replacement
    code = replacement_code.render(shape, _positional("self.fp16"), "torch.cuda.amp.autocast", None).code
    assert code == 'torch.autocast("npu", dtype=torch.float16, enabled=self.fp16)'
    ast.parse(code)


def test_a_positional_argument_that_keeps_its_position_stays_positional():
    shape = replacement_code.CallShape(code="g({rest})", params=["a", "b"])
    assert replacement_code.render(shape, _positional("x", "y"), "f", None).code == "g(x, y)"
    shape = replacement_code.CallShape(code='g("npu", {rest})', params=["device", "a"], replaced=["device"])
    assert replacement_code.render(shape, _positional('"cuda"', "x"), "f", None).code == 'g("npu", x)'


def test_a_positional_argument_without_a_name_that_cannot_stay_positional_shows_no_code():
    shape = replacement_code.CallShape(code="g(flag=True, {rest})")
    rendered = replacement_code.render(shape, _positional("x"), "f", None)
    assert rendered.code is None and rendered.unbound


def test_the_rest_slot_counts_the_templates_positional_arguments():
    assert replacement_code.rest_slot("{npu}({rest})") == 0
    assert replacement_code.rest_slot('torch.autocast("npu", {rest})') == 1
    assert replacement_code.rest_slot('torch.autocast("npu", dtype={dtype}, {rest})') is None
    assert replacement_code.rest_slot("[{rest}]") is None


def test_a_template_without_rest_ignores_arguments_it_does_not_place():
    """`os.environ.setdefault("CUDA_LAUNCH_BLOCKING", "0")`: the env template places only the value."""
    shape = replacement_code.CallShape(code="ASCEND_LAUNCH_BLOCKING={assigned}")
    site = replacement_code.Site(_positional('"CUDA_LAUNCH_BLOCKING"', '"0"').arguments, value="0", is_call=True)
    assert replacement_code.render(shape, site, "CUDA_LAUNCH_BLOCKING", None).code == "ASCEND_LAUNCH_BLOCKING=0"


ADAPTIVE_NORM = (
    "import torch\nclass LlamaAdaptiveRMSNorm(torch.nn.Module):\n"
    "    def __init__(self, hidden_size, dim_cond, eps=1e-6):\n        super().__init__()\n"
    "        self.to_weight = torch.nn.Linear(dim_cond, hidden_size)\n        self.variance_epsilon = eps\n"
    "    def forward(self, hidden_states, cond_embedding):\n"
    "        variance = hidden_states.to(torch.float32).pow(2).mean(-1, keepdim=True)\n"
    "        hidden_states = hidden_states * torch.rsqrt(variance + self.variance_epsilon)\n"
    "        weight = self.to_weight(cond_embedding).unsqueeze(1)\n"
    "        return (weight * hidden_states).to(hidden_states.dtype)\n"
)


def test_adaptive_rms_norm_never_passes_its_submodule_as_gamma():
    """Round 26 B1 C5 (rows 17, 22): the scale is `self.to_weight(cond_embedding)`, an nn.Linear's per-sample output;
    npu_rms_norm's gamma is a tensor of the normalised shape, so no code names the Linear and the text fuses only the
    normalisation (a gamma of ones), at info."""
    finding = next(f for f in scan(ADAPTIVE_NORM).findings if f.rule == "PRC020")
    assert finding.severity == "info"
    assert "to_weight" not in (finding.replacement.code or "")
    assert "torch.ones(x.shape[-1]" in finding.replacement.en


def test_rms_norm_gamma_is_never_a_submodule_the_forward_calls():
    """A single-input norm whose scale is still a module's output (`self.scale(x)`): no code names the module."""
    code = ADAPTIVE_NORM.replace("hidden_states, cond_embedding):", "hidden_states):").replace(
        "self.to_weight = torch.nn.Linear(dim_cond, hidden_size)", "self.weight_proj = torch.nn.Linear(hidden_size, 1)"
    ).replace("self.to_weight(cond_embedding)", "self.weight_proj(hidden_states)")
    finding = next(f for f in scan(code).findings if f.rule == "PRC020")
    assert "weight_proj" not in (finding.replacement.code or "")
