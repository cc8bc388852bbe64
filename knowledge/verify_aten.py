"""Spot-check knowledge/operators/npu_aten.toml against the yaml files, read as text (regular expressions over the
yaml, independently of knowledge/generate_aten.py, which parses it): 25 random rows per release line, some of them
drawn from operators that need a kernel and that no release registers. Exits 1 on a mismatch.

    python -m knowledge.verify_aten --op-plugin PATH --torch-npu PATH
"""

from __future__ import annotations

import argparse
import random
import re
import subprocess
import sys
from pathlib import Path

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

HERE = Path(__file__).resolve().parent
ROWS_PER_LINE = 25


def _git(git_dir: str, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", git_dir, *args], capture_output=True, text=True).stdout


def _indices(ranges: str) -> set[int]:
    found: set[int] = set()
    for part in filter(None, ranges.split(",")):
        low, _, high = part.partition("-")
        found |= set(range(int(low), int(high or low) + 1))
    return found


def _versions_hold(block: str, torch: str, all_versions: list[str]) -> bool:
    for key in ("acl_op", "op_api"):
        match = re.search(rf"^\s+{key}:\s*(.+)$", block, re.M)
        if not match:
            continue
        spec = match.group(1).strip()
        if spec == "all_version":
            return True
        span = re.fullmatch(r"\[\s*(v[\d.]+)\s*,\s*(newest|v[\d.]+)\s*\]", spec)
        if span:
            low, high = span.groups()
            end = len(all_versions) - 1 if high == "newest" else all_versions.index(high)
            if "v" + torch in all_versions[all_versions.index(low) : end + 1]:
                return True
        elif "v" + torch in [v.strip() for v in spec.strip("[]").split(",")]:
            return True
    return False


def yaml_registers(op_plugin: str, torch_npu: str, commit: str, branch: str, torch: str, overload: str) -> bool | None:
    """What the yaml files say; None for the _foreach_ kernels the code generator registers (not in the yaml)."""
    if overload.startswith("_foreach_"):
        return None
    files = _git(op_plugin, "ls-tree", "-r", "--name-only", commit, "op_plugin/config").split()
    per_version = f"op_plugin/config/v{torch.replace('.', 'r')}/op_plugin_functions.yaml"
    found = False
    if any(re.search(r"/v\d+r\d+/op_plugin_functions", f) for f in files):
        text = _git(op_plugin, "show", f"{commit}:{per_version}") if per_version in files else ""
        found = re.search(rf"func:\s*{re.escape(overload)}\(", text) is not None
    else:
        text = _git(op_plugin, "show", f"{commit}:op_plugin/config/op_plugin_functions.yaml")
        all_versions = re.search(r"all_version:\s*\[(.*)\]", text).group(1).replace(" ", "").split(",")
        found = any(block.strip().startswith(overload + "(") and _versions_hold(block, torch, all_versions)
                    for block in re.split(r"\n\s*- func:", text))
    own = _git(torch_npu, "show", f"refs/heads/{branch}:torch_npu/csrc/aten/npu_native_functions.yaml")
    return found or re.search(rf"^\s*-\s*(func:\s*)?{re.escape(overload)}(\(|\s*$)", own, re.M) is not None


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op-plugin", required=True, help="a git clone of Ascend/op-plugin")
    parser.add_argument("--torch-npu", required=True, help="a git clone of Ascend/pytorch")
    parser.add_argument("--seed", type=int, default=23)
    args = parser.parse_args(argv)
    with (HERE / "operators" / "npu_aten.toml").open("rb") as handle:
        table = tomllib.load(handle)
    with (HERE / "operators" / "aten_schema.toml").open("rb") as handle:
        kernels = tomllib.load(handle)["kernel"]
    with (HERE / "torch_npu" / "releases.toml").open("rb") as handle:
        torch_of = {r["branch"]: ".".join(r["torch"].split(".")[:2]) for r in tomllib.load(handle)["release"]}
    registered = {name: _indices(ranges) for name, ranges in table["registered"].items()}
    branches = table["releases"]
    names, never = sorted(registered), sorted(k for k in kernels if k not in registered)
    lines: dict[str, list[str]] = {}
    for branch in branches:
        lines.setdefault(branch.split("-", 1)[1], []).append(branch)
    rng = random.Random(args.seed)
    total = mismatches = positive = 0
    for line, members in lines.items():
        for _ in range(ROWS_PER_LINE):
            branch = rng.choice(members)
            overload = rng.choice(names) if rng.random() < 0.7 else rng.choice(never + names)
            want = yaml_registers(args.op_plugin, args.torch_npu, table["op_plugin_commit"][branch], branch,
                                  torch_of[branch], overload)
            if want is None:
                continue
            got = branches.index(branch) in registered.get(overload, set())
            total, positive = total + 1, positive + got
            if want != got:
                mismatches += 1
                print(f"MISMATCH {line} {branch} {overload}: yaml {want}, table {got}")
    print(f"{total} rows over {len(lines)} lines ({positive} registered, {total - positive} not): {mismatches} mismatches")
    return 1 if mismatches else 0


if __name__ == "__main__":
    raise SystemExit(main())
