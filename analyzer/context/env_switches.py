"""Environment variables a user sets to turn a feature on: a test that is false while the variable is unset.

`if os.getenv("PROFILE_NVTX", "0") == "1":`, `if not int(os.environ.get("USE_SPARSE", "0")): return`, or a module
constant read once, `NVTX = os.getenv("NVTX_PROFILE", "0") != "0"` ... `if NVTX:`: with the variable unset the test
reads its default ("0", or None for no default) and is false, so the arm runs only when someone sets the variable, as
an off-by-default command-line switch (switches.py asks here for such a term, and names the variable in its reason;
switched_on.py keeps the arm counted where the project itself sets the variable: `os.environ["NVTX_PROFILE"] = "1"`).

Read only where the answer is the expression's own text: one variable, read with `os.getenv` / `os.environ.get`
(`os.environ["X"]` raises when unset: it is no switch), its default a literal, then only literal conversions
(`int`, `float`, `bool`, `str`, `.lower()`, `.upper()`, `.strip()`), comparisons with literals (==, !=, in, not in, a
tuple or list of literals) and `not`. A name stands for the read it holds (bound_env_read) where every binding of
it in the file assigns that same read (BasicSR: `BASICSR_JIT = os.getenv('BASICSR_JIT')` ... `if BASICSR_JIT ==
'True':`, and setup.py's `cuda_ext = os.getenv('BASICSR_EXT')` under `__main__`; round 23 A2 66/98, B1 21, B2 41/48).

A project's table of environment variables (vLLM's and FastVideo's envs.py: `environment_variables = {"NVTX_PROFILE":
lambda: os.getenv("NVTX_PROFILE", "0") != "0", ...}` with a module `__getattr__` that calls the entry) is read the
same way. Per file: `table_off` lists the keys whose lambda is false while unset; `table_arms` the arms a test of
`envs.NVTX_PROFILE` (`envs` a module the file imports, the attribute an upper-case name) decides: the `if` arm (one term
of an `and`), or what follows `if not (envs.X and ...): return` / `if not envs.X or ...: return` in its block. Per
project (`table_arms_off`, propagation.py's switched arms): such an arm is the switch's arm where the imported module's
table gives the key an off default and nothing of the project sets the variable (round 18 B 32: an NVTX profiler
behind `envs.FASTVIDEO_NVTX_PROFILE`, whose default is "0", counted `runs`).
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.argv_switches import argv_flag_off, argv_reason
from ascend_feasibility.analyzer.context.switches import PARAMETER_REBINDINGS, env_variable
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

UNKNOWN = object()
CONVERSIONS = {"int": int, "float": float, "bool": bool, "str": str}
METHODS = {"lower": str.lower, "upper": str.upper, "strip": str.strip}
MAX_DEPTH = 12
MAX_ENTRIES = 1000
MAX_ARMS = 200
MAX_ARM_DEPTH = 60  # ancestors read up from a node for the arm holding it


def env_off(node: Node) -> tuple[str, str] | None:
    """(the variable, its default as shown) when `node` is false while the one variable it reads is unset."""
    read: list[tuple[str, str]] = []
    value = _value(node, read, 0)
    if value is UNKNOWN or len(read) != 1 or value:
        return None
    return read[0]


def constant_env_off(name_node: Node) -> tuple[str, str, int] | None:
    """`NVTX` in `if NVTX:` where the file assigns `NVTX = <an env test false while unset>` and binds the name nowhere
    else (bound_env_read): (the variable, its default, the assignment's line)."""
    right = bound_env_read(name_node)
    off = env_off(right) if right is not None else None
    return (*off, right.start_point.row + 1) if off is not None else None


def bound_env_read(name_node: Node, depth: int = 0) -> Node | None:
    """The right side of `NAME = <one environment variable's read>` when every binding of the name in the file is such
    an assignment of the same text (setup.py's `BASICSR_EXT = os.getenv('BASICSR_EXT')` at module level and again
    under `if __name__ == '__main__':`) and no parameter, function, class or import binds it: what the name holds
    wherever it is read. A name bound once to `os.getenv('X')` inside a function is read the same way."""
    module = parsing.root_of(name_node)
    if module.type != "module":
        return None
    name = parsing.text(name_node)
    targets = _bindings(module).get(name, [])
    rights = []
    for target in targets:
        assignment = target.parent
        right = assignment.child_by_field_name("right") if assignment.type == "assignment" else None
        if right is None or assignment.child_by_field_name("left") != target:
            return None
        rights.append(right)
    if not rights or len({" ".join(parsing.text(r).split()) for r in rights}) != 1:
        return None
    read: list[tuple[str, str]] = []
    if _value(rights[0], read, depth + 1) is UNKNOWN or len(read) != 1 or _defines(module, name):
        return None
    return rights[0]


_BINDINGS: list = [None, {}]  # the last module read (its node keeps its tree alive: no other takes its id), and
# name → the identifiers binding it


def _bindings(module: Node) -> dict[str, list[Node]]:
    """name → the identifiers that bind it (PARAMETER_REBINDINGS' targets) in the module; read once per module."""
    if _BINDINGS[0] is None or _BINDINGS[0].id != module.id:
        found: dict[str, list[Node]] = {}
        text = module.text
        if b"getenv" in text or b"environ" in text:  # no read of a variable: no name holds one
            for node in parsing.captures(parsing.query("python", PARAMETER_REBINDINGS), module).get("target", []):
                found.setdefault(parsing.text(node), []).append(node)
        _BINDINGS[:] = [module, found]
    return _BINDINGS[1]


def _defines(module: Node, name: str) -> bool:
    """Does the module bind `name` as a parameter, function, class or import somewhere?"""
    for node in parsing.walk(module, limit=100_000):
        if node.type in {"function_definition", "class_definition"}:
            named = node.child_by_field_name("name")
            if named is not None and parsing.text(named) == name:
                return True
        elif node.type in {"parameters", "lambda_parameters"}:
            if any(parsing.text(p).split(":")[0].split("=")[0].strip().lstrip("*") == name for p in node.named_children):
                return True
        elif node.type in {"dotted_name", "aliased_import"} and node.parent is not None and "import" in node.parent.type:
            if parsing.text(node).rsplit(" ", 1)[-1] == name:
                return True
    return False


def _value(node: Node, read: list[tuple[str, str]], depth: int):
    if depth > MAX_DEPTH:
        return UNKNOWN
    kind = node.type
    if kind == "parenthesized_expression" and len(node.named_children) == 1:
        return _value(node.named_children[0], read, depth + 1)
    if kind == "not_operator":
        inner = _value(node.child_by_field_name("argument"), read, depth + 1)
        return UNKNOWN if inner is UNKNOWN else not inner
    if kind == "comparison_operator":
        return _compare(node, read, depth)
    if kind == "call":
        return _call(node, read, depth)
    if kind == "identifier" and node.parent is not None and node.parent.type != "keyword_argument":
        return _name(node, read, depth)
    return _literal(node)


def _name(node: Node, read: list[tuple[str, str]], depth: int):
    """`BASICSR_JIT` in `BASICSR_JIT == 'True'` where the file binds the name only to `os.getenv('BASICSR_JIT')`: what
    that read gives while the variable is unset, the reason naming the name and its line."""
    right = bound_env_read(node, depth + 1)
    if right is None:
        return UNKNOWN
    before = len(read)
    value = _value(right, read, depth + 1)
    if value is not UNKNOWN and len(read) == before + 1:
        variable, default = read[-1]
        read[-1] = (variable, f"{default}, read into {parsing.text(node)} at line {right.start_point.row + 1}")
    return value


def _call(node: Node, read: list[tuple[str, str]], depth: int):
    variable = env_variable(node)
    function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
    if variable is not None:
        if node.type != "call" or arguments is None:
            return UNKNOWN
        values = arguments.named_children
        if len(values) > 2 or any(v.type == "keyword_argument" for v in values):
            return UNKNOWN
        default = _literal(values[1]) if len(values) == 2 else None
        if default is UNKNOWN:
            return UNKNOWN
        read.append((variable, f"default {parsing.text(values[1])}" if len(values) == 2 else "no default"))
        return default
    if function is None or arguments is None:
        return UNKNOWN
    if function.type == "identifier" and parsing.text(function) in CONVERSIONS and len(arguments.named_children) == 1:
        inner = _value(arguments.named_children[0], read, depth + 1)
        if inner is UNKNOWN or inner is None:
            return UNKNOWN
        try:
            return CONVERSIONS[parsing.text(function)](inner)
        except (TypeError, ValueError):
            return UNKNOWN
    if function.type == "attribute" and not arguments.named_children:
        method = METHODS.get(parsing.text(function.child_by_field_name("attribute")))
        inner = _value(function.child_by_field_name("object"), read, depth + 1) if method is not None else UNKNOWN
        return method(inner) if isinstance(inner, str) else UNKNOWN
    return UNKNOWN


def _compare(node: Node, read: list[tuple[str, str]], depth: int):
    operands = node.named_children
    operator = " ".join(parsing.text(c) for c in node.children if not c.is_named)
    if len(operands) != 2 or operator not in {"==", "!=", "in", "not in"}:
        return UNKNOWN
    left, right = (_value(o, read, depth + 1) for o in operands)
    if left is UNKNOWN or right is UNKNOWN:
        return UNKNOWN
    if operator in {"==", "!="}:
        return (left == right) == (operator == "==")
    if not isinstance(right, (tuple, str)) or (isinstance(right, str) and not isinstance(left, str)):
        return UNKNOWN
    return (left in right) == (operator == "in")


def _literal(node: Node):
    kind = node.type
    if kind == "string":
        if any(c.type == "interpolation" for c in node.named_children):
            return UNKNOWN
        return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")
    if kind == "integer":
        try:
            return int(parsing.text(node), 0)
        except ValueError:
            return UNKNOWN
    if kind in {"true", "false", "none"}:
        return {"true": True, "false": False, "none": None}[kind]
    if kind in {"tuple", "list", "set"}:
        items = tuple(_literal(c) for c in node.named_children)
        return UNKNOWN if any(i is UNKNOWN for i in items) else items
    return UNKNOWN


def table_off(root: Node, text: str) -> list[str]:
    """The keys of a module-level table of environment variables (`{"X": lambda: os.getenv("X", "0") == "1"}`) whose
    lambda is false while its variable is unset."""
    if "lambda" not in text or not ("getenv" in text or "environ" in text):
        return []
    found = []
    for statement in root.named_children:
        assignment = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        right = assignment.child_by_field_name("right") if assignment is not None and assignment.type == "assignment" else None
        if right is None or right.type != "dictionary":
            continue
        for pair in right.named_children[:MAX_ENTRIES]:
            key, value = pair.child_by_field_name("key"), pair.child_by_field_name("value")
            if pair.type != "pair" or key is None or value is None or value.type != "lambda" or key.type != "string":
                continue
            name, body = _literal(key), value.child_by_field_name("body")
            if isinstance(name, str) and name.isidentifier() and body is not None and env_off(body) is not None:
                found.append(name)
    return found


def module_read(node: Node) -> tuple[str, str] | None:
    """`envs.NVTX_PROFILE` where `envs` is a module the file imports (`import pkg.envs as envs`, `from pkg import
    envs`, `from . import envs`) and the attribute is an upper-case name: (the module, dotted as imported, leading dots
    kept; the attribute)."""
    holder, attribute = node.child_by_field_name("object"), node.child_by_field_name("attribute")
    if holder is None or attribute is None or holder.type != "identifier":
        return None
    name = parsing.text(attribute)
    if not name.isupper() or not name.replace("_", "").isalnum():
        return None
    root = parsing.root_of(node)
    alias = parsing.text(holder)
    for statement in root.named_children:
        module = _imported_as(statement, alias)
        if module is not None:
            return module, name
    return None


def _imported_as(statement: Node, alias: str) -> str | None:
    """The module a module-level import statement binds to `alias`, dotted."""
    if statement.type == "import_statement":
        for item in statement.named_children:
            if item.type == "aliased_import" and parsing.text(item.child_by_field_name("alias")) == alias:
                return parsing.text(item.child_by_field_name("name"))
            if item.type == "dotted_name" and parsing.text(item) == alias:
                return alias
    elif statement.type == "import_from_statement":
        source = statement.child_by_field_name("module_name")
        for item in statement.children_by_field_name("name"):
            bound = item.child_by_field_name("alias") if item.type == "aliased_import" else item
            imported = item.child_by_field_name("name") if item.type == "aliased_import" else item
            if bound is not None and imported is not None and parsing.text(bound) == alias and source is not None:
                prefix = parsing.text(source)
                return prefix + ("" if prefix.endswith(".") else ".") + parsing.text(imported)
    return None


def table_module(read_as: str, path: str, modules: set[str]) -> str | None:
    """The project's module a reason's dotted (maybe relative) name is, among `modules`; None when out of sight."""
    if read_as.startswith("."):
        dots = len(read_as) - len(read_as.lstrip("."))
        package = path.rsplit("/", 1)[0].split("/") if "/" in path else []
        if dots - 1 > len(package):
            return None
        base = package[:len(package) - (dots - 1)]
        read_as = ".".join([*base, read_as.lstrip(".")]) if read_as.lstrip(".") else ".".join(base)
    if read_as in modules:
        return read_as
    ends = [m for m in modules if m.endswith("." + read_as)]  # a project under src/ or a folder not on the path
    return ends[0] if len(ends) == 1 else None


def table_arms(conditions: list[Node], text: str) -> list[tuple[int, int, str, str, str]]:
    """(first line, last line, the module as imported, the key, "line N: <condition>") of the arms a test of a table
    entry decides; `conditions`: the file's if/elif conditions."""
    if "." not in text:
        return []
    found = []
    for condition in conditions[:MAX_ARMS * 4]:
        statement = condition.parent
        if statement is None or statement.type not in {"if_statement", "elif_clause"}:
            continue
        shown = f"line {condition.start_point.row + 1}: {' '.join(parsing.text(condition).split())}"
        read = _table_term(condition)
        body = statement.child_by_field_name("consequence")
        if read is not None and body is not None:
            found.append((body.start_point.row + 1, body.end_point.row + 1, *read, shown))
        rest = _after_exit(statement, condition)
        if rest is not None:
            found.append((*rest[0], *rest[1], shown))
        if len(found) >= MAX_ARMS:
            break
    return found


def _terms(node: Node, operator: str, depth: int = 0) -> list[Node]:
    """The terms of an `and` / `or` (parentheses unwrapped, nested ones of the same operator flattened)."""
    while node.type == "parenthesized_expression" and len(node.named_children) == 1:
        node = node.named_children[0]
    joined = node.child_by_field_name("operator") if node.type == "boolean_operator" else None
    if joined is None or parsing.text(joined) != operator or depth > 8:
        return [node]
    return [t for side in (node.child_by_field_name("left"), node.child_by_field_name("right")) if side is not None
            for t in _terms(side, operator, depth + 1)]


def _table_term(condition: Node) -> tuple[str, str] | None:
    """The first `envs.X` among the terms of the condition's `and`s."""
    for term in _terms(condition, "and"):
        read = module_read(term) if term.type == "attribute" else None
        if read is not None:
            return read
    return None


def _after_exit(statement: Node, condition: Node) -> tuple[tuple[int, int], tuple[str, str]] | None:
    """`if not (envs.X and ...): return` or `if not envs.X or ...: return` (no elif/else, the body ending in return or
    raise): the lines after it in its block, and the entry they need on."""
    if statement.type != "if_statement" or any(c.type in {"elif_clause", "else_clause"} for c in statement.children):
        return None
    body = statement.child_by_field_name("consequence")
    last = [s for s in (body.named_children if body is not None else []) if s.type != "comment"]
    block = statement.parent
    if not last or last[-1].type not in {"return_statement", "raise_statement"} or block is None or block.type != "block":
        return None
    for term in _terms(condition, "or"):
        argument = term.child_by_field_name("argument") if term.type == "not_operator" else None
        read = _table_term(argument) if argument is not None else None
        if read is not None and statement.end_point.row + 1 < block.end_point.row + 1:
            return (statement.end_point.row + 2, block.end_point.row + 1), read
    return None


def table_arms_off(facts, context, switches_on: dict[str, list]) -> dict[str, list[tuple[int, int, str, str]]]:
    """path → (first, last, the key, why) of product arms `table_arms` found whose key the imported module's table
    gives an off default, and that nothing of the project turns on (switched_on.turned_on)."""
    from ascend_feasibility.analyzer.core.models import COUNTED_ROLES

    tables = {f.module: set(f.env_table_off) for f in facts if f.env_table_off}
    if not tables:
        return {}
    modules = set(tables)
    result: dict[str, list[tuple[int, int, str, str]]] = {}
    for f in facts:
        if not f.env_table_arms or context.of(f.path).role not in COUNTED_ROLES:
            continue
        for first, last, read_as, key, shown in f.env_table_arms:
            module = table_module(read_as, f.path, modules)
            if module is None or key not in tables[module] or key in switches_on:
                continue
            result.setdefault(f.path, []).append((first, last, key, f"environment variable `{key}` is unset by default "
                                                  f"({module}'s table of environment variables); {shown}"))
    return result


def env_arm(node: Node) -> str | None:
    """Why `node` runs only while an environment variable is set: it sits in the arm of an if/elif one of whose `and`
    terms is false while the variable is unset (env_off; a name through bound_env_read). BasicSR's setup.py lists the
    .cu sources of `make_cuda_ext(...)` under `if cuda_ext == 'True':` and its ops modules `load(...)` them under `if
    BASICSR_JIT == 'True':`. None where the node is reached otherwise."""
    from ascend_feasibility.analyzer.context.switches import first_term

    child, parent = node, node.parent
    for _ in range(MAX_ARM_DEPTH):
        if parent is None:
            return None
        if parent.type in {"if_statement", "elif_clause"} and parent.child_by_field_name("consequence") == child:
            condition = parent.child_by_field_name("condition")
            why = first_term(condition, lambda term, _: _off_term(term)) if condition is not None else None
            if why is not None:
                return f"{why}; line {condition.start_point.row + 1}: {' '.join(parsing.text(condition).split())[:80]}"
        child, parent = parent, parent.parent
    return None


def _off_term(term: Node) -> str | None:
    off = env_off(term) if term.type in {"call", "comparison_operator", "not_operator", "identifier"} else None
    if off is not None:
        return f"environment variable `{off[0]}` is unset by default ({off[1]})"
    flag = argv_flag_off(term)  # `if '--cuda_ext' in sys.argv:` in a setup.py: a command-line switch the same way
    return argv_reason(flag, term) if flag is not None else None
