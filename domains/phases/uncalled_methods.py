"""Private methods of a module-level class that its file never names outside their own bodies (round 26 A2 rows 67,
98, B2 row 32: Amphion's trainers define `_extract_semantic_feature` under `@torch.amp.autocast(...)` and
`_build_semantic_model`, and no code calls either).

A method is reached through an attribute (`self._extract_codes_dac(x)`), a getattr string or a config naming it: each
writes its name. A candidate is a method named `_x` (private, not a dunder, which Python itself calls) of an
undecorated module-level class, undecorated or decorated only by decorators that register nothing (a cache, autocast,
no_grad, staticmethod), whose name the file's text holds once, in its `def` (a comment, a recursive call or a longer
name holding it keep it: the count is of the text, which needs no walk of the tree). A file that may look its names up (`globals()`, `fire.Fire()`) or calls getattr, attrgetter or
methodcaller with a name it builds gives none. The project pass (analyzer/context/uncalled_methods.py) keeps those
another file names, and those of classes deriving from a class outside the project (a framework may call its hook:
`_init_weights`, `_load_from_state_dict`).
"""

from __future__ import annotations

import functools
import re

from ascend_feasibility.analyzer.context.written_names import MIN_NAME
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import CALLS_BY_NAME_QUERY, Unit
from ascend_feasibility.domains.phases.symbols import INERT_DECORATORS, _inert, _looks_names_up, unit_statements
from tree_sitter import Node

# decorators that wrap a method and register nothing: a cache, a compiler, autocast and grad modes, method kinds
INERT_METHOD_DECORATORS = INERT_DECORATORS | frozenset({
    "staticmethod", "classmethod", "autocast", "no_grad", "inference_mode", "enable_grad", "custom_fwd", "custom_bwd"})
NAME_LOOKUPS = frozenset({"getattr", "attrgetter", "methodcaller"})  # calls that find an attribute by a string


def uncalled_methods(unit: Unit) -> list[tuple[str, str, int, int]]:
    """(class, method, first line, last line) of the private methods the file names nowhere but in their bodies, and
    of the user-only methods (knowledge opt_in.user_only_methods: a diffusers pipeline's enable_model_cpu_offload) its
    code names nowhere but in their `def` (comments, docstrings and messages may mention them); the first line is the
    first decorator's."""
    text = unit.source.text
    user_only = _user_only_pattern()
    if text.count("def _") <= text.count("def __") and not (user_only and user_only.search(text)):
        return []  # every `def _` is a dunder's and no user-only method: nothing to judge (before any tree walk)
    module = unit_statements(unit)
    if not module.classes or unit.tree().has_error:
        return []
    candidates: list[tuple[str, str, Node]] = []
    for statement, definition in module.classes:
        name_node = definition.child_by_field_name("name")
        body = definition.child_by_field_name("body")
        if name_node is None or body is None:
            continue
        judged = statement.type != "decorated_definition"  # a registry may call a decorated class's methods
        for member in body.named_children:
            function = member.child_by_field_name("definition") if member.type == "decorated_definition" else member
            method = function.child_by_field_name("name") if function is not None and \
                function.type == "function_definition" else None
            if method is None:
                continue
            name = parsing.text(method)
            if not judged or not (member is function or _inert(member, INERT_METHOD_DECORATORS)):
                continue
            if name.startswith("_") and not name.startswith("__") and len(name) >= MIN_NAME:
                candidates.append((parsing.text(name_node), name, member))
            elif user_only and user_only.fullmatch(name):
                candidates.append((parsing.text(name_node), name, member))
    private = {name for _, name, _ in candidates if name.startswith("_")}
    names = {name for name in private if text.count(name) == 1}
    public = {name for _, name, _ in candidates if not name.startswith("_")}
    if public:
        names |= public - _code_names(unit.tree(), public,
                                      {(m.start_byte, m.end_byte) for _, n, m in candidates if n in public})
    if not names or _looks_names_up(unit) or builds_attribute_names(unit):
        return []
    return [(holder, name, member.start_point.row + 1, member.end_point.row + 1) for holder, name, member in candidates
            if name in names]


@functools.cache
def _user_only_pattern() -> re.Pattern[str] | None:
    """One expression of knowledge opt_in.user_only_methods (the whole name must match), None when there is none."""
    from ascend_feasibility.knowledge import load_context_conventions

    patterns = load_context_conventions().opt_in.user_only_methods
    return re.compile(r"\b(?:" + "|".join(f"(?:{p})" for p in patterns) + r")\b") if patterns else None


def _code_names(root: Node, names: set[str], own: set[tuple[int, int]]) -> set[str]:
    """Which of `names` the file's code names outside the definitions `own` (byte ranges) other than by their own
    `def` name: an identifier or attribute (`pipe.enable_model_cpu_offload()`, `self.x = self.enable_vae_slicing`), or
    a string that is just the name (a getattr key). Comments, docstrings and messages naming it call nothing."""
    found: set[str] = set()
    stack = [root]
    while stack:
        node = stack.pop()
        if node.type == "identifier" or node.type == "string_content":
            word = parsing.text(node)
            if word in names and not _own_def_name(node, own):
                found.add(word)
                if found == names:
                    return found
        elif node.type == "comment":
            continue
        stack.extend(node.children)
    return found


def _own_def_name(node: Node, own: set[tuple[int, int]]) -> bool:
    """Is the identifier the name of one of the judged definitions (a `def`'s own name calls nothing)?"""
    parent = node.parent
    if parent is None or parent.type != "function_definition" or parent.child_by_field_name("name") != node:
        return False
    holder = parent.parent if parent.parent is not None and parent.parent.type == "decorated_definition" else parent
    return (holder.start_byte, holder.end_byte) in own


def builds_attribute_names(unit: Unit) -> bool:
    """Does the file call getattr, attrgetter or methodcaller with a name that is no plain string literal (`getattr(self,
    "_" + step)`)? Such a lookup may call any method of its object's class: analyzer/context/uncalled_methods.py keeps
    the methods of the classes such a file defines, derives from or subclasses."""
    text = unit.source.text
    if not any(name in text for name in NAME_LOOKUPS):
        return False  # a call of one spells its name
    found = unit.captures(CALLS_BY_NAME_QUERY)
    for node in found.get("called", []) + found.get("method", []):
        name = parsing.text(node)
        if name not in NAME_LOOKUPS:
            continue
        call = node.parent if node.parent is not None and node.parent.type == "call" else \
            node.parent.parent if node.parent is not None else None
        arguments = call.child_by_field_name("arguments") if call is not None else None
        given = arguments.named_children if arguments is not None else []
        named = given[1:2] if name == "getattr" else given[:1]
        if not named or any(argument.type != "string" or any(part.type == "interpolation"
                                                              for part in argument.named_children)
                            for argument in named):
            return True
    return False
