"""Command-line flags a build script reads straight from `sys.argv`: a test that is false unless the user passes the flag.

BasicSR's setup.py (the copy vendored in CodeFormer) lists every `make_cuda_ext(...)` under `if '--cuda_ext' in
sys.argv:` and then `sys.argv.remove('--cuda_ext')`, so `python setup.py develop` builds no extension: the arm runs
only when someone adds the flag, as an unset environment variable's arm (env_switches.py; round 24 B1 14, B2 41,
verdicts V2). Read only where the answer is the expression's own text: a string literal that starts with `-`, `in`
(or `not in` under `not`, which env_arm's terms do not take) and the attribute `sys.argv`; and only where the module
never puts the flag into `sys.argv` itself (`sys.argv.append('--cuda_ext')`, `sys.argv += [...]`): a flag the file
only tests or removes is one the user gives. Whether the project's own launch lines or README pass it is
switched_on.py's question (the reason names the flag: "`--flag` is off unless given (sys.argv, line N)", the
shape switches_of_reason reads with the owner `sys.argv`, which the README's flags turn on alone).

The opposite shape, `if '--no_cuda_ext' in sys.argv: ext_modules = [] else: [make_cuda_ext(...)]` (NAFNet), builds on
a plain install: its arm is the default, left out only where the project's own lines pass the flag (opt_out_arms here,
judged in argv_opt_outs.py).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_NODES = 100_000
READS = frozenset({"remove", "count", "index"})  # sys.argv methods that do not put a flag in


def argv_flag_off(node: Node) -> str | None:
    """`'--cuda_ext' in sys.argv`: the flag, when nothing in the module puts it into sys.argv; None otherwise."""
    return _argv_test(node, "in")


def _argv_test(node: Node, wanted: str) -> str | None:
    """The flag of `'--flag' <wanted> sys.argv` (wanted: `in` or `not in`), when nothing in the module puts it into
    sys.argv; None otherwise."""
    if node.type != "comparison_operator" or len(node.named_children) != 2:
        return None
    operator = " ".join(parsing.text(c) for c in node.children if not c.is_named)
    flag_node, argv = node.named_children
    if operator != wanted or flag_node.type != "string" or parsing.text(argv).replace(" ", "") != "sys.argv":
        return None
    if any(c.type == "interpolation" for c in flag_node.named_children):
        return None
    flag = "".join(parsing.text(c) for c in flag_node.named_children if c.type == "string_content")
    if not flag.startswith("-") or len(flag.lstrip("-")) == 0 or _put_in(parsing.root_of(node), flag):
        return None
    return flag


def opt_out_arms(module: Node) -> list[tuple[int, int, str, int]]:
    """(first line, last line, flag, line of the test) of a build script's arms taken only while a flag is NOT given:
    the else of `if '--no_cuda_ext' in sys.argv:` (no elif) and the body of `if '--no_cuda_ext' not in sys.argv:`
    (NAFNet's setup.py lists its `make_cuda_ext(...)` builds so), and the module-level functions every call of which
    in the file sits in such an arm (make_cuda_ext itself). These arms run on a plain install; they are left out only
    where the project's own install or launch lines pass the flag (argv_opt_outs.py)."""
    if not builds(module):
        return []
    arms: list[tuple[Node, str, int]] = []
    calls: dict[str, list[Node]] = {}
    for node in parsing.walk(module, limit=MAX_NODES):
        if node.type == "call":
            calls.setdefault(parsing.text(node.child_by_field_name("function")), []).append(node)
        if node.type != "if_statement":
            continue
        condition = node.child_by_field_name("condition")
        if condition is None:
            continue
        line = node.start_point.row + 1
        flag = _argv_test(condition, "not in")
        if flag is not None and node.child_by_field_name("consequence") is not None:
            arms.append((node.child_by_field_name("consequence"), flag, line))
            continue
        flag = _argv_test(condition, "in")
        others = [c for c in node.children if c.type in {"elif_clause", "else_clause"}]
        if flag is not None and len(others) == 1 and others[0].type == "else_clause":
            arms.append((others[0], flag, line))
    if not arms:
        return []
    found = [(arm.start_point.row + 1, arm.end_point.row + 1, flag, line) for arm, flag, line in arms]
    for function in (c.child_by_field_name("definition") if c.type == "decorated_definition" else c
                     for c in module.named_children):
        if function is None or function.type != "function_definition":
            continue
        called = [c for c in calls.get(parsing.text(function.child_by_field_name("name")), [])
                  if not function.start_byte <= c.start_byte < function.end_byte]
        inside = [next(((flag, line) for arm, flag, line in arms if arm.start_byte <= c.start_byte < arm.end_byte), None)
                  for c in called]
        if called and all(inside):
            found.append((function.start_point.row + 1, function.end_point.row + 1, *inside[0]))
    return found


def argv_reason(flag: str, node: Node) -> str:
    """The reason switches.py's `--flag` shape reads back (switches_of_reason), so a launch passing it turns it on."""
    return f"`{flag}` is off unless given (sys.argv, line {node.start_point.row + 1})"


def builds(module: Node) -> bool:
    """Is the module a build script: does it import setuptools or distutils (at any depth)? Its sys.argv flags are
    install options (`--cuda_ext`), not a run's choice of device."""
    for node in parsing.walk(module, limit=MAX_NODES):
        if node.type in {"import_statement", "import_from_statement"}:
            named = node.child_by_field_name("module_name") if node.type == "import_from_statement" else None
            names = [named] if named is not None else node.children_by_field_name("name")
            if any(parsing.text(n).split(".")[0].split(" ")[0] in {"setuptools", "distutils"} for n in names):
                return True
    return False


def _put_in(module: Node, flag: str) -> bool:
    """Does the module write to sys.argv anything but a removal: a call of one of its methods that adds (`append`,
    `insert`, `extend`), an assignment or augmented assignment to it, while naming the flag anywhere in that statement?"""
    for node in parsing.walk(module, limit=MAX_NODES):
        if node.type == "call":
            function = node.child_by_field_name("function")
            if (function is not None and function.type == "attribute"
                    and parsing.text(function.child_by_field_name("object")).replace(" ", "") == "sys.argv"
                    and parsing.text(function.child_by_field_name("attribute")) not in READS
                    and flag in parsing.text(node)):
                return True
        elif node.type in {"assignment", "augmented_assignment"}:
            left = node.child_by_field_name("left")
            if left is not None and parsing.text(left).replace(" ", "").startswith("sys.argv") and flag in parsing.text(node):
                return True
    return False
