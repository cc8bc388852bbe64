"""A "cuda" string that is a value of the project's own Enum, not a device.

nanotron's `nanotron_timer("sync_gradients", "cuda")`: Timers.__call__ converts its `timer_type` parameter with
`TimerType(timer_type)`, an Enum whose member CUDA = "cuda" picks CUDA-event timing (with its own CPU fallback). The
string never reaches torch; the advised "npu" would raise ValueError in TimerType("npu"). Such a literal is no device
string: DEV001 is dropped there.

Each file contributes facts (DeviceFacts): the Enum classes it defines with a member equal to "cuda"; the parameters
its functions convert to a class by calling it on the parameter alone (`TimerType(timer_type)`) or annotate with it,
under the names a call reaches them by (the function's name; for `__call__`, the module-level instances of its class,
`nanotron_timer = Timers()`); and the "cuda" literals it passes as call arguments (callee's last name, position or
keyword). The project pass (DeviceDomain.report) links them by name: a literal passed where a callable of that name
converts the parameter to an Enum with a "cuda" member loses its DEV001. An Enum whose `.value` a file hands to a
device API (`torch.device(kind.value)`, `.to(kind.value)`, `device=kind.value`) is a device after all: its strings
stay findings (a holder that is a variable, `self.kind.value`, cannot be told apart: then every Enum the file defines
or converts to stays).

Only files that spell a "cuda" literal or "Enum" are read (GATE): a conversion in a file with neither is not seen, and
its literals keep their finding."""

from __future__ import annotations

from dataclasses import dataclass, field

from ascend_feasibility.analyzer.context.instance_calls import module_call_bindings
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import CALLS_BY_NAME_QUERY, DEFINITIONS_QUERY, Unit
from ascend_feasibility.domains.device.literals import string_parts
from tree_sitter import Node

# Only the calls that can hold a "cuda" literal argument or hand over an Enum's `.value` (_cuda_arguments and
# _device_value find nothing in any other call). Each capture spells "cuda" or "value", so the query runs only around
# those words (parsing.captures_around); the classes, functions and name conversions (`TimerType(timer_type)`) come
# from the unit's combined query (domains.base.DEFINITIONS_QUERY, CALLS_BY_NAME_QUERY), which every Python unit runs.
QUERY = """
((call arguments: (argument_list (string) @cuda_string)) @call (#match? @cuda_string "cuda"))
((call arguments: (argument_list (keyword_argument value: (string) @cuda_keyword))) @call (#match? @cuda_keyword "cuda"))
((call arguments: (argument_list (attribute attribute: (identifier) @value_name))) @call (#eq? @value_name "value"))
((call arguments: (argument_list (keyword_argument value: (attribute attribute: (identifier) @value_keyword))))
 @call (#eq? @value_keyword "value"))
"""
QUERY_WORDS = frozenset({b"cuda", b"value"})
ENUM_BASES = frozenset({"Enum", "StrEnum", "IntEnum", "enum.Enum", "enum.StrEnum"})
DEVICE_CALLEES = frozenset({"device", "to"})  # torch.device(...), x.to(...)
CUDA = "cuda"
DEVICE_STRING_RULES = frozenset({"DEV001"})  # the device-string rule (device-string detector)
GATE = ('"cuda"', "'cuda'", "Enum")
ANY = "*"  # a device API gets some Enum's .value through a variable
MAX_RECORDS = 2_000  # per file and kind: a generated file must not swell the facts


@dataclass
class EnumParameter:
    callable: str  # the name a call reaches it by: a function's, or an instance's of a class with __call__
    index: int  # the parameter's position among a call's arguments (self excluded)
    name: str
    enum: str  # the class it is converted to


@dataclass
class CudaArgument:
    line: int  # 1-based, the literal's
    callee: str  # the called name's last part
    index: int  # position among the call's arguments, -1 when passed by keyword
    keyword: str = ""


@dataclass
class DeviceFacts:
    path: str = ""
    cuda_enums: list[str] = field(default_factory=list)
    device_enums: list[str] = field(default_factory=list)  # enums whose .value this file hands to a device API
    enum_parameters: list[EnumParameter] = field(default_factory=list)
    cuda_arguments: list[CudaArgument] = field(default_factory=list)
    unread_constants: list[tuple[int, str]] = field(default_factory=list)  # domains/device/unread_constants.py
    device_counts: list[tuple[int, str]] = field(default_factory=list)  # domains/device/device_counts.py
    unread_stores: list[tuple[int, int, str]] = field(default_factory=list)  # likewise: self.X = ... nothing reads
    unread_defaults: list[int] = field(default_factory=list)  # unread_parameters.py: lines of unused defaults
    stored_only: list[tuple[int, int, str]] = field(default_factory=list)  # unread_constants.py: stores never loaded
    attribute_reads: list[str] = field(default_factory=list)  # attribute_reads.py: the attribute names it reads
    device_classes: list[tuple[str, str, int, int, int, str]] = field(default_factory=list)  # device_classes.py
    build_checks: list[tuple[str, int, int]] = field(default_factory=list)  # build_checks.py: returns of a build test
    asserted_calls: list[tuple[str, int]] = field(default_factory=list)  # build_checks.py: calls an assert tests
    mask_defaults: list[int] = field(default_factory=list)  # mask_defaults.py: lines writing the mask when unset
    mask_reads: list[int] = field(default_factory=list)  # mask_defaults.py: lines reading the mask

    def empty(self) -> bool:
        return not (self.cuda_enums or self.enum_parameters or self.cuda_arguments or self.device_enums
                    or self.unread_constants or self.unread_defaults or self.stored_only or self.attribute_reads or self.device_counts or self.unread_stores or self.device_classes
                    or self.build_checks or self.asserted_calls or self.mask_defaults or self.mask_reads)


def wanted(text: str) -> bool:
    return any(word in text for word in GATE)


def query_keys() -> set[str]:
    """The keys of the unit's combined query (domains.query_set) `collect` reads."""
    return {DEFINITIONS_QUERY, CALLS_BY_NAME_QUERY}


def collect(path: str, unit: Unit) -> DeviceFacts:
    facts = DeviceFacts(path=path)
    root = unit.tree()
    found = parsing.captures_around(parsing.query("python", QUERY), root, QUERY_WORDS)
    definitions = unit.captures(DEFINITIONS_QUERY)
    instances = _module_instances(root)
    for cls in definitions.get("class", []):  # an Enum has a base
        if _is_enum(cls) and _has_cuda_member(cls):
            facts.cuda_enums.append(parsing.text(cls.child_by_field_name("name")))
    # a conversion calls a class, whose name _conversions wants capitalised: the calls of lower-case names (most) are
    # left out before their arguments and functions are read
    conversions = _conversions_by_function([callee.parent for callee in unit.captures(CALLS_BY_NAME_QUERY).get("called", [])
                                            if not _lower_case(callee) and _converts_a_name(callee.parent)])
    for function in [name.parent for name in definitions.get("function_name", [])][:MAX_RECORDS]:
        facts.enum_parameters.extend(_converted_parameters(function, instances, conversions))
    for call in _distinct(found.get("call", [])):
        facts.cuda_arguments.extend(_cuda_arguments(call))
        enum = _device_value(call)
        if enum is not None and enum not in facts.device_enums:
            facts.device_enums.append(enum)
    facts.cuda_arguments = facts.cuda_arguments[:MAX_RECORDS]
    facts.enum_parameters = facts.enum_parameters[:MAX_RECORDS]
    return facts


def enum_strings(all_facts: list[DeviceFacts]) -> dict[tuple[str, int], str]:
    """(path, line) of each "cuda" literal passed where a callable converts it to a project Enum with a "cuda"
    member, with that Enum's name."""
    device_used = {e for f in all_facts for e in f.device_enums if e != ANY}
    for facts in all_facts:
        if ANY in facts.device_enums:
            device_used.update(facts.cuda_enums)
            device_used.update(p.enum for p in facts.enum_parameters)
    enums = {e for f in all_facts for e in f.cuda_enums} - device_used
    by_position: dict[tuple[str, int], str] = {}
    by_keyword: dict[tuple[str, str], str] = {}
    for facts in all_facts:
        for parameter in facts.enum_parameters:
            if parameter.enum in enums:
                by_position.setdefault((parameter.callable, parameter.index), parameter.enum)
                by_keyword.setdefault((parameter.callable, parameter.name), parameter.enum)
    sites = {}
    for facts in all_facts:
        for argument in facts.cuda_arguments:
            enum = (by_keyword.get((argument.callee, argument.keyword)) if argument.index < 0
                    else by_position.get((argument.callee, argument.index)))
            if enum is not None:
                sites[(facts.path, argument.line)] = enum
    return sites


def _is_enum(cls: Node) -> bool:
    bases = cls.child_by_field_name("superclasses")
    return bases is not None and any(parsing.text(b) in ENUM_BASES for b in bases.named_children)


def _has_cuda_member(cls: Node) -> bool:
    body = cls.child_by_field_name("body")
    for statement in body.named_children if body is not None else []:
        assignment = parsing.statement_assignment(statement)
        right = assignment.child_by_field_name("right") if assignment is not None else None
        if right is not None and right.type == "string" and _plain_value(right) == CUDA:
            return True
    return False


def _plain_value(string: Node) -> str | None:
    prefix, inner = string_parts(string)
    return None if "f" in prefix.lower() or "b" in prefix.lower() else inner


def _module_instances(root: Node) -> dict[str, list[str]]:
    """Class name → the module-level names bound to an instance of it (`nanotron_timer = Timers()`)."""
    instances: dict[str, list[str]] = {}
    for left, callee in module_call_bindings(root):
        instances.setdefault(callee, []).append(parsing.text(left))
    return instances


def _parameters(function: Node) -> list[tuple[str, Node | None]]:
    """(name, annotation) of each parameter a call passes (self and cls dropped; splats end the list)."""
    parameters = function.child_by_field_name("parameters")
    result = []
    for parameter in parameters.named_children if parameters is not None else []:
        if parameter.type in {"list_splat_pattern", "dictionary_splat_pattern", "keyword_separator", "positional_separator"}:
            break
        if parameter.type == "identifier":
            name, annotation = parsing.text(parameter), None
        else:
            key = parameter.child_by_field_name("name") or (parameter.named_children[0] if parameter.named_children else None)
            if key is None or key.type != "identifier":
                break
            name, annotation = parsing.text(key), parameter.child_by_field_name("type")
        result.append((name, annotation))
    if result and result[0][0] in {"self", "cls"}:
        result = result[1:]
    return result


def _converted_parameters(function: Node, instances: dict[str, list[str]],
                          conversions: dict[int, list[Node]]) -> list[EnumParameter]:
    name_node = function.child_by_field_name("name")
    if name_node is None:
        return []
    name = parsing.text(name_node)
    if name == "__call__":
        cls = function.parent.parent if function.parent is not None else None
        if cls is None or cls.type != "class_definition":
            return []
        callables = instances.get(parsing.text(cls.child_by_field_name("name")), [])
    else:
        callables = [name]
    if not callables:
        return []
    parameters = _parameters(function)
    converted = _conversions(conversions.get(function.id, []), {p for p, _ in parameters})
    result = []
    for index, (parameter, annotation) in enumerate(parameters):
        classes = set(converted.get(parameter, []))
        if annotation is not None:
            classes.update(parsing.text(n) for n in _identifiers(annotation))
        for enum in sorted(classes):
            result.extend(EnumParameter(c, index, parameter, enum) for c in callables)
    return result


def _distinct(calls: list[Node]) -> list[Node]:
    """Each call once (several patterns may capture it), in source order."""
    seen, result = set(), []
    for call in calls:
        if (call.start_byte, call.end_byte) not in seen:
            seen.add((call.start_byte, call.end_byte))
            result.append(call)
    return result


def _lower_case(name: Node) -> bool:
    """A name starting with an ASCII lower-case letter or "_" (its first byte tells; str.isupper is False for both)."""
    first = name.text[:1]
    return first.islower() or first == b"_"


def _converts_a_name(call: Node) -> bool:
    """`Name(...)` with a plain name among its arguments (`TimerType(timer_type)`); the callee is a plain name."""
    arguments = call.child_by_field_name("arguments")
    return arguments is not None and arguments.type == "argument_list" and any(
        argument.type == "identifier" for argument in arguments.named_children)


def _conversions_by_function(calls: list[Node]) -> dict[int, list[Node]]:
    """`Name(name)` calls by the function whose own body holds them (not a nested function's or class's)."""
    owned: dict[int, list[Node]] = {}
    for call in calls:
        owner = call.parent
        while owner is not None and owner.type not in {"function_definition", "class_definition"}:
            owner = owner.parent
        if owner is not None and owner.type == "function_definition":
            owned.setdefault(owner.id, []).append(call)
    return owned


def _conversions(calls: list[Node], parameters: set[str]) -> dict[str, list[str]]:
    """Parameter → the names of the classes the body calls on it alone (`TimerType(timer_type)`)."""
    converted: dict[str, list[str]] = {}
    for call in calls:
        callee, arguments = call.child_by_field_name("function"), call.child_by_field_name("arguments")
        values = arguments.named_children if arguments is not None and arguments.type == "argument_list" else []
        if (callee is not None and callee.type == "identifier" and len(values) == 1 and values[0].type == "identifier"
                and parsing.text(values[0]) in parameters and parsing.text(callee)[:1].isupper()):
            converted.setdefault(parsing.text(values[0]), []).append(parsing.text(callee))
    return converted


def _identifiers(node: Node) -> list[Node]:
    found = []
    for current in parsing.walk(node):
        if current.type == "identifier":
            found.append(current)
            if len(found) == 20:
                break
    return found


def _cuda_arguments(call: Node) -> list[CudaArgument]:
    callee = parsing.callee_name(call)
    arguments = call.child_by_field_name("arguments")
    if callee is None or arguments is None or arguments.type != "argument_list":
        return []
    found, index = [], 0
    for argument in arguments.named_children:
        if argument.type == "comment":
            continue
        if argument.type in {"list_splat", "dictionary_splat"}:
            break
        if argument.type == "keyword_argument":
            value, key = argument.child_by_field_name("value"), argument.child_by_field_name("name")
            if value is not None and key is not None and value.type == "string" and _plain_value(value) == CUDA:
                found.append(CudaArgument(value.start_point.row + 1, callee, -1, parsing.text(key)))
            continue
        if argument.type == "string" and _plain_value(argument) == CUDA:
            found.append(CudaArgument(argument.start_point.row + 1, callee, index))
        index += 1
    return found


def _device_value(call: Node) -> str | None:
    """`torch.device(x.value)`, `t.to(x.value)` or `device=x.value`: the name before `.value` (an Enum member's
    holder, `TimerType.CUDA.value` → TimerType; a variable, `self.kind.value` → ANY)."""
    callee = parsing.callee_name(call)
    arguments = call.child_by_field_name("arguments")
    if arguments is None or arguments.type != "argument_list":
        return None
    for argument in arguments.named_children:
        value = argument
        if argument.type == "keyword_argument":
            key = argument.child_by_field_name("name")
            if key is None or parsing.text(key) != "device":
                continue
            value = argument.child_by_field_name("value")
        elif callee not in DEVICE_CALLEES:
            continue
        if value is not None and value.type == "attribute" and parsing.text(value.child_by_field_name("attribute")) == "value":
            holder = value.child_by_field_name("object")
            while holder is not None and holder.type == "attribute":
                holder = holder.child_by_field_name("object")
            name = parsing.text(holder) if holder is not None and holder.type == "identifier" else ""
            return name if name[:1].isupper() else ANY
    return None
