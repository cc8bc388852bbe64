"""Flags a Python file passes to a script it launches through a shell command string (round 32 V8).

`os.system("python sub/inference.py --size 256 --face3dvis")` (or `subprocess.run("python x.py --flag", shell=True)`,
`os.popen(...)`) runs another script of the project with those flags, as a shell launcher's `python x.py --flag` line
does: the flags it passes turn on that script's switches (switched_on.turned_on reads `launch_flags` and
`launch_values`), so an import behind `if args.face3dvis:` runs. The command string is read with the README command
reader (install_docs.launch_lines: runner commands only, python/torchrun/deepspeed/accelerate), an f-string's `{name}`
parts standing as plain words. Only a string literal given as the call's first argument is read; a command built
elsewhere is left alone.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import install_docs, parsing
from tree_sitter import Node

SHELL_CALLS = frozenset({("os", "system"), ("os", "popen"), ("subprocess", "run"), ("subprocess", "call"),
                         ("subprocess", "check_call"), ("subprocess", "check_output"), ("subprocess", "Popen"),
                         ("subprocess", "getoutput"), ("subprocess", "getstatusoutput")})
CALL_QUERY = "(call function: (attribute object: (identifier) attribute: (identifier)) arguments: (argument_list)) @call"


def command_words(tree: Node, text: str) -> list[list[str]]:
    """The argument words of each runner command in the command strings this module's shell calls pass."""
    if "system(" not in text and "subprocess" not in text and "popen(" not in text:
        return []
    found: list[list[str]] = []
    for call in parsing.captures(parsing.query("python", CALL_QUERY), tree).get("call", []):
        function = call.child_by_field_name("function")
        owner, name = function.child_by_field_name("object"), function.child_by_field_name("attribute")
        if (parsing.text(owner), parsing.text(name)) not in SHELL_CALLS:
            continue
        first = next(iter(call.child_by_field_name("arguments").named_children), None)
        if first is None or first.type != "string":
            continue
        command = "".join(parsing.text(part) for part in first.named_children
                          if part.type in {"string_content", "interpolation"})
        found += [words for _line, _program, words in install_docs.launch_lines(command)]
    return found
