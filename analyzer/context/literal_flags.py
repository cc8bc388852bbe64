"""An `if` on a module-level name the file assigns a literal once: `HF_MODE = False` ... `if not HF_MODE: ... else: ...`,
or a string constant compared with strings: `gemm_impl: Literal["bf16", "fp8"] = "bf16"` ... `elif gemm_impl == "bf16":
... else: <fp8 arm>` (round 14: DeepSeek-V3 inference/model.py:16, 155-160).

The arm the literal does not take runs only when someone edits the file, as an opt-in does. Read only where the answer
is the file's own text: the assignment is the name's only binding in the unit (no second assignment, `global`, loop,
`with`, import, parameter or walrus), and every other occurrence of the name is read in a condition or passed as an
argument. An `if` at the module level after the assignment runs at import, so no other module can set the name
before it; one inside a function runs later, so the project pass also asks that no other file of the project write
the name (`model.gemm_impl = "fp8"`): its reason says so in IN_FUNCTION's words (propagation.py restores the site
otherwise). The condition is the name, `not` of it, either in parentheses, the name compared by ==, !=, in or
not in with a string or a list, tuple or set of strings, or a name assigned a literal compared with None by `is` /
`is not`: EasyAnimate's predict scripts set `lora_path = None` among their settings, and `if lora_path is not None:
merge_lora(...)` runs only when a user writes a path there (round 18, A 24 and A 67)."""

from __future__ import annotations

import re
from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 100_000
LITERALS = {"true": True, "false": False, "none": None}  # None: a setting left unset (`lora_path = None`)
# where an occurrence of the flag is only read
READS = frozenset({"not_operator", "boolean_operator", "parenthesized_expression", "comparison_operator",
                   "conditional_expression", "argument_list", "if_statement", "elif_clause", "while_statement"})
FOLDS: dict[str, Callable[[str], str]] = {"lower": str.lower, "upper": str.upper, "casefold": str.casefold}
AFFIXES = frozenset({"startswith", "endswith"})
STRING_READS = frozenset({*FOLDS, *AFFIXES})  # str methods that read a name's value and never rebind it
IN_FUNCTION = "and no other file of the project names it"
# the name opens the note in parentheses (`(gemm_impl = "bf16" (line 4) is assigned once...`), not the line's text
_IN_FUNCTION = re.compile(r"\((?P<name>\w+)\b[^()\n]*? \(line \d+\) (?:is assigned once and never changed|is given as a "
                          r"value only under an availability gate \(line [\d, ]+\)) " + re.escape(IN_FUNCTION))


def literal_flag(condition: Node, statement: Node,
                 assignments: dict[tuple[int, str], Node | None] | None = None) -> tuple[bool, Node, bool] | None:
    """The value `condition` of the if-statement `statement` has, the assignment that fixes it, and whether the `if`
    sits inside a function (so another module could still rebind the name before it runs). `assignments`: the
    caller's memory of each module-level name's only assignment (_sole_assignment) within one unit's tree, so a name
    tested by many ifs has the module walked for it once."""
    module, in_function = statement.parent, False
    while module is not None and module.type != "module":
        in_function = in_function or module.type in {"function_definition", "lambda"}
        module = module.parent
    if module is None or (statement.parent.type != "module" and not in_function):
        return None
    negated = False
    node = condition
    while node.type in {"parenthesized_expression", "not_operator"}:
        if node.type == "not_operator":
            negated = not negated
            node = node.child_by_field_name("argument")
        else:
            node = node.named_children[0] if len(node.named_children) == 1 else None
        if node is None:
            return None
    compared = unset = None
    if node.type == "comparison_operator":
        unset = _none_comparison(node)
        compared = (_string_comparison(node) or substring_test(node)) if unset is None else None
        if compared is None and unset is None:
            return None
        node = (compared or unset)[0]
    elif node.type == "call":
        compared = substring_test(node)
        if compared is None:
            return None
        node = compared[0]
    if node.type != "identifier":
        return None
    name = parsing.text(node)
    if not any(_assigns_literal(s, name) for s in module.named_children):
        return None  # the cheap test first: the walk below reads the whole module
    if assignments is None:
        assignment = _sole_assignment(module, name)
    else:
        key = (module.id, name)
        if key not in assignments:
            assignments[key] = _sole_assignment(module, name)
        assignment = assignments[key]
    if assignment is None or assignment.end_byte > statement.start_byte:
        return None  # an assignment after the `if` leaves the name unbound there, or bound elsewhere first
    right = assignment.child_by_field_name("right")
    if unset is not None:
        if right.type not in LITERALS:
            return None
        value = (right.type == "none") == unset[1]
    elif compared is None:
        if right.type not in LITERALS:
            return None
        value = bool(LITERALS[right.type])
    else:
        if right.type != "string" or not _plain(right):
            return None
        _, strings, holds = compared
        if _names_device({_string_value(right), *strings}):
            return None  # `DEVICE = "cuda"`: the constant a port edits, so its other arm is what runs on Ascend
        value = holds(_string_value(right))
    return value != negated, assignment, in_function


def _assigns_literal(statement: Node, name: str | None = None) -> bool:
    """Is the module-level statement `name = <bool, None or string literal>` (annotated or not; any name when None)?"""
    if statement.type != "expression_statement" or not statement.named_children:
        return False
    assignment = statement.named_children[0]
    if assignment.type != "assignment":
        return False
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    return (left is not None and left.type == "identifier" and right is not None
            and right.type in {"string", *LITERALS} and (name is None or parsing.text(left) == name))


def written_elsewhere_name(reason: str | None) -> str | None:
    """The name of a reason this reader (or guards.GuardReader._gated_constant) gave for an `if` inside a function: the
    caller checks that no other file names it."""
    found = _IN_FUNCTION.search(reason or "")
    return found["name"] if found is not None else None


def _none_comparison(node: Node) -> tuple[Node, bool] | None:
    """`name is None`, `name is not None`: (the name, whether the comparison holds when the name is None)."""
    operands = node.named_children
    operators = [parsing.text(c) for c in node.children if not c.is_named]
    if len(operands) != 2 or operators not in (["is"], ["is", "not"], ["is not"]):
        return None
    left, right = operands
    if left.type == "none":
        left, right = right, left
    if left.type != "identifier" or right.type != "none":
        return None
    return left, operators == ["is"]


def _string_comparison(node: Node) -> tuple[Node, frozenset[str], Callable[[str], bool]] | None:
    """`name == "s"`, `"s" != name`, `name in ("a", "b")`, `name not in [...]`: (the name, the strings, whether the
    comparison holds for a value)."""
    operands = node.named_children
    operators = [parsing.text(c) for c in node.children if not c.is_named]
    if len(operands) != 2 or len(operators) not in (1, 2):
        return None
    operator = " ".join(operators)
    left, right = operands
    if operator in {"==", "!="} and left.type == "string":
        left, right = right, left
    if left.type != "identifier":
        return None
    if operator in {"==", "!="}:
        strings = [right]
    elif operator in {"in", "not in"} and right.type in {"tuple", "list", "set"}:
        strings = right.named_children
    else:
        return None
    if not strings or not all(s.type == "string" and _plain(s) for s in strings):
        return None
    values, positive = frozenset(_string_value(s) for s in strings), operator in {"==", "in"}
    return left, values, lambda value: (value in values) == positive


def substring_test(node: Node) -> tuple[Node, frozenset[str], Callable[[str], bool]] | None:
    """A test of part of a name's string: `"mpt" in name`, `"mpt" not in name.lower()`, `name.startswith("llava")`,
    `name.lower().endswith("-7b")` (LLaVA's builder picks a model family so: `if 'mpt' in model_name.lower():`). (the
    name, the string, whether the test holds for a value). Read on the whole value: a helper that cuts a path's tail
    is another value. Other shapes (a tuple of prefixes, a computed string): None."""
    if node.type == "comparison_operator":
        operands = node.named_children
        operator = " ".join(parsing.text(c) for c in node.children if not c.is_named)
        if len(operands) != 2 or operator not in {"in", "not in"}:
            return None
        part, whole = operands
        read = _folded(whole)
        if part.type != "string" or not _plain(part) or read is None:
            return None
        name, fold = read
        text, positive = _string_value(part), operator == "in"
        return name, frozenset({text}), lambda value: (text in fold(value)) == positive
    method = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    if method is None or method.type != "attribute" or arguments is None or len(arguments.named_children) != 1:
        return None
    ending = parsing.text(method.child_by_field_name("attribute"))
    part, read = arguments.named_children[0], _folded(method.child_by_field_name("object"))
    if ending not in AFFIXES or part.type != "string" or not _plain(part) or read is None:
        return None
    name, fold = read
    text = _string_value(part)
    if ending == "startswith":
        return name, frozenset({text}), lambda value: fold(value).startswith(text)
    return name, frozenset({text}), lambda value: fold(value).endswith(text)


def substring_note(condition: Node) -> str:
    """What a substring test (substring_test) asks, for a reason: `; the test at line 9 holds only for a value
    containing 'mpt'`; "" for any other condition."""
    negated = False
    while condition.type in {"parenthesized_expression", "not_operator"} and condition.named_children:
        negated = negated != (condition.type == "not_operator")
        condition = condition.named_children[-1] if condition.type == "not_operator" else condition.named_children[0]
    if condition.type not in {"comparison_operator", "call"} or substring_test(condition) is None:
        return ""
    name, (text,), _ = substring_test(condition)
    if condition.type == "call":
        ending = parsing.text(condition.child_by_field_name("function").child_by_field_name("attribute"))
        asked = f"{'starting' if ending == 'startswith' else 'ending'} with '{text}'"
        negated_here = False
    else:
        asked, negated_here = f"containing '{text}'", "not" in parsing.text(condition).split()
    holder = name.parent
    folded = " in any case" if holder is not None and holder.type == "attribute" and parsing.text(
        holder.child_by_field_name("attribute")) in FOLDS else ""
    return (f"; the test at line {condition.start_point.row + 1} holds only for a value of `{parsing.text(name)}` "
            f"{'not ' if negated != negated_here else ''}{asked}{folded}")


def _folded(node: Node) -> tuple[Node, Callable[[str], str]] | None:
    """`name` or `name.lower()` / `name.upper()` / `name.casefold()`: the name and what the test reads of its value."""
    if node.type == "identifier":
        return node, str
    if node.type != "call" or node.child_by_field_name("arguments") is None \
            or node.child_by_field_name("arguments").named_children:
        return None
    method = node.child_by_field_name("function")
    if method is None or method.type != "attribute" or method.child_by_field_name("object").type != "identifier":
        return None
    fold = FOLDS.get(parsing.text(method.child_by_field_name("attribute")))
    return (method.child_by_field_name("object"), fold) if fold is not None else None


def _string_read(node: Node) -> bool:
    """Is the identifier the object of a str method that reads it (`name.lower()`, `name.startswith(...)`)?"""
    parent = node.parent
    return (parent is not None and parent.type == "attribute" and parent.child_by_field_name("object") == node
            and parsing.text(parent.child_by_field_name("attribute")) in STRING_READS
            and parent.parent is not None and parent.parent.type == "call")


def _names_device(strings: set[str]) -> bool:
    """Does one of the strings name a device type (`cuda`, `cuda:0`, `cpu`, `npu`, `xpu`, ...)?"""
    global _DEVICE_WORDS
    if _DEVICE_WORDS is None:
        from ascend_feasibility.knowledge import load_accelerator_names

        names = load_accelerator_names()
        _DEVICE_WORDS = frozenset({*names.cuda_words, *names.npu_words, *(p.name for p in names.platform), "cpu"})
    return any(text.split(":", 1)[0].strip().lower() in _DEVICE_WORDS for text in strings)


_DEVICE_WORDS: frozenset[str] | None = None


def _plain(string: Node) -> bool:
    return not any(c.type == "interpolation" for c in string.named_children)


def _string_value(node: Node) -> str:
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def _sole_assignment(module: Node, name: str) -> Node | None:
    """The module-level `name = <literal>` (a bool, None or a string, annotated or not), when it is the name's only
    binding in the unit and every other occurrence of the name is read. Whether it comes before the `if` asking is the
    caller's test: the answer does not depend on where the `if` is, so it is read once per name."""
    found = None
    if module.descendant_count <= MAX_NODES:  # the walk would read the whole module without reaching its limit: the
        named = parsing.identifiers_named(module, name, MAX_NODES)  # cursor finds the same identifiers, in its order
    else:
        try:
            named = [node for node in parsing.walk(module, limit=MAX_NODES, strict=True)
                     if node.type == "identifier" and parsing.text(node) == name]
        except parsing.WalkLimit:
            return None
    for node in named:
        parent = node.parent
        if (parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") == node
                and found is None and parent.parent is not None and parent.parent.type == "expression_statement"
                and parent.parent.parent == module):
            right = parent.child_by_field_name("right")
            if right is None or (right.type not in LITERALS and right.type != "string"):
                return None
            found = parent
            continue
        if _string_read(node):
            continue
        if parent is None or parent.type not in READS or parent.type in {"if_statement", "elif_clause", "while_statement"} and parent.child_by_field_name("condition") != node:
            return None
    return found


def edited_names(root: Node, conditions: list[Node]) -> list[tuple[str, int, str, str]]:
    """Names the module writes only in arms a literal constant rules out, or in `from ... import` lists: (the name, the
    arm's first line, the constant if the `if` sits in a function (another file must not name it), the reason).
    DeepSeek-V3's model.py names `fp8_gemm` only in its import and in the arm `gemm_impl = "bf16"` rules out, so
    nothing the file runs reaches it (unreferenced.py). Files assigning no module-level literal pay one pass over the
    module's statements; `conditions` are the if/elif conditions of the file (the phases room's query)."""
    constants = {parsing.text(s.named_children[0].child_by_field_name("left")) for s in root.named_children
                 if _assigns_literal(s)}
    if not constants:
        return []
    dead: list[tuple[Node, str, str]] = []  # (arm body, constant if in a function, reason)
    statements = {}
    for condition in conditions:
        statement = condition.parent.parent if condition.parent is not None and condition.parent.type == "elif_clause" \
            else condition.parent
        if statement is not None and statement.type == "if_statement" and not constants.isdisjoint(_words(condition)):
            statements[statement.id] = statement
    assignments: dict[tuple[int, str], Node | None] = {}  # a constant tested by several ifs: its module read once
    for statement in statements.values():
        dead += _dead_arms(statement, constants, assignments)
    return names_only_in(root, dead)


def names_only_in(root: Node, dead: list[tuple[Node, str, str]]) -> list[tuple[str, int, str, str]]:
    """The names the module writes only inside the given arm bodies (and in `from ... import` lists), each with its
    first arm's line, constant and reason: (arm body, constant, reason) in, as edited_names returns them."""
    if not dead:
        return []
    inside: dict[str, list[tuple[Node, str, str]]] = {}
    for body, constant, reason in dead:
        for name in _identifiers(body):
            inside.setdefault(name, []).append((body, constant, reason))
    spoiled = set()
    for node in _identifiers_named(root, set(inside)):
        name = parsing.text(node)
        if any(body.start_byte <= node.start_byte < body.end_byte for body, _, _ in inside[name]) or _imported_name(node):
            continue
        spoiled.add(name)
    return [(name, arms[0][0].start_point.row + 1, arms[0][1], arms[0][2]) for name, arms in sorted(inside.items())
            if name not in spoiled]


def _dead_arms(statement: Node, constants: set[str],
               assignments: dict[tuple[int, str], Node | None]) -> list[tuple[Node, str, str]]:
    """The arms of `statement` a literal constant rules out, with the constant (if the `if` is in a function) and why."""
    arms = parsing.if_arms(statement)
    found = []
    for index, (condition, body) in enumerate(arms):
        if condition is None or body is None or constants.isdisjoint(_words(condition)):
            continue
        read = literal_flag(condition, statement, assignments)
        if read is None:
            continue
        value, assignment, in_function = read
        shown = " ".join(parsing.text(assignment).split())
        constant = parsing.text(assignment.child_by_field_name("left")) if in_function else ""
        if value:  # the arms after it never run
            why = f"{shown} (line {assignment.start_point.row + 1}) is assigned once and never changed, so the arms after line {condition.start_point.row + 1} run only when the file is edited{substring_note(condition)}"
            found += [(later, constant, why) for _, later in arms[index + 1:] if later is not None]
            break
        why = f"{shown} (line {assignment.start_point.row + 1}) is assigned once and never changed, so the arm of line {condition.start_point.row + 1} runs only when the file is edited{substring_note(condition)}"
        found.append((body, constant, why))
    return found


def _words(condition: Node) -> set[str]:
    return set(re.findall(r"\w+", parsing.text(condition)))


def _identifiers(body: Node) -> set[str]:
    found, stack, seen = set(), [body], 0
    while stack and seen < MAX_NODES:
        node = stack.pop()
        seen += 1
        if node.type == "identifier":
            found.add(parsing.text(node))
        elif node.type != "attribute":
            stack.extend(node.named_children)
        else:
            stack.append(node.child_by_field_name("object"))  # `x.attr`: attr is no name of the module
    return found


def _identifiers_named(root: Node, names: set[str]) -> list[Node]:
    return [node for node in parsing.walk(root, limit=MAX_NODES)
            if node.type == "identifier" and parsing.text(node) in names]


def _imported_name(node: Node) -> bool:
    """Is the identifier a name a `from ... import` statement binds (not its module)?"""
    parent = node.parent
    if parent is not None and parent.type == "aliased_import":
        parent = parent.parent
    if parent is None or parent.parent is None or parent.parent.type != "import_from_statement":
        return False
    return parent.parent.child_by_field_name("module_name") != parent
