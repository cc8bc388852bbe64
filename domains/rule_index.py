"""Lookup tables the domain scanners build once from the knowledge base.

Qualified names are matched across every domain at once, so the most specific rule wins even when it belongs to
another domain (`torch.backends.cuda.sdp_kernel` is attention's, though `torch.backends.cuda.*` is device's); a
scanner reports only the names whose winning rule is in its own domain."""

from __future__ import annotations

import fnmatch
import re

from ascend_feasibility.knowledge import KnowledgeBase
from ascend_feasibility.knowledge.models import TorchCudaApi

UNCLASSIFIED_CUDA_RULE = "DEV135"
_CODE = re.compile(r"[A-Z]{3}\d{3}")
_MEMO_LIMIT = 100_000  # distinct names remembered per index (bounds a worker's memory on hostile input)


class RuleIndex:
    """The rules of one domain, or of every domain when `domain` is None (for the configuration scanners)."""

    def __init__(self, kb: KnowledgeBase, domain: str | None = None) -> None:
        self.kb = kb
        self.domain = domain
        rules = kb.rules_for(domain) if domain else list(kb.rules.values())
        self.by_detector = {r.match.detector: r.code for r in rules if r.match.detector}
        self.not_decorators = frozenset(name for r in rules for name in r.match.not_decorators)
        self.exact: dict[str, str] = {}
        self.namespaces: list[tuple[str, str]] = []
        for rule in kb.rules.values():
            for name in rule.match.qualified_names or []:
                if name.endswith(".*"):
                    self.namespaces.append((name[:-2], rule.code))
                else:
                    self.exact[name] = rule.code
        self.namespaces.sort(key=lambda item: -len(item[0]))
        self.namespace_codes = dict(reversed(self.namespaces))
        # names inside a matched namespace that the rule leaves alone (they touch no device)
        self.excepted = {name for rule in kb.rules.values() for name in rule.match.except_names}
        self.env = {name: r.code for r in rules for name in (r.match.env_vars or []) if not name.endswith("*")}
        self.env_prefixes = sorted(
            ((name[:-1], r.code) for r in rules for name in (r.match.env_vars or []) if name.endswith("*")),
            key=lambda item: -len(item[0]),
        )
        self.env_excepted = {r.code: tuple(r.match.except_env) for r in rules if r.match.except_env}
        self._matches: dict[str, tuple[str, str] | None] = {}  # match_name's answers: a project repeats its names

    def code_for(self, detector_or_code: str) -> str:
        if _CODE.fullmatch(detector_or_code):
            return detector_or_code
        return self.by_detector[detector_or_code]

    def rule_for_name(self, qualified: str) -> str | None:
        match = self.match_name(qualified)
        return match[0] if match else None

    def match_name(self, qualified: str) -> tuple[str, str] | None:
        """(code, matched name) of the most specific rule for this name or an attribute of a matched name
        (`dist.ProcessGroupNCCL.Options` is a use of `ProcessGroupNCCL`), if that rule is in this domain."""
        try:
            return self._matches[qualified]
        except KeyError:
            pass
        found = self._match_name(qualified)
        if len(self._matches) < _MEMO_LIMIT:
            self._matches[qualified] = found
        return found

    def _match_name(self, qualified: str) -> tuple[str, str] | None:
        parts = qualified.split(".")
        if any(".".join(parts[:end]) in self.excepted for end in range(len(parts), 1, -1)):
            return None
        found = None
        for end in range(len(parts), 1, -1):
            candidate = ".".join(parts[:end])
            if candidate in self.exact:
                found = (self.exact[candidate], candidate)
                break
        if found is None:
            code = next(
                (self.namespace_codes[p] for p in (".".join(parts[:end]) for end in range(len(parts) - 1, 0, -1))
                 if p in self.namespace_codes),
                None,
            )
            found = (code, qualified) if code else None
        if found is None or (self.domain and self.kb.rules[found[0]].domain != self.domain):
            return None
        return found

    def env_rule(self, name: str) -> str | None:
        """An exact name first (NCCL_SOCKET_IFNAME), then the longest prefix pattern (NCCL_*)."""
        if name in self.env:
            return self.env[name]
        code = next((code for prefix, code in self.env_prefixes if name.startswith(prefix) and name != prefix), None)
        if code is not None and any(fnmatch.fnmatchcase(name, pattern) for pattern in self.env_excepted.get(code, ())):
            return None  # a prefix's name that is no setting of the library (NCCL_VER: an installer's version)
        return code

    def cuda_entry(self, qualified: str) -> tuple[str, TorchCudaApi]:
        """The longest torch.cuda name the table classifies that `qualified` starts with.

        `torch.cuda.Event.elapsed_time` is a use of `torch.cuda.Event`; `torch.cuda.amp.grad_scaler.GradScaler`
        (an internal module path) is looked up as `torch.cuda.amp.GradScaler`, unless the table classifies that
        module itself (`torch.cuda._memory_viz.memory` is a use of `torch.cuda._memory_viz`, not `torch.cuda.memory`).
        A name the table does not know (a private helper such as `torch.cuda._sleep`) is reported as having no
        known equivalent.
        """
        parts = qualified.split(".")
        for end in range(len(parts), 2, -1):
            candidate = ".".join(parts[:end])
            entry = self.kb.cuda_api(candidate)
            if entry is not None:
                return candidate, entry
            if end >= 4 and self.kb.cuda_api(".".join(parts[: end - 1])) is None:
                shortened = ".".join(parts[: end - 2] + parts[end - 1 : end])
                entry = self.kb.cuda_api(shortened)
                if entry is not None:
                    return shortened, entry
        head = ".".join(parts[:3])
        return head, TorchCudaApi(rule=UNCLASSIFIED_CUDA_RULE)
