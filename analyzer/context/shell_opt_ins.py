"""A shell script's `if [ "$resume" = true ]` arm, where the script leaves `resume` off unless its caller passes the
option: the arm runs only for a user who asks for it.

Amphion's egs/tts/VITS/run.sh sets `resume` only in its getopt loop (`--resume) shift; resume=$1 ; shift ;;`), and
launches training again under `if [ "$resume" = true ]; then` beside the default launch in the `else` (round 26 A1
32, A2 92): the same edit is counted on the default arm, and the resume arm is an option (`optional`), named by its
switch.

Per file (`arms`): the arms of an `if`/`elif` whose condition (or the first `&&` term of it) is a test of one
variable against a true word (`[ "$v" = true ]`, `[[ $v == "1" ]]`), where every assignment of the variable in the
script is an off literal (`v=false`, `v=""`) or a positional argument (`$1`, `$2`, `$OPTARG`) taken in a `case` item
(the option parser, whose pattern names the flag; a script that sources another file keeps only those), and at
least one such assignment exists (a variable the script
never sets comes from the environment: env_switches' reading). Per file (`script_flags`): the `--flag value` pairs
(a bare `--flag` as value "") each command running a shell script passes (`bash run.sh --resume true`, `./run.sh`).
Per project (`opt_in_arms`): an arm stays `runs` where another file's command running a script passes its flag an
on value, or the root README's runner commands name the flag.
"""

from __future__ import annotations

from collections import defaultdict

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

TRUE_WORDS = frozenset({"true", "1", "yes", "on"})
OFF_WORDS = frozenset({"false", "0", "no", "off", ""})
EQUALS = frozenset({"=", "=="})
SHELLS = frozenset({"bash", "sh", "zsh"})
MAX_NODES = 100_000
MAX_FLAGS = 200
ARMS = "[(if_statement condition: (_) @condition) (elif_clause . (_) @condition)]"
ASSIGNMENTS = "(variable_assignment name: (variable_name) @name value: (_)? @value) @assignment"
COMMANDS = "(command name: (command_name) @name) @command"


def arms(root: Node) -> list[tuple[int, int, str, str, str]]:
    """(first line, last line, variable, flag or "", the condition's line) of each arm an opt-in variable's true test decides."""
    if _size(root) > MAX_NODES:
        return []
    tests = [(condition, variable) for condition in parsing.captures(parsing.query("bash", ARMS), root).get("condition", [])
             for variable in (_true_test(condition),) if variable is not None]
    if not tests:
        return []
    flags = _off_variables(root)
    if _sources(root):  # a sourced file (a config, Kaldi's parse_options.sh) may set what the script leaves off
        flags = {name: flag for name, flag in flags.items() if flag}
    result = []
    for condition, variable in tests:
        flag = flags.get(variable)
        body = _body(condition)
        if flag is None or not body:
            continue
        statement = condition.parent
        line = " ".join(parsing.text(statement).splitlines()[0].split())[:100]
        result.append((body[0].start_point.row + 1, body[-1].end_point.row + 1, variable, flag,
                       f"line {statement.start_point.row + 1}: {line}"))
    return result


def script_flags(root: Node) -> list[tuple[str, str]]:
    """(flag, value) of the `--flag value` / `--flag=value` / bare `--flag` words of each command running a script."""
    found = []
    for command in parsing.captures(parsing.query("bash", COMMANDS), root).get("command", []):
        words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
        program = parsing.text(command.child_by_field_name("name")).strip("'\"")
        if program in SHELLS and words and words[0].endswith((".sh", ".bash")):
            words = words[1:]
        elif not program.endswith((".sh", ".bash")):
            continue
        for index, word in enumerate(words):
            if not word.startswith("--") or len(word) <= 2:
                continue
            if "=" in word:
                found.append(tuple(word.split("=", 1)))
            else:
                following = words[index + 1] if index + 1 < len(words) else "-"
                found.append((word, "" if following.startswith("-") else following))
    return found[:MAX_FLAGS]


def opt_in_arms(facts, context) -> dict[str, list[tuple[int, int, str, bool]]]:
    """path → (first line, last line, reason, False) of the arms no launcher of the project turns on (as
    unpassed_defaults' ranges)."""
    passed: dict[str, set[str]] = defaultdict(set)  # flag → the files passing it an on value
    for f in facts:
        for flag, value in f.script_flags:
            if value.lower() not in OFF_WORDS - {""}:
                passed[flag].add(f.path)
    readme = {*getattr(context, "readme_flags", ()), *(flag for flag, _ in getattr(context, "guide_flags", ()))}
    result: dict[str, list[tuple[int, int, str, bool]]] = defaultdict(list)
    for f in facts:
        for first, last, variable, flag, condition in f.shell_opt_in_arms:
            if flag and (passed.get(flag, set()) - {f.path} or flag in readme):
                continue
            why = (f"`{flag}` is off unless given (the script's option, off by default, and no launcher of the project "
                   f"passes it)" if flag else f"{variable} is set only to off values in the script")
            result[f.path].append((first, last, f"{why}; {condition}", False))
    return result


def _true_test(condition: Node) -> str | None:
    """The variable `[ "$v" = true ]` tests (the first term of an `&&` list), or None."""
    if condition.type == "list":
        operators = [parsing.text(c) for c in condition.children if not c.is_named]
        if operators != ["&&"] or not condition.named_children:
            return None
        condition = condition.named_children[0]
    if condition.type != "test_command" or len(condition.named_children) != 1:
        return None
    test = condition.named_children[0]
    if test.type != "binary_expression":
        return None
    operator = next((parsing.text(c) for c in test.children if not c.is_named), "")
    left, right = test.child_by_field_name("left"), test.child_by_field_name("right")
    if operator not in EQUALS or left is None or right is None or right.type not in {"word", "string", "raw_string"}:
        return None
    if parsing.text(right).strip("'\"").lower() not in TRUE_WORDS:
        return None
    return _expanded(left)


def _expanded(node: Node) -> str | None:
    """The variable of `$v`, `${v}` or `"$v"`, or None."""
    if node.type == "string" and len(node.named_children) == 1 and parsing.text(node).startswith('"$'):
        node = node.named_children[0]
    if node.type not in {"simple_expansion", "expansion"} or len(node.named_children) != 1:
        return None
    name = node.named_children[0]
    return parsing.text(name) if name.type == "variable_name" else None


def _off_variables(root: Node) -> dict[str, str]:
    """variable → its flag, for each variable every assignment of which is an off literal or lies in a `case` item of
    the option parser (whose `--flag` pattern names the flag; "" where the script only sets off literals)."""
    found = parsing.captures(parsing.query("bash", ASSIGNMENTS), root)
    flags: dict[str, str] = {}
    spoiled: set[str] = set()
    for assignment in found.get("assignment", []):
        name_node = assignment.child_by_field_name("name")
        value = assignment.child_by_field_name("value")
        name = parsing.text(name_node)
        if assignment.parent is not None and assignment.parent.type == "command":
            continue  # `v=x cmd`: the command's environment, not the script's variable
        item = _case_item(assignment)
        patterns = [p.strip("'\"") for v in item.children_by_field_name("value") for p in parsing.text(v).split("|")] \
            if item is not None else []
        flag = next((p.split("=", 1)[0].rstrip("*") for p in patterns if p.startswith("--") and len(p) > 2), None)
        if flag is not None:  # the option parser's item: set only when the caller passes the flag
            flags[name] = flag
        elif value is None or _plain(value).lower() in OFF_WORDS:
            flags.setdefault(name, "")
        else:
            spoiled.add(name)
    return {name: flag for name, flag in flags.items() if name not in spoiled}


def _plain(value: Node) -> str:
    """A literal value's text without quotes (`"false"` → false); "$" for anything holding an expansion."""
    return "$" if "$" in parsing.text(value) or "`" in parsing.text(value) else parsing.text(value).strip("'\"")


def _case_item(node: Node) -> Node | None:
    parent = node.parent
    while parent is not None and parent.type not in {"case_item", "function_definition", "program"}:
        parent = parent.parent
    return parent if parent is not None and parent.type == "case_item" else None


def _body(condition: Node) -> list[Node]:
    """The statements of the arm the condition opens (up to its `elif`/`else`/`fi`)."""
    statement = condition.parent
    body, seen = [], False
    for child in statement.children:
        if child == condition:
            seen = True
            continue
        if not seen or not child.is_named or child.type in {"elif_clause", "else_clause", "comment"}:
            continue
        body.append(child)
    return body


def _sources(root: Node) -> bool:
    return any(parsing.text(name) in {"source", "."}
               for name in parsing.captures(parsing.query("bash", COMMANDS), root).get("name", []))


def _size(root: Node) -> int:
    return root.descendant_count if hasattr(root, "descendant_count") else 0
