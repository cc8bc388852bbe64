"""Programs that count the visible devices, and the launcher pins (DEV703) that matter because of them.

DEV703 says a `CUDA_VISIBLE_DEVICES=0` pin changes nothing on Ascend (torch_npu reads ASCEND_RT_VISIBLE_DEVICES only)
unless the program counts the visible devices. That exception is resolved here: the Python entry a launcher runs,
and the project modules it imports (transitively), are read for a count: `torch.cuda.device_count()` (not as
`rank % device_count()`, which picks the same device either way), `nn.DataParallel` (over every visible device by
default), `device_map="auto"`. ChatGLM-6B's ptuning/train.sh runs
main.py, which imports a copy of HF's Trainer that wraps the model in DataParallel when it sees more than one device:
on a multi-NPU host the pin to one device is lost and DataParallel spans every NPU. Such a pin is rebuilt with the
facet `counts-devices`, whose variant says ASCEND_RT_VISIBLE_DEVICES is required and names the counting site.

The DataParallel such a pin reaches is built only when one process sees more than one device (`if self.args.n_gpu > 1:
model = nn.DataParallel(model)`, the HF Trainer's): with the pin carried over to ASCEND_RT_VISIBLE_DEVICES it never
runs, so its DST010 (DataParallel is unsupported on NPU) is the pin's work, not a rebuild: optional, with the pin named.
A DataParallel built whatever the count, or that no pinning launcher reaches, keeps its finding.

Only files that spell one of the GATE words pay for the read; the walk stays inside the project."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.propagation import modules_by_name
from ascend_feasibility.analyzer.core.findings import FindingFactory, Located, Place
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.python_refs import unit_references

GATE = ("device_count", "DataParallel", "device_map")
COUNTERS = {
    "torch.cuda.device_count": "torch.cuda.device_count()",
    "torch.nn.DataParallel": "nn.DataParallel",
    "torch.nn.parallel.DataParallel": "nn.DataParallel",
    "torch.nn.parallel.data_parallel.DataParallel": "nn.DataParallel",
}
PIN_RULE = "DEV703"
MOVED_PIN_RULE = "DEV201"  # its one-job pin of other cards (low) is medium again where the program spreads over them
DATA_PARALLEL_RULE = "DST010"
SEVERAL = " when more than one device is visible"  # the suffix of a DataParallel built only then
COUNT_WORDS = ("gpu", "device", "npu", "count")  # a compared name that counts devices: n_gpu, num_gpus, device_count()
COUNTS = "counts-devices"
MAX_SITES = 3
KEYWORDS = "(keyword_argument) @keyword"  # each read whole: `device_map="auto"` is one
DEVICE_MAP = frozenset({b"device_map"})
MAX_MODULES = 500  # the walk over the import graph from one entry


def counting_sites(unit) -> list[tuple[int, str]]:
    """(line, what) of the unit's device counts, the first few."""
    if not any(word in unit.source.text for word in GATE):
        return []
    sites = [(r.node.start_point[0] + 1, COUNTERS[r.name] + (SEVERAL if _built_for_several(r) else ""))
             for r in unit_references(unit) if r.name in COUNTERS and r.call is not None and not _picks_by_rank(r.call)]
    for node in _outer_keywords(unit.tree()) if "device_map" in unit.source.text else ():
        if len(sites) >= MAX_SITES:
            break
        name, value = node.child_by_field_name("name"), node.child_by_field_name("value")
        if (name is not None and value is not None and parsing.text(name) == "device_map"
                and value.type == "string" and parsing.text(value).strip("'\"") == "auto"):
            sites.append((node.start_point[0] + 1, 'device_map="auto"'))
    return sorted(sites)[:MAX_SITES]


def _outer_keywords(root) -> list:
    """The keyword arguments spelling `device_map` that no other keyword argument holds, the last first: the ones a
    walk of the tree that reads each keyword whole meets, in its order. The cursor visits only the nodes around the
    word's occurrences, not the whole tree."""
    found = parsing.captures_around(parsing.query("python", KEYWORDS), root, DEVICE_MAP).get("keyword", [])
    return [node for node in reversed(found) if not _inside_keyword(node)]


def _inside_keyword(node) -> bool:
    parent = node.parent
    while parent is not None:
        if parent.type == "keyword_argument":
            return True
        parent = parent.parent
    return False


def _picks_by_rank(call) -> bool:
    """`local_rank % torch.cuda.device_count()`: the device a rank takes, the same devices with the pin or without."""
    parent = call.parent if call is not None else None
    while parent is not None and parent.type == "parenthesized_expression":
        parent = parent.parent
    return (parent is not None and parent.type == "binary_operator"
            and parsing.text(parent.child_by_field_name("operator")) == "%")


def _built_for_several(reference) -> bool:
    """A DataParallel call inside the body of an `if` that asks for more than one device (`n_gpu > 1`,
    `torch.cuda.device_count() >= 2`), in the same function."""
    if COUNTERS[reference.name] != "nn.DataParallel":
        return False
    node = reference.call
    while node.parent is not None and node.type not in {"function_definition", "class_definition"}:
        parent = node.parent
        if parent.type == "if_statement" and node != parent.child_by_field_name("condition"):
            condition = parent.child_by_field_name("condition")
            if condition is not None and node.start_byte >= condition.end_byte and _asks_several(condition):
                return True
        node = parent
    return False


def _asks_several(condition) -> bool:
    """`count > 1` or `count >= 2` among the condition's terms, the count named for devices."""
    stack = [condition]
    while stack:
        node = stack.pop()
        if node.type == "comparison_operator" and node.named_child_count == 2:
            left, right = node.named_children
            operator = parsing.text(node)[left.end_byte - node.start_byte:right.start_byte - node.start_byte].strip()
            if ((operator, parsing.text(right)) in {(">", "1"), (">=", "2")}
                    and any(word in parsing.text(left).lower() for word in COUNT_WORDS)):
                return True
        elif node.type in {"boolean_operator", "parenthesized_expression"}:
            stack.extend(node.named_children)
    return False


def counted_pins(findings: list[Finding], counts: dict[str, list], modules: list, factory: FindingFactory) -> list[Finding]:
    """`findings` with each DEV703 pin whose launched program counts devices rebuilt with the facet COUNTS."""
    if not counts or not any(f.rule in (PIN_RULE, MOVED_PIN_RULE) for f in findings):
        return findings
    by_path = {m.path: m for m in modules}
    by_module = modules_by_name(modules)
    result, found, spread_found = [], {}, {}
    # a pin of other cards matters where the program spreads over the visible devices (DataParallel, device_map="auto"),
    # not where it only reads their number (Latte utils.py: `num_gpus = torch.cuda.device_count()` for a port number)
    spread = {path: [s for s in sites if not s[1].startswith(COUNTERS["torch.cuda.device_count"])]
              for path, sites in counts.items()}
    several: dict[tuple[str, int], str] = {}  # a DataParallel built only for several devices → a pin that reaches it
    for finding in findings:
        if finding.rule == MOVED_PIN_RULE and finding.severity == "low" and finding.path in by_path \
                and by_path[finding.path].launched_scripts + by_path[finding.path].launches:
            # a one-job pin of other cards (DEV201 low) whose program counts the devices: the count grows on Ascend
            if finding.path not in spread_found:
                spread_found[finding.path] = _count_reached(by_path[finding.path], by_path, by_module, spread)
            if spread_found[finding.path] is not None:
                located = Located(finding.rule, finding.symbol, finding.path, finding.line, finding.column,
                                  finding.end_column, finding.snippet, finding.cell, end_line=finding.end_line,
                                  role=finding.role, reach=finding.reach, reach_reason=finding.reach_reason)
                finding = factory.build_located(located, 0).model_copy(
                    update={"suppressed": finding.suppressed, "fingerprint": finding.fingerprint})
        elif finding.rule == PIN_RULE and finding.path in by_path:
            if finding.path not in found:
                found[finding.path] = _count_reached(by_path[finding.path], by_path, by_module, counts)
            reached = found[finding.path]
            site = None if reached is None else f"{reached[0].removesuffix(SEVERAL)} at {reached[1]}:{reached[2]}"
            if reached is not None and reached[0].endswith(SEVERAL):
                several.setdefault((reached[1], reached[2]), f"{finding.path}:{finding.line}")
            if site is not None:
                located = Located(finding.rule, finding.symbol, finding.path, finding.line, finding.column,
                                  finding.end_column, finding.snippet, finding.cell, npu=site,
                                  end_line=finding.end_line, facets=(COUNTS,), role=finding.role, reach=finding.reach,
                                  reach_reason=finding.reach_reason)
                finding = factory.build_located(located, 0).model_copy(
                    update={"suppressed": finding.suppressed, "fingerprint": finding.fingerprint})
        result.append(finding)
    return [_pinned_data_parallel(f, several[(f.path, f.line)], factory)
            if f.rule == DATA_PARALLEL_RULE and f.reach == "runs" and (f.path, f.line) in several else f for f in result]


def _pinned_data_parallel(finding: Finding, pin: str, factory: FindingFactory) -> Finding:
    reason = (f"built only when one process sees more than one device; the launcher pins one ({pin}, DEV703), so "
              "with that pin carried over to ASCEND_RT_VISIBLE_DEVICES it never runs")
    return factory.relocate(finding, Place(finding.role, "optional", reason))


def _count_reached(launcher, by_path: dict, by_module: dict[str, str], counts: dict[str, list]
                   ) -> tuple[str, str, int] | None:
    """(what, path, line) of the first device count the launcher's Python entries reach through project imports."""
    folder = PurePosixPath(launcher.path).parent
    queue = []
    for script in launcher.launched_scripts:
        for candidate in (str(PurePosixPath(folder, script)), script.lstrip("./")):
            if candidate in by_path:
                queue.append(candidate)
                break
    queue += [by_module[module] for module, _ in launcher.launches if module and module in by_module]
    seen: set[str] = set()
    while queue and len(seen) < MAX_MODULES:
        path = queue.pop(0)
        if path in seen:
            continue
        seen.add(path)
        if counts.get(path):
            line, what = counts[path][0]
            return what, path, line
        module = by_path.get(path)
        importer = PurePosixPath(path).parent
        for name in getattr(module, "imports", []) or []:
            # the entry's own folder is on sys.path when a script runs: `import trainer_seq2seq` beside main.py
            local = ".".join((*importer.parts, name)) if importer.parts else name
            target = by_module.get(name) or by_module.get(local)
            if target is not None and target not in seen:
                queue.append(target)
    return None
