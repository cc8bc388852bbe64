"""Branches that cannot run at the target torch: `dead-at-target`.

A condition is evaluated only when it is made of what the analyzer can read without running anything:
- comparisons of torch's version with a literal version: `torch.__version__ < "2.3"` (torch.__version__ is a
  TorchVersion, which compares as a version), `version.parse(torch.__version__) >= version.parse("2.3")` (also
  pkg_resources' parse_version, LooseVersion), a name assigned such a value in the same unit
  (`torch_version = version.parse(torch.__version__)`), and the version helpers of common libraries
  (`is_torch_version(">=", "2.1")`, `required_torch_version(min_version=2.6)`);
- the Python values a version is taken apart into, read the way Python computes them: the parsed version's
  `.release`, `.major`, `.minor`, `.micro`; `.base_version`/`.public` (plain strings: `"2.12.0" < "2.3"` is true);
  `torch.__version__.split(".")` with its first two parts, `int(...)` of a part, and the tuples and lists of ints built
  from them (`tuple(int(x) for x in torch.__version__.split(".")[:2]) >= (1, 11)`, `TORCH_MAJOR > 1`); the third
  part is not read (`0+cpu` on some builds);
- the same comparisons of a companion package's version (`LooseVersion(torchvision.__version__) >= LooseVersion("0.9.0")`,
  `digit_version(torchvision.__version__) < digit_version("0.10")`), where knowledge/dependencies/packages.toml pairs
  the package's release line with the target torch (torchvision 0.27 is built for torch 2.12): the release line's
  `major.minor` stands for its version, so only a bound the line decides whole (`>= 0.9`, `< 0.27`, not `>= 0.27.1`)
  decides; a package the table does not pair with the target torch, and everything but a comparison with a literal,
  stay unknown;
- prefix tests of torch's version string, `torch.__version__.startswith("1.10.")` (a literal or a tuple of them) and
  `any(torch.__version__.startswith(x) for x in [<literal prefixes>])`, read from the target's `major.minor.`: a prefix
  longer than that (`"2.12.1"`) is unknown;
- `torch.__version__ == "parrots"`: a name that is no version is never torch's (TorchVersion compares it as a string);
- feature gates on torch's own attributes that exist at the target (`hasattr(torch, "accelerator")`), from the table
  in knowledge/context/conventions.toml;
- a library's flag computed from torch's version, imported by name at the module level (`from transformers.pytorch_utils
  import is_torch_greater_or_equal_than_1_10`), from the same file's table of flags and the versions they hold at;
- a call of a function defined once at the module level of the same unit, with no decorator but a cache, whose every
  way out returns the same value and a version test decides which ways are taken or what one returns
  (`def _should_use_custom_op(x): ... if _use_pytorch_1_11_api: return False`): its arms are read as an if-chain is,
  a `return` of a literal True/False/None or of a decided condition counts, and anything it cannot follow (a return in
  a loop or a try, a value it cannot decide, a generator) leaves it unknown; a function that returns a constant no
  test decides is not switched off by the version (`def f(): return False`);
- `not`, `and`, `or` of those (an unknown operand makes `and` false only through a false operand, `or` true only
  through a true one).
Anything else is unknown and decides nothing. A name that is a parameter of its function is unknown too: the caller
gives its value, whatever the module binds to the same name.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass

from ascend_feasibility.analyzer.reading import parsing
from packaging.specifiers import InvalidSpecifier, SpecifierSet
from packaging.version import InvalidVersion, Version
from tree_sitter import Node

MAX_NODES = 200
COMPARE = {"<": operator.lt, "<=": operator.le, ">": operator.gt, ">=": operator.ge, "==": operator.eq, "!=": operator.ne}
FLIPPED = {"<": ">", "<=": ">=", ">": "<", ">=": "<=", "==": "==", "!=": "!="}
TORCH = "torch"  # the marker of "torch's version" while reading an expression


class VersionReader:
    def __init__(self, torch: str, features: dict[str, str], helpers: list[str],
                 flags: dict[str, str] | None = None, companions: dict[str, str] | None = None) -> None:
        self.torch = Version(torch)
        # a companion package (module name) -> the release line built for the target torch (torchvision: "0.27")
        self.companions = {name: Version(line) for name, line in (companions or {}).items()}
        self.features = {name: Version(first) for name, first in features.items()}
        self.helpers = frozenset(helpers)
        self.flags = {name: _holds_at(self.torch, versions) for name, versions in (flags or {}).items()}
        self._names: dict[tuple[int, str], object] = {}
        self._functions: dict[int, tuple[bool | None, Node | None]] = {}  # a definition's value and the test deciding it
        self._definitions: dict[str, Node | None] | None = None  # the unit's module-level functions, None if bound twice
        self._relevant: bool | None = None
        # a flag is imported from its module by name: the module's last part is spelled
        modules = {name.rsplit(".", 2)[-2] for name in self.flags if name.count(".") >= 2}
        self._words = tuple(w.encode() for w in {"version", "hasattr", *helpers, *modules})
        self._flag_modules = tuple(m.encode() for m in modules)
        self._imports_flags: bool | None = None  # does the unit spell a flag's module (read once per unit)

    def start_unit(self) -> None:
        self._names.clear()
        self._functions.clear()
        self._definitions = None
        self._relevant = None
        self._imports_flags = None

    def _reads_versions(self, node: Node) -> bool:
        """Does the unit spell anything a condition is decided by (a version, a feature test, a helper)? Read once per
        unit: most units spell none, and then no condition of theirs is read at all."""
        if self._relevant is None:
            root = parsing.root_of(node)
            text = root.text or b""
            self._relevant = any(word in text for word in self._words)
        return self._relevant

    def note(self, condition: Node, value: bool) -> str:
        """Why a decided condition decides, for a guard's reason: its value at the target and, for a call of the
        unit's own function, the test that fixes what the function returns."""
        said = f"{'true' if value else 'false'} at the target torch {self.torch}"
        spelled = parsing.text(condition)
        for name, line in self.companions.items():
            if f"{name}.__version__" in spelled:
                said += f" (with {name} {line}, the release line built for it)"
        for call in _calls_in(condition):
            function = call.child_by_field_name("function")
            definition = self._definition(call, parsing.text(function)) if function is not None else None
            known = self._functions.get(definition.start_byte) if definition is not None else None
            if known is not None and known[0] is not None:
                name = parsing.text(function)
                said += f": {name}() returns {known[0]} there"
                if known[1] is not None:
                    said += f" (line {known[1].start_point.row + 1}: {_first_line(known[1])})"
                break
        return said

    def evaluate(self, condition: Node, budget: list[int] | None = None) -> bool | None:
        """True or False at the target torch, or None when the condition is not only about torch's version."""
        if budget is None and not self._reads_versions(condition):
            return None
        budget = budget if budget is not None else [MAX_NODES]
        budget[0] -= 1
        if budget[0] < 0:
            return None
        kind = condition.type
        if kind == "parenthesized_expression" and condition.named_children:
            return self.evaluate(condition.named_children[0], budget)
        if kind == "not_operator":
            argument = condition.child_by_field_name("argument")
            value = self.evaluate(argument, budget) if argument is not None else None
            return None if value is None else not value
        if kind == "boolean_operator":
            left, right = condition.child_by_field_name("left"), condition.child_by_field_name("right")
            op = condition.child_by_field_name("operator")
            values = [self.evaluate(side, budget) if side is not None else None for side in (left, right)]
            if op is not None and op.type == "and":
                return False if False in values else (True if values == [True, True] else None)
            return True if True in values else (False if values == [False, False] else None)
        if kind == "comparison_operator":
            return self._comparison(condition, budget)
        if kind == "call":
            return self._call(condition, budget)
        if kind == "identifier":
            value = self._named(condition, budget)
            return value if isinstance(value, bool) else None
        return None

    def _comparison(self, node: Node, budget: list[int]) -> bool | None:
        operands = node.named_children
        operators = [c.type for c in node.children if not c.is_named]
        if len(operands) != 2 or len(operators) != 1 or operators[0] not in COMPARE:
            return None
        left, right = (self._value(o, budget) for o in operands)
        op = operators[0]
        if right == TORCH and left != TORCH:
            left, right, op, operands = right, left, FLIPPED[op], operands[::-1]
        if isinstance(right, Companion) and not isinstance(left, Companion):
            left, right, op, operands = right, left, FLIPPED[op], operands[::-1]
        if isinstance(left, Companion):
            return _line_compare(op, self.companions[left.name], right) if isinstance(right, Version) else None
        if left == TORCH:
            if isinstance(right, Version):
                return COMPARE[op](self.torch, right)
            numbers = _literal(operands[1])
            if isinstance(numbers, tuple):  # TorchVersion compares with a tuple of ints as with a version: >= (2, 1)
                return COMPARE[op](self.torch, Version(".".join(map(str, numbers))))
            if op in {"==", "!="} and operands[1].type == "string" and right is None and _string(operands[1]):
                return op == "!="  # `== "parrots"`: no version is that name
            return None
        if isinstance(right, Companion):
            return None
        sides = [v.value if isinstance(v, Derived) else _literal(o) for v, o in zip((left, right), operands)]
        if not any(isinstance(v, Derived) for v in (left, right)) or any(s is None or isinstance(s, Parts) for s in sides):
            return None
        try:
            return bool(COMPARE[op](*sides))
        except TypeError:  # `[2, 1] < (2, 1)`: Python raises, the code never decides
            return None

    def _call(self, call: Node, budget: list[int]) -> bool | None:
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        name = parsing.text(function)
        args = [a for a in arguments.named_children if a.type != "comment"]
        if name == "hasattr" and len(args) == 2 and args[1].type == "string":
            owner = parsing.text(args[0])
            attribute = _string(args[1])
            first = self.features.get(f"{owner}.{attribute}")
            return None if first is None else self.torch >= first
        if function.type == "attribute" and parsing.text(function.child_by_field_name("attribute")) == "startswith":
            owner = function.child_by_field_name("object")
            if owner is None or self._value(owner, budget) != TORCH or len(args) != 1:
                return None
            return self._prefixes(_strings_of(args[0]))
        if name == "any" and arguments.type == "generator_expression":
            return self._any_prefix(arguments, budget)
        if name.rsplit(".", 1)[-1] not in self.helpers:
            return self._returned(call, name, budget) if function.type == "identifier" else None
        positional = [a for a in args if a.type != "keyword_argument"]
        keywords = {parsing.text(a.child_by_field_name("name")): a.child_by_field_name("value")
                    for a in args if a.type == "keyword_argument" and a.child_by_field_name("name") is not None}
        if len(positional) == 2 and positional[0].type == "string":  # is_torch_version(">=", "2.1")
            op = _string(positional[0])
            wanted = _version(positional[1])
            if op in COMPARE and wanted is not None:
                return COMPARE[op](self.torch, wanted)
            return None
        low = keywords.get("min_version") or (positional[0] if positional else None)
        high = keywords.get("max_version")
        result = True
        for bound, op in ((low, operator.ge), (high, operator.le)):
            if bound is None:
                continue
            wanted = _version(bound)
            if wanted is None:
                return None
            result = result and op(self.torch, wanted)
        return result if (low is not None or high is not None) else None

    def _prefixes(self, prefixes) -> bool | None:
        """`torch.__version__.startswith(p)` (or one of a tuple of prefixes) at the target, read from its `major.minor.`:
        a prefix of that string holds (`"2."`, and `"2.1"` too, as Python compares strings), one that leaves it
        (`"1.10."`) fails, and one longer than it (`"2.12.1"`) depends on the micro version: unknown."""
        if not prefixes or not all(isinstance(p, str) and p for p in prefixes):
            return None
        known = f"{self.torch.major}.{self.torch.minor}."
        values = {True if known.startswith(p) else None if p.startswith(known) else False for p in prefixes}
        return True if True in values else (None if None in values else False)

    def _any_prefix(self, generator: Node, budget: list[int]) -> bool | None:
        """`any(torch.__version__.startswith(x) for x in ['1.5.', '1.6.', ...])` (StyleGAN2-ADA's custom-op gates): the
        prefixes of a literal list or tuple, read as one startswith call."""
        body = generator.child_by_field_name("body")
        clauses = [c for c in generator.named_children if c.type != "comment" and (body is None or c.id != body.id)]
        if body is None or body.type != "call" or len(clauses) != 1 or clauses[0].type != "for_in_clause":
            return None
        variable, values = clauses[0].child_by_field_name("left"), clauses[0].child_by_field_name("right")
        function, arguments = body.child_by_field_name("function"), body.child_by_field_name("arguments")
        if (variable is None or variable.type != "identifier" or values is None or function is None
                or function.type != "attribute" or arguments is None
                or parsing.text(function.child_by_field_name("attribute")) != "startswith"
                or [parsing.text(a) for a in arguments.named_children] != [parsing.text(variable)]):
            return None
        owner = function.child_by_field_name("object")
        if owner is None or self._value(owner, budget) != TORCH or values.type not in {"list", "tuple"}:
            return None
        return self._prefixes(_strings_of(values))

    def _value(self, node: Node, budget: list[int]):
        """TORCH for torch's version, a Version for a literal one, else None."""
        budget[0] -= 1
        if budget[0] < 0:
            return None
        text = parsing.text(node)
        if text in {"torch.__version__", "torch.version.__version__"}:
            return TORCH
        if text.endswith(".__version__") and text[:-len(".__version__")] in self.companions:
            return Companion(text[:-len(".__version__")])
        literal = _version(node)
        if literal is not None:
            return literal
        parsed = _parsed_argument(node)
        if parsed is not None:
            value = self._value(parsed, budget)
            if isinstance(value, Companion):
                return value
            return TORCH if value == TORCH or (isinstance(value, Derived) and isinstance(value.value, str)) else None
        kind = node.type
        if kind == "attribute":
            inner = node.child_by_field_name("object")
            attribute = node.child_by_field_name("attribute")
            if inner is None or attribute is None or self._value(inner, budget) != TORCH:
                return None
            return self._part_of_version(parsing.text(attribute))
        if kind == "identifier":
            value = self._named(node, budget)
            return value if value == TORCH or isinstance(value, (Version, Derived, Companion)) else None
        if kind == "call":
            return self._taken_apart(node, budget)
        if kind == "subscript":
            return self._subscript(node, budget)
        if kind == "list_comprehension":
            ints = self._ints_of(node, budget)
            return None if ints is None else Derived(list(ints))
        return None

    def _part_of_version(self, attribute: str):
        """`.release`, `.major`, ... of torch's parsed version, as Python has them."""
        if attribute == "release":
            return Derived(tuple(self.torch.release))
        if attribute in {"major", "minor", "micro"}:
            return Derived(getattr(self.torch, attribute))
        if attribute in {"base_version", "public"}:
            return Derived(self.torch.base_version)  # the target names no local version: both are the base
        return None

    def _taken_apart(self, call: Node, budget: list[int]):
        """`torch.__version__.split(".")`, `int(part)`, `tuple(map(int, parts))`, `tuple(int(x) for x in parts)`."""
        function = call.child_by_field_name("function")
        arguments = call.child_by_field_name("arguments")
        if function is None or arguments is None:
            return None
        name = parsing.text(function)
        args = [a for a in arguments.named_children if a.type != "comment"] if arguments.type == "argument_list" else [arguments]
        if function.type == "attribute" and name.endswith(".split") and len(args) == 1 and _literal(args[0]) == ".":
            owner = self._value(function.child_by_field_name("object"), budget)
            if owner == TORCH:  # "2.12.0+cpu": the third part is not known
                return Derived(Parts(tuple(str(n) for n in self.torch.release[:2]), complete=False))
            if isinstance(owner, Derived) and isinstance(owner.value, str):
                return Derived(Parts(tuple(owner.value.split(".")), complete=True))
            return None
        if name == "int" and len(args) == 1:
            value = self._value(args[0], budget)
            return Derived(int(value.value)) if isinstance(value, Derived) and _digits(value.value) else None
        if name in {"tuple", "list"} and len(args) == 1:
            ints = self._ints_of(args[0], budget)
            return None if ints is None else Derived(tuple(ints) if name == "tuple" else list(ints))
        return None

    def _ints_of(self, node: Node, budget: list[int]) -> tuple[int, ...] | None:
        """The ints of `map(int, parts)`, `int(x) for x in parts`, `[int(x) for x in parts]` over all the parts."""
        if node.type == "call" and parsing.text(node.child_by_field_name("function") or node) == "map":
            arguments = node.child_by_field_name("arguments")
            args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
            if len(args) != 2 or parsing.text(args[0]) != "int":
                return None
            source = args[1]
        elif node.type in {"generator_expression", "list_comprehension"}:
            body = node.child_by_field_name("body")
            clauses = [c for c in node.named_children if body is not None and c.id != body.id and c.type != "comment"]
            if body is None or len(clauses) != 1 or clauses[0].type != "for_in_clause":
                return None  # an `if` clause, a second `for`
            variable, source = clauses[0].child_by_field_name("left"), clauses[0].child_by_field_name("right")
            if variable is None or source is None or parsing.text(body) != f"int({parsing.text(variable)})":
                return None
        else:
            return None
        parts = self._value(source, budget)
        if not (isinstance(parts, Derived) and isinstance(parts.value, Parts) and parts.value.complete):
            return None
        if not all(_digits(p) for p in parts.value.prefix):
            return None
        return tuple(int(p) for p in parts.value.prefix)

    def _subscript(self, node: Node, budget: list[int]):
        """`parts[1]`, `parts[:2]`, `parts[0:2]` of the known parts."""
        inner, index = node.child_by_field_name("value"), node.child_by_field_name("subscript")
        value = self._value(inner, budget) if inner is not None else None
        if index is None or not (isinstance(value, Derived) and isinstance(value.value, Parts)):
            return None
        parts = value.value
        if index.type == "integer":
            at = _literal(index)
            return Derived(parts.prefix[at]) if isinstance(at, int) and at < len(parts.prefix) else None
        if index.type != "slice":
            return None
        pieces = [c for c in index.children if c.type != "comment"]
        texts = [parsing.text(c) for c in pieces]
        if texts.count(":") != 1:
            return None  # a step
        before, after = pieces[:texts.index(":")], pieces[texts.index(":") + 1:]
        start = _literal(before[0]) if before else 0
        stop = _literal(after[0]) if after else None
        if start != 0 or len(before) > 1 or len(after) > 1 or not isinstance(stop, int) or stop > len(parts.prefix):
            return None  # only the first parts are known
        return Derived(Parts(parts.prefix[:stop], complete=True))

    def _returned(self, call: Node, name: str, budget: list[int]) -> bool | None:
        """The one value a call of the unit's own function returns at the target, if every way out gives it."""
        definition = self._definition(call, name)
        if definition is None:
            return None
        key = definition.start_byte
        if key in self._functions:
            return self._functions[key][0]
        self._functions[key] = (None, None)  # no recursion
        body = definition.child_by_field_name("body")
        returned: list[Node | None] = []
        deciding: list[Node] = []
        falls = self._leaves(body, budget, returned, deciding) if body is not None and _plain(definition) else None
        values: set[bool] = set()
        if falls is None:
            return None
        for value in returned + ([None] if falls else []):
            if value is None or value.type in {"none", "false"}:
                values.add(False)
            elif value.type == "true":
                values.add(True)
            else:
                decided = self.evaluate(value, budget)
                if decided is None:
                    return None
                values.add(decided)
                deciding.append(value.parent)
        # only a value a version test decides: `def f(): return False` is switched off by no test
        result = values.pop() if len(values) == 1 and deciding else None
        self._functions[key] = (result, deciding[0] if result is not None else None)
        return result

    def _leaves(self, block: Node, budget: list[int], returned: list, deciding: list) -> bool | None:
        """Does the block fall through (True) or always leave (False)? The values it returns go to `returned`, the
        arms whose condition the target decides to `deciding`; None when a way out cannot be followed."""
        for statement in block.named_children[:200]:
            budget[0] -= 1
            if budget[0] < 0:
                return None
            kind = statement.type
            if kind == "return_statement":
                returned.append(statement.named_children[0] if statement.named_children else None)
                return False
            if kind == "raise_statement":
                return False
            if kind == "if_statement":
                falls = self._if_leaves(statement, budget, returned, deciding)
                if not falls:
                    return falls
            elif kind not in {"function_definition", "class_definition", "decorated_definition"} and _holds(statement, LEAVING):
                return None  # a return inside a loop, a try, a with
        return True if len(block.named_children) <= 200 else None

    def _if_leaves(self, statement: Node, budget: list[int], returned: list, deciding: list) -> bool | None:
        arms = [(statement.child_by_field_name("condition"), statement.child_by_field_name("consequence"), statement)]
        otherwise = None
        for clause in statement.children:
            if clause.type == "elif_clause":
                arms.append((clause.child_by_field_name("condition"), clause.child_by_field_name("consequence"), clause))
            elif clause.type == "else_clause":
                otherwise = clause.child_by_field_name("body")
        falls = False
        for condition, body, arm in arms:
            if condition is None or body is None:
                return None
            value = self.evaluate(condition, budget)
            if value is False:
                deciding.append(arm)
                continue
            leaves = self._leaves(body, budget, returned, deciding)
            if leaves is None:
                return None
            falls = falls or leaves
            if value is True:
                deciding.append(arm)
                return falls
        if otherwise is None:
            return True
        leaves = self._leaves(otherwise, budget, returned, deciding)
        return None if leaves is None else falls or leaves

    def _definition(self, call: Node, name: str) -> Node | None:
        """The function `name` defined once at the unit's module level and bound by nothing else there."""
        if self._definitions is None:
            root = parsing.root_of(call)
            self._definitions = _module_functions(root)
        return self._definitions.get(name)

    def _named(self, identifier: Node, budget: list[int]):
        """The value of a module-level (or same-block) assignment to this name, read once per unit."""
        name = parsing.text(identifier)
        if name in _parameters_around(identifier):
            return None  # the caller's value
        scopes = _scopes(identifier)
        key = (scopes[0].start_byte if scopes else -1, name)
        if key in self._names:
            return self._names[key]
        self._names[key] = None  # no cycles
        value = None
        for scope in scopes:
            assigned = _assignment(scope, name)
            if assigned is not None:
                value = self._value(assigned, budget)
                if value is None:
                    value = self.evaluate(assigned, budget)
                break
        if value is None and self.flags and scopes and scopes[-1].type == "module":
            if self._imports_flags is None:
                text = scopes[-1].text or b""
                self._imports_flags = any(module in text for module in self._flag_modules)
            if self._imports_flags:
                value = self.flags.get(_imported_name(scopes[-1], name))
        self._names[key] = value
        return value


def _scopes(node: Node) -> list[Node]:
    """The blocks around a name, innermost first, up to its function's body, then the module."""
    scopes, current, depth, module = [], node.parent, 0, None
    in_function = True
    while current is not None and depth < 400:
        if current.type == "module":
            module = current
        elif current.type == "block" and in_function:
            scopes.append(current)
        elif current.type in {"function_definition", "class_definition"}:
            in_function = False
        current, depth = current.parent, depth + 1
    return scopes[:8] + ([module] if module is not None else [])


def _assignment(scope: Node, name: str) -> Node | None:
    """The right side of the only assignment to `name` directly in this block (None when assigned twice)."""
    found = None
    for statement in scope.named_children[:2000]:
        if statement.type != "expression_statement" or not statement.named_children:
            continue
        assignment = statement.named_children[0]
        if assignment.type != "assignment":
            continue
        left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
        if left is not None and left.type == "identifier" and parsing.text(left) == name and right is not None:
            if found is not None:
                return None
            found = right
    return found


def _imported_name(module: Node, name: str) -> str:
    """`pkg.mod.flag` when the module's only binding of `name` is a top-level `from pkg.mod import flag [as name]`
    (none behind a guard, no assignment): "" otherwise."""
    found = ""
    for statement in module.named_children[:2000]:
        kind = statement.type
        if kind == "import_from_statement":
            source = statement.child_by_field_name("module_name")
            for imported in statement.children_by_field_name("name"):
                original = imported.child_by_field_name("name") if imported.type == "aliased_import" else imported
                alias = imported.child_by_field_name("alias") if imported.type == "aliased_import" else imported
                if alias is not None and parsing.text(alias) == name:
                    if found or source is None or original is None:
                        return ""
                    found = f"{parsing.text(source)}.{parsing.text(original)}"
        elif kind in {"if_statement", "try_statement", "with_statement", "for_statement", "while_statement"}:
            if _binds(statement, name):
                return ""  # a guarded import or assignment: its value depends on what runs
        elif kind == "expression_statement" and _binds(statement, name):
            return ""
    return found


# What binds a name inside a statement (a guarded import or assignment makes a flag's value depend on what runs)
BINDINGS = """
(assignment left: (_) @target)
(augmented_assignment left: (_) @target)
(for_statement left: (_) @target)
(as_pattern alias: (_) @target)
(named_expression name: (_) @target)
(import_from_statement name: (_) @target)
(import_statement name: (_) @target)
"""


def _binds(statement: Node, name: str) -> bool:
    """Does the statement (or a block in it) assign or import `name`?"""
    if name.encode() not in (statement.text or b""):
        return False
    targets = parsing.captures(parsing.query("python", BINDINGS), statement).get("target", [])
    return any(parsing.text(n) == name for target in targets for n in _identifiers(target))


_IDENTIFIER = frozenset({"identifier"})


def _identifiers(node: Node, limit: int = 500) -> list[Node]:
    return [current for current in parsing.walk(node, limit=limit, prune=_IDENTIFIER, named=False)
            if current.type == "identifier"]


def _holds_at(torch: Version, versions: str) -> bool | None:
    """Is `torch` (its base version, as transformers reads it) one of `versions` (a specifier such as ">=1.10")?"""
    try:
        return Version(torch.base_version) in SpecifierSet(versions)
    except InvalidSpecifier:
        return None


@dataclass(frozen=True)
class Companion:
    """The version of a companion package of torch (torchvision), known at the target as its release line."""
    name: str


def _line_compare(op: str, line: Version, bound: Version) -> bool | None:
    """`<line>.x <op> bound` for every release x of the line (0.27.x >= 0.9: true), or None when the releases of the
    line disagree (0.27.x >= 0.27.1) or the bound is a pre-release."""
    if bound.is_prerelease or bound.is_devrelease or bound.local is not None:
        return None
    if len(line.release) >= 3:
        return COMPARE[op](line, bound)  # the table names the exact release (torchaudio 2.4.1 for torch 2.4.1)
    line_release = line.release[:2]
    bound_release = bound.release + (0,) * max(0, 2 - len(bound.release))
    if bound_release[:2] != line_release:
        return COMPARE[op](line_release, bound_release[:2])
    if any(bound_release[2:]):
        return None  # the bound falls inside the line: which release is installed decides
    # the bound is the line's first release (0.27 or 0.27.0): every release of the line is >= it and none is < it
    return {">=": True, "<": False, "==": None, "!=": None, ">": None, "<=": None}[op]


@dataclass(frozen=True)
class Parts:
    """`torch.__version__.split(".")`: its first parts; `complete` once sliced to them (`[:2]`)."""
    prefix: tuple[str, ...]
    complete: bool


@dataclass(frozen=True)
class Derived:
    """A Python value computed from torch's version (an int, a tuple or list of ints, a string, Parts)."""
    value: object


LEAVING = frozenset({"return_statement", "yield", "await"})
FUNCTION_SCOPES = frozenset({"function_definition", "lambda", "class_definition"})
CACHES = frozenset({"cache", "lru_cache", "functools.cache", "functools.lru_cache"})


def _holds(node: Node, kinds: frozenset[str], limit: int = 2000) -> bool:
    """Is there a node of these kinds in `node`, outside nested functions and classes (None past `limit` nodes: yes)?"""
    stack = [node]
    while stack:
        limit -= 1
        if limit < 0:
            return True
        current = stack.pop()
        if current.type in kinds:
            return True
        stack.extend(c for c in current.named_children if c.type not in FUNCTION_SCOPES)
    return False


def _plain(definition: Node) -> bool:
    """Neither async nor a generator, and decorated with a cache at most: a call gives what the body returns."""
    if definition.children and definition.children[0].type == "async":
        return False
    body = definition.child_by_field_name("body")
    if body is None or _holds(body, frozenset({"yield", "await"})):
        return False
    decorated = definition.parent
    if decorated is not None and decorated.type == "decorated_definition":
        for decorator in decorated.children:
            if decorator.type == "decorator":
                text = parsing.text(decorator).lstrip("@").strip()
                if text.split("(", 1)[0].strip() not in CACHES:
                    return False
    return True


def _module_functions(root: Node) -> dict[str, Node | None]:
    """The functions defined at the module level, by name; None for a name bound twice or bound otherwise too."""
    found: dict[str, Node | None] = {}
    for statement in root.named_children[:2000]:
        definition = statement.child_by_field_name("definition") if statement.type == "decorated_definition" else statement
        if definition is not None and definition.type == "function_definition":
            name = definition.child_by_field_name("name")
            if name is not None:
                key = parsing.text(name)
                found[key] = None if key in found else definition
        elif statement.type == "expression_statement" and statement.named_children:
            left = statement.named_children[0].child_by_field_name("left")
            if left is not None and left.type == "identifier":
                found[parsing.text(left)] = None
        elif statement.type in {"import_statement", "import_from_statement", "class_definition"}:
            for name in _bound_names(statement):
                found[name] = None
    return found


def _bound_names(statement: Node) -> list[str]:
    if statement.type == "class_definition":
        name = statement.child_by_field_name("name")
        return [parsing.text(name)] if name is not None else []
    names = []
    for child in statement.children_by_field_name("name"):
        alias = child.child_by_field_name("alias") if child.type == "aliased_import" else None
        target = alias or (child.child_by_field_name("name") if child.type == "aliased_import" else child)
        if target is not None:
            names.append(parsing.text(target).split(".")[0])
    return names


def _parameters_around(identifier: Node) -> frozenset[str]:
    """The parameter names of the function the identifier is in (an empty set at the module level)."""
    current, depth = identifier.parent, 0
    while current is not None and depth < 400 and current.type not in {"function_definition", "lambda", "module"}:
        current, depth = current.parent, depth + 1
    parameters = current.child_by_field_name("parameters") if current is not None and current.type != "module" else None
    names = set()
    for parameter in parameters.named_children if parameters is not None else []:
        key = parameter.child_by_field_name("name") if parameter.type not in {"identifier"} else parameter
        if key is None and parameter.named_children:
            key = parameter.named_children[0]  # `*args`, `**kwargs`, `x: int`
        if key is not None and key.type == "identifier":
            names.add(parsing.text(key))
    return frozenset(names)


def _calls_in(node: Node, limit: int = 200) -> list[Node]:
    return [current for current in parsing.walk(node, limit=limit, source_order=True) if current.type == "call"]


def _first_line(node: Node) -> str:
    first = parsing.text(node).splitlines()[0].strip() if node.text else ""
    return first if len(first) <= 100 else first[:97] + "..."


def _digits(value: object) -> bool:
    return isinstance(value, str) and value.isdigit() and value.isascii()


def _literal(node: Node):
    """A literal's Python value: an int, a string without interpolation, a tuple or list of ints; else None."""
    kind = node.type
    if kind == "integer":
        try:
            return int(parsing.text(node), 0)
        except ValueError:
            return None
    if kind == "string":
        if any(c.type == "interpolation" for c in node.named_children):
            return None
        return _string(node)
    if kind in {"tuple", "list"}:
        items = [_literal(c) for c in node.named_children if c.type != "comment"]
        if not items or any(type(i) is not int for i in items):
            return None
        return tuple(items) if kind == "tuple" else items
    if kind == "parenthesized_expression" and len(node.named_children) == 1:
        return _literal(node.named_children[0])
    return None


def _strings_of(node: Node) -> tuple[str, ...] | None:
    """A string literal, or a tuple or list of them, as a tuple of strings; else None."""
    items = [c for c in node.named_children if c.type != "comment"] if node.type in {"tuple", "list"} else [node]
    if not items or any(c.type != "string" or any(i.type == "interpolation" for i in c.named_children) for c in items):
        return None
    return tuple(_string(c) for c in items)


PARSERS = frozenset({"parse", "Version", "LooseVersion", "StrictVersion", "parse_version", "digit_version"})


def _parsed_argument(node: Node) -> Node | None:
    """The one argument of `version.parse(x)` / `Version(x)`."""
    if node.type != "call":
        return None
    function = node.child_by_field_name("function")
    arguments = node.child_by_field_name("arguments")
    args = [a for a in arguments.named_children if a.type != "comment"] if arguments is not None else []
    name = parsing.text(function).rsplit(".", 1)[-1] if function is not None else ""
    return args[0] if name in PARSERS and len(args) == 1 else None


def _string(node: Node) -> str:
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")


def _version(node: Node) -> Version | None:
    if node.type == "string":
        if any(c.type == "interpolation" for c in node.named_children):
            return None  # f"2{x}.1": the value is known only at run time
        text = _string(node)
    elif node.type in {"float", "integer"}:
        text = parsing.text(node)
    elif node.type == "call":
        parsed = _parsed_argument(node)
        return _version(parsed) if parsed is not None else None
    else:
        return None
    if not text or len(text) > 40:
        return None
    try:
        return Version(text)
    except InvalidVersion:
        return None


def companion_lines(kb, torch: str) -> dict[str, str]:
    """Each module of a package whose knowledge record pairs a release (line) with the target torch: the exact torch
    first, then its major.minor (torchvision: {"torchvision": "0.27"} for torch 2.12.0)."""
    target = Version(torch)
    keys = (target.base_version, f"{target.major}.{target.minor}")
    found: dict[str, str] = {}
    for record in kb.packages.values():
        pairs = record.torch_pairs
        paired = next((pairs[key] for key in keys if key in pairs), None)
        if paired is None:
            continue
        try:
            Version(paired)
        except InvalidVersion:
            continue
        for module in record.modules:
            found[module] = paired
    return found


DECORATED_DEFINITIONS = "(decorated_definition) @definition"  # what legacy_triton_kernels reads


def legacy_triton_kernels(definitions: list[Node]) -> tuple[int, int]:
    """(Triton 1.x kernels, all Triton kernels) among a unit's decorated definitions: a `@triton.jit` function with a
    `**meta` parameter takes its META dict the Triton 1.x way; Triton 2 and later (what torch 2.x ships and
    triton-ascend follows) accept no variable keyword parameters in a kernel (kernels spell out `tl.constexpr`
    parameters instead)."""
    legacy = total = 0
    for definition in definitions[:2000]:
        function = definition.child_by_field_name("definition")
        if function is None or function.type != "function_definition":
            continue
        decorators = [parsing.text(d) for d in definition.children if d.type == "decorator"]
        if not any(d.endswith("jit") or ".jit(" in d for d in decorators):
            continue
        total += 1
        parameters = function.child_by_field_name("parameters")
        if parameters is not None and any(p.type == "dictionary_splat_pattern" for p in parameters.named_children):
            legacy += 1
    return legacy, total
