"""The registry of domains: the one place that names every room. The core iterates `build_domains` and reaches a room
only through domains.base.Domain; adding a domain is adding its door here."""

from __future__ import annotations

import dataclasses
from typing import Optional

from ascend_feasibility.analyzer.core.models import DaysRange, Finding, Report
from ascend_feasibility.domains.attention import AttentionDomain
from ascend_feasibility.domains.base import Domain
from ascend_feasibility.domains.config_scanner import ConfigurationDomain
from ascend_feasibility.domains.custom_ops import CustomOpsDomain
from ascend_feasibility.domains.dependencies import DependenciesDomain
from ascend_feasibility.domains.device import DeviceDomain
from ascend_feasibility.domains.distributed import DistributedDomain
from ascend_feasibility.domains.operators import OperatorsDomain
from ascend_feasibility.domains.phases import PhasesDomain
from ascend_feasibility.domains.precision import PrecisionDomain
from ascend_feasibility.knowledge import KnowledgeBase, Target

# Project-level passes run in this order: a room reads only what rooms before it published (the plan reads the
# dependency matrix and the kernel inventory; operator coverage reads the plan's final findings).
DOMAIN_CLASSES: tuple[type[Domain], ...] = (
    DeviceDomain,
    DistributedDomain,
    PrecisionDomain,
    AttentionDomain,
    CustomOpsDomain,
    ConfigurationDomain,
    DependenciesDomain,
    PhasesDomain,
    OperatorsDomain,
)


def build_domains(kb: KnowledgeBase, target: Target) -> list[Domain]:
    return [cls(kb, target) for cls in DOMAIN_CLASSES]


def file_facts_type(classes: tuple[type[Domain], ...]) -> type:
    """One file's facts from every room that keeps some: a dataclass with a field per room, so that the cache stores
    and checks them as typed JSON."""
    fields = [(cls.name, Optional[cls.facts_type], dataclasses.field(default=None))  # noqa: UP045 - a runtime type
              for cls in classes if cls.facts_type is not None]
    made = dataclasses.make_dataclass("FileFacts", fields)
    made.__module__ = __name__  # pickled between worker processes by this name
    return made


FileFacts = file_facts_type(DOMAIN_CLASSES)


def new_file_facts():
    """An empty FileFacts of the registry as it stands (a test may register a room of its own)."""
    return FileFacts()


def effort_left(report: Report, findings: list[Finding]) -> DaysRange | None:
    """The required effort over `findings` alone, from the room that owns the estimate."""
    for cls in DOMAIN_CLASSES:
        left = cls.effort_left(report, findings)
        if left is not None:
            return left
    return None
