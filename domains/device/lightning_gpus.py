"""Lightning 1.x's `Trainer(gpus=...)`: a request for the CUDA accelerator (round 35 B2 class 4, A2 class 8:
Uni-ControlNet src/train/train.py `pl.Trainer(gpus=gpus, ...)`, `gpus = args.gpus`, `--gpus` default -1).

Lightning 1.x reads `gpus=` as GPU ids (device_parser.parse_gpu_ids): any value but 0/None/an empty list asks for
CUDA devices, and with none present it raises MisconfigurationException rather than falling back; Lightning 2.0
removed the keyword. The value asks for no GPU when it is the literal 0, None, "" or an empty list, or a read of a
command-line option (`args.gpus`, directly or through a local assigned it once) whose argparse default in the same
file is one of those (or which has no default). Any other value, an unresolved name included, is a request."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

NO_GPUS = frozenset({"0", "None", '""', "''", "[]", "()", '"0"', "'0'"})
ADD_ARGUMENT = "((call function: (attribute attribute: (identifier) @method)) @call (#eq? @method \"add_argument\"))"


def requested_gpus(value: Node) -> bool:
    """The `gpus=` value asks Lightning for CUDA devices."""
    option = _option_read(value)
    if option is None:
        return parsing.text(value) not in NO_GPUS
    default = _option_default(parsing.root_of(value), option)
    return default is None or default not in NO_GPUS


def _option_read(value: Node) -> str | None:
    """`args.gpus` (the option's name), or a local assigned exactly once from such a read."""
    if value.type == "attribute":
        return parsing.text(value.child_by_field_name("attribute"))
    if value.type != "identifier":
        return None
    scope = parsing.enclosing(value, {"function_definition"}) or parsing.root_of(value)
    name = parsing.text(value)
    bound = [n for n in parsing.identifiers_named(scope, name, 2000)
             if n.parent is not None and n.parent.type == "assignment" and n.parent.child_by_field_name("left") == n]
    if len(bound) != 1:
        return None
    right = bound[0].parent.child_by_field_name("right")
    return parsing.text(right.child_by_field_name("attribute")) if right is not None and right.type == "attribute" else None


def _option_default(root: Node, option: str) -> str | None:
    """The default's text of the file's argparse option `option` ("None" when it has none); None when the file
    declares no such option (then the value is not known to be off)."""
    for call in parsing.captures(parsing.query("python", ADD_ARGUMENT), root).get("call", []):
        arguments = call.child_by_field_name("arguments")
        if arguments is None:
            continue
        flags = [parsing.text(a).strip("'\"") for a in arguments.named_children if a.type == "string"]
        keywords = {parsing.text(a.child_by_field_name("name")): a.child_by_field_name("value")
                    for a in arguments.named_children if a.type == "keyword_argument"}
        dest = keywords.get("dest")
        names = {parsing.text(dest).strip("'\"")} if dest is not None else {
            f.lstrip("-").replace("-", "_") for f in flags if f.startswith("--")}
        if option in names:
            default = keywords.get("default")
            return "None" if default is None else parsing.text(default)
    return None
