"""One ONNX Runtime session's provider and its options chosen by the same device test (round 30 B2 row 31,
domains/device/provider_names.py beside_provider_choice): the providers= keyword carries DEV007's runtime-provider
finding, the provider_options= keyword beside it none (no torch-device advice for a session option)."""

from __future__ import annotations

from tests.helpers import scan

SESSION = """import torch
from insightface.app import FaceAnalysis
def build(args):
    return FaceAnalysis(
        providers=['CUDAExecutionProvider' if args.device == 'cuda' else 'CPUExecutionProvider'],
        provider_options=[{'device_id': args.gpu_id}] if args.device == 'cuda' else [],
    )
"""


def _dev007(code: str) -> dict[int, str]:
    return {f.line: f.severity for f in scan(code).findings if f.rule == "DEV007"}


def test_the_provider_keyword_carries_the_one_finding_of_the_session():
    assert _dev007(SESSION) == {5: "low"}


def test_options_alone_or_tested_on_another_value_keep_their_finding():
    # no provider named beside it: a device test of its own
    alone = SESSION.replace("'CUDAExecutionProvider' if args.device == 'cuda' else 'CPUExecutionProvider'", "'X'")
    assert 6 in _dev007(alone)
    # the provider is picked by another test: the options' test is not the same choice
    other = SESSION.replace("if args.device == 'cuda' else 'CPUExecutionProvider'",
                            "if args.backend == 'cuda' else 'CPUExecutionProvider'")
    assert set(_dev007(other)) == {5, 6}
