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
(assignment left: (attribute attribute: (identifier) @stored))
(call function: (identifier) @lookup arguments: (argument_list (string (string_content) @named)))
"""
# read in every Python unit (DeviceDomain.collect): its patterns go in the unit's combined query (domains/query_set.py)
MEMBERS_QUERY = register_query("attribute_members", MEMBERS)
LOOKUPS = frozenset({"getattr", "hasattr", "attrgetter"})
# words by which a file reads attributes it does not name: a dump of an object's dict, a lookup by a computed name
DUMPS = frozenset({b"__dict__", b"vars", b"__getattribute__", b"__getattr__", b"asdict"})


def read(unit: Unit) -> set[str]:
    """The attribute names (MIN_NAME or longer) the unit reads."""
    found = unit.captures(MEMBERS_QUERY)
    stored = {node.id for node in found.get("stored", [])}  # `self.X = ...`: a store
    # each name decoded once: a file reads the same few attributes hundreds of times
    read_bytes = {member.text for member in found.get("member", []) if member.id not in stored}
    names = {name for name in map(_decoded, read_bytes) if len(name) >= MIN_NAME}
    for named in found.get("named", []):
        call = named.parent.parent.parent  # string_content → string → argument_list → call
        function = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        if function is not None and parsing.text(function) in LOOKUPS:
            names.add(parsing.text(named))
    return names


def _decoded(data: bytes | None) -> str:
    return data.decode("utf-8", "replace") if data is not None else ""  # as parsing.text


def dumps(text: str) -> bool:
    """Whether a file of this text may read attributes it does not name (any of DUMPS as a word, a comment's too)."""
    return not DUMPS.isdisjoint(text.encode("utf-8", "replace").translate(NAME_BYTES).split())
