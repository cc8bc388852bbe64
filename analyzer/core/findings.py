"""Turn a scanner's hit into a finding: the knowledge base's rule, judged at the target torch_npu."""

from __future__ import annotations

import hashlib
import sys
from dataclasses import dataclass
from typing import TYPE_CHECKING

from ascend_feasibility.analyzer.core import replacement_code
from ascend_feasibility.analyzer.core.models import (
    BILINGUAL,
    COUNTED_ROLES,
    EffortHours,
    Finding,
    ReplacementText,
    Text,
    severity_rank,
)
from ascend_feasibility.knowledge import KNOWLEDGE_DIR, KnowledgeBase, Target, availability
from ascend_feasibility.knowledge.models import Rule

if TYPE_CHECKING:  # the domains import this module
    from ascend_feasibility.domains.base import Hit, Unit

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

SNIPPET_LIMIT = 200
CUDA_ALIAS = "cuda_alias"
NATIVE = "native"  # supported by torch_npu as written: nothing to change and no shim involved
NATIVE_SINCE = "native_since:"
PYTHON_STRING = "python-string"  # the facet of a site in a shell script's `python -c` string
PACKAGE_CALL = "package-call"  # the finding's replacement is the called package's (packages.toml)  # native_since:7.0.0: supported as written from that release line on
PACKAGE_CALLS = frozenset({PACKAGE_CALL, "package-cuda-only-call"})  # a compatible package's CUDA-only call (DEP031)


def nothing_to_port(finding: Finding, note: Text, replacement: Text) -> Finding:
    """The finding settled as listed, not counted: info, no effort, `auto`, its message followed by why (`note`) and
    the advice to leave it (`replacement`)."""
    message = Text(en=f"{finding.message.en} {note.en}", zh=f"{finding.message.zh}{note.zh}")
    return finding.model_copy(update={"severity": "info", "message": message, "migration": "auto",
                                      "effort_hours": EffortHours(low=0.0, high=0.0), "replacement": replacement})



def _common_texts() -> dict:
    with (KNOWLEDGE_DIR / "common.toml").open("rb") as handle:
        return tomllib.load(handle)


@dataclass(frozen=True)
class Judgement:
    migration: str
    severity: str
    effort: tuple[float, float]


class FindingFactory:
    def __init__(self, kb: KnowledgeBase, target: Target) -> None:
        self.kb = kb
        self.target = target
        self._text_cache: dict = {}
        self._judged_cache: dict = {}  # (rule, symbol, npu, auto_when, effort, context, reach, role) → (judgement, texts)
        texts = _common_texts()
        self.auto_note = texts["auto_note"]
        self.context_note = texts["context_note"]
        self.reach_note = texts["reach_note"]
        self.role_note = texts["role_note"]
        self.role_label = texts["role_label"]
        self.unavailable_note = texts["unavailable_note"]
        self.unbound_note = texts["unbound_note"]
        self.python_string_note = texts["python_string_note"]
        self._unavailable_cache: dict = {}
        self._at_release: dict[str, Rule] = {}
        self._uses_site: dict[str, bool] = {}

    def judge(self, rule: Rule, symbol: str, auto_when: tuple[str, ...] | None = None) -> Judgement:
        if self._automatic(rule.auto_when if auto_when is None else auto_when, symbol):
            return Judgement("auto", rule.auto_severity, rule.auto_effort_hours)
        return Judgement(rule.migration, rule.severity, rule.effort_hours)

    def _automatic(self, capabilities, symbol: str) -> bool:
        for capability in capabilities:
            if capability == NATIVE:
                return True
            if capability.startswith(NATIVE_SINCE):
                if native_at(capability, self.target.release):
                    return True
                continue
            if capability == CUDA_ALIAS:
                if self.kb.cuda_redirected(symbol, self.target.profile):
                    return True
            elif self.target.profile.has(capability):
                return True
        return False

    def build(self, hit: Hit, unit: Unit, occurrence: int, place: "Place" = None) -> Finding:
        """A finding from a scanner's hit in a unit, in its context (role and reach)."""
        place = place or PLAIN_PLACE
        source, span = unit.source, hit.span
        uses_site = self._uses_site.get(hit.rule)
        if uses_site is None:
            uses_site = self._uses_site[hit.rule] = rule_uses_site(self.kb.rules[hit.rule])
        site = replacement_code.site_at(unit, span) if uses_site else None
        matched = _matched_text(source, span)
        (start_row, start_col), (end_row, end_col) = (span.start_row, span.start_col), (span.end_row, span.end_col)
        if unit.embedded is not None:  # a `python -c` string: the finding sits where its code is in the script
            source = unit.embedded.host
            start_row, start_col = unit.embedded.point(start_row, start_col)
            end_row, end_col = unit.embedded.point(end_row, end_col)
        located = Located(
            rule=hit.rule,
            symbol=hit.symbol,
            path=unit.path,
            line=start_row + 1,
            column=source.char_column(start_row, start_col),
            end_column=source.char_column(end_row, end_col),
            snippet=source.line_text(start_row).strip()[:SNIPPET_LIMIT],
            cell=unit.cell,
            npu=hit.npu,
            end_line=end_row + 1,
            auto_when=hit.auto_when,
            context=hit.context,
            matched=matched,
            effort=hit.effort,
            facets=hit.facets,
            role=place.role,
            reach=place.reach,
            reach_reason=place.reason,
            site=site,
        )
        return self.build_located(located, occurrence)

    def _texts(self, rule, symbol, npu, code, replacement, message, judgement):
        """The texts of a finding, built once per distinct content: a project repeats the same few."""
        key = (rule.code, symbol, npu, code, message["en"], replacement.en, judgement)
        cached = self._text_cache.get(key)
        if cached is None:
            cached = (
                Text(**message),
                ReplacementText(en=_fill(replacement.en, symbol, npu), zh=_fill(replacement.zh, symbol, npu, "zh"), code=code),
                EffortHours(low=judgement.effort[0], high=judgement.effort[1]),
            )
            if len(self._text_cache) < 50_000:
                self._text_cache[key] = cached
        return cached

    def relocate(self, finding: Finding, place: "Place") -> Finding:
        """The finding in a context only the whole project showed (it was built as code that runs): another reach,
        or another role (a product helper only tests call)."""
        severity = uncounted_severity(finding.severity)
        if place.role != finding.role and place.reach == finding.reach:
            label = {lang: self.role_note[lang].replace("{role}", self.role_label[lang][place.role]) for lang in ("en", "zh")}
            message = Text(en=f"{finding.message.en} {label['en']}", zh=f"{finding.message.zh} {label['zh']}")
            return finding.model_copy(
                update={"role": place.role, "reach_reason": place.reason, "severity": severity, "message": message}
            )
        message = Text(
            en=f"{finding.message.en} {self.reach_note[place.reach]['en']}",
            zh=f"{finding.message.zh} {self.reach_note[place.reach]['zh']}",
        )
        return finding.model_copy(
            update={"reach": place.reach, "reach_reason": place.reason, "severity": severity, "message": message}
        )

    def restore(self, finding: Finding) -> Finding:
        """The finding back in code that runs, where the whole project showed that the guard its file read does not
        hold (relocate's converse): the reach note comes off its message and the rule's severity returns."""
        rule = self.rule_at_target(finding.rule)
        judged = rule.auto_severity if finding.migration == "auto" else rule.severity
        severity = judged if uncounted_severity(judged) == finding.severity else finding.severity
        note = self.reach_note.get(finding.reach)
        message = {lang: getattr(finding.message, lang) for lang in ("en", "zh")}
        if note is not None:
            # wherever it sits: a note appended later (an argument left out) may follow it
            message = {lang: text.replace(" " + note[lang], "", 1) for lang, text in message.items()}
        return finding.model_copy(update={"reach": "runs", "reach_reason": None, "severity": severity,
                                          "message": Text(**message)})

    def build_located(self, at: "Located", occurrence: int) -> Finding:
        """A finding at a known place (also used by project-level analyses such as dependencies)."""
        rule = self.rule_at_target(at.rule)
        judgement, texts = self._judged_texts(rule, at)
        return Finding(
            rule=rule.code,
            name=rule.name,
            domain=rule.domain,
            path=at.path,
            line=at.line,
            column=at.column,
            end_line=at.end_line or at.line,
            end_column=max(at.end_column, 1),
            cell=at.cell,
            snippet=at.snippet,
            symbol=at.symbol,
            severity=judgement.severity,
            migration=judgement.migration,
            confidence=rule.confidence,
            message=texts[0],
            replacement=texts[1],
            effort_hours=texts[2],
            references=list(rule.references),
            fingerprint=fingerprint(rule.code, at.path, at.matched or at.snippet, occurrence),
            suppressed=False,
            role=at.role,
            reach=at.reach,
            reach_reason=at.reach_reason,
        )

    def _judged_texts(self, rule: Rule, at: "Located") -> tuple[Judgement, tuple]:
        """The judgement and texts of a finding: they depend only on what the key holds (the rule, what matched,
        its context, role and reach), and a project repeats the same few, so each is worked out once."""
        key = (rule.code, at.symbol, at.npu, at.auto_when, at.effort, at.context, at.facets, at.reach, at.role, at.site)
        cached = self._judged_cache.get(key)
        if cached is None:
            cached = self._judge_texts(rule, at)
            if len(self._judged_cache) < 50_000:
                self._judged_cache[key] = cached
        return cached

    def _judge_texts(self, rule: Rule, at: "Located") -> tuple[Judgement, tuple]:
        auto_when = () if at.context is not None and at.context in rule.not_auto_in else at.auto_when
        judgement = self.judge(rule, at.symbol, auto_when)
        held = [v for v in rule.variants if set(v.when) <= set(at.facets)] if at.facets else []
        severity = next((v.severity for v in held if v.severity is not None), None)
        if severity is not None:
            judgement = Judgement(judgement.migration, severity, judgement.effort)
        if at.effort is not None and judgement.migration != "auto":
            judgement = Judgement(judgement.migration, judgement.severity, at.effort)
        effort = next((v.effort_hours for v in held if v.effort_hours is not None), None)
        if effort is not None:
            judgement = Judgement(judgement.migration, judgement.severity, effort)
        counted = at.reach == "runs" and at.role in COUNTED_ROLES
        if not counted:
            judgement = Judgement(judgement.migration, uncounted_severity(judgement.severity), judgement.effort)
        use_inference = at.context == "inference" and rule.replacement_inference is not None
        replacement = rule.replacement_inference if use_inference else rule.replacement
        texts = rule.message
        if held:
            texts = next((v.message for v in held if v.message is not None), texts)
            replacement = next((v.replacement_inference if use_inference and v.replacement_inference is not None
                                else v.replacement for v in held if v.replacement is not None), replacement)
        if rule.match.detector in PACKAGE_CALLS and at.npu:
            call = self.kb.package_call(at.npu, at.symbol)
            said = next((v.replacement for v in held if v.replacement is not None), None)
            if call is not None and said is not None:  # the variant's advice first, the call's route after it
                call = call.model_copy(update={"en": f"{said.en} {call.en}", "zh": f"{said.zh}{call.zh}"})
            replacement = call or replacement
        npu = at.npu or replacement.code or ""
        message = {lang: _fill(getattr(texts, lang), at.symbol, npu, lang) for lang in ("en", "zh")}
        if at.context is not None:
            for lang in ("en", "zh"):
                message[lang] += " " + self.context_note[at.context][lang]
        if PYTHON_STRING in at.facets:
            for lang in ("en", "zh"):
                message[lang] += " " + self.python_string_note[lang]
        if judgement.migration == "auto" and not is_native(rule.auto_when):
            release = self.target.release.torch_npu
            for lang in ("en", "zh"):
                message[lang] += " " + self.auto_note[lang].replace("{release}", release)
        for lang in ("en", "zh"):
            if at.reach != "runs":
                message[lang] += " " + self.reach_note[at.reach][lang]
            if at.role not in COUNTED_ROLES:
                message[lang] += " " + self.role_note[lang].replace("{role}", self.role_label[lang][at.role])
        shape = replacement.shape_for(at.symbol)
        rendered = replacement_code.render(shape, at.site or replacement_code.NO_SITE, at.symbol, at.npu)
        code = rendered.code
        if rendered.text is not None:  # the value written decides what to do (a unit conversion)
            replacement = replacement.model_copy(update={"en": rendered.text.en, "zh": rendered.text.zh})
        for lang in ("en", "zh"):
            for parameter in rendered.said:
                note = shape.dropped.get(parameter) or shape.notes[parameter]
                message[lang] += " " + getattr(note, lang)
            if rendered.unbound:
                message[lang] += " " + self.unbound_note[lang]
        for lang, note in self._unavailable(npu, replacement, code).items():
            message[lang] += " " + note
        return judgement, self._texts(rule, at.symbol, npu, code, replacement, message, judgement)

    def rule_at_target(self, code: str) -> Rule:
        """The rule as it reads at the target release: a release variant's texts replace its own there."""
        rule = self._at_release.get(code)
        if rule is None:
            rule = self._at_release[code] = rule_at(self.kb.rules[code], self.target.release)
        return rule

    def _unavailable(self, npu: str, replacement, code: str | None) -> dict[str, str]:
        """The note for the names this replacement proposes that the target release lacks (empty when none)."""
        key = (npu, replacement.en, code)
        if key not in self._unavailable_cache:
            release = self.target.release
            names = availability.proposed_names(" ".join(filter(None, (npu, replacement.en, code))))
            missing = availability.missing_at(self.kb, names, release)
            self._unavailable_cache[key] = self._unavailable_texts(missing) if missing else {}
        return self._unavailable_cache[key]

    def _unavailable_texts(self, missing: list[str]) -> dict[str, str]:
        release = self.target.release
        texts = {}
        for lang in ("en", "zh"):
            items = []
            for name in missing:
                first = availability.first_release(self.kb, name, release.torch)
                if first is None:
                    items.append(self.unavailable_note[f"none_{lang}"].format(name=name))
                else:
                    items.append(self.unavailable_note[f"item_{lang}"].format(name=name, first=first.torch_npu, branch=first.branch))
            separator = "; " if lang == "en" else "；"
            texts[lang] = self.unavailable_note[lang].format(release=release.torch_npu, names=separator.join(items))
        return texts


def rule_uses_site(rule: Rule) -> bool:
    """Is any code of the rule rendered from the site (its arguments or assigned value)?"""
    replacements = [rule.replacement, rule.replacement_inference]
    replacements += [r for v in rule.at_release for r in (v.replacement, v.replacement_inference)]
    replacements += [r for v in rule.variants for r in (v.replacement, v.replacement_inference)]
    shapes = [s for r in replacements if r is not None for s in (r, *r.shapes)]
    return rule.match.detector in PACKAGE_CALLS or any(shape.uses_site() for shape in shapes)


def in_range(variant, release) -> bool:
    """Is the release's line inside the variant's range [since_line, before_line)?"""
    line = availability.line_key(availability.line_of(release.branch))
    if variant.since_line is not None and line < availability.line_key(variant.since_line):
        return False
    return variant.before_line is None or line < availability.line_key(variant.before_line)


def rule_at(rule: Rule, release) -> Rule:
    """The rule with the texts of its first release variant whose range holds the release."""
    variant = next((v for v in rule.at_release if in_range(v, release)), None)
    if variant is None:
        return rule
    update = {k: getattr(variant, k) for k in ("message", "replacement", "replacement_inference") if getattr(variant, k)}
    if variant.variants is not None:
        update["variants"] = variant.variants
    return rule.model_copy(update=update)


def is_native(capabilities) -> bool:
    """Does torch_npu itself (no shim) handle it, always or from some release line on?"""
    return any(c == NATIVE or c.startswith(NATIVE_SINCE) for c in capabilities)


def native_at(capability: str, release) -> bool:
    """``native_since:7.0.0`` at a release: is the release's line that one or newer?"""
    line = capability.removeprefix(NATIVE_SINCE)
    return availability.line_key(availability.line_of(release.branch)) >= availability.line_key(line)


@dataclass(frozen=True)
class Located:
    """Everything a finding needs besides the knowledge base: what matched and where."""

    rule: str
    symbol: str
    path: str
    line: int
    column: int
    end_column: int
    snippet: str
    cell: int | None = None
    npu: str | None = None
    end_line: int | None = None
    auto_when: tuple[str, ...] | None = None
    context: str | None = None
    matched: str | None = None
    effort: tuple[float, float] | None = None
    facets: tuple[str, ...] = ()
    role: str = "product"
    reach: str = "runs"
    reach_reason: str | None = None
    site: "replacement_code.Site | None" = None  # what the replacement's code is rendered from


@dataclass(frozen=True)
class Place:
    """The context of a site: its file's role, and whether its code runs on Ascend (and why not)."""

    role: str = "product"
    reach: str = "runs"
    reason: str | None = None


PLAIN_PLACE = Place()


def uncounted_severity(severity: str) -> str:
    """A finding that does not count (not product code that runs on Ascend) never ranks above low."""
    return "low" if severity_rank(severity) < severity_rank("low") else severity


def _fill(template: str, symbol: str, npu: str, language: str = "en") -> str:
    """The template with the symbol and the replacement filled in; a bilingual replacement in the template's language
    (the Chinese report printed the English kernel-class advice inside its Chinese sentence)."""
    if BILINGUAL in npu:
        en, zh = npu.split(BILINGUAL, 1)
        npu = zh if language == "zh" else en
    return template.replace("{symbol}", symbol).replace("{npu}", npu)


def _matched_text(source, span) -> str:
    if span.start_row == span.end_row:
        return source.line_bytes(span.start_row)[span.start_col : span.end_col].decode("utf-8", "replace")
    return source.line_text(span.start_row)[span.start_col :]


def occurrence_key(hit: Hit, unit: Unit) -> tuple[str, str]:
    return hit.rule, " ".join(_matched_text(unit.source, hit.span).split())


def fingerprint(code: str, path: str, matched: str, occurrence: int) -> str:
    """Stable across moved lines: what matched and its rank among identical matches, never a line number."""
    normalized = " ".join(matched.split())
    digest = hashlib.sha256(f"{code}\0{path}\0{normalized}\0{occurrence}".encode("utf-8")).hexdigest()
    return digest[:20]
