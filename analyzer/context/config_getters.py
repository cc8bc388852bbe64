"""A switch read from a config getter with an off default (`use_deepspeed = kwargs.get("use_deepspeed", False)`, then
`if use_deepspeed:`) that nothing in the project turns on: the arm is `optional`.

FunASR's trainers read `use_fsdp`, `use_deepspeed` and `use_fp16` this way, and every shipped finetune.sh passes
`++use_deepspeed=false` (round 25 audit, A1 C2, A2 C5). Per file (`arms`): the arms of an `if`/`elif` whose first
`and` term is such a getter call, or a local bound once in its function from one (`name = conf.get("key", False)`,
`get_setting("key", None)`: a call of `.get` or of a function named `get_...` with a string key and a `False` or
`None` default). Per project (`Getters.kept`): the key is off where no file but the arm's own writes the key as a word, except
prose (docs) and shell scripts whose every override of the key (`++a.key=false`) is an off value. A YAML or JSON
config naming the key, another Python file writing it, or a shell script naming it otherwise keeps the arm `runs`.
`os.environ.get` is env_switches' reading, not this one's.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context import attribute_hops
from ascend_feasibility.analyzer.context.switches import _enclosing, _parameter, first_term
from ascend_feasibility.analyzer.context.written_names import MIN_NAME, PROSE_SUFFIXES, writers
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

GETTER = "get:"  # DefaultFacts.arms' callee of an arm a getter decides: GETTER + key (no name of Python holds ":")
OFF_DEFAULTS = {"False", "None"}
OFF_VALUES = {"false", "none", "null", "0", "no", "off", ""}
SHELL_SUFFIXES = (".sh", ".bash")
ENVIRONMENT = {"environ", "getenv"}
ASSIGNED = "(assignment left: (identifier) @name right: (call) @value)"


def arms(conditions: list[Node]) -> tuple[list[tuple[int, int, str, str, int, str, str, bool]],
                                         list[tuple[int, int, str, str]]]:
    """The arms (as DefaultFacts.arms) whose condition's first `and` term reads a getter's off default, and those read
    through `self.<attribute>` (as DefaultFacts.hops)."""
    found, hops = [], []
    cache: dict = {}  # a class's stores, a function's assignments and rebindings: read once per unit
    for condition in conditions:
        statement = condition.parent
        if statement is None or statement.type not in {"if_statement", "elif_clause"}:
            continue
        read = first_term(condition, lambda term, _: _off_getter(term, cache))
        body = statement.child_by_field_name("consequence")
        if read is None or body is None:
            continue
        key, default, attribute = read
        first, last = body.start_point.row + 1, body.end_point.row + 1
        line = " ".join(parsing.text(statement).splitlines()[0].split())[:100]
        found.append((first, last, GETTER + key, key, -1, default, f"line {statement.start_point.row + 1}: {line}", False))
        if attribute:  # another object's store of the attribute (`trainer.use_fp16 = True`) keeps it (DefaultFacts.hops)
            hops.append((first, last, attribute, ""))
    return found, hops


def _off_getter(term: Node, cache: dict) -> tuple[str, str, str] | None:
    """(key, default, the attribute read or "") where the term is a getter call with an off default, a local bound
    once from one, or `self.<attribute>` its class stores once, from one (`self.use_fp16 = kwargs.get("use_fp16",
    False)`)."""
    if term.type == "call":
        found = _getter(term)
        return (*found, "") if found is not None else None
    if term.type == "attribute":
        return _self_getter(term, cache)
    if term.type != "identifier":
        return None
    function = _enclosing(term, "function_definition")
    body = function.child_by_field_name("body") if function is not None else None
    if body is None or _parameter(function, parsing.text(term)) is not None:
        return None
    name = parsing.text(term)
    if function.id not in cache:
        cache[function.id] = parsing.captures(parsing.query("python", ASSIGNED), body)
    captures = cache[function.id]
    for target, value in zip(captures.get("name", []), captures.get("value", []), strict=True):
        if parsing.text(target) == name and target.start_byte < term.start_byte \
                and _enclosing(target, "function_definition") == function:
            found = _getter(value)
            # bound once only (the rebindings are read last: most locals a test reads are bound from no getter)
            return (*found, "") if found is not None and _bound_once(function, name, cache) else None
    return None


def _bound_once(function: Node, name: str, cache: dict) -> bool:
    from ascend_feasibility.analyzer.context.unpassed_defaults import _rebound
    key = ("rebound", function.id)
    if key not in cache:
        cache[key] = _rebound(function)
    rebound = cache[key]
    return rebound is not None and len(rebound.get(name, [])) == 1


def _self_getter(term: Node, cache: dict) -> tuple[str, str, str] | None:
    holder, attribute = term.child_by_field_name("object"), term.child_by_field_name("attribute")
    if holder is None or attribute is None or parsing.text(holder) != attribute_hops.SELF:
        return None
    cls = _enclosing(term, "class_definition")
    if cls is None or cls.parent is None or cls.parent.type != "module":
        return None
    text = cls.text
    if b"setattr" in text or b"__dict__" in text or b"get" not in text:  # the store's getter is in the class
        return None
    if cls.id not in cache:
        cache[cls.id] = attribute_hops._self_stores(cls)
    stores = cache[cls.id].get(parsing.text(attribute), [])
    assignment = stores[0].parent if len(stores) == 1 else None
    if assignment is None or assignment.type != "assignment" or assignment.child_by_field_name("left") != stores[0]:
        return None
    value = assignment.child_by_field_name("right")
    found = _getter(value) if value is not None and value.type == "call" else None
    return (*found, parsing.text(attribute)) if found is not None else None


def _getter(call: Node) -> tuple[str, str] | None:
    function, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
    if function is None or arguments is None:
        return None
    if function.type == "attribute":
        name = parsing.text(function.child_by_field_name("attribute"))
        holder = function.child_by_field_name("object")
        if holder is not None and parsing.text(holder).rsplit(".", 1)[-1] in ENVIRONMENT:
            return None
    elif function.type == "identifier":
        name = parsing.text(function)
    else:
        return None
    if name != "get" and not name.startswith("get_"):
        return None
    values = [a for a in arguments.named_children if a.type != "comment"]
    if len(values) != 2 or values[0].type != "string" or parsing.text(values[1]) not in OFF_DEFAULTS:
        return None
    key = parsing.text(values[0])[1:-1]
    return (key, parsing.text(values[1])) if key.isidentifier() else None


class Getters:
    """The project's answer for the arms `arms` found: which files write each key (written_names.writers, asked once
    for every key)."""

    def __init__(self, facts) -> None:
        keys = {name[len(GETTER):] for f in facts for _, _, name, *_ in f.default_arms if name.startswith(GETTER)}
        self.written = writers(keys, facts)
        self.by_path = {f.path: f for f in facts}
        self.flags = {(flag.lstrip("-"), value.lower()) for f in facts for flag, value in f.launch_values}

    def kept(self, key: str, default: str, path: str) -> str | None:
        """Why the key stays at its off default in the project, or None where a file may turn it on."""
        if len(key) < MIN_NAME or any(flag == key and value not in OFF_VALUES for flag, value in self.flags):
            return None
        shells = []
        for writer in sorted(self.written.get(key, set())):
            if writer == path or writer.endswith(PROSE_SUFFIXES):
                continue
            f = self.by_path.get(writer)
            overrides = [value for name, value in (f.launch_overrides if f is not None else []) if name == key]
            if not writer.endswith(SHELL_SUFFIXES) or not overrides \
                    or any(value.lower() not in OFF_VALUES for value in overrides):
                return None
            shells.append(writer)
        where = (f"every launch script that names it passes {key}=false ({shells[0]}{' ...' if len(shells) > 1 else ''})"
                 if shells else "no config, launch script or other code of the project sets it")
        return f"`{key}` is read with default {default} ({path}); {where}"
