"""Confirm the operator-coverage table on a device: run each ATen overload once with small inputs built from its
schema and record what torch_npu did: ran it on the NPU, warned that it falls back to the CPU, or raised that the
operator is not supported. Inputs that do not suit an operator (an index tensor it wants as integers, a shape it
rejects) make the run inconclusive, never a fallback. On a machine without an NPU nothing is measured.

Imports only the standard library and torch, like the other probe modules.
"""

from __future__ import annotations

import importlib
import importlib.util
import warnings

FALLBACK_WARNING = "fall back to run on the CPU"
UNSUPPORTED_ERROR = "not currently supported on the NPU backend"
SIDE = 4  # every tensor input is SIDE x SIDE


def _value(argument, device: str, torch):
    """A small value of the argument's type; None when the schema's default should be used (or none is known)."""
    if argument.kwarg_only or argument.has_default_value():
        return None
    kind = str(argument.type).rstrip("?")
    if kind == "Tensor":
        return torch.rand((SIDE, SIDE), device=device) + 0.5
    if kind in {"Scalar", "float"}:
        return 0.5
    if kind in {"int", "SymInt"}:
        return 1
    if kind == "bool":
        return False
    if kind in {"int[]", "SymInt[]"} or kind.startswith("int[") or kind.startswith("SymInt["):
        return [SIDE]
    if kind == "Tensor[]":
        return [torch.rand((SIDE, SIDE), device=device) + 0.5]
    raise TypeError(f"no small value for an argument of type {kind}")


def _packet(overload: str, torch):
    name, _, variant = overload.partition(".")
    return getattr(getattr(torch.ops.aten, name), variant or "default")


def probe_operator(overload: str, device: str, torch) -> dict:
    """One overload on `device`: outcome npu, cpu-fallback, error or inconclusive, with the message that decided."""
    try:
        packet = _packet(overload, torch)
        args = []
        for argument in packet._schema.arguments:
            value = _value(argument, device, torch)
            if value is None:
                break  # the remaining arguments take their defaults
            args.append(value)
    except (AttributeError, RuntimeError, TypeError) as exc:
        return {"operator": f"aten::{overload}", "outcome": "inconclusive", "detail": f"no inputs: {exc}"[:300]}
    with warnings.catch_warnings(record=True) as records:
        warnings.simplefilter("always")
        try:
            packet(*args)
        except Exception as exc:  # noqa: BLE001 - any failure of one operator is that operator's result
            text = str(exc)
            outcome = "error" if UNSUPPORTED_ERROR in text else "inconclusive"
            return {"operator": f"aten::{overload}", "outcome": outcome, "detail": text.splitlines()[0][:300] if text else type(exc).__name__}
    said = " ".join(str(r.message) for r in records)
    if FALLBACK_WARNING.lower() in said.lower():
        return {"operator": f"aten::{overload}", "outcome": "cpu-fallback", "detail": said[:300]}
    return {"operator": f"aten::{overload}", "outcome": "npu", "detail": ""}


def run_operator_probe(overloads: list[str], device: str = "auto") -> dict:
    """Each overload's outcome on the NPU; "not measured" for every one where there is no NPU."""
    import torch

    if importlib.util.find_spec("torch_npu") is not None:
        importlib.import_module("torch_npu")
    npu = getattr(torch, "npu", None)
    available = False
    try:
        available = npu is not None and npu.is_available()
    except Exception:  # noqa: BLE001 - a half-installed torch_npu answers with errors
        available = False
    if device not in {"auto", "npu"} or not available:
        return {"device": "cpu",
                "results": [{"operator": f"aten::{o}", "outcome": "not measured", "detail": "no NPU on this machine"}
                            for o in overloads]}
    versions = {"torch": torch.__version__, "torch_npu": getattr(importlib.import_module("torch_npu"), "__version__", None)}
    return {"device": "npu", **versions, "results": [probe_operator(o, "npu", torch) for o in overloads]}
