"""The environment check of `probe env`: Python, torch, torch_npu, CANN, driver and devices, against the
compatibility table, with advice for the failures known to happen on Ascend hosts."""

from __future__ import annotations

import json
import os
import platform
import re
import subprocess
import sys

# Compatibility table (torch_npu release → torch, CANN); filled in by `probe export`, passed in by the CLI.
COMPATIBILITY: list[dict] = []

_ENVIRONMENT_SNIPPET = r'''
import json, os, platform, sys
info = {"python": platform.python_version(), "devices": {}, "device_names": {}}
try:
    import torch
    info["torch"] = torch.__version__
    info["cuda"] = torch.version.cuda
except BaseException as exc:
    info["torch_error"] = f"{type(exc).__name__}: {exc}"
if "torch" in info:
    try:
        import torch_npu
        info["torch_npu"] = getattr(torch_npu, "__version__", "unknown")
        try:  # torch_npu's own answer, from CANN 8.1.RC1 on
            from torch_npu.utils import get_cann_version
            info["cann"] = get_cann_version(module="CANN") or None
        except BaseException:
            pass
    except ModuleNotFoundError as exc:
        if exc.name != "torch_npu":
            info["torch_npu_error"] = f"{type(exc).__name__}: {exc}"
    except BaseException as exc:
        info["torch_npu_error"] = f"{type(exc).__name__}: {exc}"
    for kind in ("npu", "cuda"):
        module = getattr(torch, kind, None)
        try:
            if module is not None and module.is_available():
                info["devices"][kind] = module.device_count()
                info["device_names"][kind] = module.get_device_name(0)
        except BaseException:
            pass
print("@@ENV@@" + json.dumps(info))
'''

# Under the toolkit home (…/ascend-toolkit/latest, or …/ascend-toolkit with latest/ below), most telling first.
CANN_VERSION_FILES = (
    "{arch}-linux/ascend_toolkit_install.info", "latest/{arch}-linux/ascend_toolkit_install.info",
    "compiler/version.info", "latest/compiler/version.info", "version.cfg", "latest/version.cfg",
)


def detect_environment(python: str | None = None, env: dict | None = None, timeout: float = 300,
                       table: list[dict] | None = None) -> dict:
    """What this host has: Python, torch, torch_npu, CANN, driver, devices. torch is imported in a child process,
    because a torch_npu without CANN makes `import torch` itself fail and leaves the importing process unusable."""
    # What the child process does not report stays at these values; it reports only what it found.
    info = {"python": platform.python_version(), "platform": host_platform(), "torch": None, "torch_error": None,
            "torch_npu": None, "torch_npu_error": None, "cuda": None, "devices": {}, "device_names": {}, "cann": None}
    try:
        # Run from the file-system root with the safe path on: `python -c` would put the working folder (perhaps
        # a project being checked, with a torch.py of its own) first on sys.path.
        done = subprocess.run([python or sys.executable, "-c", _ENVIRONMENT_SNIPPET], capture_output=True, text=True,
                              timeout=timeout, env={**(os.environ if env is None else env), "PYTHONSAFEPATH": "1"},
                              cwd=os.path.abspath(os.sep))
        marker = next((line for line in done.stdout.splitlines() if line.startswith("@@ENV@@")), None)
        if marker is None:
            info["torch_error"] = f"the environment check crashed (exit {done.returncode}): {_tail(done.stderr)}"
        else:
            info.update(json.loads(marker[len("@@ENV@@"):]))
    except (OSError, subprocess.SubprocessError) as exc:
        info["torch_error"] = f"the environment check could not run: {exc}"
    info["cann"] = info.get("cann") or _cann_version()
    info["driver"] = _driver_version()
    info["problems"] = diagnose(info)
    info["compatibility"] = check_compatibility(info.get("torch"), info.get("torch_npu"), info["cann"], table)
    return info


def host_platform() -> str:
    """What platform.platform() says (`Linux-5.15.0-x86_64-with-glibc2.35`) without the `uname -p` process it starts
    for the processor name."""
    if hasattr(os, "uname"):
        name = os.uname()
        parts = [name.sysname, name.release, name.machine]
    else:  # Windows: platform.uname() reads the processor from the environment there
        parts = [platform.system(), platform.release(), platform.machine()]
    libc, version = platform.libc_ver() if sys.platform.startswith("linux") else ("", "")
    return "-".join(parts + (["with", f"{libc}{version}"] if libc else []))


def _tail(text: str, lines: int = 5) -> str:
    return " | ".join(text.strip().splitlines()[-lines:])


def _ascend_home() -> str:
    return os.environ.get("ASCEND_HOME_PATH") or os.environ.get("ASCEND_TOOLKIT_HOME") or "/usr/local/Ascend/ascend-toolkit"


def _cann_version() -> str | None:
    home = _ascend_home()
    for name in CANN_VERSION_FILES:
        version = _read_version(os.path.join(home, name.format(arch=platform.machine())))
        if version:
            return version.rsplit(":", 1)[-1]  # version.cfg writes "[7.0.0.5.242:7.0.RC1]"
    return None


def _driver_version() -> str | None:
    return _read_version("/usr/local/Ascend/driver/version.info")


def _read_version(path: str) -> str | None:
    try:
        with open(path, encoding="utf-8", errors="replace") as handle:
            text = handle.read(65536)
    except OSError:
        return None
    match = re.search(r"^\s*(?:Version|version|toolkit_running_version|runtime_running_version)\s*=\s*\[?([^\]\s]+)", text, re.M)
    return match.group(1) if match else None


KNOWN_FAILURES = (
    ("Failed to load the backend extension: torch_npu",
     "torch_npu is installed but could not load, and torch loads it automatically, so `import torch` fails. Source the "
     "CANN environment (e.g. `source /usr/local/Ascend/ascend-toolkit/set_env.sh`) or, to run without the NPU, set "
     "TORCH_DEVICE_BACKEND_AUTOLOAD=0."),
    ("Two accelerators cannot be used at the same time",
     "torch_npu refuses to load beside another accelerator (for example a CUDA build of torch). Install the CPU build "
     "of torch with the matching torch_npu, or run the probes on the CUDA device without torch_npu."),
    ("libhccl.so", "torch_npu cannot find the CANN libraries (libhccl.so): install CANN at the version the "
     "compatibility table names and source its set_env.sh before running."),
    ("libascendcl.so", "torch_npu cannot find the CANN runtime (libascendcl.so): install CANN and source its set_env.sh."),
    ("No module named 'torch'", "torch is not installed: install the torch version that your torch_npu requires "
     "(the CPU build on Ascend hosts)."),
)


def diagnose(info: dict) -> list[dict]:
    problems = []
    for field_name in ("torch_error", "torch_npu_error"):
        message = info.get(field_name)
        if not message:
            continue
        advice = next((text for needle, text in KNOWN_FAILURES if needle in message), None)
        problems.append({"where": field_name.split("_error")[0], "error": message,
                         "advice": advice or "unexpected error: see the message above"})
    if info.get("torch") is None and not info.get("torch_error"):
        problems.append({"where": "torch", "error": "torch is not installed", "advice": KNOWN_FAILURES[-1][1]})
    if info.get("torch_npu") and not info.get("cann"):
        problems.append({"where": "cann", "error": "no CANN version file found",
                         "advice": "set ASCEND_HOME_PATH (source set_env.sh) so the CANN version can be checked"})
    return problems


def check_compatibility(torch_version: str | None, torch_npu_version: str | None, cann: str | None,
                        table: list[dict] | None = None) -> dict:
    """torch_npu requires exactly its torch (major.minor.patch) and names its CANN: check them against the table."""
    table = COMPATIBILITY if table is None else table
    if not torch_npu_version:
        return {"status": "not-applicable", "message": "torch_npu is not loaded: no torch/torch_npu/CANN fit to check"}
    row = next((r for r in table if r["torch_npu"] == _base_version(torch_npu_version)), None) or \
        next((r for r in table if r["torch_npu"] == torch_npu_version), None)
    if row is None:
        return {"status": "unknown", "message": f"torch_npu {torch_npu_version} is not in the compatibility table"}
    problems = []
    if torch_version and _release(torch_version) != _release(row["torch"]):
        problems.append(f"torch {torch_version} installed, torch_npu {row['torch_npu']} requires torch {row['torch']}")
    if cann and not cann.startswith(row["cann"].split(".RC")[0].split(".alpha")[0]):
        problems.append(f"CANN {cann} installed, torch_npu {row['torch_npu']} is released with CANN {row['cann']}")
    if problems:
        return {"status": "mismatch", "message": "; ".join(problems)}
    return {"status": "ok", "message": f"torch_npu {row['torch_npu']} fits torch {row['torch']} and CANN {row['cann']}"}


def _release(version: str) -> str:
    return ".".join(re.split(r"[+]", version)[0].split(".")[:3])


def _base_version(version: str) -> str:
    return version.split("+")[0]

