"""Runs the probes on a device: availability, accuracy against the reference, timing with device
synchronisation, CPU fallback, and a verdict per candidate, shape and dtype. Writes calibration JSON, schema "1"."""

from __future__ import annotations

import datetime
import importlib
import importlib.util
import json
import math
import os
import platform
import statistics
import time
import warnings
from typing import Callable

from ascend_feasibility.analyzer.probes.catalog import PROBES, TOLERANCE, Candidate, Probe, probe_names
from ascend_feasibility.analyzer.probes.environment import detect_environment

SCHEMA_VERSION = "1"
DEVICE_CHOICES = ("auto", "npu", "cuda", "cpu")
SLOWER_FACTOR = 1.1  # a candidate slower than the reference by more than this is "slower"
# A candidate also passes when its error is at most this multiple of the reference implementation's own error at
# the same dtype: low-precision CUDA code carries that error too, so it is not the replacement's fault.
BASELINE_FACTOR = 2.0
WARMUP = 2
INPUT_SEED = 1234
REPEATS = {"small": 10, "medium": 5, "large": 3}
FALLBACK_PATTERNS = ("fall back to run on the CPU", "npu_cpu_fallback", "not currently supported on the NPU backend")

def pick_device(requested: str, torch) -> tuple[str, int]:
    """The device type to run on and how many such devices there are."""
    available = {}
    for kind in ("npu", "cuda"):
        module = getattr(torch, kind, None)
        try:
            if module is not None and module.is_available():
                available[kind] = module.device_count()
        except Exception:  # a half-installed backend answers with errors
            pass
    if requested == "auto":
        for kind in ("npu", "cuda"):
            if kind in available:
                return kind, available[kind]
        return "cpu", 1
    if requested == "cpu":
        return "cpu", 1
    if requested not in available:
        raise RuntimeError(f"--device {requested}: no {requested} device is available here")
    return requested, available[requested]


def _import_torch_npu_if_present() -> None:
    if importlib.util.find_spec("torch_npu") is not None:
        importlib.import_module("torch_npu")


def _resolve(path: str) -> bool:
    module_name, _, attribute = path.partition(".")
    try:
        target = importlib.import_module(module_name)
    except Exception:
        return False
    for part in attribute.split(".") if attribute else ():
        target = getattr(target, part, None)
        if target is None:
            return False
    return True


def _synchronize(torch, device: str) -> None:
    if device == "cuda":
        torch.cuda.synchronize()
    elif device == "npu":
        torch.npu.synchronize()


def _as_tuple(outputs) -> tuple:
    return outputs if isinstance(outputs, tuple) else (outputs,)


def _execute(probe: Probe, function, inputs: dict, torch, forward_only: bool = False) -> tuple:
    """Outputs of `function`, followed by the gradients of the probe's grad inputs (same upstream gradient)."""
    if not probe.grad_inputs or forward_only:
        with torch.no_grad():
            return tuple(t.detach() for t in _as_tuple(function(inputs, torch)))
    prepared = {k: (v.detach().clone().requires_grad_(True) if k in probe.grad_inputs else v) for k, v in inputs.items()}
    outputs = _as_tuple(function(prepared, torch))
    generator = torch.Generator().manual_seed(7)
    loss = sum((out.float() * torch.randn(out.shape, generator=generator).to(out.device)).sum() for out in outputs)
    loss.backward()
    return tuple(t.detach() for t in outputs) + tuple(prepared[name].grad for name in probe.grad_inputs)


def _errors(candidate: tuple, reference: tuple, atol: float, rtol: float, torch) -> dict:
    max_abs = mean_abs = max_rel = mean_rel = 0.0
    passed = len(candidate) == len(reference)
    total = 0
    for got, want in zip(candidate, reference):
        got64 = got.detach().to("cpu", torch.float64)
        want64 = want.detach().to("cpu", torch.float64)
        if got64.shape != want64.shape:
            return {"max_abs": None, "mean_abs": None, "max_rel": None, "mean_rel": None, "passed": False,
                    "note": f"shape {tuple(got64.shape)} != reference {tuple(want64.shape)}"}
        diff = (got64 - want64).abs()
        if not torch.isfinite(got64).all() and torch.isfinite(want64).all():
            passed = False
        relative = diff / want64.abs().clamp_min(1e-6)
        count = diff.numel()
        if count:
            max_abs, max_rel = max(max_abs, float(diff.max())), max(max_rel, float(relative.max()))
            mean_abs += float(diff.sum())
            mean_rel += float(relative.sum())
            total += count
            passed = passed and bool((diff <= atol + rtol * want64.abs()).all())
    return {"max_abs": _finite(max_abs), "mean_abs": _finite(mean_abs / total if total else 0.0),
            "max_rel": _finite(max_rel), "mean_rel": _finite(mean_rel / total if total else 0.0), "passed": passed}


def _finite(value: float) -> float | None:
    return value if math.isfinite(value) else None


def _time(function, torch, device: str, repeats: int) -> dict:
    for _ in range(WARMUP):
        function()
    _synchronize(torch, device)
    samples = []
    for _ in range(repeats):
        start = time.perf_counter()
        function()
        _synchronize(torch, device)
        samples.append((time.perf_counter() - start) * 1000.0)
    samples.sort()
    p95 = samples[min(len(samples) - 1, math.ceil(0.95 * len(samples)) - 1)]
    return {"median_ms": round(statistics.median(samples), 4), "p95_ms": round(p95, 4), "repeats": repeats}


def _fell_back(records, outputs: tuple, device: str) -> bool:
    text = " ".join(str(r.message) for r in records)
    if any(pattern.lower() in text.lower() for pattern in FALLBACK_PATTERNS):
        return True
    return device != "cpu" and any(getattr(t, "device", None) is not None and t.device.type == "cpu" for t in outputs)


def _verdict(result: dict) -> str:
    if not result["available"]:
        return "missing"
    if result.get("error"):
        return "error"
    if not result["accuracy"]["passed"]:
        return "wrong"
    if result["fell_back_to_cpu"]:
        return "fallback"
    reference, candidate = result["reference_timing"], result["candidate_timing"]
    if reference and candidate and candidate["median_ms"] > reference["median_ms"] * SLOWER_FACTOR:
        return "slower"
    return "good"


def run_probe(probe: Probe, size: str, device: str, device_count: int, torch, repeats: int | None = None,
              progress: Callable | None = None) -> list[dict]:
    """Every candidate of one probe at one size, at each dtype that applies."""
    results = []
    for candidate in probe.candidates:
        for dtype_name in _dtypes(probe, candidate):
            result = _run_candidate(probe, candidate, size, dtype_name, device, device_count, torch, repeats)
            results.append(result)
            if progress:
                progress(f"{probe.name} {size} {candidate.name} {dtype_name}")
    return results


def planned_runs(probe: Probe) -> int:
    return sum(len(_dtypes(probe, candidate)) for candidate in probe.candidates)


def _dtypes(probe: Probe, candidate: Candidate) -> tuple[str, ...]:
    """A precision candidate runs at its own dtype only; the others at each of the probe's."""
    return (candidate.dtype,) if candidate.dtype else probe.dtypes


def _inputs(probe: Probe, size: str, dtype, device: str, torch) -> dict:
    """The probe's inputs at a size, the same values on every call (a fixed seed)."""
    return probe.make_inputs(probe.shapes[size], dtype, device, torch.Generator().manual_seed(INPUT_SEED), torch)


def _base_result(probe: Probe, candidate: Candidate, size: str, dtype_name: str, device: str) -> dict:
    return {"probe": probe.name, "rules": list(probe.rules), "candidate": candidate.name, "shape": size,
            "parameters": probe.shapes[size], "dtype": dtype_name, "device": device, "available": True,
            "applicable": True, "reason": None, "error": None, "accuracy": None, "tolerance": None,
            "reference_timing": None, "candidate_timing": None, "speedup": None, "fell_back_to_cpu": False,
            "warnings": [], "verdict": "skipped", "calibrates": candidate.calibrates}


def _run_candidate(probe, candidate, size, dtype_name, device, device_count, torch, repeats) -> dict:
    result = _base_result(probe, candidate, size, dtype_name, device)
    if device not in candidate.devices:
        result.update(applicable=False, available=False, reason=f"runs on {'/'.join(candidate.devices)} only")
        return result
    if probe.min_devices > device_count:
        result.update(applicable=False, available=False,
                      reason=f"needs {probe.min_devices} devices, {device_count} {device} device(s) here")
        return result
    if probe.collective:
        return _run_collectives(result, probe, size, device, device_count, torch)
    if candidate.needs and not _resolve(candidate.needs):
        result.update(available=False, reason=f"{candidate.needs} is not available in this installation",
                      verdict="missing")
        return result
    undo = None
    try:
        # A precision candidate (fixed dtype) gets the probe's own inputs and casts them itself, so that the
        # rounding of its inputs counts in its error.
        inputs = _inputs(probe, size, getattr(torch, probe.dtypes[0] if candidate.dtype else dtype_name), device, torch)
        reference_inputs = _reference_inputs(probe, inputs, size, torch, device)
        expected = _execute(probe, probe.reference, reference_inputs, torch, candidate.forward_only)
        undo = candidate.setup(torch) if candidate.setup else None
        with warnings.catch_warnings(record=True) as records:
            warnings.simplefilter("always")
            got = _execute(probe, candidate.run, inputs, torch, candidate.forward_only)
        atol, rtol = probe.tolerance.get(dtype_name, TOLERANCE[dtype_name])
        result["tolerance"] = {"atol": atol, "rtol": rtol, "baseline_factor": BASELINE_FACTOR}
        result["accuracy"] = _errors(got, expected, atol, rtol, torch)
        if not candidate.dtype and dtype_name != probe.reference_dtype:
            baseline = _errors(_execute(probe, probe.reference, inputs, torch, candidate.forward_only), expected, atol, rtol, torch)
            result["accuracy"]["reference_max_abs"] = baseline["max_abs"]
            if not result["accuracy"]["passed"] and baseline["max_abs"] is not None and result["accuracy"]["max_abs"] is not None:
                result["accuracy"]["passed"] = result["accuracy"]["max_abs"] <= BASELINE_FACTOR * baseline["max_abs"]
        result["fell_back_to_cpu"] = _fell_back(records, got, device)
        result["warnings"] = sorted({str(r.message)[:300] for r in records})[:5]
        count = repeats or REPEATS[size]
        # today's code runs a float64 reference where the device cannot: on the CPU
        timing_inputs = reference_inputs if probe.reference_on_cpu else inputs
        result["candidate_timing"] = _time(lambda: _execute(probe, candidate.run, inputs, torch, candidate.forward_only),
                                           torch, device, count)
        if undo:
            undo()
            undo = None
        result["reference_timing"] = _time(
            lambda: _execute(probe, probe.reference, timing_inputs, torch, candidate.forward_only), torch, device, count)
        if result["candidate_timing"]["median_ms"] > 0:
            result["speedup"] = round(result["reference_timing"]["median_ms"] / result["candidate_timing"]["median_ms"], 3)
    except Exception as exc:  # the probe records the failure; one candidate never stops the run
        result["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
    finally:
        if undo:
            undo()
    result["verdict"] = _verdict(result)
    return result


def _reference_inputs(probe: Probe, inputs: dict, size: str, torch, device: str) -> dict:
    """The inputs of the accuracy reference: the same values in the reference dtype (and on the CPU if asked)."""
    dtype = getattr(torch, probe.reference_dtype)
    target = "cpu" if probe.reference_on_cpu else device
    if probe.regenerate_reference_inputs:
        return _inputs(probe, size, dtype, target, torch)
    return {k: (v.to(device=target, dtype=dtype) if v.is_floating_point() else v.to(target)) for k, v in inputs.items()}


COLLECTIVE_BACKENDS = {"npu": "hccl", "cuda": "nccl", "cpu": "gloo"}


def _run_collectives(result: dict, probe: Probe, size: str, device: str, device_count: int, torch) -> dict:
    """all_reduce SUM (and AVG where the backend has it), all_gather and reduce_scatter, one process per device,
    checked against the exact results. On the CPU (gloo) it only runs when asked for more than one process."""
    import tempfile

    import torch.multiprocessing as mp

    backend = COLLECTIVE_BACKENDS[device]
    world = min(device_count, 8)
    with tempfile.TemporaryDirectory() as folder:
        store = os.path.join(folder, "store")
        report = os.path.join(folder, "report.json")
        try:
            mp.spawn(_collective_worker, args=(world, backend, device, probe.shapes[size]["numel"], store, report),
                     nprocs=world, join=True)
            with open(report, encoding="utf-8") as handle:
                measured = json.load(handle)
        except Exception as exc:
            result["error"] = f"{type(exc).__name__}: {str(exc)[:500]}"
            result["verdict"] = "error"
            return result
    result["accuracy"] = {"max_abs": measured["max_abs"], "mean_abs": None, "max_rel": None, "mean_rel": None,
                          "passed": measured["passed"]}
    result["candidate_timing"] = measured["timing"]
    result["tolerance"] = {"atol": 1e-5, "rtol": 1e-5}
    result["warnings"] = measured["notes"]
    result["verdict"] = "good" if measured["passed"] else "wrong"
    return result


def _collective_worker(rank, world, backend, device, numel, store, report):
    import torch
    import torch.distributed as dist

    if device == "npu":
        import torch_npu  # noqa: F401
    if device != "cpu":
        getattr(torch, device).set_device(rank)
    dist.init_process_group(backend, init_method=f"file://{store}", rank=rank, world_size=world)
    target = torch.device(device, rank) if device != "cpu" else torch.device("cpu")
    base = torch.arange(numel, dtype=torch.float32, device=target) % 97
    total = sum(range(1, world + 1))
    worst, passed, samples, notes = 0.0, True, [], []
    operations = [(dist.ReduceOp.SUM, base * total)]
    if backend != "gloo":  # gloo has no AVG; HCCL's is a sum then a division in torch_npu
        operations.append((dist.ReduceOp.AVG, base * total / world))
    else:
        notes.append("ReduceOp.AVG not checked: gloo has no AVG")
    for op, expected in operations:
        tensor = base * (rank + 1)
        start = time.perf_counter()
        dist.all_reduce(tensor, op=op)
        _synchronize(torch, device)
        samples.append((time.perf_counter() - start) * 1000)
        error = float((tensor - expected).abs().max())
        worst, passed = max(worst, error), passed and error <= 1e-5 * float(expected.abs().max() + 1)
    gathered = [torch.empty_like(base) for _ in range(world)]
    dist.all_gather(gathered, base + rank)
    passed = passed and all(float((g - (base + r)).abs().max()) == 0 for r, g in enumerate(gathered))
    part = numel // world
    if backend != "gloo":
        chunk = torch.empty(part, dtype=torch.float32, device=target)
        dist.reduce_scatter(chunk, [base[i * part:(i + 1) * part].clone() for i in range(world)])
        passed = passed and float((chunk - world * base[rank * part:(rank + 1) * part]).abs().max()) <= 1e-3
    else:
        notes.append("reduce_scatter not checked: gloo has no reduce_scatter")
    if rank == 0:
        with open(report, "w", encoding="utf-8") as handle:
            json.dump({"max_abs": worst, "passed": passed, "notes": notes,
                       "timing": {"median_ms": round(statistics.median(samples), 4), "p95_ms": round(max(samples), 4),
                                  "repeats": len(samples)}}, handle)
    dist.destroy_process_group()


def run_probes(device: str = "auto", names: list[str] | None = None, sizes: tuple[str, ...] = ("small",),
               repeats: int | None = None, progress: Callable | None = None, environment: dict | None = None) -> dict:
    """Run the chosen probes and return the calibration document (schema version 1)."""
    environment = environment if environment is not None else detect_environment()
    import torch

    _import_torch_npu_if_present()
    chosen = [p for p in PROBES if not names or p.name in names]
    unknown = sorted(set(names or ()) - {p.name for p in PROBES})
    if unknown:
        raise ValueError(f"unknown probe(s): {', '.join(unknown)}; known: {', '.join(probe_names())}")
    kind, count = pick_device(device, torch)
    environment = dict(environment, device_type=kind, device_count=count,
                       device_name=environment.get("device_names", {}).get(kind) or platform.machine() or "cpu")  # not processor(): it starts `uname -p`
    total = sum(planned_runs(p) for p in chosen) * len(sizes)
    done = 0

    def step(label: str) -> None:
        nonlocal done
        done += 1
        if progress:
            progress(done, total, label)

    results = []
    torch.manual_seed(0)
    for size in sizes:
        for probe in chosen:
            results.extend(run_probe(probe, size, kind, count, torch, repeats, step))
    return {
        "schema_version": SCHEMA_VERSION,
        "created": datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"),
        "tool": "ascend-feasibility probes",
        "environment": environment,
        "sizes": list(sizes),
        "results": results,
    }

