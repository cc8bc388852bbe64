"""nvidia-smi run from Python only to print the GPUs: the launch is a statement of its own, nothing reads its result.

Round 39 A1 class 2 row 7 (TimeSformer timesformer/utils/misc.py:186): `os.system("nvidia-smi")` after
`logger.info("nvidia-smi")` at the end of log_model_info. os.system runs the command through the shell and returns
its status, raising nothing; the status is dropped and the output goes to the console. On an Ascend host the shell
prints "not found" and the program goes on: the Python twin of a shell script's printed-only nvidia-smi
(domains/device/resources.py).

The launch prints only when:
- the call is an expression statement (its value, the status or a process object, is dropped);
- it cannot raise for the missing program: `os.system`, or `subprocess.run`/`call`/`Popen` with `shell=True` (the shell
  reports the missing program, Python does not) and no `check=` other than False;
- its output is not taken: no `stdout=`, `stderr=` or `capture_output=` keyword (`os.popen`, `check_output` and
  `getoutput` always take it, and are not among the launchers here);
- the command is a string literal that neither pipes nor redirects (`|`, `>`, `<`, `;`, `&`, `$(`, a backtick)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

PRINTED_ONLY = "printed-only"  # DEV211's facet (shared with the shell scanner's)
SHELL_LAUNCHERS = frozenset({"os.system"})
SHELL_KEYWORD_LAUNCHERS = frozenset({"subprocess.run", "subprocess.call", "subprocess.Popen"})
TAKES_OUTPUT = frozenset({"stdout", "stderr", "capture_output", "**"})  # "**": keywords unread, may take it
SHELL_OPERATORS = ("|", ">", "<", ";", "&", "$(", "`")


def printed_only(call: Node, launcher: str, command: Node) -> bool:
    """The launch `call` of `launcher` (its qualified name) running the string `command` only prints (see the module's
    docstring)."""
    if call.parent is None or call.parent.type != "expression_statement":
        return False
    if command.type != "string" or any(c.type == "interpolation" for c in command.named_children):
        return False
    text = "".join(parsing.text(c) for c in command.named_children if c.type == "string_content")
    if any(operator in text for operator in SHELL_OPERATORS):
        return False
    keywords = _keywords(call)
    if TAKES_OUTPUT & keywords.keys():
        return False
    if launcher in SHELL_LAUNCHERS:
        return True
    return launcher in SHELL_KEYWORD_LAUNCHERS and keywords.get("shell") == "True" \
        and keywords.get("check", "False") == "False"


def _keywords(call: Node) -> dict[str, str]:
    arguments = call.child_by_field_name("arguments")
    found = {}
    for argument in arguments.named_children if arguments is not None else ():
        name, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
        if argument.type == "keyword_argument" and name is not None and value is not None:
            found[parsing.text(name)] = parsing.text(value)
        elif argument.type == "dictionary_splat":
            found["**"] = parsing.text(argument)
    return found
