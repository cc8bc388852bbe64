"""Generate knowledge/torch_npu/ops.toml: which torch_npu custom operators exist on which release.

The facts come from Ascend/op-plugin's release-line branches (5.0.0 … 26.1.0), one per torch_npu release line
(a torch_npu branch ``v2.6.0-7.2.0`` is built with op-plugin ``7.2.0``). Each line's
``op_plugin/config/op_plugin_functions.yaml`` lists the custom operators (``custom:`` and ``quant:``) with the torch
versions whose build registers them (``acl_op`` / ``op_api``: ``all_version``, ``[v2.1, newest]``, ``[v2.1, v2.4]``
or ``v2.1, v2.2``). Lines before 6.0.rc3 keep one file per torch version (``op_plugin/config/v2r1/…``) in which a
listed operator exists. Every operator registered under ``torch.ops.npu`` is exported as ``torch_npu.<name>``
(``torch_npu/__init__.py``).

The ``[aten]`` table lists, the same way, which of PyTorch's own fused optimizer kernels (``aten::_fused_adamw_``,
``_fused_adam_``, ``_fused_sgd_``, ``_fused_adagrad_``: what ``torch.optim.X(fused=True)`` calls) the line registers
for the NPU (section ``official``). torch_npu's own ``torch_npu/csrc/aten/npu_native_functions.yaml`` registers none
of them on any release branch, so op-plugin is the whole answer.

Run with a local clone (bare or not) of Ascend/op-plugin; the repository never needs the network at test time:

    python -m knowledge.generate_ops --op-plugin /path/to/op-plugin.git --torch-npu /path/to/Ascend-pytorch.git

With ``--torch-npu`` (a clone of Ascend/pytorch with its release branches) the same command also writes
knowledge/operators/ (knowledge/generate_aten.py): the ATen operators each torch_npu release registers for the NPU.
"""

from __future__ import annotations

import argparse
import re
import subprocess
import sys
from dataclasses import dataclass, field
from pathlib import Path

import yaml
from ascend_feasibility.knowledge.availability import line_key, line_of, torch_minor

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover
    import tomli as tomllib

KNOWLEDGE_DIR = Path(__file__).resolve().parent
OUTPUT = KNOWLEDGE_DIR / "torch_npu" / "ops.toml"
SECTIONS = ("custom", "quant")
ATEN_SECTION = "official"
# PyTorch's fused optimizer kernels (torch/optim/{adamw,adam,sgd,adagrad}.py call torch._fused_X_ when fused=True)
ATEN_KERNELS = ("_fused_adamw_", "_fused_adam_", "_fused_sgd_", "_fused_adagrad_")
UNIFIED = "op_plugin/config/op_plugin_functions.yaml"


def release_lines() -> list[str]:
    """The op-plugin lines the torch_npu releases of releases.toml are built with, oldest first."""
    with (KNOWLEDGE_DIR / "torch_npu" / "releases.toml").open("rb") as handle:
        releases = tomllib.load(handle)["release"]
    return sorted({line_of(r["branch"]) for r in releases}, key=line_key)


def parse_spec(spec, all_versions: list[str]) -> list[str]:
    """The torch versions an ``acl_op``/``op_api`` value names (``v`` prefix dropped), in all_version order."""
    if spec is None or spec is False:
        return []
    if spec == "all_version":
        return [torch_minor(v) for v in all_versions]
    if isinstance(spec, list) and len(spec) == 2 and not isinstance(spec[0], list):
        first, last = str(spec[0]), str(spec[1])
        names = [str(v) for v in all_versions]
        if first in names and (last == "newest" or last in names):
            end = len(names) - 1 if last == "newest" else names.index(last)
            return [torch_minor(v) for v in names[names.index(first) : end + 1]]
    items = spec if isinstance(spec, list) else str(spec).split(",")
    known = {torch_minor(v) for v in all_versions}
    named = [torch_minor(str(item).strip()) for item in items if str(item).strip()]
    unknown = [v for v in named if v not in known]
    if unknown:
        raise ValueError(f"version spec {spec!r} names versions outside all_version: {unknown}")
    return [torch_minor(v) for v in all_versions if torch_minor(v) in named]


def op_name(func: str) -> str:
    """``npu_rotary_mul.out(Tensor self, …) -> Tensor`` -> ``npu_rotary_mul``."""
    return func.split("(", 1)[0].split(".", 1)[0].strip()


def op_params(func: str) -> set[str]:
    """The parameter names of a schema: ``f(Tensor self, str rotary_mode='half') -> Tensor`` -> {self, rotary_mode}."""
    inside = func.split("(", 1)[1].rsplit("->", 1)[0].rstrip().removesuffix(")")
    params, depth, current = set(), 0, ""
    for char in inside + ",":
        if char in "([":
            depth += 1
        elif char in ")]":
            depth -= 1
        if char == "," and depth == 0:
            declaration = current.split("=", 1)[0].split()
            if declaration and declaration != ["*"]:
                params.add(declaration[-1])
            current = ""
        else:
            current += char
    return params


@dataclass
class OpFacts:
    """One operator on one op-plugin line: the torch versions that register it, and its parameters' names."""

    versions: set[str] = field(default_factory=set)
    params: set[str] = field(default_factory=set)


def _record(found: dict[str, OpFacts], func: str, versions: set[str], aten: bool = False) -> None:
    name = op_name(func)
    if not versions or (name not in ATEN_KERNELS if aten else name.startswith("_")):
        return
    facts = found.setdefault(name, OpFacts())
    facts.versions |= versions
    if "." not in func.split("(", 1)[0]:  # the base overload's parameters; .out and friends add the output only
        facts.params |= op_params(func)


def ops_of_unified(text: str, aten: bool = False) -> dict[str, OpFacts]:
    """Operator -> facts, from one line's unified op_plugin_functions.yaml (aten: the fused optimizer kernels)."""
    data = yaml.safe_load(text)
    all_versions = [str(v) for v in data["all_version"]]
    found: dict[str, OpFacts] = {}
    for section in (ATEN_SECTION,) if aten else SECTIONS:
        for entry in data.get(section) or []:
            versions = set(parse_spec(entry.get("acl_op"), all_versions)) | set(parse_spec(entry.get("op_api"), all_versions))
            _record(found, entry["func"], versions, aten)
    return found


def ops_of_per_version(files: dict[str, str], aten: bool = False) -> dict[str, OpFacts]:
    """Operator -> facts, from the per-version files (``v2r1`` -> 2.1) of the lines before 6.0.rc3."""
    found: dict[str, OpFacts] = {}
    for folder, text in files.items():
        major, minor = re.fullmatch(r"v(\d+)r(\d+)", folder).groups()
        data = yaml.safe_load(text)
        for section in (ATEN_SECTION,) if aten else SECTIONS:
            for entry in data.get(section) or []:
                _record(found, entry["func"], {f"{major}.{minor}"}, aten)
    return found


def _git(repo: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(_git_dir(repo)), *args], check=True, capture_output=True, text=True).stdout


def _git_dir(repo: Path) -> Path:
    return repo / ".git" if (repo / ".git").exists() else repo


def _branch_ref(repo: Path, line: str) -> str:
    refs = _git(repo, "for-each-ref", "--format=%(refname)", f"refs/heads/{line}", f"refs/remotes/origin/{line}").split()
    if not refs:
        raise SystemExit(f"op-plugin branch {line} not found in {repo}")
    return refs[0]


def read_line(repo: Path, line: str) -> tuple[str, dict[str, OpFacts], dict[str, OpFacts]]:
    """The line's commit, its custom operators and the fused optimizer kernels it registers."""
    ref = _branch_ref(repo, line)
    commit = _git(repo, "rev-parse", ref).strip()
    folders = sorted(
        {p.split("/")[2] for p in _git(repo, "ls-tree", "-r", "--name-only", ref, "op_plugin/config").split()
         if re.fullmatch(r"op_plugin/config/v\d+r\d+/op_plugin_functions\.yaml", p)}
    )
    if folders:
        texts = {f: _git(repo, "show", f"{ref}:op_plugin/config/{f}/op_plugin_functions.yaml") for f in folders}
        return commit, ops_of_per_version(texts), ops_of_per_version(texts, aten=True)
    text = _git(repo, "show", f"{ref}:{UNIFIED}")
    return commit, ops_of_unified(text), ops_of_unified(text, aten=True)


def collapse(versions: set[str], order: list[str]) -> str:
    """``{"2.1", "2.2", "2.3", "2.6"}`` -> ``"2.1-2.3,2.6"`` along the order of known torch versions."""
    runs: list[list[str]] = []
    previous = None
    for version in order:
        if version in versions:
            if previous is not None and order.index(previous) == order.index(version) - 1 and runs:
                runs[-1].append(version)
            else:
                runs.append([version])
            previous = version
    return ",".join(r[0] if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def render(lines: dict[str, tuple[str, dict[str, OpFacts], dict[str, OpFacts]]]) -> str:
    order = sorted(
        {v for _, ops, aten in lines.values() for facts in [*ops.values(), *aten.values()] for v in facts.versions},
        key=lambda v: tuple(map(int, v.split("."))),
    )
    names = sorted({n for _, ops, _ in lines.values() for n in ops})
    out = [
        "# GENERATED by `python -m knowledge.generate_ops --op-plugin PATH` from Ascend/op-plugin's release-line branches",
        "# (op_plugin/config/op_plugin_functions.yaml, sections custom and quant; op_plugin/config/v2rN/ before 6.0.rc3).",
        "# op.NAME maps an op-plugin line to the torch versions whose torch_npu build registers torch_npu.NAME there.",
        "# A torch_npu release (branch v<torch>-<line>) has the operator when its torch version is listed for its line.",
        "# signature.NAME: its parameters on the newest line that has it; param_since.NAME: parameters some older line",
        "# with the operator lacks, and the line from which every line has them.",
        "# aten.NAME: the same for PyTorch's fused optimizer kernels (section official) that torch.optim's fused=True calls;",
        "# a kernel no line registers is listed with an empty table.",
        "# Do not hand-edit; regenerate.",
        "",
        'source = "Ascend/op-plugin:op_plugin/config/op_plugin_functions.yaml"',
        "",
        "[line_commit]",
    ]
    out += [f'"{line}" = "{commit}"' for line, (commit, _, _) in lines.items()]
    out += ["", "[op]"]
    for name in names:
        cells = [f'"{line}" = "{collapse(ops[name].versions, order)}"' for line, (_, ops, _) in lines.items() if name in ops]
        out.append(f"{name} = {{ {', '.join(cells)} }}")
    out += ["", "[aten]"]
    for name in sorted(ATEN_KERNELS):
        cells = [f'"{line}" = "{collapse(aten[name].versions, order)}"' for line, (_, _, aten) in lines.items() if name in aten]
        out.append(f"{name} = {{ {', '.join(cells)} }}" if cells else f"{name} = {{}}")
    out += ["", "[signature]"]
    for name in names:
        newest = [ops[name] for _, ops, _ in lines.values() if name in ops][-1]
        quoted = ", ".join('"' + param + '"' for param in sorted(newest.params))
        out.append(f"{name} = [{quoted}]")
    out += ["", "[param_since]"]
    for name in names:
        since = param_since([ops.get(name) for _, ops, _ in lines.values()], list(lines))
        if since:
            cells = [f'{param} = "{line}"' for param, line in sorted(since.items())]
            out.append(f"{name} = {{ {', '.join(cells)} }}")
    return "\n".join(out) + "\n"


def param_since(per_line: list[OpFacts | None], line_names: list[str]) -> dict[str, str]:
    """Parameters that an older line with the operator lacks -> the first line from which every line with it has them."""
    present = [(line, facts) for line, facts in zip(line_names, per_line) if facts is not None]
    since = {}
    for param in set().union(*(facts.params for _, facts in present)) if present else set():
        if all(param in facts.params for _, facts in present):
            continue
        first = next((i for i in range(len(present)) if all(param in f.params for _, f in present[i:])), None)
        if first is not None:  # None: a parameter that a newer line dropped again; the signature leaves it out
            since[param] = present[first][0]
    return since


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--op-plugin", type=Path, required=True, help="a local git clone (bare or not) of Ascend/op-plugin")
    parser.add_argument("--output", type=Path, default=OUTPUT)
    parser.add_argument("--torch-npu", type=Path, help="a local git clone (bare or not) of Ascend/pytorch: also write knowledge/operators/")
    args = parser.parse_args(argv)
    lines = {line: read_line(args.op_plugin, line) for line in release_lines()}
    args.output.write_text(render(lines), encoding="utf-8")
    rows = sum(len(ops) for _, ops, _ in lines.values())
    print(f"{args.output}: {rows} operator rows and the fused optimizer kernels over {len(lines)} lines")
    if args.torch_npu is not None:
        print(_generate_aten(args))
    return 0


def _generate_aten(args) -> str:
    import torch
    import torchgen
    from ascend_feasibility.knowledge import generate_aten

    # the installed torch's native_functions.yaml and Python surface (torch.functional, Tensor, torch.nn.functional)
    native = Path(torchgen.__file__).parent / "packaged" / "ATen" / "native" / "native_functions.yaml"
    version = torch.__version__.split("+")[0]
    with (KNOWLEDGE_DIR / "torch_npu" / "releases.toml").open("rb") as handle:
        releases = tomllib.load(handle)["release"]
    return generate_aten.generate(args.op_plugin, args.torch_npu, releases, native, version, parse_spec, torch_minor)


if __name__ == "__main__":
    raise SystemExit(main())
