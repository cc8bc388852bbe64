"""Generations of one model kept side by side: price the one a user ports, list the others apart.

RWKV-LM holds RWKV-v1, RWKV-v2-RNN, RWKV-v3, RWKV-v4, RWKV-v4neo, RWKV-v5, RWKV-v7 and RWKV-v8 in one folder, each a
full copy with its own train.py, model.py and CUDA kernels; summed, its estimate counted every generation's kernels
(77-190 person-days where a port of the README's RWKV-7 is 15-35). A user ports one generation. The evidence asked
of a family, so that an API's v1/ and v2/ or configs/v2 never form one:
- sibling folders (one parent) whose names are one prefix with a letter in it, a version token v<digits>, and any
  suffix (RWKV-v4 and RWKV-v4neo; never a bare v1/ v2/);
- each with an entry point of its own (a script: a __main__ block or module-level code, not a package __init__) and
  a model or training code of its own (a torch.nn.Module, an autograd Function, a training loop): a generation of a
  model, not a folder of configs or data;
- each sharing at least MIN_SHARED file names with the other members (model.py, train.py, wkv7_op.cpp): copies of
  one code base, not unrelated folders that happen to be numbered;
- none imported from outside itself (an app serving api_v1 and api_v2 together runs both);
- two members or more.
The generation priced is the one the root README names most as a path (`RWKV-v7/train_temp`, `tree/main/RWKV-v7`)
or a launcher outside the family runs a script of; where neither tells, the newest (highest version). The others'
findings that would count become optional, with the generation as the reason; the verdict names both."""

from __future__ import annotations

import re
from collections import defaultdict
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.project_scope import parse_site
from ascend_feasibility.analyzer.core.findings import FindingFactory, Place
from ascend_feasibility.analyzer.core.models import COUNTED_ROLES, Finding, Text
from ascend_feasibility.domains.phases.facts import PhaseFacts

# prefix (with a letter, ending in a separator), version token, suffix: RWKV-v4neo → ("RWKV-", 4, "neo"); a v and a
# digit inside a word are no version (wav2vec, deepseekv3)
VERSIONED = re.compile(r"(?P<prefix>.*[A-Za-z].*[-_.])[vV](?P<number>\d+)(?P<suffix>[-_.A-Za-z][-_.A-Za-z0-9]*)?")
MIN_SHARED = 2  # file names a member shares with the other members
MIN_MEMBERS = 2


@dataclass(frozen=True)
class Generations:
    priced: str  # the folder priced (a path from the root)
    why: str  # "readme", "launcher" or "newest"
    others: tuple[str, ...]  # the other members' folders, in version order

    def holds(self, path: str) -> str | None:
        """The other generation's folder a path lies in, or None."""
        return next((folder for folder in self.others if path.startswith(folder + "/")), None)


def find(facts: list[PhaseFacts], paths: tuple[str, ...], readme: str) -> Generations | None:
    """The project's family of generations, if it has one. `paths`: every file of the project (native sources and
    data files too: they show which folders are copies of one another)."""
    files_of: dict[str, list[str]] = defaultdict(list)  # a versioned folder → its files, below it
    versioned: dict[str, bool] = {}  # folder names repeat across paths: each is matched once
    for path in sorted(set(paths)):
        parts = PurePosixPath(path).parts
        for depth in range(len(parts) - 1):
            part = parts[depth]
            if part not in versioned:
                versioned[part] = VERSIONED.fullmatch(part) is not None
            if versioned[part]:
                files_of["/".join(parts[:depth + 1])].append("/".join(parts[depth + 1:]))
    if len(files_of) < MIN_MEMBERS:
        return None
    by_family: dict[tuple[str, str], list[str]] = defaultdict(list)  # (parent, prefix) → folders
    for folder in files_of:
        parent, _, name = folder.rpartition("/")
        by_family[(parent, VERSIONED.fullmatch(name).group("prefix"))].append(folder)
    scripts = {f.path for f in facts if (f.main_guard or f.top_level_code) and not f.path.endswith("__init__.py")}
    models = {f.path for f in facts if f.models or f.training_loop}
    for (_, _), folders in sorted(by_family.items()):
        members = _members(folders, files_of, scripts, models, facts)
        if len(members) >= MIN_MEMBERS:
            return _choose(members, facts, readme)
    return None


def _members(folders: list[str], files_of: dict[str, list[str]], scripts: set[str], models: set[str],
             facts: list[PhaseFacts]) -> list[str]:
    names = {folder: {PurePosixPath(p).name for p in files_of[folder]} - {"__init__.py"} for folder in folders}
    members = []
    for folder in folders:
        others = set().union(*(names[o] for o in folders if o != folder))
        if len(names[folder] & others) < MIN_SHARED:
            continue
        if not any(p.startswith(folder + "/") for p in scripts) or not any(p.startswith(folder + "/") for p in models):
            continue
        dotted = folder.replace("/", ".")
        if any(not f.path.startswith(folder + "/") and any(n == dotted or n.startswith(dotted + ".") for n in f.imports)
               for f in facts):
            continue  # code outside imports it: it runs beside the others
        members.append(folder)
    return sorted(members, key=_version)


def _version(folder: str) -> tuple[int, str]:
    match = VERSIONED.fullmatch(folder.rpartition("/")[2])
    return int(match.group("number")), match.group("suffix") or ""


def _choose(members: list[str], facts: list[PhaseFacts], readme: str) -> Generations:
    mentions = {m: _mentions(readme, m.rpartition("/")[2]) for m in members}
    why = "readme"
    if not any(mentions.values()):
        why = "launcher"
        names = {PurePosixPath(s).parts[0] for f in facts for s in f.launched_scripts if not any(
            f.path.startswith(m + "/") for m in members) and PurePosixPath(s).parts}
        mentions = {m: int(m.rpartition("/")[2] in names) for m in members}
    if not any(mentions.values()):
        why = "newest"
    priced = max(members, key=lambda m: (mentions[m], _version(m)))
    return Generations(priced, why, tuple(m for m in members if m != priced))


def _mentions(text: str, name: str) -> int:
    """How often the text names the folder as a path: the name not run on into a longer word or file name
    (RWKV-v7/train_temp and tree/main/RWKV-v7 count, RWKV-v7.png, RWKV-v7-loss.png and RWKV-v7a do not)."""
    return len(re.findall(rf"(?<![\w.-]){re.escape(name)}(?![\w-]|\.\w)", text))


def driver(found: Generations, findings: list[Finding] = ()) -> Text:
    """The verdict's line: which generation is priced, why, and how many others are set apart. Where counted findings
    lie in folders outside the family (LLaMA-Adapter prices gorilla, imagebind_LLM and alpaca_finetuning_v1 beside
    its multimodal7b generation), the line names them: the total is not the one generation's."""
    name = found.priced.rpartition("/")[2]
    count = len(found.others)
    others = ", ".join(o.rpartition("/")[2] for o in found.others)
    why = {"readme": ("the one the README points to", "README 所指向的版本"),
           "launcher": ("the one the project's launchers run", "项目启动脚本运行的版本"),
           "newest": ("the newest", "最新版本")}[found.why]
    parts = outside_folders(found, findings)
    more = len(parts) > MAX_FOLDERS_NAMED
    shown = ", ".join(parts[:MAX_FOLDERS_NAMED]) + (", …" if more else "")
    shown_zh = "、".join(parts[:MAX_FOLDERS_NAMED]) + ("等" if more else "")
    en_with = f" together with {len(parts)} other folder{'s' if len(parts) != 1 else ''} of the project ({shown})" if parts else ""
    zh_with = f"，以及项目中的其他 {len(parts)} 个目录（{shown_zh}）" if parts else ""
    generations = "generation" if count == 1 else "generations"
    verb = "is" if count == 1 else "are"
    return Text(en=f"priced for {name} ({why[0]}){en_with}; {count} other {generations} side by side ({others}) {verb} "
                   f"listed as optional, outside the total",
                zh=f"按 {name} 估算（{why[1]}）{zh_with}；并列的其他 {count} 个版本（{others}）列为可选项，不计入总量")


MAX_FOLDERS_NAMED = 4


def outside_folders(found: Generations, findings: list[Finding]) -> list[str]:
    """The top folders outside the family that hold counted findings, most findings first: priced beside the
    generation. A finding folded from copies counts where any of its copies lies; files at the root are the whole
    project's (its manifests), no folder of their own."""
    family = (found.priced, *found.others)
    counts: dict[str, int] = defaultdict(int)
    for finding in findings:
        if not finding.counted:
            continue
        paths = [finding.path, *(site[0] for site in map(parse_site, finding.sites) if site is not None)]
        if any(path.startswith(member + "/") for path in paths for member in family):
            continue
        top = PurePosixPath(finding.path).parts
        if len(top) > 1:
            counts[top[0]] += 1
    return sorted(counts, key=lambda folder: (-counts[folder], folder))


def reason(found: Generations) -> str:
    """Why a set-apart finding does not count; it names no one folder, so that the report's rows grouping the findings
    of several generations read right (the path says which)."""
    return (f"in another generation of the model than {found.priced.rpartition('/')[2]}, the one priced "
            f"({len(found.others)} others side by side): a user ports one generation")


def set_apart(findings: list[Finding], found: Generations, factory: FindingFactory,
              used_outside: Callable[[], set[str]]) -> list[Finding]:
    """The findings of the generations not priced, that would count, made optional with their generation as reason.
    Kept where the work is also the priced generation's: a finding folded from byte-identical copies
    (fold_identical_files: at the first path, the copies its sites) with a copy outside the generations set apart, and
    a package's one finding (DEP001 lightning, DEP013 torch: placed at the package's first import by path) where code
    outside them imports the package too (`used_outside`: the distributions it imports, asked for once)."""
    result = []
    outside: set[str] | None = None
    for finding in findings:
        folder = found.holds(finding.path) if finding.reach == "runs" and finding.role in COUNTED_ROLES else None
        if folder is not None and any((site := parse_site(s)) is not None and found.holds(site[0]) is None
                                      for s in finding.sites):
            folder = None
        if folder is not None and finding.domain == "dependencies":
            outside = used_outside() if outside is None else outside
            if finding.symbol in outside:
                folder = None
        if folder is not None:
            finding = factory.relocate(finding, Place(finding.role, "optional", reason(found)))
        result.append(finding)
    return result
