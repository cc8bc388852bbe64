"""Options carried across files in environment variables, and launch words a shell variable holds.

RWKV's train.py sets `os.environ["RWKV_MY_TESTING"] = args.my_testing` (`--my_testing` default "x052"), and its
model.py branches on `'mamba' in os.environ["RWKV_MY_TESTING"]`: that arm is the option's arm
(switches.option_value_test reads it as `$RWKV_MY_TESTING` needing `*mamba`), opt-in when neither the option's default
nor any launch passes a value holding "mamba". The launch passes `--my_testing $MODEL_TYPE`, where the script sets
`MODEL_TYPE="x070"` and leaves `# MODEL_TYPE="mamba"` commented: a commented line sets nothing.

Per file: `carriers` (Python, read only where the text says `environ`): each `os.environ["E"] = ...` (or
`os.environ.setdefault("E", ...)`) as (E, what it sets): `@dest` for a command-line option (`args.X`, `str(args.X)`),
`=value` for a literal, `?` for anything else; `shell_sets` (shell): each variable the script sets, alike.
`shell_values` (shell): a launch word that is only `$NAME`/`${NAME}`,
replaced by the one literal value the script assigns NAME (kept as it is where it assigns anything else, several
values, or nothing).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

ENV_WRITES = """
(assignment left: (subscript value: (_) @holder subscript: (string) @key) right: (_) @value) @write
(call function: (attribute object: (_) @holder attribute: (identifier) @method) arguments: (argument_list . (string) @key . (_) @value)) @write
"""
ENVIRON = {"os.environ", "environ"}
CONVERSIONS = {"str", "int", "float"}
MAX_WRITES = 500
SHELL_ASSIGNMENTS = "(variable_assignment name: (variable_name) value: (_)) @assignment"


def carriers(root: Node, argument_objects: frozenset[str]) -> list[tuple[str, str]]:
    found = parsing.captures(parsing.query("python", ENV_WRITES), root)
    result = []
    for write in found.get("write", [])[:MAX_WRITES]:
        if write.type == "call":
            function = write.child_by_field_name("function")
            method = function.child_by_field_name("attribute") if function is not None else None
            if method is None or parsing.text(method) != "setdefault":
                continue
            holder = function.child_by_field_name("object")
            arguments = write.child_by_field_name("arguments").named_children
            key, value = arguments[0], arguments[1] if len(arguments) > 1 else None
        else:
            holder, key, value = (write.child_by_field_name("left").child_by_field_name("value"),
                                  write.child_by_field_name("left").child_by_field_name("subscript"),
                                  write.child_by_field_name("right"))
        if holder is None or parsing.text(holder) not in ENVIRON or key is None or value is None:
            continue
        name = _plain_string(key)
        if name:
            result.append((name, _carried(value, argument_objects)))
    return result


def _carried(value: Node, objects: frozenset[str]) -> str:
    while value.type == "call":  # str(args.ctx_len)
        function, arguments = value.child_by_field_name("function"), value.child_by_field_name("arguments")
        if function is None or parsing.text(function) not in CONVERSIONS or arguments is None or len(arguments.named_children) != 1:
            return "?"
        value = arguments.named_children[0]
    if value.type == "attribute":
        holder, attribute = value.child_by_field_name("object"), value.child_by_field_name("attribute")
        if holder is not None and attribute is not None and parsing.text(holder).rsplit(".", 1)[-1] in objects:
            return "@" + parsing.text(attribute)
        return "?"
    if value.type == "string":
        text = _plain_string(value)
        return "=" + text if text is not None else "?"
    if value.type in {"integer", "float"}:
        return "=" + parsing.text(value)
    return "?"


def _plain_string(node: Node) -> str | None:
    if node.type != "string" or any(c.type == "interpolation" for c in node.named_children):
        return None
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def shell_values(root: Node) -> dict[str, list[str]]:
    """NAME → the literal values the script assigns it; a name assigned anything else (`$X`, `$(cmd)`) is left out."""
    values: dict[str, list[str]] = {}
    unknown: set[str] = set()
    for assignment in parsing.captures(parsing.query("bash", SHELL_ASSIGNMENTS), root).get("assignment", []):
        name, value = assignment.child_by_field_name("name"), assignment.child_by_field_name("value")
        if name is None or value is None:
            continue
        key, text = parsing.text(name), parsing.text(value).strip("'\"")
        if value.type in {"word", "raw_string", "number"} or (value.type == "string" and not any(
                c.type != "string_content" for c in value.named_children)):
            values.setdefault(key, []).append(text)
        else:
            unknown.add(key)
    return {k: v for k, v in values.items() if k not in unknown}


def shell_sets(root: Node) -> list[tuple[str, str]]:
    """Variables a shell script sets (`export NVTX_PROFILE=1`, `NVTX_PROFILE=1 python run.py`), as carriers' pairs:
    (NAME, `=value` for a literal, `?` for anything else); each pair once. switched_on.turned_on reads them."""
    found: dict[tuple[str, str], None] = {}
    for assignment in parsing.captures(parsing.query("bash", SHELL_ASSIGNMENTS), root).get("assignment", [])[:MAX_WRITES]:
        name, value = assignment.child_by_field_name("name"), assignment.child_by_field_name("value")
        if name is None or value is None:
            continue
        literal = value.type in {"word", "raw_string", "number"} or (value.type == "string" and not any(
            c.type != "string_content" for c in value.named_children))
        found[(parsing.text(name), "=" + parsing.text(value).strip("'\"") if literal else "?")] = None
    return list(found)


def expand(word: str, values: dict[str, list[str]]) -> str:
    """A launch word that is only `$NAME` or `${NAME}`: the one value the script gives NAME; else the word."""
    name = word[2:-1] if word.startswith("${") and word.endswith("}") else word[1:] if word.startswith("$") else ""
    given = set(values.get(name, ())) if name.isidentifier() else set()
    return given.pop() if len(given) == 1 else word
