"""What a CUDA check the patch leaves controls: the code that runs only where the check holds. On the NPU the check
is false, so that code never runs there, and a rewrite inside it would leave a line half-ported (a NPU device type
handed to `torch.cuda.get_device_properties`). Read from the tree around the check:
- the arm its `if`/`elif` opens when it holds (`if torch.cuda.is_available():`, `if ok and <check>:`), and the arms
  taken when a test that holds only where it fails is false (`if not <check>: ... else: <here>`);
- the operands an `and` evaluates after it (`assert <check> and torch.cuda.device_count() >= n`, yolov9's
  select_device) and the value a conditional expression picks where it holds (`<here> if <check> else 0`);
- the rest of the block after `if not <check>: return` (or raise, continue, break: an arm that always leaves);
- the same, through a name assigned once in its function from the check or a conjunct of it
  (`self.use_flash = torch.cuda.is_available() and ...` then `if not self.use_flash: return`);
- the rest of the block after `assert <check>` (`if not <check>: raise`);
- for a device test, the same read from the side where the device is CUDA (`if device != "cuda": return device`
  holds the rest of the block)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.parsing import text, walk

_EXITS = frozenset({"return_statement", "raise_statement", "continue_statement", "break_statement"})
_SCOPES = frozenset({"function_definition", "class_definition", "lambda"})
_ASSIGNMENTS = frozenset({"assignment", "augmented_assignment"})
_CLAUSES = frozenset({"if_statement", "elif_clause"})


AVAILABILITY_QUERY = '''(call function: (attribute object: (attribute) @module attribute: (identifier) @name)
  (#eq? @module "torch.cuda") (#eq? @name "is_available")) @check'''


def availability_checks(root) -> list:
    """The `torch.cuda.is_available()` calls of a file, read from its tree: a check a finding of its own may not
    carry (DEV220's chain or DEV144's RNG check subsumes DEV104 on its line), but that still decides what runs."""
    return parsing.captures_around(parsing.query("python", AVAILABILITY_QUERY), root,
                                   frozenset({b"is_available"})).get("check", [])


def check_expression(node):
    """The whole check around a finding's node (`torch.cuda.is_available` → the call)."""
    while node.parent is not None and (node.parent.type == "attribute" or (
            node.parent.type == "call" and node.parent.child_by_field_name("function") == node)):
        node = node.parent
    return node


def _test_of(node, holds: bool = True):
    """(the test expression holding node, holds) where holds is True when the test's being true means the node is
    true, False when its being false does, None when neither (an `or` of it, an `and` of its negation). With holds
    False to start, the same for the node's being false."""
    while node.parent is not None and holds is not None:
        parent = node.parent
        if parent.type == "not_operator":
            holds = not holds
        elif parent.type == "boolean_operator":
            if (text(parent.child_by_field_name("operator")) == "and") != holds:
                holds = None
        elif parent.type != "parenthesized_expression":
            break
        node = parent
    return node, holds


def _leaves(block) -> bool:
    """Does the block always leave (its last statement a return, raise, continue or break)?"""
    last = block.named_children[-1] if block is not None and block.named_children else None
    return last is not None and last.type in _EXITS


def _arms(node, asserts: bool = True, operands: bool = False) -> list[tuple[int, int, bool]]:
    """(first byte, last byte, through an early exit) of the code that runs only where node (a check or a flag
    set from it) is true, read from the if/elif whose condition holds it, or from the assert that stops where it
    does not (the rest of the assert's block, nested blocks included)."""
    side, holds_there = _cuda_side(node)
    spans = _later_operands(side, holds_there) if operands or _asserted(side) else []
    test, holds = _test_of(side, holds_there)
    clause = test.parent
    if holds and clause is not None and clause.type == "conditional_expression" and clause.named_child_count == 3 \
            and clause.named_children[1] == test:
        return spans + [(clause.named_children[0].start_byte, clause.named_children[0].end_byte, False)]
    if asserts and holds and clause is not None and clause.type == "assert_statement" and clause.named_children \
            and clause.named_children[0] == test:
        block = clause.parent
        return spans + ([(clause.end_byte + 1, block.end_byte, True)]
                        if block is not None and clause.end_byte < block.end_byte else [])
    if holds is None or clause is None or clause.type not in _CLAUSES or clause.child_by_field_name("condition") != test:
        return spans
    if holds:
        body = clause.child_by_field_name("consequence")
        return spans + ([(body.start_byte, body.end_byte, False)] if body is not None else [])
    statement = clause if clause.type == "if_statement" else clause.parent
    later = [c for c in statement.children if c.type in {"elif_clause", "else_clause"} and c.start_byte > clause.start_byte]
    spans += [(c.start_byte, c.end_byte, False) for c in later]
    block = statement.parent
    if clause.type == "if_statement" and _leaves(clause.child_by_field_name("consequence")) and block is not None \
            and statement.end_byte < block.end_byte:
        spans.append((statement.end_byte + 1, block.end_byte, True))
    return spans


def _asserted(node) -> bool:
    """Is node a conjunct of an assert's test? Its later operands never run where it fails, and the program stops."""
    while node.parent is not None and node.parent.type in {"boolean_operator", "parenthesized_expression"}:
        node = node.parent
    parent = node.parent
    return parent is not None and parent.type == "assert_statement" and bool(parent.named_children) \
        and parent.named_children[0] == node


def _later_operands(node, holds: bool) -> list[tuple[int, int, bool]]:
    """(first byte, last byte, False) of the right operands of the `and`s node is a left operand of, going up while
    the node holds where the `and` does: evaluated only where the check holds."""
    spans = []
    while node.parent is not None and holds:
        parent = node.parent
        if parent.type == "not_operator":
            holds = False
        elif parent.type == "boolean_operator" and text(parent.child_by_field_name("operator")) == "and":
            right = parent.child_by_field_name("right")
            if right is not None and right != node:
                spans.append((right.start_byte, right.end_byte, False))
        elif parent.type != "parenthesized_expression":
            break
        node = parent
    return spans


def _cuda_side(node):
    """(the expression, True) for a check; for a device test, the comparison or call holding its "cuda" literal and
    whether it is true where the device is CUDA (`d == "cuda"`, `"cuda" in d`, `d.startswith("cuda")`: True;
    `d != "cuda"`, `"cuda" not in d`: False)."""
    parent = node.parent
    if node.type == "string" and parent is not None and parent.type == "argument_list" and parent.parent is not None \
            and parent.parent.type == "call":
        return parent.parent, True
    comparison = node if node.type == "comparison_operator" else parent \
        if node.type == "string" and parent is not None and parent.type == "comparison_operator" else None
    operators = [" ".join(text(child).split()) for child in comparison.children if not child.is_named] \
        if comparison is not None else []
    if len(operators) != 1:
        return node, True
    return comparison, operators[0] in {"==", "in", "is"}


def _flag(check):
    """(the name a check is assigned to, where its function's other code starts being read) when the check, or a
    conjunct of it, is the whole value of `name = ...` / `self.name = ...`."""
    test, holds = _test_of(check)
    assignment = test.parent
    if not holds or assignment is None or assignment.type != "assignment" \
            or assignment.child_by_field_name("right") != test:
        return None
    left = assignment.child_by_field_name("left")
    if left is None or left.type not in {"identifier", "attribute"}:
        return None
    return left


def _scope(node):
    """The function around node (its body is where a flag set in it is read), else the module."""
    current = node.parent
    while current is not None and current.type not in {"function_definition", "module"}:
        current = current.parent
    return current


def controlled(check, asserts: bool = True, operands: bool = False) -> list[tuple[int, int, str]]:
    """(first byte, last byte, how) of the code that runs only where the check holds; `how` says the way when it is
    not the check's own arm (through a flag, past an early exit). asserts: an `assert` of it counts as an early exit
    (a CUDA check's; a device test's assert is a contract the port widens or leaves on its own). operands: the `and`
    operands after it count too, for a check no finding carries (always in an assert, which stops where the check
    fails); elsewhere a carried check's operands are rewritten as the porters did (`torch.cuda.is_available() and
    torch.cuda.is_bf16_supported()` picking bf16, xtuner 2c06115f6, port_commits held-out)."""
    spans = [(first, last, " (the block is left early where it does not)" if early else "")
             for first, last, early in _arms(check, asserts, operands)]
    left = _flag(check)
    scope = _scope(left) if left is not None else None
    if scope is None:
        return spans
    name = text(left)
    uses = []
    for node in walk(scope, prune=_SCOPES, enter_root=True):
        if node.type not in {"identifier", "attribute"} or text(node) != name or node == left:
            continue
        parent = node.parent
        if parent is not None and parent.type == "attribute" and parent.child_by_field_name("attribute") == node:
            continue  # `other.use_flash` is not the name `use_flash`
        if parent is not None and parent.type in _ASSIGNMENTS and parent.child_by_field_name("left") == node:
            return spans  # set again elsewhere: its value is no longer the check's
        if node.start_byte > left.end_byte:
            uses.append(node)
    for use in uses:
        for first, last, early in _arms(use):
            how = f" (through {name}" + ("; the block is left early where it is false)" if early else ")")
            spans.append((first, last, how))
    return spans
