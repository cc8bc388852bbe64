"""nvidia-smi run from Python as a logged diagnostic: its failure is caught and only reported, and what it returns
only fills a log (round 35 B2 class 6 row 43, A2 class 6 row 55; round 34 B had the same class).

metaseq logging/metrics.py `nvidia_smi_gpu_memory_stats`: `subprocess.Popen(["nvidia-smi", "--query-gpu=..."])` in a
`try` whose handlers (`except FileNotFoundError:`, `except subprocess.CalledProcessError`) only call `logging.error`,
and the dict it returns is formatted into a log line (`"nvidia-smi stats: {}".format(nvidia_smi_gpu_memory_stats())`).
On Ascend the program is missing, the handler logs that, and the caller logs an empty dict: nothing else changes.

The launch is a logged diagnostic when:
- it sits in the body of a `try` (in a function) one of whose handlers catches the missing program (FileNotFoundError,
  OSError and its aliases, Exception, BaseException, or a bare `except:`);
- every handler of that `try` only shows a message (the conventions' message calls) or passes: none returns a
  fallback value, assigns one or raises, which would make the failure a decision;
- the try body returns no value of its own (`return len(out.splitlines())`, unsloth studio's get_physical_gpu_count
  and `_get_gpu_memory`: a count or free memory for placement);
- the function is called in its own file, and every such call is shown: an argument of a message call, of a string's
  `.format`, or inside an f-string. A function returning a fallback (`except FileNotFoundError: return 0`), one its
  file never calls or uses otherwise keeps its severity. Callers in other files are not read; that is this signal's
  limit (metaseq's trainer.py hands the same dict to metrics.log_scalar)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

LOGGED_ONLY = "logged-only"  # DEV211's facet
MISSING_PROGRAM = frozenset({"FileNotFoundError", "OSError", "EnvironmentError", "IOError", "Exception", "BaseException"})
MAX_USES = 20
MAX_DEPTH = 4  # levels from a call of the function up to the call that shows it


def logged_diagnostic(launch: Node, is_message_call) -> bool:
    """The process launch `launch` is a logged diagnostic (see the module's docstring)."""
    statement = _enclosing_try(launch)
    if statement is None:
        return False
    handlers = [c for c in statement.children if c.type == "except_clause"]
    if not handlers or not any(_catches_missing_program(h) for h in handlers):
        return False
    if not all(_only_reports(h, is_message_call) for h in handlers) or _returns_value(statement.child_by_field_name("body")):
        return False
    function = parsing.enclosing(statement, {"function_definition"})
    return function is not None and _only_shown(function, is_message_call)


def _enclosing_try(node: Node) -> Node | None:
    """The innermost `try` whose body (not a handler) holds the node, within its function."""
    current = node
    while current.parent is not None and current.type != "function_definition":
        parent = current.parent
        if parent.type == "try_statement" and parent.child_by_field_name("body") == current:
            return parent
        current = parent
    return None


def _catches_missing_program(handler: Node) -> bool:
    types = [c for c in handler.named_children if c.type != "block" and c.type != "comment"]
    if not types:
        return True  # `except:`
    names = set()
    for kind in types:
        target = kind.named_children[0] if kind.type == "as_pattern" and kind.named_children else kind
        parts = target.named_children if target.type in {"tuple", "parenthesized_expression"} else [target]
        names.update(parsing.text(p).rsplit(".", 1)[-1] for p in parts)
    return bool(names & MISSING_PROGRAM)


def _only_reports(handler: Node, is_message_call) -> bool:
    body = next((c for c in handler.named_children if c.type == "block"), None)
    if body is None:
        return False
    for statement in body.named_children:
        if statement.type in {"pass_statement", "comment"}:
            continue
        call = statement.named_children[0] if statement.type == "expression_statement" and statement.named_children else None
        if call is None or not is_message_call(call):
            return False
    return True


def _only_shown(function: Node, is_message_call) -> bool:
    """Every call of the function in its file is shown (none at all: nothing in the file decides on it)."""
    name_node = function.child_by_field_name("name")
    if name_node is None:
        return False
    name = parsing.text(name_node)
    root = parsing.root_of(function)
    uses = [u for u in parsing.identifiers_named(root, name, 20000)
            if not function.start_byte <= u.start_byte < function.end_byte]
    if not uses or len(uses) > MAX_USES:
        return False  # no use in the file: callers elsewhere may decide on the value
    return all(_shown(use, is_message_call) for use in uses)


def _returns_value(body: Node | None) -> bool:
    """The try body returns a value of its own (`return len(out.splitlines())`): the parsed output is the function's
    answer, which its callers decide on."""
    return body is not None and any(
        n.type == "return_statement" and n.named_children and parsing.enclosing(n, {"function_definition", "lambda"})
        == parsing.enclosing(body, {"function_definition", "lambda"}) for n in parsing.walk(body, limit=5000))


def _shown(use: Node, is_message_call) -> bool:
    node = use.parent.parent if use.parent is not None and use.parent.type == "attribute" else use.parent
    if node is None or node.type != "call":
        return False  # handed on, imported, decorated: used some other way
    current = node.parent
    for _ in range(MAX_DEPTH):
        if current is None:
            return False
        if current.type == "interpolation":
            return True  # inside an f-string
        if current.type == "call":
            function = current.child_by_field_name("function")
            if is_message_call(current):
                return True
            if function is not None and function.type == "attribute" \
                    and parsing.text(function.child_by_field_name("attribute")) == "format" \
                    and function.child_by_field_name("object") is not None \
                    and function.child_by_field_name("object").type == "string":
                return True
        current = current.parent
    return False
