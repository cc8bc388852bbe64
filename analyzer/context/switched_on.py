"""Switches the project turns on itself: a site that switches.py found reached only while an off-by-default switch is
on runs after all when the project's own configuration, launch scripts or code turn that switch on.

audiocraft's `StreamingMultiheadAttention(memory_efficient=False)` guards its xformers arm, but
config/model/lm/musicgen_lm.yaml sets `memory_efficient: true` and conditioners.py builds its transformer with
`'memory_efficient': True`: that arm is the project's default use, not an opt-in.

A switch named S is turned on by (roles product, build and example; never tests, docs or CI):
- a YAML/JSON config setting a key S to true (at any depth: `transformer_lm: {memory_efficient: true}`, or a flat
  dotted key ending in S: `transformer_lm.memory_efficient: true`);
- a launch command passing `--S` (or `--S true`; `--S false` is no turning on); dashes and underscores alike; for a
  build switch read from sys.argv (argv_switches.py), the root README's runner commands too (`python setup.py
  develop --cuda_ext`: context.readme_flags) and those of the install documents it hands its install to
  (context.guide_flags: INSTALL.md);
- Python code passing the literal `S=True` to the switch's own function or class, or writing `'S': True` in a dict
  (keyword arguments gathered for a call);
- for an environment variable S (env_switches.py), Python code setting `os.environ["S"]` to anything but a false
  word (env_options.carriers).
The key must be the switch's own name: `use_flash_attn: true` does not turn on `flash_attention`.
"""

from __future__ import annotations

from collections.abc import Callable

import yaml
from ascend_feasibility.analyzer.context.switches import switches_of_reason
from ascend_feasibility.analyzer.reading import bounded_yaml, parsing
from tree_sitter import Node

MAX_CONFIG_BYTES = 256 * 1024  # larger YAML/JSON is data, not settings (as the config scanner's JSON limit)
MAX_KEYS = 500
MAX_NODES = 100_000
ON_ROLES = frozenset({"product", "build", "example"})
FALSE_WORDS = frozenset({"false", "0", "no", "off", "none"})
BOOL_TAG = "tag:yaml.org,2002:bool"
LITERAL_WORDS = frozenset({b"=True", b": True"})
LITERALS = """
(keyword_argument name: (identifier) value: (true) @keyword)
(pair key: (string (string_content)) value: (true) @key)
"""


def true_keys(data: bytes, json_document: bool, compose: Callable[[], list[yaml.Node]] | None = None) -> list[str]:
    """The keys a YAML/JSON config sets to boolean true, each once; nothing for a text that cannot hold one, is too
    large to be settings, or does not parse. `compose`: what bounded_yaml.compose_all gives for `data` (its documents,
    or its error), where a reader composed them already (domains.base.Unit.yaml_documents)."""
    if len(data) > MAX_CONFIG_BYTES or not any(word in data for word in (b"true", b"True", b"TRUE")):
        return []
    try:
        documents = compose() if compose is not None else bounded_yaml.compose_all(data.decode("utf-8", "replace"),
                                                                                   json_document)
    except (yaml.YAMLError, ValueError):
        return []
    found: dict[str, None] = {}
    stack, seen = list(documents), 0
    while stack and seen < MAX_NODES and len(found) < MAX_KEYS:
        node = stack.pop()
        seen += 1
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                if (isinstance(key, yaml.ScalarNode) and isinstance(value, yaml.ScalarNode) and value.tag == BOOL_TAG
                        and str(value.value).lower() in {"true", "yes", "on"}):
                    found[str(key.value).rsplit(".", 1)[-1]] = None  # a flat dotted key: `model.S: true`
                stack.append(value)
        elif isinstance(node, yaml.SequenceNode):
            stack.extend(node.value)
    return list(found)


def true_literals(unit) -> list[tuple[str, str, int]]:
    """`S=True` passed to a call and `'S': True` written in a dict: (the callee's last name, "" for a dict entry; S;
    line). Read only in a file that writes such a literal."""
    data = unit.source.data
    if not any(word in data for word in LITERAL_WORDS):
        return []
    # the cursor visits only the nodes around each `=True` / `: True`: most files write a few
    found = parsing.captures_around(parsing.query("python", LITERALS), unit.tree(), LITERAL_WORDS)
    result = []
    for value in found.get("keyword", []):
        name = value.parent.child_by_field_name("name")
        result.append((_callee(name), parsing.text(name), name.start_point.row + 1))
    for value in found.get("key", []):
        key = value.parent.child_by_field_name("key")
        content = [c for c in key.named_children if c.type == "string_content"]
        if len(content) == 1:
            result.append(("", parsing.text(content[0]), key.start_point.row + 1))
    return result[:MAX_KEYS]


def _callee(name: Node) -> str:
    """The last name of the call whose argument list holds the keyword argument `name` names."""
    arguments = name.parent.parent if name.parent is not None else None
    call = arguments.parent if arguments is not None else None
    function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
    callee = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
    return "" if callee == "dict" else callee  # `dict(use_fp16=True)` is a dict entry as `{'use_fp16': True}` is


def turned_on(facts, context) -> dict[str, list[tuple[str, str]]]:
    """switch name (underscored) → (the callee a Python literal passes it to, "" for a config, launch or dict; where)
    for every place the project turns it on."""
    found: dict[str, list[tuple[str, str]]] = {}
    for f in facts:
        if context.of(f.path).role not in ON_ROLES:
            continue
        for key in f.true_keys:
            found.setdefault(key, []).append(("", f"`{key}: true` in {f.path}"))
        off = {flag for flag, value in f.launch_values if value.lower() in FALSE_WORDS}
        for flag in f.launch_flags:
            if flag.startswith("--") and flag not in off and len(flag) > 2:
                found.setdefault(flag[2:].replace("-", "_"), []).append(("", f"`{flag}` passed by {f.path}"))
        for variable, value in f.env_carriers:  # `os.environ["NVTX_PROFILE"] = "1"` or `= args.nvtx`: set by the project
            if not value.startswith("=") or value[1:].strip("'\"").lower() not in FALSE_WORDS:
                found.setdefault(variable, []).append(("", f"`{variable}` set by {f.path}"))
        for callee, name, line in f.true_literals:
            shown = f"`{name}=True` passed to {callee}()" if callee else f"`'{name}': True`"
            found.setdefault(name, []).append((callee, f"{shown} at {f.path}:{line}"))
    for flag in getattr(context, "readme_flags", ()):  # `python setup.py develop --cuda_ext` in the README's install:
        # for a flag read from sys.argv only (the callee is the owner such a reason names), as other READMEs' flags
        found.setdefault(flag[2:].replace("-", "_"), []).append(("sys.argv", f"`{flag}` passed by the README"))
    for flag, document in getattr(context, "guide_flags", ()):  # the same in the install guide it links (INSTALL.md)
        found.setdefault(flag[2:].replace("-", "_"), []).append(("sys.argv", f"`{flag}` passed by {document}"))
    return found


def on_reason(reason: str | None, switches: dict[str, list[tuple[str, str]]]) -> str | None:
    """Why a site that `reason` (switches.py's) called optional runs: where the project turns its switch on; None
    when the reason names no switch or nothing turns it on."""
    if not switches:
        return None
    for name, owner in switches_of_reason(reason or ""):  # `a=False` or `b=False`: on where either is
        places = [where for callee, where in switches.get(name, []) if not callee or (owner and callee == owner)]
        if places:
            break
    else:
        return None
    more = f" (and {len(places) - 1} more)" if len(places) > 1 else ""
    return f"`{name}` is off by default but the project turns it on: {places[0]}{more}"
