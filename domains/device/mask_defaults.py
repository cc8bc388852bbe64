"""A project that gives CUDA_VISIBLE_DEVICES a default of its own, and the reads that follow that default.

A launcher that writes the mask when it is unset (`if os.environ.get("CUDA_VISIBLE_DEVICES", "") == "":
os.environ["CUDA_VISIBLE_DEVICES"] = "0"`, `if "CUDA_VISIBLE_DEVICES" not in os.environ: ...`) makes the variable the
project's own setting: its trainer builds the list of processes from it (`[int(x) for x in
os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")]`, one process per id, each on local device 0..n-1) and its
tasks re-read it (`rank = 0 if len(os.environ["CUDA_VISIBLE_DEVICES"].split(",")) == 1 else dist.get_rank()`).
torch_npu reads ASCEND_RT_VISIBLE_DEVICES only (transfer_to_npu maps no CUDA_VISIBLE_DEVICES; knowledge/device/
rules_runtime.toml DEV201's note), so on Ascend those reads still get the value the user or the launcher set: they
cannot miss it (no KeyError) and agree with the process layout. What changes is only which NPUs each process may
open: the one item is at the launcher's write (facet DEFAULT, low: set ASCEND_RT_VISIBLE_DEVICES beside it to pin
the NPUs), and the Python reads elsewhere in the project are info (facet FOLLOWS), naming that write.

A default written without such a test (a plain pin) is no default: it keeps DEV201's medium item, and a project
with no Python read besides the guard keeps it too (no list of its own is built from the variable)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.findings import FindingFactory, Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.device import mask_reads
from tree_sitter import Node

RULE = "DEV201"
DEFAULT = "project-default"  # DEV201's facet: the launcher's default write the project's own reads follow
FOLLOWS = "mask-read-follows"  # DEV201's facet: a Python read of a mask the project defaults itself
UNSET = frozenset({'""', "''", "None"})
MAX_NODES = 50000


def read(unit) -> tuple[list[int], list[int]]:
    """(lines of default writes, lines of reads) of the masks in the unit. A script of its own (a module-level
    `if __name__ == "__main__":`) that does not write the default runs in its own process, where no launcher's default
    was written: its reads are not the project's (none are returned)."""
    if not any(mask in unit.source.text for mask in mask_reads.MASKS):
        return [], []
    defaults, reads = [], []
    for node in parsing.walk(unit.tree(), limit=MAX_NODES):
        if node.type != "string" or content(node) not in mask_reads.MASKS:
            continue
        access = mask_reads.access(node)
        if access in {mask_reads.READ, mask_reads.READ_USED}:
            reads.append(node.start_point[0] + 1)
        elif access == "write" and written_when_unset(node):
            defaults.append(node.start_point[0] + 1)
    if not defaults and _is_script(unit.tree()):
        reads = []
    return sorted(set(defaults)), sorted(set(reads))


def _is_script(root: Node) -> bool:
    """A module-level `if __name__ == "__main__":`."""
    for statement in root.named_children:
        condition = statement.child_by_field_name("condition") if statement.type == "if_statement" else None
        if condition is not None and condition.type == "comparison_operator" \
                and {parsing.text(c) for c in condition.named_children} & {"__name__"} \
                and {parsing.text(c).strip("'\"") for c in condition.named_children} & {"__main__"}:
            return True
    return False


def content(string: Node) -> str:
    return "".join(parsing.text(c) for c in string.named_children if c.type == "string_content")


def written_when_unset(literal: Node) -> bool:
    """`X["MASK"] = v` as a statement of an `if` whose test asks whether that mask is unset."""
    statement = literal.parent.parent if literal.parent is not None else None  # subscript -> assignment
    if statement is None or statement.type != "assignment" or statement.parent is None \
            or statement.parent.type != "expression_statement":
        return False
    block = statement.parent.parent
    branch = block.parent if block is not None and block.type == "block" else None
    if branch is None or branch.type != "if_statement" or branch.child_by_field_name("consequence") != block:
        return False
    condition = branch.child_by_field_name("condition")
    return condition is not None and asks_unset(condition, content(literal))


def asks_unset(condition: Node, mask: str) -> bool:
    """The test, or one operand of an `or`, asks whether the mask is unset: `M not in os.environ`,
    `os.environ.get(M[, ""]) == ""` (or `is None`), `not os.environ.get(M)`."""
    if condition.type == "parenthesized_expression" and condition.named_children:
        return asks_unset(condition.named_children[0], mask)
    if condition.type == "boolean_operator" and parsing.text(condition.child_by_field_name("operator")) == "or":
        return any(asks_unset(c, mask) for c in (condition.child_by_field_name("left"),
                                                    condition.child_by_field_name("right")) if c is not None)
    if condition.type == "not_operator":
        argument = condition.child_by_field_name("argument")
        return argument is not None and _reads(argument, mask)
    if condition.type == "comparison_operator" and condition.named_child_count == 2:
        operators = [parsing.text(o) for o in condition.children_by_field_name("operators")]
        left, right = condition.named_children
        if operators == ["not in"]:
            return left.type == "string" and content(left) == mask
        if operators in (["=="], ["is"]):
            return (_reads(left, mask) and parsing.text(right) in UNSET) or (_reads(right, mask) and parsing.text(left) in UNSET)
    return False


def _reads(node: Node, mask: str) -> bool:
    """`os.environ.get(M, ...)` / `os.getenv(M)`: a call whose first argument is the mask, which it only reads."""
    arguments = node.child_by_field_name("arguments") if node.type == "call" else None
    first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
    return first is not None and first.type == "string" and content(first) == mask \
        and mask_reads.access(first) == mask_reads.READ


def followed(findings: list[Finding], defaults: dict[str, list[int]], reads: dict[str, list[int]],
             factory: FindingFactory) -> list[Finding]:
    """`findings` with DEV201 at each default write rebuilt with DEFAULT and at each Python read with FOLLOWS, where
    the project has a default write and reads the mask elsewhere than at the guards of its writes."""
    writes = sorted((path, line) for path, lines in defaults.items() for line in lines)
    if not writes:
        return findings
    guards = {(path, line - 1) for path, line in writes}  # the `if` line a one-line-bodied guard tests on
    if not any((path, line) not in guards for path, lines in reads.items() for line in lines):
        return findings
    site = f"{writes[0][0]}:{writes[0][1]}"
    read_at = {(path, line) for path, lines in reads.items() for line in lines}
    result = []
    for finding in findings:
        facet = None
        if finding.rule == RULE and (finding.path, finding.line) in set(writes):
            facet = DEFAULT
        elif finding.rule == RULE and (finding.path, finding.line) in read_at:
            facet = FOLLOWS
        if facet is not None:
            located = Located(finding.rule, finding.symbol, finding.path, finding.line, finding.column,
                              finding.end_column, finding.snippet, finding.cell, npu=site, end_line=finding.end_line,
                              facets=(facet,), role=finding.role, reach=finding.reach, reach_reason=finding.reach_reason)
            finding = factory.build_located(located, 0).model_copy(
                update={"suppressed": finding.suppressed, "fingerprint": finding.fingerprint})
        result.append(finding)
    return result
