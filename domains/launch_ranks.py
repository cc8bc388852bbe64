"""`python -m torch.distributed.launch` at a torch 2 target, launching a script that parses only `--local_rank`.

From torch 2.0 the launcher passes the local rank to the script as `--local-rank=N` (torch/distributed/run.py
`config_from_args`: `cmd_args.append(f"--local-rank={macros.local_rank}")` unless use_env; torch/distributed/launch.py
documents it: "From PyTorch 2.0.0 onwards, the dashed --local-rank is preferred ... If only --local_rank is provided,
the launcher will trigger an error: 'error: unrecognized arguments: --local-rank=<rank>'"). torch.distributed.launch
sets use_env only with `--use-env`/`--use_env`; torchrun and `-m torch.distributed.run` always do, and pass no
argument. InternImage's mm-style dist_train.sh/dist_test.sh launch detection/train.py, segmentation/test.py and
occupancy tools/test.py, which declare `parser.add_argument('--local_rank', type=int, default=0)` alone: at the target
torch 2.12 every worker exits at argument parsing, so "keep the launcher" (DST040's text) is wrong there.

Read per file: a shell launch of torch.distributed.launch without use-env (its line and first `.py` word), and a
Python file's `add_argument` declaring `--local_rank` without `--local-rank` (only files that spell `--local_rank`).
At a target torch of 2.0 or later, the launch whose script (beside the shell script for `$(dirname "$0")/x.py`, else
from the script's folder or the root) declares only `--local_rank` is rebuilt with the facet `local-rank-only`, whose
variant says what fails and names the declaration. A script found nowhere, or one declaring the alias, keeps the text.
A launch an install document runs (dino's README: `python -m torch.distributed.launch --nproc_per_node=8
main_dino.py`, main_dino.py declaring only `--local_rank`) has no DST040 of its own (no scanner reads a document's
lines; analyzer/reading/install_docs.py keeps them for this pass): where its script declares only `--local_rank`, the
finding is emitted on the document's line with the facet, and nothing where the script declares the alias.
"""

from __future__ import annotations

import posixpath
import re
from dataclasses import dataclass, field

from ascend_feasibility.analyzer.core.findings import FindingFactory, Located
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import FileView

LAUNCH_MODULE = "torch.distributed.launch"
USE_ENV = frozenset({"--use-env", "--use_env"})
UNDERSCORED, DASHED = "--local_rank", "--local-rank"
RULE = "DST040"
FACET = "local-rank-only"
FIRST_DASHED_RELEASE = 2  # the torch major release whose launcher passes --local-rank
COMMAND_QUERY = "(command name: (command_name) @name)"
DECLARATION_QUERY = """(call function: (attribute attribute: (identifier) @method (#eq? @method "add_argument"))
  arguments: (argument_list) @arguments)"""
# `$(dirname "$0")/train.py`, `` `dirname $0`/train.py ``, `${0%/*}/train.py`: a path beside the shell script
BESIDE_SCRIPT = re.compile(r"""^(?:\$\(\s*dirname\s+["']?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?["']?\s*\)|`\s*dirname\s+["']?\$\{?(?:0|BASH_SOURCE(?:\[0\])?)\}?["']?\s*`|\$\{0%/\*\})/""")


@dataclass
class LaunchFacts:
    path: str = ""
    # shell: each `python -m torch.distributed.launch` without use-env: (1-based line of `python`, its first .py word)
    rank_launches: list[tuple[int, str]] = field(default_factory=list)
    # Python: the first line of an add_argument declaring --local_rank without --local-rank (0: none)
    underscored_rank: int = 0
    # an install document: each such launch (1-based line, its first .py word, the command's first line)
    doc_launches: list[tuple[int, str, str]] = field(default_factory=list)

    def empty(self) -> bool:
        return not (self.rank_launches or self.underscored_rank or self.doc_launches)


def collect(file: FileView) -> LaunchFacts | None:
    facts = LaunchFacts(path=file.path)
    for unit in file.units:
        if not unit.parsed and unit.kind != "install-doc":  # a document's tree no scanner made: parsed below if it launches
            continue
        if unit.kind == "shell" and unit.cell is None and LAUNCH_MODULE in unit.source.text:
            facts.rank_launches += [(line, script) for line, script, _ in _rank_launches(unit.tree())]
        elif unit.kind == "install-doc" and LAUNCH_MODULE in unit.source.text:
            facts.doc_launches += _rank_launches(unit.tree())
        elif unit.kind == "python" and unit.cell is None and UNDERSCORED in unit.source.text and not facts.underscored_rank:
            facts.underscored_rank = _underscored_rank(unit.tree())
    return None if facts.empty() else facts


def _rank_launches(root) -> list[tuple[int, str, str]]:
    found = []
    for name in parsing.captures(parsing.query("bash", COMMAND_QUERY), root).get("name", []):
        if not parsing.text(name).rsplit("/", 1)[-1].startswith("python"):
            continue
        words = [parsing.text(w) for w in name.parent.children_by_field_name("argument")]
        plain = [w.strip("'\"") for w in words]
        if "-m" not in plain or plain.index("-m") + 1 >= len(plain) or plain[plain.index("-m") + 1] != LAUNCH_MODULE:
            continue
        if USE_ENV & {w.split("=", 1)[0] for w in plain}:
            continue  # the rank goes to LOCAL_RANK only
        script = next((w for w in plain if w.endswith(".py")), None)
        if script is not None:
            found.append((name.start_point.row + 1, script, parsing.text(name.parent).split("\n", 1)[0].rstrip(" \\")))
    return found


def _underscored_rank(root) -> int:
    """The first line declaring --local_rank, unless some add_argument of the file declares --local-rank: the two
    spellings may sit in one call (`add_argument("--local-rank", "--local_rank")`) or in two calls with the same
    dest (PixArt-alpha train_controlnet.py:145-146), and either way `--local-rank=N` parses."""
    first = 0
    for arguments in parsing.captures(parsing.query("python", DECLARATION_QUERY), root).get("arguments", []):
        flags = {parsing.text(a).strip("'\"") for a in arguments.named_children if a.type == "string"}
        if DASHED in flags:
            return 0
        if UNDERSCORED in flags and not first:
            first = arguments.start_point.row + 1
    return first


def doc_launch_findings(facts: list[LaunchFacts], torch: str, factory: FindingFactory, context) -> list[Finding]:
    """DST040 with the facet on each install document's launch whose script declares only --local_rank: one finding
    per document and script, at its first launch, with every launch line of that script as a site (Swin's
    get_started.md launches main.py on 17 lines: one fix in main.py mends them all)."""
    if _major(torch) < FIRST_DASHED_RELEASE:
        return []
    declared = {f.path: f.underscored_rank for f in facts if f.underscored_rank}
    found = []
    for fact in facts:
        lines_by_target: dict[str, list[tuple[int, str]]] = {}
        for line, script, command in fact.doc_launches:
            target = _resolve(fact.path, script, declared)
            if target is not None:
                lines_by_target.setdefault(target, []).append((line, command))
        for target, launches in lines_by_target.items():
            line, command = launches[0]
            place = context.of(fact.path)
            located = Located(RULE, "python -m " + LAUNCH_MODULE, fact.path, line, 1, 1 + len(command), command,
                              npu=f"{target}:{declared[target]}", auto_when=(), facets=(FACET,), role=place.role,
                              reach=place.reach, reach_reason=place.reason)
            finding = factory.build_located(located, 0)
            if len(launches) > 1:
                finding = finding.model_copy(update={"sites": [f"{fact.path}:{n}" for n, _ in launches]})
            found.append(finding)
    return found


def rank_launch_findings(findings: list[Finding], facts: list[LaunchFacts], torch: str,
                         factory: FindingFactory) -> list[Finding]:
    """`findings` with each DST040 on a launch whose script declares only --local_rank rebuilt with the facet, and
    those launching one entry point folded into one finding at the first, every launch line a site: the fix is one
    line in the entry's argparse (VideoMAE's twenty pretrain.sh/finetune.sh launch run_mae_pretraining.py and
    run_class_finetuning.py; an install document's launches of the same entry fold in too)."""
    if _major(torch) < FIRST_DASHED_RELEASE:
        return findings
    launches = {(f.path, line): script for f in facts for line, script in f.rank_launches}
    documented = {(f.path, line): script for f in facts for line, script, _ in f.doc_launches}
    if not launches and not documented:
        return findings
    declared = {f.path: f.underscored_rank for f in facts if f.underscored_rank}
    rebuilt: list[tuple[Finding, str | None]] = []
    by_target: dict[str, list[Finding]] = {}
    for finding in findings:
        if finding.rule != RULE:
            rebuilt.append((finding, None))
            continue
        script = launches.get((finding.path, finding.line))
        target = _resolve(finding.path, script, declared) if script is not None else None
        if target is not None:
            located = Located(finding.rule, finding.symbol, finding.path, finding.line, finding.column,
                              finding.end_column, finding.snippet, finding.cell, npu=f"{target}:{declared[target]}",
                              end_line=finding.end_line, auto_when=(), facets=(FACET,), role=finding.role,
                              reach=finding.reach, reach_reason=finding.reach_reason)
            finding = factory.build_located(located, 0).model_copy(
                update={"suppressed": finding.suppressed, "fingerprint": finding.fingerprint})
        elif (finding.path, finding.line) in documented:  # doc_launch_findings' own, with the facet already
            target = _resolve(finding.path, documented[(finding.path, finding.line)], declared)
        rebuilt.append((finding, target))
        if target is not None:
            by_target.setdefault(target, []).append(finding)
    result, placed = [], set()
    for finding, target in rebuilt:  # the folded finding where the group's first stood, in the findings' order
        if target is None:
            result.append(finding)
        elif target not in placed:
            placed.add(target)
            result.append(_folded(by_target[target], documented))
    return result


def _folded(group: list[Finding], documented: dict[tuple[str, int], str]) -> Finding:
    """One finding for the launches of one entry point: the first launch script's (else the first document's), with
    every launch line of the group as a site."""
    group = sorted(group, key=lambda f: ((f.path, f.line) in documented, f.path, f.line))
    if len(group) == 1:
        return group[0]
    sites = list(dict.fromkeys(site for f in group for site in (f.sites or [f"{f.path}:{f.line}"])))
    return group[0].model_copy(update={"sites": sites})


def _resolve(launcher: str, script: str, declared: dict[str, int]) -> str | None:
    """The project file a launch's script word names, when it declares only --local_rank."""
    folder = posixpath.dirname(launcher)
    beside = BESIDE_SCRIPT.match(script)
    if beside is not None:
        candidates = [posixpath.join(folder, script[beside.end():])]
    elif "$" in script or "`" in script or script.startswith(("/", "~")):
        return None  # only the shell knows
    else:
        candidates = [posixpath.join(folder, script), script]
    for candidate in candidates:
        path = posixpath.normpath(candidate)
        if path in declared:
            return path
    return None


def _major(version: str) -> int:
    head = version.split(".", 1)[0]
    return int(head) if head.isdigit() else 0
