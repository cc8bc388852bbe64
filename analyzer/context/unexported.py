"""Shell assignments of environment variables that no program the script starts can see (round 18 A43:
`NCCL_DEBUG=INFO` on its own line of a launch script): a bare `NAME=value` makes a shell variable, which reaches a
child process only once exported. It is no setting where the script
- never exports the name (`export NAME`, `declare -x NAME`, `typeset -x NAME`) and never turns on `set -a`
  (`set -o allexport`), which exports every assignment;
- never reads it (`$NAME`, `${NAME}`): a read may hand the value on (`--env NCCL_DEBUG=$NCCL_DEBUG`);
- starts a program after it (a file of assignments only is sourced by another script, which may export them);
- and the name is not one a job's environment exports already (conventions: guards.job_exported_variables, such as
  Slurm's CUDA_VISIBLE_DEVICES): bash exports an assignment to a name it inherited from its environment.
Such a site is `cosmetic`: it changes nothing that runs, on CUDA or on Ascend.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

EXPORTING = ("export", "declare", "typeset", "readonly", "local")  # declaration commands: their names are declared
EXPORT_FLAGS = ("-x", "-gx", "-xg")
PRUNE = frozenset({"heredoc_body", "raw_string", "comment"})
WALK_LIMIT = 200_000  # nodes of one script read for exports and reads; past them the site keeps its reach


def unexported_reason(root: Node, name_node: Node, inherited: frozenset[str]) -> str | None:
    """Why the assignment whose name is `name_node` sets nothing for the script's programs, or None."""
    assignment = name_node.parent
    if assignment is None or assignment.type != "variable_assignment" or name_node.type != "variable_name":
        return None
    holder = assignment.parent
    if holder is None or holder.type in {"command", "declaration_command"}:
        return None  # `NAME=v cmd` sets it for that command; `export NAME=v` exports it
    name = parsing.text(name_node)
    if name in inherited:
        return None
    after = False
    for node in parsing.walk(root, prune=PRUNE, limit=WALK_LIMIT):
        if node.type == "variable_name" and parsing.text(node) == name and node.parent is not None \
                and node.parent.type in {"simple_expansion", "expansion"}:
            return None  # read: the value may be handed on
        if node.type == "declaration_command" and _exports(node, name):
            return None
        if node.type == "command":
            words = [parsing.text(c) for c in node.named_children]
            if words and words[0] == "set" and any(w in {"-a", "allexport"} or (w.startswith("-") and "a" in w
                                                                            and not w.startswith("--")) for w in words[1:]):
                return None  # every assignment is exported from here on
            if node.start_byte > assignment.end_byte and words and words[0] not in {"set", "echo", "printf", "true"}:
                after = True
    if not after:
        return None
    line = assignment.start_point[0] + 1
    return (f"line {line}: {parsing.text(assignment)[:60]} is a shell variable the script never exports or reads: "
            "no program it starts sees it")


def _exports(declaration: Node, name: str) -> bool:
    words = parsing.text(declaration).split()
    if not words or words[0] not in EXPORTING:
        return False
    if words[0] in {"declare", "typeset", "readonly", "local"} and not any(w in EXPORT_FLAGS for w in words[1:]):
        return False
    for child in declaration.named_children:
        target = child.child_by_field_name("name") if child.type == "variable_assignment" else child
        if target is not None and target.type == "variable_name" and parsing.text(target) == name:
            return True
    return False
