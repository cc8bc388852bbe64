"""Switches a user turns on: a site reached only while an off-by-default switch is on is `optional`, and the reason
names the switch.

A switch is off by default when the file says so:
- a parameter with a False/None default (`def __init__(self, use_flash_attn=False)`), or one without a default whose
  every call in the file passes such a switch (`replace_unet_modules(unet, mem_eff, args.xformers, args.sdpa)`);
- an attribute the class sets only to False/None or to such a parameter (`self.use_memory_efficient_attention_xformers
  = False` in __init__, set from a setter's argument);
- a command-line option the file declares with `action="store_true"` or a False/None default (`--xformers`).
A default of True, `action="store_false"`, or an attribute set to True anywhere is no opt-in.

The site is reached only while the switch is on when it sits in the branch a true switch takes (`if self.use_flash_attn:`,
one term of an `and`, `x if switch else y`), after `if not switch: return`, or in a function every call of which in the
file is so reached (sd-scripts' `forward_memory_efficient_xformers`, called under `if self.use_..._xformers:`).
Switches named for mainstream choices (use_cuda, use_amp, fp16) guard code every port needs: never these.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass

from ascend_feasibility.analyzer.context.argv_switches import argv_flag_off, argv_reason, builds
from ascend_feasibility.analyzer.context.config_paths import config_path
from ascend_feasibility.analyzer.context.constexpr_flags import is_constexpr_parameter, off_flag, read_sites
from ascend_feasibility.analyzer.context.guards import Guard, GuardReader, _same
from ascend_feasibility.analyzer.context.option_locals import literal_text, option_local
from ascend_feasibility.analyzer.context.option_reads import bound_value, getattr_read
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_DEPTH = 400
MAX_CALLS = 50
MAX_CALLER_DEPTH = 3
MAX_CLASS_NODES = 20000
_ASSIGNMENT = frozenset({"assignment"})
MAX_EITHER = 4  # terms of an `or` of switches read (_any_switch)
MAX_BOUND_HOPS = 2  # names bound to names bound to an option read (option_reads.bound_value)
MAX_EXIT_SIBLINGS = 50  # statements read back from a site for an early exit
FALSY = {"false", "none"}
# the switch a reason of this reader names (its three shapes below): (name, the function or class taking it)
_REASONS = (re.compile(r"`(?P<name>\w+)=(?:False|None)` by default \((?P<owner>\w+)\(\)\)"),
            re.compile(r"`self\.(?P<name>\w+) = (?:False|None)` by default \(line \d+\)"),
            re.compile(r"`--(?P<name>[\w-]+)` is off unless given \((?P<owner>sys\.argv), line \d+\)"),  # argv_switches
            re.compile(r"`--(?P<name>[\w-]+)` is off unless given \(line \d+\)"),
            re.compile(r"environment variable `(?P<name>\w+)` is unset by default \([^)]*\)"),
            # guards.flag_note: `line 92: if cfg.get("use_fp16", False): (the switch `use_fp16`)`
            re.compile(r"line \d+: .* \(the switch `(?P<name>\w+)`\)$"))


def _off(value: str, flag_shaped: bool) -> bool:
    """A default that leaves a switch off: False, or None for a name shaped like a flag (use_/enable_/with_...):
    `collection=None` is a value not given, not a switch."""
    return value == "False" or (value == "None" and flag_shaped)


@dataclass(frozen=True)
class ExplainedGuard(Guard):
    """A guard whose reason says why (the switch, the alternative, the profiler), not only the line."""

    why: str = ""

    def reason(self) -> str:
        return f"{self.why}; {Guard.reason(self)}" if self.why else Guard.reason(self)


class SwitchReader:
    def __init__(self, guards: GuardReader, argument_objects: list[str], mainstream_tokens: list[str],
                 feature_tokens: list[str]) -> None:
        self.guards = guards
        self.argument_objects = frozenset(argument_objects)
        self.mainstream = frozenset(mainstream_tokens)
        self.feature_tokens = frozenset(feature_tokens)
        self._feature = False  # is the site asked about a CUDA-only feature itself?
        self._options: dict[str, tuple[bool, int, str]] | None = None  # the unit's command-line options
        self._memo: dict[tuple, object] = {}  # what was read of the unit, by (question, node id, feature)
        guards.unit_resets.append(self._forget_unit)
        guards.on_by_default = self.on_by_default

    def guard(self, node: Node, feature: bool) -> ExplainedGuard | None:
        self._feature = feature
        return self._reached(node, 0)

    def on_by_default(self, condition: Node) -> bool:
        """A flag the file turns on by default (`use_flash_attn=True`, `self.flash = True`, `--flash` with
        default=True): what it guards is no opt-in."""
        while condition.type == "parenthesized_expression" and condition.named_children:
            condition = condition.named_children[0]
        if condition.type == "identifier":
            name, function = parsing.text(condition), _enclosing(condition, "function_definition")
            while function is not None:
                parameter = _parameter(function, name)
                if parameter is not None:
                    index, default = parameter
                    if default is None:
                        return False
                    value = parsing.text(default)
                    return value == "True" or (value in {"False", "None"}
                                               and not self._callers_leave_off(function, index, name, 0))
                function = _enclosing(function, "function_definition")
            return False
        if condition.type != "attribute":
            return False
        holder, attribute = condition.child_by_field_name("object"), condition.child_by_field_name("attribute")
        if holder is None or attribute is None:
            return False
        name = parsing.text(attribute)
        if parsing.text(holder) == "self":
            return self._self_switch(condition, name, 0) is None and self._self_set_on(condition, name)
        if parsing.text(holder).rsplit(".", 1)[-1] in self.argument_objects:
            option = self._options_of(condition).get(name)
            return option is not None and not option[0]
        return False

    def _self_set_on(self, node: Node, name: str) -> bool:
        """The class sets `self.X` to True, or to a parameter defaulting to True."""
        for right in _self_assignments(_enclosing(node, "class_definition"), name):
            if parsing.text(right) == "True":
                return True
            function = _enclosing(right, "function_definition") if right.type == "identifier" else None
            parameter = _parameter(function, parsing.text(right)) if function is not None else None
            if parameter is not None and parameter[1] is not None and parsing.text(parameter[1]) == "True":
                return True
        return False

    # where the site sits ---------------------------------------------------------------------------------------
    def _reached(self, node: Node, depth: int) -> ExplainedGuard | None:
        child, parent, steps = node, node.parent, 0
        while parent is not None and steps < MAX_DEPTH:
            found = None
            if parent.type in {"if_statement", "elif_clause"} and _same(child, parent.child_by_field_name("consequence") or parent):
                condition = parent.child_by_field_name("condition")
                found = self._on(condition, parent) if len(_either(condition)) < 2 else self._any_on(condition, parent, node)
            elif parent.type == "else_clause":
                found = self._else_of_not(parent)
            elif parent.type == "conditional_expression" and len(parent.named_children) >= 3 and _same(child, parent.named_children[0]):
                found = self._on(parent.named_children[1], parent)
            elif parent.type == "boolean_operator" and _same(child, parent.child_by_field_name("right")):
                found = self._after_and(parent)
            elif parent.type == "block":
                found = self._after_early_exit(child)
            elif parent.type == "function_definition":
                found = self._callers(parent, depth)
                if found is None and (self.called(parent) or not _nested(parent)):
                    return None  # called unswitched somewhere, or a top-level function nobody here calls
            if found is not None:
                return found
            child, parent, steps = parent, parent.parent, steps + 1
        return None

    def _after_and(self, operator: Node) -> ExplainedGuard | None:
        """The right operand of `switch and <site>`: Python evaluates it only while the switch is on (the
        `torch.cuda.is_available()` of `if args.measure_vram and torch.cuda.is_available():`)."""
        token, left = operator.child_by_field_name("operator"), operator.child_by_field_name("left")
        if token is None or left is None or parsing.text(token) != "and":
            return None
        return self._on(left, operator)

    def _else_of_not(self, clause: Node) -> ExplainedGuard | None:
        """The else arm of `if not args.debug: ... else: <site>` (no elif): it runs only with the switch on."""
        statement = clause.parent
        if statement is None or statement.type != "if_statement" or any(c.type == "elif_clause" for c in statement.children):
            return None
        condition = statement.child_by_field_name("condition")
        while condition is not None and condition.type == "parenthesized_expression" and condition.named_children:
            condition = condition.named_children[0]
        argument = condition.child_by_field_name("argument") if condition is not None and condition.type == "not_operator" else None
        return self._on(argument, statement) if argument is not None else None

    def _after_early_exit(self, child: Node) -> ExplainedGuard | None:
        """`if not self.enabled: return` before the site: what follows runs only with the switch on."""
        return self._remember(("exit", child.id, self._feature), lambda: self._early_exit(child))

    def _early_exit(self, child: Node) -> ExplainedGuard | None:
        for statement, condition, _, _ in exit_ifs_before(child):
            if condition.type == "not_operator":
                argument = condition.child_by_field_name("argument")
                found = self._on(argument, statement) if argument is not None else None
                if found is not None:
                    return found
        return None

    def called(self, function: Node) -> list[Node]:
        """The calls of `function` in the file, outside it: `self.name(...)` for a method, `name(...)` for a function
        (`sbx.run(...)` is no call of a method `run`)."""
        return self._remember(("called", function.id), lambda: self._calls_of(function))

    def _calls_of(self, function: Node) -> list[Node]:
        name = function.child_by_field_name("name")
        if name is None:
            return []
        method = _enclosing(function, "class_definition") is not None and _is_method(function)
        calls = []
        for callee in self.guards.calls_named(function).get(parsing.text(name), []):
            if function.start_byte <= callee.start_byte < function.end_byte:
                continue
            holder = callee.parent.child_by_field_name("object") if callee.parent is not None and callee.parent.type == "attribute" else None
            if (holder is not None and parsing.text(holder) in {"self", "cls"}) if method else holder is None:
                calls.append(callee)
        return calls

    def _callers(self, function: Node, depth: int) -> ExplainedGuard | None:
        """Every call of this function in the file is reached only with a switch on (the first one's switch)."""
        if depth >= MAX_CALLER_DEPTH:
            return None
        return self._remember(("callers", function.id, depth, self._feature), lambda: self._all_callers(function, depth))

    def _all_callers(self, function: Node, depth: int) -> ExplainedGuard | None:
        calls = self.called(function)
        if not calls or len(calls) > MAX_CALLS:
            return None
        found = [self._reached(call, depth + 1) for call in calls]
        return None if any(f is None for f in found) else found[0]

    # what the condition tests ----------------------------------------------------------------------------------
    def _on(self, condition: Node | None, statement: Node) -> ExplainedGuard | None:
        """The guard when `condition` holds only while an off-by-default switch is on."""
        if condition is None:
            return None
        why = self._remember(("on", condition.id, self._feature), lambda: self._switch(condition, 0))
        if why is None:
            return None
        forced = next((test for test in (self.guards.forced_off(name, condition) for name, _ in switches_of_reason(why))
                       if test is not None), None)
        if forced is not None:
            # the file turns the switch off where its CUDA-only import failed: a config that sets it true cannot
            # turn it on there, so the reason leads with that (switched_on.on_reason reads no switch from it)
            why = (f"`{switches_of_reason(why)[0][0]}` is set off where the import failed (line "
                   f"{forced.start_point.row + 1}: if {parsing.text(forced.child_by_field_name('condition'))}:), "
                   f"whatever a config asks: {why}")
        return ExplainedGuard("optional", statement, why=why)

    def _any_on(self, condition: Node, statement: Node, site: Node) -> ExplainedGuard | None:
        """`if load_in_4bit or load_in_8bit:` where every term is an off-by-default switch of an opt-in feature: the arm
        runs only when a user turns one on. A term an inner `if T: ... else: <site>` rules out is not the site's switch
        (the 8-bit config in the else arm of `if load_in_4bit:` needs load_in_8bit alone)."""
        ruled_out = _ruled_out(site, statement)
        kept = [term for term in _either(condition) if " ".join(parsing.text(term).split()) not in ruled_out]
        why = self._remember(("any", condition.id, tuple(t.id for t in kept), self._feature), lambda: self._any_switch(kept))
        return ExplainedGuard("optional", statement, why=why) if why is not None else None

    def _any_switch(self, terms: list[Node]) -> str | None:
        """The reasons of every term, joined by " or ", when each alone would make the site optional (`--onnx or
        --trt` does not, for a `.cuda()` a user exporting to ONNX needs on NPU: `--onnx` names no opt-in feature)."""
        if not terms or len(terms) > MAX_EITHER:
            return None
        reasons = []
        for term in terms:
            why = self._switch_term(term, 0) if term.type in {"identifier", "attribute"} else None
            if why is None:
                return None
            reasons.append(why)
        return " or ".join(reasons)

    def _switch(self, node: Node, depth: int) -> str | None:
        return first_term(node, self._switch_term, depth)

    def _switch_term(self, node: Node, depth: int) -> str | None:
        if node.type == "identifier":
            return self._parameter_switch(node, depth) or self._env_constant(node)
        if node.type == "attribute":
            return self._attribute_switch(node, depth)
        if node.type in {"call", "comparison_operator", "not_operator"}:
            return self._env_switch(node) or self._argv_switch(node)
        return None

    def _argv_switch(self, node: Node) -> str | None:
        """`'--cuda_ext' in sys.argv` in a build script (one that imports setuptools or distutils): an install option
        the user adds, whatever its words (argv_switches.py); elsewhere only a flag naming no mainstream choice."""
        flag = argv_flag_off(node)
        if flag is None or (not builds(parsing.root_of(node)) and self._mainstream(flag.lstrip("-"))):
            return None
        return argv_reason(flag, node)

    def _env_switch(self, node: Node) -> str | None:
        """`os.getenv("NVTX_PROFILE", "0") == "1"`: false while the variable is unset (env_switches.py)."""
        from ascend_feasibility.analyzer.context.env_switches import env_off

        off = env_off(node)
        if off is None or self._mainstream(off[0]):
            return None
        return f"environment variable `{off[0]}` is unset by default ({off[1]}, line {node.start_point.row + 1})"

    def _env_constant(self, node: Node) -> str | None:
        """`if NVTX:` where the module sets `NVTX = os.getenv("NVTX_PROFILE", "0") != "0"` once (env_switches.py)."""
        from ascend_feasibility.analyzer.context.env_switches import constant_env_off

        off = constant_env_off(node)
        if off is None or self._mainstream(off[0]):
            return None
        return (f"environment variable `{off[0]}` is unset by default ({off[1]}, read into "
                f"{parsing.text(node)} at line {off[2]})")

    def _mainstream(self, name: str) -> bool:
        """A switch this reader does not take: one of a mainstream choice (use_cuda, use_amp), or, for a site that is
        no CUDA-only feature itself, one that names no opt-in feature (`--synchronize-step` guards a
        torch.cuda.synchronize() the port must keep working; `--xformers`, `use_flash_attn`, `--fp8_base` do not)."""
        tokens = {t for t in name.lower().replace("-", "_").split("_") if t}
        return bool(tokens & self.mainstream) or not (self._feature or tokens & self.feature_tokens)

    def _parameter_switch(self, node: Node, depth: int) -> str | None:
        name = parsing.text(node)
        if self._mainstream(name):
            return None
        function = _enclosing(node, "function_definition")
        while function is not None:
            parameter = _parameter(function, name)
            if parameter is not None and is_constexpr_parameter(function, name):
                # a Triton kernel's flag: followed by name (its values pass through ctx and positional launches)
                return off_flag(self._remember(("flag_sites",), lambda: read_sites(node)), name)
            if parameter is not None:
                return self._parameter_default(function, parameter, name, depth)
            function = _enclosing(function, "function_definition")
        return None

    def _parameter_default(self, function: Node, parameter: tuple[int, Node | None], name: str, depth: int) -> str | None:
        index, default = parameter
        function_name = _callable_name(function)
        if default is not None:
            value = parsing.text(default)
            if not _off(value, self.guards.is_flag(name)) or not self._callers_leave_off(function, index, name, depth):
                return None
            return f"`{name}={value}` by default ({function_name}())"
        declared = click_option_off(function, name)
        if declared is not None:
            return declared
        if depth >= 4:
            return None
        calls = self.called(function)
        if not calls or len(calls) > MAX_CALLS:
            return None
        found = []
        for callee in calls:
            argument = _argument(callee, index - (1 if _is_method(function) else 0), name)
            why = self._switch(argument, depth + 1) if argument is not None else None
            if why is None:
                return None
            found.append(why)
        return found[0]

    def _callers_leave_off(self, function: Node, index: int, name: str, depth: int) -> bool:
        """No call in the file turns the parameter on (accelerate's `self._prepare_one(obj, first_pass=True)`): each
        leaves it out, passes False/None, or passes an off-by-default switch."""
        for callee in self.called(function)[:MAX_CALLS]:
            argument = _argument(callee, index - (1 if _is_method(function) else 0), name)
            if argument is None or parsing.text(argument) in {"False", "None"}:
                continue
            if depth >= 4 or self._switch(argument, depth + 1) is None:
                return False
        return True

    def _attribute_switch(self, node: Node, depth: int) -> str | None:
        holder, attribute = node.child_by_field_name("object"), node.child_by_field_name("attribute")
        if holder is None or attribute is None:
            return None
        name = parsing.text(attribute)
        if self._mainstream(name):
            return None
        owner = parsing.text(holder)
        if owner == "self":
            return self._self_switch(node, name, depth)
        if owner.rsplit(".", 1)[-1] in self.argument_objects:
            return self._option_switch(node, name)
        return None

    def _self_switch(self, node: Node, name: str, depth: int) -> str | None:
        """`self.X` that its class sets only to False/None, or to a parameter whose default is that (a setter's
        argument with no default keeps the class's own default)."""
        defaults = []
        for right in _self_assignments(_enclosing(node, "class_definition"), name):
            value = self._assigned(right, name, depth)
            if value is False:
                return None
            if isinstance(value, str):
                defaults.append(value)
        return defaults[0] if defaults else None

    def _assigned(self, right: Node, name: str, depth: int) -> str | bool | None:
        """What one assignment of the attribute says: a reason (off by default), None (a setter's argument: says
        nothing), False (on, or not known: no opt-in)."""
        value = parsing.text(right)
        if _off(value, self.guards.is_flag(name)):
            return f"`self.{name} = {value}` by default (line {right.start_point.row + 1})"
        if value.lower() in FALSY:
            return False  # `self.collection = None`: a value not set yet, not a switch
        if right.type != "identifier":
            return False
        function = _enclosing(right, "function_definition")
        parameter = _parameter(function, value) if function is not None else None
        if parameter is None:
            return False
        if parameter[1] is None:
            return None
        why = self._parameter_default(function, parameter, value, depth)
        return why if why is not None else False

    def _option_switch(self, node: Node, name: str) -> str | None:
        option = self._options_of(node).get(name)
        if option is None:
            return None
        off, line, flag = option
        return f"`{flag}` is off unless given (line {line})" if off else None

    def _forget_unit(self) -> None:
        self._options = None
        self._memo.clear()

    def _remember(self, key: tuple, compute):
        """One answer per question and node in a unit: sites of one function share their callers' walks."""
        if key not in self._memo:
            self._memo[key] = compute()
        return self._memo[key]

    def _options_of(self, node: Node) -> dict[str, tuple[bool, int, str]]:
        """The file's command-line options: dest → (off by default, line, flag), read once per unit."""
        if self._options is None:
            options: dict[str, tuple[bool, int, str]] = {}
            for callee in self.guards.calls_named(node).get("add_argument", []):
                call = callee.parent.parent if callee.parent is not None and callee.parent.type == "attribute" else None
                declared = declared_option(call) if call is not None and call.type == "call" else None
                if declared is not None:
                    dest, off, flag = declared
                    options[dest] = (off and options.get(dest, (True,))[0], call.start_point.row + 1, flag)
            self._options = options
        return self._options


def switch_of_reason(reason: str) -> tuple[str, str] | None:
    """(the switch, the function or class whose parameter it is, "" for an attribute or an option) of a reason this
    reader gave; None for any other reason."""
    found = switches_of_reason(reason)
    return found[0] if found else None


def switches_of_reason(reason: str) -> list[tuple[str, str]]:
    """Every switch a reason of this reader names: one, or several joined by " or " (_any_switch)."""
    found, at = [], 0
    while True:
        match = next((m for m in (shape.match(reason, at) for shape in _REASONS) if m is not None), None)
        if match is None:
            return found
        found.append((match["name"].replace("-", "_"), match.groupdict().get("owner") or ""))
        if not reason.startswith(" or ", match.end()):
            return found
        at = match.end() + len(" or ")


def _either(condition: Node | None, depth: int = 0) -> list[Node]:
    """The terms of an `or` (parentheses unwrapped, nested `or`s flattened), or the condition alone."""
    if condition is None:
        return []
    while condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    operator = condition.child_by_field_name("operator") if condition.type == "boolean_operator" else None
    if operator is None or parsing.text(operator) != "or" or depth >= 8:
        return [condition]
    return [term for side in (condition.child_by_field_name("left"), condition.child_by_field_name("right"))
            for term in _either(side, depth + 1)]


def _ruled_out(site: Node, statement: Node) -> set[str]:
    """The conditions (whitespace normalised) that are false wherever the site runs, between it and `statement`: those
    of the if/elif arms before the else or elif arm holding it."""
    found: set[str] = set()
    parent, steps = site.parent, 0
    while parent is not None and steps < MAX_DEPTH and not _same(parent, statement):
        if parent.type in {"else_clause", "elif_clause"} and parent.parent is not None and parent.parent.type == "if_statement":
            chain = parent.parent
            for arm in [chain, *(c for c in chain.children if c.type == "elif_clause")]:
                if _same(arm, parent):
                    break
                condition = arm.child_by_field_name("condition")
                if condition is not None:
                    found.add(" ".join(parsing.text(condition).split()))
        parent, steps = parent.parent, steps + 1
    return found


def _callable_name(function: Node) -> str:
    """What a caller writes to call `function`: its name, or its class's for an `__init__`."""
    name = parsing.text(function.child_by_field_name("name"))
    cls = _enclosing(function, "class_definition") if name == "__init__" else None
    return parsing.text(cls.child_by_field_name("name")) if cls is not None and cls.child_by_field_name("name") is not None else name


def switch_rule(conventions):
    """`takes(option, feature)`: does an off-by-default option make a site optional (the project pass's form of
    SwitchReader._mainstream)?"""
    mainstream, features = frozenset(conventions.mainstream_switch_tokens), frozenset(conventions.feature_switch_tokens)

    def takes(name: str, feature: bool) -> bool:
        tokens = {t for t in _words_of(name).replace("-", "_").split("_") if t}
        # a feature's word may end a value written as one word (`adam8bit`, `paged_adamw8bit`); short ones (`te`) never
        joined = any(t.endswith(f) for t in tokens for f in features if len(f) >= 4)
        return not tokens & mainstream and bool(feature or tokens & features or joined)
    return takes


def _words_of(name: str) -> str:
    """`fp8Activation_qwen2` → `fp8_activation_qwen2`: the values an arm compares with are often camel-cased."""
    out = []
    for index, char in enumerate(name):
        if char.isupper() and index and (name[index - 1].islower() or name[index - 1].isdigit()):
            out.append("_")
        out.append(char.lower())
    return "".join(out)


CLICK_OPTIONS = {"click.option", "option"}


def click_option_off(function: Node, name: str) -> str | None:
    """The parameter `name` of a command that `@click.option("--compile/--no-compile", default=False)` (or a flag with
    `is_flag=True` and no default, or an on/off pair with none) declares off: "`--compile` is off unless given (line
    N)" (fish-speech's inference.py `--compile/--no-compile`, round 23 A1 44). A default True or any other value is
    no off switch."""
    holder = function.parent
    if holder is None or holder.type != "decorated_definition":
        return None
    for decorator in holder.children:
        call = decorator.named_children[0] if decorator.type == "decorator" and decorator.named_children else None
        function_name = call.child_by_field_name("function") if call is not None and call.type == "call" else None
        arguments = call.child_by_field_name("arguments") if function_name is not None else None
        if arguments is None or parsing.text(function_name) not in CLICK_OPTIONS:
            continue
        declared = [_string_value(a) for a in arguments.named_children if a.type == "string"]
        flags = [d for d in declared if d.startswith("-")]
        long = next((f for f in flags if f.startswith("--")), None)
        named = [d for d in declared if d.isidentifier()]
        dest = named[0] if named else long.split("/", 1)[0].lstrip("-").replace("-", "_") if long else None
        if dest != name or long is None:
            continue
        keywords = {parsing.text(a.child_by_field_name("name")): parsing.text(a.child_by_field_name("value"))
                    for a in arguments.named_children if a.type == "keyword_argument"}
        default = keywords.get("default")
        off = default == "False" or (default is None and ("/" in long or keywords.get("is_flag") == "True"))
        return f"`{long.split('/', 1)[0]}` is off unless given (line {call.start_point.row + 1})" if off else None
    return None


def first_term(condition: Node, read, depth: int = 0) -> str | None:
    """`read(term, depth)` of the first term of a condition's `and`s (parentheses unwrapped, 8 levels) it says
    something of; None for an `or`, which no one term decides."""
    while condition.type == "parenthesized_expression" and condition.named_children:
        condition = condition.named_children[0]
    if condition.type == "boolean_operator" and depth < 8:
        operator = condition.child_by_field_name("operator")
        if operator is None or parsing.text(operator) != "and":
            return None
        for side in (condition.child_by_field_name("left"), condition.child_by_field_name("right")):
            found = first_term(side, read, depth + 1) if side is not None else None
            if found is not None:
                return found
        return None
    return read(condition, depth)


def argument_switch(condition: Node, objects: frozenset[str], mainstream: frozenset[str]) -> str | None:
    """The option `if args.fp8_base:` (or one term of an `and`) needs on, whatever file declares it."""
    return first_term(condition, lambda term, _: _argument_term(term, objects, mainstream))


def _argument_term(condition: Node, objects: frozenset[str], mainstream: frozenset[str], bound: int = 0) -> str | None:
    """`args.x`, `getattr(args, "x", False)`, or a name bound once to one of them (option_reads)."""
    if condition.type in {"identifier", "attribute"} and bound < MAX_BOUND_HOPS:
        value = bound_value(condition)
        if value is not None:
            return _argument_term(value, objects, mainstream, bound + 1)
    read = getattr_read(condition, objects)
    if read is not None:
        name, default = read
        if default is not None and parsing.text(default) not in {"False", "None"}:
            return None  # `getattr(args, "x", True)`: on unless the namespace says otherwise
        return None if {t for t in name.lower().split("_") if t} & mainstream else name
    if condition.type != "attribute":
        return None
    holder, attribute = condition.child_by_field_name("object"), condition.child_by_field_name("attribute")
    if holder is None or attribute is None or parsing.text(holder).rsplit(".", 1)[-1] not in objects:
        return None
    name = parsing.text(attribute)
    return None if {t for t in name.lower().split("_") if t} & mainstream else name


def _option_parts(call: Node) -> tuple[str | None, dict[str, Node]] | None:
    """An `add_argument(...)` call's first long flag (`--fp8_base`, None without one) and its keyword values by
    name; None when the call has no argument list."""
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    flags, keywords = [], {}
    for argument in arguments.named_children:
        if argument.type == "string":
            flags.append(parsing.text(argument).strip("'\""))
        elif argument.type == "keyword_argument":
            key, value = argument.child_by_field_name("name"), argument.child_by_field_name("value")
            if key is not None and value is not None:
                keywords[parsing.text(key)] = value
    return next((f for f in flags if f.startswith("--")), None), keywords


def declared_option(call: Node) -> tuple[str, bool, str] | None:
    parts = _option_parts(call)
    if parts is None or parts[0] is None:
        return None
    long, keywords = parts[0], {key: parsing.text(value) for key, value in parts[1].items()}
    dest = keywords.get("dest", "").strip("'\"") or long[2:].replace("-", "_")
    action = keywords.get("action", "").strip("'\"")
    if action == "store_true":
        off = keywords.get("default", "False").lower() in FALSY
    else:  # store_false, store_const, count, append, or an option taking a value: no plain off switch
        off = not action and keywords.get("default") == "False"
    return dest, off, long


def option_none_default(call: Node) -> tuple[str, str] | None:
    """`add_argument("--gpu-id", type=int, default=None)` (or no default), not required, no action: (dest, the long
    flag); its value is None unless the flag is given."""
    parts = _option_parts(call)
    if parts is None or parts[0] is None:
        return None
    long, keywords = parts
    if "action" in keywords or "required" in keywords or "const" in keywords or (
            "default" in keywords and parsing.text(keywords["default"]) != "None"):
        return None
    dest = keywords.get("dest")
    return (parsing.text(dest).strip("'\"") if dest is not None else long[2:].replace("-", "_")), long


def option_string_default(call: Node) -> tuple[str, str] | None:
    """`add_argument("--optim", type=str, default="adamw_torch")`: (dest, "adamw_torch"); an integer default as
    written (`--head_chunk`, default=0: "0"); None for other options."""
    parts = _option_parts(call)
    if parts is None:
        return None
    long, keywords = parts
    default = keywords.get("default")
    if long is None or default is None or default.type not in {"string", "integer"} or "action" in keywords:
        return None
    dest = keywords["dest"] if "dest" in keywords else None
    name = parsing.text(dest).strip("'\"") if dest is not None else long[2:].replace("-", "_")
    return name, _string_value(default) if default.type == "string" else parsing.text(default)


def option_choices(call: Node) -> tuple[str, tuple[str, ...]] | None:
    """`add_argument("--precision", choices=["amp_bf16", "bf16", "fp32"])`: (dest, the choices); None for an option
    without a list of plain strings."""
    parts = _option_parts(call)
    if parts is None or parts[0] is None or "choices" not in parts[1]:
        return None
    long, keywords = parts
    listed = keywords["choices"]
    if listed.type not in {"list", "tuple", "set"} or not listed.named_children or not all(
            item.type == "string" and not any(c.type == "interpolation" for c in item.named_children)
            for item in listed.named_children):
        return None
    dest = keywords["dest"] if "dest" in keywords else None
    name = parsing.text(dest).strip("'\"") if dest is not None else long[2:].replace("-", "_")
    return name, tuple(_string_value(item) for item in listed.named_children)


def dataclass_field(assignment: Node) -> tuple[str, str, int] | None:
    """`name: T = value` or `name: T = field(default=value, ...)` in a dataclass body: (name, the default's text,
    line): True/False/None, a string (quoted), or a number as written (`bits: int = field(default=16)` is "16",
    `fsdp_size: int = -1` is "-1"). A field with no default, or a default_factory, says nothing."""
    left, right = assignment.child_by_field_name("left"), assignment.child_by_field_name("right")
    if left is None or right is None or left.type != "identifier" or assignment.child_by_field_name("type") is None:
        return None
    if right.type == "call":
        function, arguments = right.child_by_field_name("function"), right.child_by_field_name("arguments")
        if function is None or arguments is None or parsing.text(function).rsplit(".", 1)[-1] != "field":
            return None
        right = next((a.child_by_field_name("value") for a in arguments.named_children if a.type == "keyword_argument"
                      and a.child_by_field_name("name") is not None
                      and parsing.text(a.child_by_field_name("name")) == "default"), None)
        if right is None:
            return None
    if right.type in {"true", "false", "none"}:
        return parsing.text(left), parsing.text(right), assignment.start_point.row + 1
    if right.type == "string" and not any(c.type == "interpolation" for c in right.named_children):
        return parsing.text(left), '"' + _string_value(right) + '"', assignment.start_point.row + 1
    number = number_text(right)
    return (parsing.text(left), number, assignment.start_point.row + 1) if number is not None else None


def number_text(node: Node) -> str | None:
    """An integer or float literal as written, a leading minus kept (`-1`); None for anything else."""
    if node.type == "unary_operator" and parsing.text(node).startswith("-") and node.named_children:
        inner = number_text(node.named_children[-1])
        return None if inner is None or inner.startswith("-") else "-" + inner
    return parsing.text(node) if node.type in {"integer", "float"} else None


def option_value_test(condition: Node, objects: frozenset[str], literals: list[str] | None = None,
                      bound: int = 0) -> tuple[str, tuple[str, ...]] | None:
    """`args.optim == "adamw_bnb_8bit"` or `model_args.quantize_model.lower() in ["a", "b"]`: (dest, the strings the
    arm needs); None for `!=`/`not in` (which hold by default) and for anything but an option of the command line.
    A local holding the option (option_locals.option_local) is the option; the literals it is also bound to are added
    to `literals`, where given."""
    if condition.type in {"identifier", "attribute"} and bound < MAX_BOUND_HOPS:
        value = bound_value(condition)  # `self.xf = opt == X` ... `if self.xf:` tests the option
        return option_value_test(value, objects, literals, bound + 1) if value is not None else None
    operands = condition.named_children
    operators = [c.type for c in condition.children if not c.is_named]
    if condition.type == "comparison_operator" and operators in ([">"], [">="]) and len(operands) == 2:
        return _number_test(operands[0], operators[0], operands[1], objects)
    if condition.type != "comparison_operator" or len(operands) != 2 or operators not in (["=="], ["in"]):
        return None
    subject, values = operands
    contains = operators == ["in"] and subject.type == "string"  # `'mamba' in args.my_testing`: a substring
    if operators == ["=="] and (subject.type == "string" or number_text(subject) is not None) or contains:
        subject, values = values, subject
    read = getattr_read(subject, objects) if subject.type == "call" else None
    if read is not None:  # `getattr(args, "attn_variant", "default") == "xformers"`
        tested = _tested_values(values)
        return (read[0], tested) if tested is not None and not contains else None
    if subject.type == "call" and env_variable(subject) is None:  # `.lower()`, `.upper()`, `.strip()`: normalised
        function = subject.child_by_field_name("function")
        arguments = subject.child_by_field_name("arguments")
        if (function is None or function.type != "attribute" or arguments is None or arguments.named_children
                or parsing.text(function.child_by_field_name("attribute")) not in {"lower", "upper", "strip"}):
            return None
        subject = function.child_by_field_name("object")
    variable = env_variable(subject) if subject is not None else None
    if variable is not None:  # an environment variable: the option it carries, if any, is the project's to find
        name = ENV_PREFIX + variable
    elif subject is not None and subject.type == "identifier":
        name = _option_parameter(subject)
        local = option_local(subject, objects) if name is None else None
        if name is None and local is None:
            return None
        if local is not None:
            name = local.name
            if literals is not None:
                literals += local.literals
            if local.split and not contains:  # a part of the split value: a substring of the option's
                tested = _tested_values(values)
                return (name, tuple(CONTAINS + v for v in tested)) if tested and all(tested) else None
    else:
        if subject is None or subject.type != "attribute":
            return None
        holder, attribute = subject.child_by_field_name("object"), subject.child_by_field_name("attribute")
        path = config_path(subject) if holder is not None and parsing.text(holder).rsplit(".", 1)[-1] not in objects \
            else None
        if path is not None:  # `config.TRAIN.OPTIMIZER.NAME`: a config's value (config_paths)
            name = CONFIG_PREFIX + path
        elif holder is None or attribute is None or parsing.text(holder).rsplit(".", 1)[-1] not in objects:
            return None
        else:
            name = parsing.text(attribute)
    if contains:
        text = _string_value(values) if not any(c.type == "interpolation" for c in values.named_children) else ""
        return (name, (CONTAINS + text,)) if text else None
    tested = _tested_values(values)
    return (name, tested) if tested is not None else None


def _tested_values(values: Node) -> tuple[str, ...] | None:
    """The values an `==`/`in` test compares with: strings (`"AdamW8bit".lower()` evaluated), enum members, or
    numbers (`training_args.bits in [4, 8]`, `args.bits == 8`: a number as written); None for anything else."""
    if values.type in {"string", "attribute", "integer", "unary_operator", "call"}:
        strings = [values]
    elif values.type in {"list", "tuple", "set"}:
        strings = values.named_children
    else:
        return None
    found = [parsing.text(s) if _is_member(s) else number_text(s) if number_text(s) is not None else literal_text(s)
             for s in strings]
    return tuple(found) if found and all(v is not None for v in found) else None


def _number_test(subject: Node, operator: str, bound: Node, objects: frozenset[str]) -> tuple[str, tuple[str, ...]] | None:
    """`int(os.environ["RWKV_HEAD_L2WRAP_CE_CHUNK"]) > 0`, `args.head_chunk > 0`: (the option, (">0",))."""
    if bound.type != "integer":
        return None
    if subject.type == "call":  # int(...), float(...)
        function, arguments = subject.child_by_field_name("function"), subject.child_by_field_name("arguments")
        if function is None or parsing.text(function) not in {"int", "float"} or arguments is None or len(arguments.named_children) != 1:
            return None
        subject = arguments.named_children[0]
    variable = env_variable(subject)
    if variable is not None:
        return ENV_PREFIX + variable, (operator + parsing.text(bound),)
    holder = subject.child_by_field_name("object") if subject.type == "attribute" else None
    if holder is None or parsing.text(holder).rsplit(".", 1)[-1] not in objects:
        return None
    return parsing.text(subject.child_by_field_name("attribute")), (operator + parsing.text(bound),)


def config_value_test(condition: Node) -> tuple[str, tuple[str, ...]] | None:
    """`opt_config['type'] == 'adam8bit'`, `cfg.get("type") in ("a", "b")`: (the config key with CONFIG_PREFIX, the
    strings the arm needs): a value read from a mapping by a string key (os.environ's are env_variable's), compared
    with string literals; None for `!=`/`not in` (which hold by default)."""
    compared = _compared_with_strings(condition)
    if compared is None:
        return None
    subject, strings = compared
    needed = tuple(_string_value(s) for s in strings)
    if not all(v.isidentifier() for v in needed):
        return None  # the values are read before the subject's binding is looked up (a query over its function)
    if subject.type == "identifier":  # `optimizer_type = optimizer_config["type"]` ... `if optimizer_type == "FusedAdam":`
        subject = _config_read_bound(subject)
        if subject is None:
            return None
    if env_variable(subject) is not None:
        return None
    if subject.type == "subscript":
        holder, key = subject.child_by_field_name("value"), subject.child_by_field_name("subscript")
    elif subject.type == "call":
        function, arguments = subject.child_by_field_name("function"), subject.child_by_field_name("arguments")
        if function is None or function.type != "attribute" or arguments is None or not arguments.named_children \
                or parsing.text(function.child_by_field_name("attribute")) != "get":
            return None
        holder, key = function.child_by_field_name("object"), arguments.named_children[0]
    else:
        return None
    if holder is None or holder.type not in {"identifier", "subscript", "attribute"} or key is None or key.type != "string" \
            or any(c.type == "interpolation" for c in key.named_children):
        return None
    name = _string_value(key)
    if not name.isidentifier():
        return None
    return CONFIG_PREFIX + name, needed


def _config_read_bound(name_node: Node) -> Node | None:
    """The value a local name of the enclosing function holds where its one binding there is a plain assignment (the
    read config_value_test then takes: stable-audio-tools' `optimizer_type = optimizer_config["type"]`); None where
    the function binds it otherwise or more than once, or is no function."""
    function = _enclosing(name_node, "function_definition")
    body = function.child_by_field_name("body") if function is not None else None
    name = parsing.text(name_node)
    if body is None or _parameter(function, name) is not None:
        return None
    bindings = [n for n in parsing.captures(parsing.query("python", PARAMETER_REBINDINGS), body).get("target", [])
                if parsing.text(n) == name]
    if len(bindings) != 1 or bindings[0].parent is None or bindings[0].parent.type != "assignment":
        return None
    assignment = bindings[0].parent
    if assignment.child_by_field_name("left") != bindings[0]:
        return None
    value = assignment.child_by_field_name("right")
    return value if value is not None and value.type in {"subscript", "call"} else None


def parameter_value_arm(condition: Node) -> tuple[str, tuple[str, ...], str, int] | None:
    """`launcher == "slurm"` (or `in ["a", "b"]`) on a parameter of a module-level function or of a module-level
    class's `__init__` that the function never rebinds: (parameter, the strings the arm needs, the name its calls use,
    its position in a call). AnimateDiff's `def init_dist(launcher="slurm", ...)`, called as
    `init_dist(launcher=launcher)` with the value of `--launcher` (choices pytorch, slurm; default pytorch): the
    project pass (opt_in.switched_options) reads the calls and the option. The default does not matter here; a
    parameter with none is also read (switches' `@name` arms are for values the file writes only in the test)."""
    if condition.type in {"identifier", "attribute"}:  # `self.xf = variant == Variants.XF` ... `if self.xf:`
        condition = bound_value(condition)
        if condition is None:
            return None
    compared = _compared_with_strings(condition, members=True)
    if compared is None or compared[0].type != "identifier":
        return None
    subject, strings = compared
    name = parsing.text(subject)
    function = _enclosing(subject, "function_definition")
    found = _parameter(function, name) if function is not None else None
    callee = module_callee(function, decorated_class=True) if found is not None else None
    if callee is None or _rebound(function, name):
        return None
    parameters = function.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
    index = found[0] - (1 if first is not None and parsing.text(first) in {"self", "cls"} else 0)
    return name, tuple(parsing.text(s) if _is_member(s) else _string_value(s) for s in strings), callee, index



def _compared_with_strings(condition: Node, members: bool = False) -> tuple[Node, list[Node]] | None:
    """`x == "a"`, `"a" == x`, `x in ("a", "b")`: (the subject, the plain string literals it is compared with; with
    `members`, enum members too: `x == Variants.XFORMERS`); None for another test, `!=`/`not in` (which hold by
    default) or an f-string."""
    operands = condition.named_children
    operators = [c.type for c in condition.children if not c.is_named]
    if condition.type != "comparison_operator" or len(operands) != 2 or operators not in (["=="], ["in"]):
        return None
    subject, values = operands
    if operators == ["=="] and subject.type == "string":
        subject, values = values, subject
    strings = [values] if values.type == "string" else values.named_children if values.type in {"list", "tuple", "set"} else []
    if members and values.type == "attribute" and _is_member(values):
        strings = [values]
    if not strings or not all((s.type == "string" and not any(c.type == "interpolation" for c in s.named_children))
                              or (members and _is_member(s)) for s in strings):
        return None
    return subject, strings

def module_callee(function: Node, decorated_class: bool = False) -> str | None:
    """The name a call of this undecorated function uses: its own at the module level, its class's for the __init__
    of an undecorated module-level class (with `decorated_class`, of a decorated one too: metaseq's
    `@with_incremental_state` adds a base, and its calls still hand the keywords to `__init__`); None for a method, a
    nested or a decorated definition."""
    holder, name = function.parent, function.child_by_field_name("name")
    if name is None or holder is None:
        return None
    if holder.type == "module":
        return parsing.text(name)
    cls = holder.parent if holder.type == "block" and parsing.text(name) == "__init__" else None
    outer = cls.parent if cls is not None else None
    if decorated_class and outer is not None and outer.type == "decorated_definition":
        outer = outer.parent
    if cls is not None and cls.type == "class_definition" and outer is not None and outer.type == "module":
        cls_name = cls.child_by_field_name("name")
        return parsing.text(cls_name) if cls_name is not None else None
    return None


def _rebound(function: Node, name: str) -> bool:
    body = function.child_by_field_name("body")
    return any(parsing.text(node) == name for node in (
        parsing.captures(parsing.query("python", PARAMETER_REBINDINGS), body).get("target", []) if body is not None else []))


def _option_parameter(subject: Node) -> str | None:
    """`precision` in `def get_autocast(precision): if precision == "amp":`, a parameter of the enclosing function
    without a default that the function never rebinds: PARAMETER_PREFIX + its name. The project pass takes it for the
    option of that name only where the project declares one and no other file writes the value tested."""
    name = parsing.text(subject)
    function = _enclosing(subject, "function_definition")
    found = _parameter(function, name) if function is not None else None
    if found is None or found[1] is not None:
        return None
    body = function.child_by_field_name("body")
    for node in parsing.captures(parsing.query("python", PARAMETER_REBINDINGS), body).get("target", []) if body is not None else []:
        if parsing.text(node) == name:
            return None
    return PARAMETER_PREFIX + name


PARAMETER_REBINDINGS = """
(assignment left: (identifier) @target)
(augmented_assignment left: (identifier) @target)
(for_statement left: (identifier) @target)
(named_expression name: (identifier) @target)
(pattern_list (identifier) @target)
(tuple_pattern (identifier) @target)
(global_statement (identifier) @target)
(nonlocal_statement (identifier) @target)
"""
PARAMETER_PREFIX = "@"  # an arm's option that is a parameter named like one: `@precision` for `precision == "amp"`
CONFIG_PREFIX = "%"  # an arm's option that is a key of a loaded config: `%type` for `opt_config['type']`
ENV_PREFIX = "$"  # an arm's option that is an environment variable: `$RWKV_MY_TESTING`
CONTAINS = "*"  # a value the option must hold as a substring: `'mamba' in os.environ["RWKV_MY_TESTING"]` → `*mamba`
ENV_READS = {"os.environ.get", "environ.get", "os.getenv", "getenv"}


def env_variable(node: Node) -> str | None:
    """`os.environ["X"]`, `os.environ.get("X", ...)`, `os.getenv("X", ...)`: "X"."""
    if node.type == "subscript":
        holder, key = node.child_by_field_name("value"), node.child_by_field_name("subscript")
        if holder is None or parsing.text(holder) not in {"os.environ", "environ"}:
            return None
    elif node.type == "call":
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or arguments is None or parsing.text(function) not in ENV_READS or not arguments.named_children:
            return None
        key = arguments.named_children[0]
    else:
        return None
    if key is None or key.type != "string" or any(c.type == "interpolation" for c in key.named_children):
        return None
    return _string_value(key) or None


def _is_member(node: Node) -> bool:
    """`OptimizerNames.ADAMW_BNB`: an enum's member, kept dotted (its string is the enum's, out of sight)."""
    holder = node.child_by_field_name("object") if node.type == "attribute" else None
    return holder is not None and holder.type == "identifier" and parsing.text(node.child_by_field_name("attribute")).isupper()


def option_else_arm(condition: Node, objects: frozenset[str]) -> tuple[int, int, str, tuple[str, ...], int] | None:
    """The `else` of a chain every arm of which tests one option for values (`if args.x == "cuda_amp": ... elif
    args.x == "cpu_amp": ... else: ...`), asked at the chain's first condition: (first line, last line, the option,
    the values the arms before take, the line of `else:`)."""
    statement = condition.parent
    if statement is None or statement.type != "if_statement" or not _same(condition, statement.child_by_field_name("condition") or statement):
        return None
    tests = [option_value_test(condition, objects)]
    otherwise, line = None, 0
    for clause in statement.children:
        if clause.type == "elif_clause":
            test = clause.child_by_field_name("condition")
            tests.append(option_value_test(test, objects) if test is not None else None)
        elif clause.type == "else_clause":
            otherwise, line = clause.child_by_field_name("body"), clause.start_point.row + 1
    if otherwise is None or any(t is None for t in tests) or len({t[0] for t in tests}) != 1:
        return None
    return (otherwise.start_point.row + 1, otherwise.end_point.row + 1, tests[0][0],
            tuple(v for t in tests for v in t[1]), line)


def _string_value(node: Node) -> str:
    return "".join(parsing.text(c) for c in node.named_children if c.type == "string_content")



def _self_assignments(cls: Node | None, name: str):
    """The right sides of the class's `self.<name> = ...` assignments (a bounded walk that does not enter them)."""
    for current in parsing.walk(cls, limit=MAX_CLASS_NODES, prune=_ASSIGNMENT, named=False):
        if current.type == "assignment":
            left, right = current.child_by_field_name("left"), current.child_by_field_name("right")
            if left is not None and right is not None and parsing.text(left) == f"self.{name}":
                yield right

def _enclosing(node: Node, kind: str) -> Node | None:
    current, depth = node.parent, 0
    while current is not None and depth < MAX_DEPTH:
        if current.type == kind:
            return current
        current, depth = current.parent, depth + 1
    return None


def _nested(function: Node) -> bool:
    return _enclosing(function, "function_definition") is not None


def _is_method(function: Node) -> bool:
    parameters = function.child_by_field_name("parameters")
    first = parameters.named_children[0] if parameters is not None and parameters.named_children else None
    return first is not None and parsing.text(first).split(":")[0].strip() in {"self", "cls"}


def _parameter(function: Node, name: str) -> tuple[int, Node | None] | None:
    """(position, default) of a parameter of `function` named `name`."""
    parameters = function.child_by_field_name("parameters")
    for index, parameter in enumerate(parameters.named_children if parameters is not None else []):
        if parameter.type == "identifier" and parsing.text(parameter) == name:
            return index, None
        if parameter.type == "typed_parameter":
            first = parameter.named_children[0] if parameter.named_children else None
            if first is not None and parsing.text(first) == name:
                return index, None
        if parameter.type in {"default_parameter", "typed_default_parameter"}:
            key = parameter.child_by_field_name("name")
            if key is not None and parsing.text(key) == name:
                return index, parameter.child_by_field_name("value")
    return None


def _argument(callee: Node, index: int, name: str) -> Node | None:
    """The argument a call passes for the parameter at `index` named `name`."""
    call = callee.parent
    while call is not None and call.type == "attribute":
        call = call.parent
    arguments = call.child_by_field_name("arguments") if call is not None and call.type == "call" else None
    if arguments is None:
        return None
    positional = [a for a in arguments.named_children if a.type not in {"keyword_argument", "comment"}]
    for argument in arguments.named_children:
        if argument.type == "keyword_argument":
            key = argument.child_by_field_name("name")
            if key is not None and parsing.text(key) == name:
                return argument.child_by_field_name("value")
    if any(a.type in {"list_splat", "dictionary_splat"} for a in positional):
        return None
    return positional[index] if 0 <= index < len(positional) else None


def exit_ifs_before(child: Node) -> Iterator[tuple[Node, Node, Node, str]]:
    """The plain if-statements (no elif, no else) before `child` in its block, nearest first, whose body ends by
    returning or raising: (the statement, its condition, its body, the type of its last statement)."""
    sibling, seen = child.prev_named_sibling, 0
    while sibling is not None and seen < MAX_EXIT_SIBLINGS:
        seen += 1
        if sibling.type == "if_statement" and not any(c.type in {"elif_clause", "else_clause"} for c in sibling.children):
            condition, body = sibling.child_by_field_name("condition"), sibling.child_by_field_name("consequence")
            statements = [s for s in (body.named_children if body is not None else []) if s.type != "comment"]
            if condition is not None and statements and statements[-1].type in {"return_statement", "raise_statement"}:
                yield sibling, condition, body, statements[-1].type
        sibling = sibling.prev_named_sibling
