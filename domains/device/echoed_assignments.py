"""nvidia-smi run by a shell script into a variable that is only echoed: `N=`nvidia-smi -L | wc -l`` then `echo $N`.

Round 41 B1 class 1 (rows 14, 23) and B2 class 5 (row 38), PointNeXt script/main_classification.sh:33-34,
main_partseg.sh:39-40, main_segmentation.sh:28-29: the count goes into NUM_GPU_AVAILABLE, whose only read is the
`echo` on the next line; the training command after it never sees it. On an Ascend host the substitution prints "not
found" and the variable is empty (or 0 after `| wc -l`): the log line changes, nothing else. The same facet as a bare
`nvidia-smi` line (printed-only, domains/device/resources.py).

The assignment prints only when:
- it is a statement of its own (`NAME=$(...)` or a backtick substitution; not `export NAME=...`, `local`, nor
  `NAME=... cmd`, which hand the value on), the substitution holding nvidia-smi directly or in a pipeline;
- every read of NAME in the script (`$NAME`, `${NAME}`, in a string or not) is an argument of `echo` or `printf`
  whose output goes to the terminal or the job's log (not redirected nor piped), and
  the script never exports the name or turns on `set -a`.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

STATEMENT_LISTS = frozenset({"program", "compound_statement", "do_group"})
PRINTERS = frozenset({"echo", "printf"})
COMMANDS = frozenset({"command"})
HANDED_ON = frozenset({"redirected_statement", "pipeline"})
PRUNE = frozenset({"heredoc_body", "raw_string", "comment"})
WALK_LIMIT = 200_000  # nodes of one script read for the variable's uses; past them the site keeps its severity


def echoed_only(command: Node, root: Node) -> bool:
    """Is `command` (an nvidia-smi command) the value of a variable assignment whose only reads print it?"""
    holder = command.parent
    if holder is not None and holder.type == "pipeline":
        holder = holder.parent
    if holder is None or holder.type != "command_substitution":
        return False
    assignment = holder.parent
    if assignment is None or assignment.type != "variable_assignment" or assignment.parent is None \
            or assignment.parent.type not in STATEMENT_LISTS:
        return False
    name_node = assignment.child_by_field_name("name")
    if name_node is None or name_node.type != "variable_name":
        return False
    name = parsing.text(name_node)
    try:
        for node in parsing.walk(root, prune=PRUNE, limit=WALK_LIMIT, strict=True):
            if node.type == "variable_name" and parsing.text(node) == name and node != name_node \
                    and not _printed(node):
                return False
            if node.type == "command" and _exports_all(node):
                return False
    except parsing.WalkLimit:
        return False
    return True


def _printed(variable: Node) -> bool:
    """Is this use of a name a read inside an argument of echo/printf (the nearest command around it)?"""
    if variable.parent is None or variable.parent.type not in {"simple_expansion", "expansion"}:
        return False  # another assignment of the name, `export NAME`, `unset NAME`, an arithmetic use
    command = parsing.enclosing(variable, COMMANDS)
    if command is None or (command.parent is not None and command.parent.type in HANDED_ON):
        return False  # `echo $N > count.txt`, `echo $N | xargs ...`: the value goes on
    name = command.child_by_field_name("name")
    return name is not None and parsing.text(name) in PRINTERS and not _inside(variable, name)


def _inside(node: Node, container: Node) -> bool:
    return container.start_byte <= node.start_byte and node.end_byte <= container.end_byte


def _exports_all(command: Node) -> bool:
    words = [parsing.text(c) for c in command.named_children]
    return bool(words) and words[0] == "set" and any(
        w == "allexport" or (w.startswith("-") and not w.startswith("--") and "a" in w) for w in words[1:])
