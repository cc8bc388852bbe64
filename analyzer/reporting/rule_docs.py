"""Rule documentation from the knowledge base: `explain CODE`, `rules`, and the generated docs/rules/ folder."""

from __future__ import annotations

import re
from pathlib import Path

from ascend_feasibility.analyzer.core.findings import CUDA_ALIAS, NATIVE, NATIVE_SINCE, native_at
from ascend_feasibility.analyzer.core.models import DOMAINS
from ascend_feasibility.analyzer.reporting.templating import markdown_environment, markdown_helpers
from ascend_feasibility.analyzer.reporting.ui_strings import LANGUAGES, ui_text
from ascend_feasibility.knowledge import KnowledgeBase, availability, load_knowledge
from ascend_feasibility.knowledge.models import Rule
from markupsafe import Markup
from packaging.version import Version

_PLACEHOLDER = re.compile(r"\{(symbol|npu)\}")
_FENCE_LANGUAGE = {"requirements": "text", "cmake": "cmake", "dockerfile": "dockerfile"}


def render_rule(rule: Rule, language: str = "en", kb: KnowledgeBase | None = None) -> str:
    """One rule as Markdown: what it detects, why it matters, the replacement, fix safety, examples, references."""
    kb = kb or load_knowledge()
    template = markdown_environment().get_template("rule.md.j2")
    return template.render(
        rule=_with_placeholders_shown(rule),
        detects=_detects(rule, language),
        automatic=_automatic(rule, language, kb),
        availability=_availability(rule, language, kb),
        fenced=_fenced,
        **markdown_helpers(language),
    )


def rules_by_domain(kb: KnowledgeBase | None = None) -> dict[str, list[Rule]]:
    kb = kb or load_knowledge()
    grouped = {domain: sorted(kb.rules_for(domain), key=lambda r: r.code) for domain in DOMAINS}
    return {domain: rules for domain, rules in grouped.items() if rules}


def expected_docs(kb: KnowledgeBase | None = None) -> dict[str, str]:
    """Relative path → content of every file under docs/rules/: English at the top, Chinese under zh/."""
    kb = kb or load_knowledge()
    grouped = rules_by_domain(kb)
    env = markdown_environment()
    files: dict[str, str] = {}
    for language in LANGUAGES:
        prefix = "" if language == "en" else f"{language}/"
        helpers = markdown_helpers(language)
        files[f"{prefix}README.md"] = env.get_template("rules_index.md.j2").render(
            by_domain=grouped, anchor=_anchor, first_sentence=_first_sentence, **helpers
        )
        for domain, rules in grouped.items():
            files[f"{prefix}{domain}.md"] = env.get_template("rules_domain.md.j2").render(
                domain=domain, rules=rules, render_rule=lambda rule: Markup(render_rule(rule, language, kb)), **helpers
            )
    return files


def write_docs(directory: Path, kb: KnowledgeBase | None = None) -> list[Path]:
    written = []
    for relative, content in expected_docs(kb).items():
        path = directory / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
        written.append(path)
    return written


def show_placeholders(text: str) -> str:
    """A rule text with its {symbol}/{npu} placeholders shown as ‹symbol›/‹npu›."""
    return _PLACEHOLDER.sub(r"‹\1›", text)


def _with_placeholders_shown(rule: Rule) -> Rule:
    """The rule with {symbol}/{npu} shown as ‹symbol›/‹npu› in its texts."""

    def show(text):
        if text is None:
            return None
        return text.model_copy(update={field: show_placeholders(value) for field, value in text if isinstance(value, str)})

    variants = [
        v.model_copy(update={k: show(getattr(v, k)) for k in ("message", "replacement", "replacement_inference")})
        for v in rule.at_release
    ]
    site_variants = [v.model_copy(update={k: show(getattr(v, k)) for k in ("message", "replacement", "replacement_inference")})
                     for v in rule.variants]
    return rule.model_copy(update={
        "variants": site_variants,
        "message": show(rule.message),
        "replacement": show(rule.replacement),
        "replacement_inference": show(rule.replacement_inference),
        "at_release": variants,
    })


def _detects(rule: Rule, language: str) -> str:
    match = rule.match
    if match.qualified_names:
        return ui_text(language, "rules.names", names=", ".join(f"`{name}`" for name in match.qualified_names))
    if match.env_vars:
        return ui_text(language, "rules.env_vars", names=", ".join(f"`{name}`" for name in match.env_vars))
    if match.torch_cuda_api:
        return ui_text(language, "rules.torch_cuda_api")
    return ui_text(language, "rules.detector", name=f"`{match.detector}`")


def _automatic(rule: Rule, language: str, kb: KnowledgeBase) -> str:
    if NATIVE in rule.auto_when:
        return ui_text(language, "rules.native")
    since = next((c for c in rule.auto_when if c.startswith(NATIVE_SINCE)), None)
    if since is not None:
        native = [release.torch_npu for release in kb.releases if native_at(since, release)]
        return ui_text(language, "rules.native_since", line=since.removeprefix(NATIVE_SINCE), count=len(native),
                       total=len(kb.releases))
    if rule.match.torch_cuda_api or CUDA_ALIAS in rule.auto_when:
        return ui_text(language, "rules.auto_per_api")
    if not rule.auto_when:
        return ""
    handled = [
        release.torch_npu for release in kb.releases
        if any(kb.profiles[release.profile].has(capability) for capability in rule.auto_when if ":" in capability)
    ]
    if not handled:
        return ""
    first = min(handled, key=Version)
    return ui_text(language, "rules.auto_releases", count=len(handled), total=len(kb.releases), first=first)


def proposed_by(rule: Rule, kb: KnowledgeBase) -> list[str]:
    """The torch.npu names and torch_npu operators a rule proposes: its replacement texts and code, and for a
    torch.cuda-table rule the NPU names of the entries that table assigns to it."""
    replacements = [rule.replacement, rule.replacement_inference]
    replacements += [r for v in rule.at_release for r in (v.replacement, v.replacement_inference)]
    texts = [t for r in replacements if r is not None for t in (r.en, r.code, *(s.code for s in r.shapes))]
    names = availability.proposed_names(" ".join(filter(None, texts)))
    if rule.match.torch_cuda_api:
        table = sorted({entry.npu for entry in kb.torch_cuda_api.values() if entry.rule == rule.code and entry.npu})
        names += [name for name in table if name not in names]
    return names


def _availability(rule: Rule, language: str, kb: KnowledgeBase) -> list[str]:
    """One line per proposed name: the releases of the table that have it (a keyword argument only when its
    releases differ from its operator's). The names that every release has share one line."""
    lines, everywhere = [], []
    total = len(kb.releases)
    for name in proposed_by(rule, kb):
        having = availability.releases_with(kb, name)
        operator = availability.operator_of(name)
        if operator and having == availability.releases_with(kb, operator):
            continue
        shown = f"`{name}`"
        if len(having) == total:
            everywhere.append(shown)
        elif not having:
            lines.append(ui_text(language, "rules.available_none", name=shown))
        elif (line := availability.first_line(kb, name)) is not None:
            lines.append(ui_text(language, "rules.available_from_line", name=shown, line=line, count=len(having), total=total))
        else:
            counts = {"name": shown, "count": len(having), "total": total}
            if len(having) <= total - len(having):
                present = ", ".join(r.torch_npu for r in having)
                lines.append(ui_text(language, "rules.available_only", present=present, **counts))
            else:
                missing = ", ".join(r.torch_npu for r in kb.releases if r not in having)
                lines.append(ui_text(language, "rules.available_some", missing=missing, **counts))
    if everywhere:
        lines.insert(0, ui_text(language, "rules.available_all", name=", ".join(everywhere), total=total))
    return lines


def _fenced(code: str, language: str) -> Markup:
    fence = "`" * max(3, max((len(run) + 1 for run in re.findall(r"`+", code)), default=0))
    body = code.rstrip("\n")
    return Markup(f"{fence}{_FENCE_LANGUAGE.get(language, language)}\n{body}\n{fence}")


def _anchor(rule: Rule) -> str:
    """GitHub's heading anchor of '### CODE name'."""
    return f"{rule.code.lower()}-{rule.name}"


def _first_sentence(rule: Rule) -> str:
    text = show_placeholders(rule.message.en)
    match = re.match(r"(.+?\.)(\s|$)", text)
    return match.group(1) if match else text
