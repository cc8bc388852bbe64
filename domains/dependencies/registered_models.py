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

DETECTOR = "remote-model-code"
REGISTERED = "registered-in-tree"
FACTORY_PREFIX = "Auto"  # AutoConfig, AutoModel, AutoModelForCausalLM, AutoModelForVision2Seq
MAX_NODES = 500_000


def registrations(unit: Unit) -> list[int]:
    """The lines of `Auto*.register(...)` calls with two arguments (a model type or config, and the class)."""
    text = unit.source.text
    if ".register(" not in text or FACTORY_PREFIX not in text:
        return []
    lines = []
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
            lines.append(node.start_point.row + 1)
    return lines


def fold_registered(findings: list[Finding], registered: dict[str, list[int]], modules: list[ModuleFacts],
                    factory: FindingFactory) -> list[Finding]:
    """DEP040 at info where every loading site runs a registration of the project's own (its file, or a project
    module its imports reach); unchanged where one site does not."""
    code = next((r.code for r in factory.kb.rules.values() if r.match.detector == DETECTOR), None)
    loads = [f for f in findings if f.rule == code]
    if not registered or not loads:
        return findings
    edges = import_edges(modules)
    result = []
    for finding in findings:
        if finding.rule == code:
            where = _registering(finding, registered, edges)
            if where:
                finding = _registered(finding, where, factory)
        result.append(finding)
    return result


def _registering(finding: Finding, registered: dict[str, list[int]], edges: dict[str, set[str]]) -> list[str]:
    """`path:line` of the registrations every site of the finding runs; [] where one site runs none."""
    paths = [finding.path]
    for site in finding.sites or []:
        parsed = parse_site(site)
        if parsed is None:
            return []  # "... N more": sites not listed
        paths.append(parsed[0])
    found: set[str] = set()
    for path in dict.fromkeys(paths):
        reaching = [p for p in reached({path}, edges) if p in registered]
        if not reaching:
            return []
        found |= {f"{p}:{line}" for p in reaching for line in registered[p]}
    return sorted(found)


def _registered(finding: Finding, where: list[str], factory: FindingFactory) -> Finding:
    return refaceted(finding, named_sites(where), REGISTERED, factory)
