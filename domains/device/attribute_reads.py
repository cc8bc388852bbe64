"""The attribute names a file reads: `x.device_map` anywhere but as the target of a plain assignment
(`self.device_map = ...` is a store), and the names `getattr`/`hasattr` look up by a literal
(`getattr(lm, "device_map")`). Read by domains/device/unread_constants.py: a `self.X = f"cuda:{rank}"` that several
arms store and no file reads is a dead store (round 24 A1 C3), however often the word X is written elsewhere as a
parameter, a keyword or a local name.
"""

from __future__ import annotations

from ascend_feasibility.analyzer.context.written_names import MIN_NAME, NAME_BYTES
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import Unit, register_query

MEMBERS = """
(attribute attribute: (identifier) @member)
(call function: (identifier) @lookup arguments: (argument_list (string (string_content) @named)))
"""
MEMBERS_QUERY = register_query("attribute_members", MEMBERS, alone=True)  # read only where a device store is judged
LOOKUPS = frozenset({"getattr", "hasattr", "attrgetter"})
# words by which a file reads attributes it does not name: a dump of an object's dict, a lookup by a computed name
DUMPS = frozenset({b"__dict__", b"vars", b"__getattribute__", b"__getattr__", b"asdict"})


def read(unit: Unit) -> set[str]:
    """The attribute names (MIN_NAME or longer) the unit reads."""
    found = unit.captures(MEMBERS_QUERY)
    names = set()
    for member in found.get("member", []):
        attribute = member.parent
        assignment = attribute.parent if attribute is not None else None
        if assignment is not None and assignment.type == "assignment" and assignment.child_by_field_name("left") == attribute:
            continue  # `self.X = ...`: a store
        name = parsing.text(member)
        if len(name) >= MIN_NAME:
            names.add(name)
    for named in found.get("named", []):
        call = named.parent.parent.parent  # string_content → string → argument_list → call
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is not None and parsing.text(function) in LOOKUPS:
            names.add(parsing.text(named))
    return names


def dumps(text: str) -> bool:
    """Whether a file of this text may read attributes it does not name (any of DUMPS as a word, a comment's too)."""
    return not DUMPS.isdisjoint(text.encode("utf-8", "replace").translate(NAME_BYTES).split())
