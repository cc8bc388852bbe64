"""The attention domain: flash-attn, xformers, SDPA, Hugging Face attention selection, hand-written attention."""

from __future__ import annotations

from ascend_feasibility.domains.attention.python_scanner import AttentionPythonScanner
from ascend_feasibility.domains.base import Domain


class AttentionDomain(Domain):
    name = "attention"
    scanner_classes = (AttentionPythonScanner,)
