"""Remote model code that is the project's own (DEP040): a project that registers its model classes with the Auto
factories (`AutoConfig.register("multi_modality", MultiModalityConfig)`, `AutoModelForCausalLM.register(
MultiModalityConfig, MultiModalityCausalLM)`) and loads with `from_pretrained(..., trust_remote_code=True)` from a
module that runs the registration (its own file, or a project module it imports: Janus's `from janus.models import
...`) gets its own classes, which this analysis read: transformers takes a registered model type before a checkpoint's
auto_map, and openvla's Hub checkpoints carry copies of the same in-tree files. The finding stays, at info, naming
where the project registers them (round 19 A1 25, B2 19 and 31, verdicts V5)."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.cudnn_ops import import_edges, reached
from ascend_feasibility.analyzer.context.project_scope import parse_site
from ascend_feasibility.analyzer.core.findings import FindingFactory
from ascend_feasibility.analyzer.core.models import Finding
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains.base import ModuleFacts, Unit
from ascend_feasibility.domains.dependencies.carried import named_sites, refaceted
from ascend_feasibility.domains.dependencies.remote_code import KEYWORD, enclosing_call, loads_a_model

DETECTOR = "remote-model-code"
REGISTERED = "registered-in-tree"
FACTORY_PREFIX = "Auto"  # AutoConfig, AutoModel, AutoModelForCausalLM, AutoModelForVision2Seq
MAX_NODES = 500_000


def registrations(unit: Unit, relative: str) -> list[str]:
    """`path:line:Name,Name` of each `Auto*.register(...)` call with two arguments (a model type or config, and the
    class), with the names its arguments pass (the project's config and model classes)."""
    text = unit.source.text
    if ".register(" not in text or FACTORY_PREFIX not in text:
        return []
    found = []
    for node in parsing.walk(unit.tree(), limit=MAX_NODES):
        if node.type != "call":
            continue
        function, arguments = node.child_by_field_name("function"), node.child_by_field_name("arguments")
        if function is None or function.type != "attribute" or arguments is None:
            continue
        owner, attribute = function.child_by_field_name("object"), function.child_by_field_name("attribute")
        if attribute is None or owner is None or parsing.text(attribute) != "register":
            continue
        if parsing.text(owner).rsplit(".", 1)[-1].startswith(FACTORY_PREFIX) and len(arguments.named_children) >= 2:
            names = sorted({parsing.text(a).rsplit(".", 1)[-1] for a in arguments.named_children
                            if a.type in {"identifier", "attribute"}})
            found.append(f"{relative}:{node.start_point.row + 1}:{','.join(names)}")
    return found


def remote_loads(unit: Unit) -> list[str]:
    """`line:Name,Name` of each model load with trust_remote_code=True (the keyword's line, where DEP040 stands), with
    the capitalised names of the innermost block holding it: the classes that load there are named there (Janus's
    `vl_gpt: MultiModalityCausalLM = AutoModelForCausalLM.from_pretrained(...)`, openvla's register calls beside the
    load); a branch that loads another checkpoint (LLaVA's builder loading a plain MPT model) names none of them."""
    if KEYWORD not in unit.source.text:
        return []
    found = []
    for node in parsing.walk(unit.tree(), limit=MAX_NODES):
        if node.type != "keyword_argument" or parsing.text(node.child_by_field_name("name")) != KEYWORD:
            continue
        value, call = node.child_by_field_name("value"), enclosing_call(node.child_by_field_name("name"))
        if value is None or value.type != "true" or call is None \
                or not loads_a_model(call.child_by_field_name("function")):
            continue
        block = call.parent
        while block is not None and block.type not in {"block", "module"}:
            block = block.parent
        names = sorted({parsing.text(n) for n in parsing.walk(block, limit=MAX_NODES)
                        if n.type == "identifier" and parsing.text(n)[:1].isupper()})
        found.append(f"{node.start_point.row + 1}:{','.join(names)}")
    return found


def fold_registered(findings: list[Finding], registered: list[str], loads: dict[str, list[str]],
                    modules: list[ModuleFacts], factory: FindingFactory) -> list[Finding]:
    """DEP040 at info where every loading site runs a registration of the project's own classes (its file, or a
    project module its imports reach) and names a class registered there in the block that loads; unchanged where
    one site does not. `registered`: registrations(); `loads`: path → remote_loads() of that file."""
    code = next((r.code for r in factory.kb.rules.values() if r.match.detector == DETECTOR), None)
    if not registered or not any(f.rule == code for f in findings):
        return findings
    by_path: dict[str, list[tuple[str, set[str]]]] = {}
    for entry in registered:
        path, line, names = entry.rsplit(":", 2)
        by_path.setdefault(path, []).append((f"{path}:{line}", set(names.split(",")) - {""}))
    edges = import_edges(modules)
    result = []
    for finding in findings:
        if finding.rule == code:
            where = _registering(finding, by_path, loads, edges)
            if where:
                finding = _registered(finding, where, factory)
        result.append(finding)
    return result


def _registering(finding: Finding, registered: dict[str, list[tuple[str, set[str]]]], loads: dict[str, list[str]],
                 edges: dict[str, set[str]]) -> list[str]:
    """`path:line` of the registrations the finding's sites run and name; [] where one site runs or names none."""
    sites = [(finding.path, finding.line)]
    for site in finding.sites or []:
        parsed = parse_site(site)
        if parsed is None:
            return []  # "... N more": sites not listed
        sites.append(parsed[:2])
    found: set[str] = set()
    for path, line in dict.fromkeys(sites):
        named = next((set(entry.split(":", 1)[1].split(",")) for entry in loads.get(path, [])
                      if entry.split(":", 1)[0] == str(line)), set())
        hits = [where for p in reached({path}, edges) for where, names in registered.get(p, []) if names & named]
        if not hits:
            return []
        found |= set(hits)
    return sorted(found)


def _registered(finding: Finding, where: list[str], factory: FindingFactory) -> Finding:
    return refaceted(finding, named_sites(where), REGISTERED, factory)
