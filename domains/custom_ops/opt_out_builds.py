"""A CUDA build in an arm the project's own flag leaves out (metaseq's setup.py builds amp_C, fused_layer_norm_cuda,
fused_dense_cuda and fused_adam_cuda under `if "--no_apex" not in sys.argv:`). The arm stays counted where no README
or launcher passes the flag (argv_opt_outs.py: a plain install takes it), but the port is the flag, not an NPU build:
the build finding names it. Where nothing loads the extension on the default path, leaving it out costs nothing: the
finding is low, "leave it out of the build"; otherwise it names the loads to guard first. Nothing loads it where the
project falls back when it is missing (propagation.extension_fallback), or where every import of it is caught or has
an import finding that is not `runs` and no other Python file of reach `runs` names it (a load by computed name)."""

from __future__ import annotations

from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.context.propagation import extension_fallback, import_index
from ascend_feasibility.analyzer.context.written_names import writes_word
from ascend_feasibility.analyzer.core.models import Finding, ReplacementText
from ascend_feasibility.domains.custom_ops.binding_reach import PYTHON_SUFFIXES, loads_extension

if TYPE_CHECKING:
    from ascend_feasibility.domains.base import ProjectRun
    from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ExtensionRecord

BUILD_RULES = frozenset({"OPS020", "OPS062"})  # a CUDAExtension(...) call; a CUDA build branch
IMPORT_RULE = "OPS013"  # an import of an extension the project builds


def name_opt_out_flags(findings: list[Finding], facts: CustomOpFacts, run: ProjectRun) -> list[Finding]:
    arms = {m.path: m.argv_opt_out_arms for m in run.modules if m.argv_opt_out_arms}
    if not arms:
        return findings
    extension_at = {(e.path, e.line): e for e in facts.extensions}
    running_imports = {(f.path, f.line) for f in findings if f.rule == IMPORT_RULE and f.reach == "runs"}
    index = import_index(run.modules)
    result = []
    for finding in findings:
        arm = next(((flag, line) for first, last, flag, line in arms.get(finding.path, ())
                    if first <= finding.line <= last), None) if finding.rule in BUILD_RULES else None
        if arm is not None and not finding.suppressed:
            extension = extension_at.get((finding.path, finding.line))
            finding = _named(finding, *arm, extension, _live_loads(extension, facts, running_imports, run, index)
                             if extension is not None else None)
        result.append(finding)
    return result


def _live_loads(extension: ExtensionRecord, facts: CustomOpFacts, running_imports: set[tuple[str, int]],
                run: ProjectRun, index) -> tuple[list[str], str]:
    """The places loading the extension on the default path, and why there are none."""
    last = extension.name.rsplit(".", 1)[-1]
    fallback = extension_fallback({extension.name, last}, run.modules, run.context, run.guarded, index)
    if fallback is not None:
        return [], fallback
    sites = [s for s in facts.imports if loads_extension(extension, s.module)]
    live = {f"{s.path}:{s.line}" for s in sites if not s.caught and (s.path, s.line) in running_imports}
    imported = {s.path for s in sites}
    named = {m.path for m in run.modules if m.path.endswith(PYTHON_SUFFIXES) and m.path not in imported
             and m.path != extension.path and writes_word(m.words, last)}
    live |= {path for path in named if run.context.of(path).reach == "runs"}
    if live:
        return sorted(live), ""
    return [], "no import of it runs on the default path" if sites or named else "no Python file of the project names it"


def _named(finding: Finding, flag: str, line: int, extension: ExtensionRecord | None,
           loads: tuple[list[str], str] | None) -> Finding:
    """The advice is the arm's (one text for every build in it, so the estimate keeps them one item); what loads this
    extension goes into the message."""
    en = (f"The project's own install leaves this build out with `{flag}` (sys.argv test at line {line}): install with "
          "it; leave out each extension nothing loads on the default path (no NPU build is needed), and guard the "
          "loads that run with a PyTorch fallback first.")
    zh = (f"项目自己的安装可用 `{flag}` 跳过这段构建（第 {line} 行的 sys.argv 判断）：安装时加上它；默认路径不加载的扩展直接"
          "去掉（无需 NPU 构建），会执行的加载先加上 PyTorch 回退。")
    update: dict = {"replacement": _prefixed(finding, en, zh)}
    if extension is not None and loads is not None:
        live, why = loads
        if live:
            more_en = (f" {extension.name} is loaded by code that may run on the default path ({', '.join(live[:3])}): "
                       "guard that load first, or check that it stays off.")
            more_zh = f"{extension.name} 由默认路径上可能执行的代码加载（{'、'.join(live[:3])}）：先为其加上回退，或确认它不会开启。"
        else:
            more_en = f" Nothing loads {extension.name} on the default path ({why}): leave it out of the build."
            more_zh = f"默认路径不加载 {extension.name}（{why}）：构建时去掉即可。"
            update["severity"] = "low"
        update["message"] = finding.message.model_copy(update={"en": finding.message.en + more_en,
                                                               "zh": finding.message.zh + more_zh})
    return finding.model_copy(update=update)


def _prefixed(finding: Finding, en: str, zh: str) -> ReplacementText:
    old = finding.replacement
    return ReplacementText(en=f"{en} {old.en}", zh=f"{zh}{old.zh}", code=old.code)
