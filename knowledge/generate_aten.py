"""Generate knowledge/operators/: which ATen operators torch_npu runs on the NPU, per release, and how Python calls
reach them. Run through ``python -m knowledge.generate_ops --op-plugin PATH --torch-npu PATH`` (one command writes
ops.toml and these tables).

Registrations (``npu_aten.toml``): for each torch_npu release of releases.toml, the ATen overloads registered for
the NPU (dispatch key PrivateUse1) by

- op-plugin at the commit the release branch pins (the ``third_party/op-plugin`` gitlink of Ascend/pytorch's
  branch): ``op_plugin/config/op_plugin_functions.yaml`` sections ``official``, ``autograd``, ``symint`` and ``quant``
  (the last three also hold custom ``npu_*`` operators; only names that are ATen operators count; ``quant`` holds
  ``dequantize.self``, whose dispatch key the yaml does not say: counted as registered), an entry counting when its
  ``acl_op`` or ``op_api`` version list holds the release's torch version; before 6.0.rc3 the per-version file
  ``op_plugin/config/v<major>r<minor>/op_plugin_functions.yaml`` of the release's torch version (sections ``tocpu``
  and ``unsupported`` of the 6.0.rc3-7.1.0 lines name only torch 1.11 and 2.0; the generator stops if one names a
  release's torch);
- the branch's own ``torch_npu/csrc/aten/npu_native_functions.yaml`` (``supported``, ``autograd``, ``symint``);
- the branch's code generator, which registers PyTorch's CPU kernel of every ``_foreach_*`` overload the yaml files
  leave out (``torchnpugen/gen_backend_stubs.py`` ``gen_foreach_register``; each of them loops over per-tensor ops
  that dispatch to the NPU).

Operators (``aten_schema.toml``): from PyTorch's ``native_functions.yaml`` (the one the installed torch wheel ships
under ``torchgen/packaged/``), the overloads that need a backend kernel: a dense ``CPU``/``CUDA`` dispatch entry or a
``structured_delegate`` and no ``CompositeImplicitAutograd``/``CompositeExplicitAutograd`` kernel (those decompose
into other operators on any backend). Each lists the overloads whose NPU registration also covers it (its
structured delegate, its ``out`` form): a registry that lists only the ``.out`` form is taken as registering the
function, never guessed as a fallback. Plus the Python names (``torch.X``, ``torch.nn.functional.X`` through
``torch._C._nn``, ``torch.linalg/fft/special.X``, ``Tensor.X``) that reach each operator, from ``variants`` and
``python_module``, and the schemas the call's arguments choose an overload by.
"""

from __future__ import annotations

import re
import subprocess
from dataclasses import dataclass
from pathlib import Path

import yaml

KNOWLEDGE_DIR = Path(__file__).resolve().parent
OUTPUT_DIR = KNOWLEDGE_DIR / "operators"
REGISTRATION_SECTIONS = ("official", "autograd", "symint", "quant")
ROUTED_SECTIONS = ("tocpu", "unsupported")
NPU_YAML = "torch_npu/csrc/aten/npu_native_functions.yaml"
NPU_YAML_SECTIONS = ("supported", "autograd", "symint")
FOREACH_GENERATOR = "gen_foreach_register"
COMPOSITE_KEYS = {"CompositeImplicitAutograd", "CompositeExplicitAutograd", "CompositeExplicitAutogradNonFunctional"}
DENSE_KEYS = {"CPU", "CUDA"}
MODULE_PREFIX = {None: "torch", "nn": "torch.nn.functional", "linalg": "torch.linalg", "fft": "torch.fft",
                 "special": "torch.special"}


def overload_of(func: str) -> str:
    """``isin.Tensor_Tensor(Tensor elements, …) -> Tensor`` -> ``isin.Tensor_Tensor``; ``abs`` stays ``abs``."""
    return func.split("(", 1)[0].strip()


def base_of(overload: str) -> str:
    return overload.split(".", 1)[0]


@dataclass(frozen=True)
class Operator:
    """One overload of native_functions.yaml."""

    overload: str
    schema: str
    needs_kernel: bool  # no composite kernel: the backend must register it (or its out form)
    cpu_kernel: bool  # PyTorch has a CPU kernel, so torch_npu's fallback can run it on the host
    covered_by: tuple[str, ...]  # other overloads whose registration counts for this one
    variants: tuple[str, ...]
    python_module: str | None


def read_native_functions(text: str) -> dict[str, Operator]:
    entries = yaml.safe_load(text)
    keys_of = {}
    for entry in entries:
        dispatch = entry.get("dispatch") or {}
        keys_of[overload_of(entry["func"])] = {k.strip() for key in dispatch for k in key.split(",")}
    operators = {}
    for entry in entries:
        overload = overload_of(entry["func"])
        keys = keys_of[overload]
        delegate = entry.get("structured_delegate")
        composite = bool(keys & COMPOSITE_KEYS) or (not keys and not delegate)
        dense = bool(keys & DENSE_KEYS) or bool(delegate)
        cpu = "CPU" in keys or (delegate is not None and "CPU" in keys_of.get(delegate, set()))
        variants = tuple(v.strip() for v in str(entry.get("variants", "function")).split(","))
        operators[overload] = Operator(overload, entry["func"], dense and not composite, cpu,
                                       _covering(overload, delegate, keys_of), variants, entry.get("python_module"))
    return operators


def _covering(overload: str, delegate: str | None, known: dict) -> tuple[str, ...]:
    base, _, name = overload.partition(".")
    out = f"{base}.{name}_out" if name else f"{base}.out"
    return tuple(dict.fromkeys(o for o in (delegate, out) if o and o in known and o != overload))


@dataclass(frozen=True)
class PythonSurface:
    """What the installed torch defines in Python over the generated bindings: functions of torch.functional and
    Tensor methods of torch/_tensor.py choose the operator themselves (torch.unique -> _unique2 or unique_dim), so
    they are left to the hand table; torch.nn.functional's names, to map F.X only where F has X."""

    python_functions: frozenset[str]
    python_methods: frozenset[str]
    functional: frozenset[str]

    @classmethod
    def installed(cls) -> "PythonSurface":
        import torch
        import torch.functional
        import torch.nn.functional

        methods = frozenset(n for n in torch.Tensor.__dict__ if not n.startswith("__"))
        return cls(frozenset(torch.functional.__all__), methods, frozenset(dir(torch.nn.functional)))


def python_names(operators: dict[str, Operator], surface: PythonSurface) -> tuple[dict[str, list[str]], dict[str, list[str]]]:
    """Python function names (``torch.linalg.svd``) and Tensor method names -> the overloads they may call."""
    functions: dict[str, list[str]] = {}
    methods: dict[str, list[str]] = {}
    for op in operators.values():
        base = base_of(op.overload)
        if op.overload.endswith("_out") or op.overload.endswith(".out") or base.startswith("_"):
            continue
        if "function" in op.variants and op.python_module in MODULE_PREFIX:
            name = base
            if op.python_module in {"linalg", "fft", "special"}:
                name = base.removeprefix(f"{op.python_module}_")
            if op.python_module is None and name in surface.python_functions:
                continue
            if op.python_module != "nn" or name in surface.functional:
                functions.setdefault(f"{MODULE_PREFIX[op.python_module]}.{name}", []).append(op.overload)
            if op.python_module == "nn":
                functions.setdefault(f"torch._C._nn.{name}", []).append(op.overload)
            if op.python_module is None and name in surface.functional:  # F re-exports torch.relu, conv2d, …
                functions.setdefault(f"torch.nn.functional.{name}", []).append(op.overload)
        if "method" in op.variants and base not in surface.python_methods:
            methods.setdefault(base, []).append(op.overload)
    return functions, methods


def _git(git_dir: Path, *args: str) -> str:
    return subprocess.run(["git", "--git-dir", str(git_dir), *args], check=True, capture_output=True, text=True).stdout


def _git_dir(repo: Path) -> Path:
    return repo / ".git" if (repo / ".git").exists() else repo


def _ref(git_dir: Path, branch: str) -> str:
    refs = _git(git_dir, "for-each-ref", "--format=%(refname)", f"refs/heads/{branch}", f"refs/remotes/origin/{branch}").split()
    if not refs:
        raise SystemExit(f"branch {branch} not found in {git_dir}")
    return refs[0]


def pinned_op_plugin(torch_npu: Path, branch: str) -> str:
    """The op-plugin commit the release branch pins (its third_party/op-plugin gitlink)."""
    line = _git(_git_dir(torch_npu), "ls-tree", _ref(_git_dir(torch_npu), branch), "third_party/op-plugin").split()
    if len(line) < 3 or line[1] != "commit":
        raise SystemExit(f"{branch}: no third_party/op-plugin gitlink")
    return line[2]


def op_plugin_registrations(op_plugin: Path, commit: str, torch: str, aten: set[str], parse_spec) -> set[str]:
    """The ATen overloads op-plugin at `commit` registers for torch version `torch` (``2.1``)."""
    git_dir = _git_dir(op_plugin)
    major, minor = torch.split(".")
    files = _git(git_dir, "ls-tree", "-r", "--name-only", commit, "op_plugin/config").split()
    per_version = f"op_plugin/config/v{major}r{minor}/op_plugin_functions.yaml"
    found: set[str] = set()
    if any(re.fullmatch(r"op_plugin/config/v\d+r\d+/op_plugin_functions\.yaml", f) for f in files):
        if per_version not in files:
            return found
        data = yaml.safe_load(_git(git_dir, "show", f"{commit}:{per_version}")) or {}
        for section in REGISTRATION_SECTIONS:
            found |= {overload_of(e["func"]) for e in data.get(section) or [] if base_of(overload_of(e["func"])) in aten}
        return found
    data = yaml.safe_load(_git(git_dir, "show", f"{commit}:op_plugin/config/op_plugin_functions.yaml"))
    versions = [str(v) for v in data["all_version"]]
    for section in ROUTED_SECTIONS:  # 6.0.rc3-7.1.0 route some operators to the CPU or to an error: torch <= 2.0 only
        for entry in data.get(section) or []:
            if torch in parse_spec(entry.get("version"), versions):
                raise SystemExit(f"{commit}: {section} names {entry['func']} for torch {torch}; teach the tables that outcome")
    for section in REGISTRATION_SECTIONS:
        for entry in data.get(section) or []:
            overload = overload_of(entry["func"])
            if base_of(overload) not in aten:
                continue
            if torch in set(parse_spec(entry.get("acl_op"), versions)) | set(parse_spec(entry.get("op_api"), versions)):
                found.add(overload)
    return found


def torch_npu_registrations(torch_npu: Path, branch: str, aten: set[str]) -> tuple[set[str], bool]:
    """The ATen overloads the branch's own yaml registers, and whether its generator registers the foreach ops."""
    git_dir = _git_dir(torch_npu)
    ref = _ref(git_dir, branch)
    data = yaml.safe_load(_git(git_dir, "show", f"{ref}:{NPU_YAML}")) or {}
    found = set()
    for section in NPU_YAML_SECTIONS:
        for entry in data.get(section) or []:
            name = entry.get("func") if isinstance(entry, dict) else entry
            overload = overload_of(str(name))
            if base_of(overload) in aten:
                found.add(overload)
    grep = subprocess.run(["git", "--git-dir", str(git_dir), "grep", "-l", FOREACH_GENERATOR, ref, "--", "torchnpugen", "codegen"],
                          capture_output=True, text=True)
    foreach = grep.returncode == 0 and bool(grep.stdout.strip())
    return found, foreach


def index_ranges(indices: list[int]) -> str:
    """``[0, 1, 2, 5]`` -> ``"0-2,5"``."""
    runs: list[list[int]] = []
    for i in sorted(indices):
        if runs and runs[-1][-1] == i - 1:
            runs[-1].append(i)
        else:
            runs.append([i])
    return ",".join(str(r[0]) if len(r) == 1 else f"{r[0]}-{r[-1]}" for r in runs)


def _quote(text: str) -> str:
    return '"' + text.replace("\\", "\\\\").replace('"', '\\"') + '"'


def render_registrations(releases: list[dict], commits: dict[str, str], registered: dict[str, set[str]], torch_version: str) -> str:
    branches = [r["branch"] for r in releases]
    names = sorted(set().union(*registered.values()))
    out = [
        "# GENERATED by `python -m knowledge.generate_ops --op-plugin PATH --torch-npu PATH` (knowledge/generate_aten.py).",
        "# The ATen overloads each torch_npu release registers for the NPU: op-plugin's op_plugin_functions.yaml",
        "# (official, autograd, symint; acl_op/op_api version lists; v2rN/ files before 6.0.rc3) at the commit the",
        "# release branch pins as third_party/op-plugin, united with the branch's npu_native_functions.yaml and the",
        "# _foreach_* CPU kernels its code generator registers. registered.OVERLOAD lists indexes into `releases`.",
        "# Do not hand-edit; regenerate.",
        "",
        f'source = "Ascend/pytorch release branches + Ascend/op-plugin pinned commits; ATen names from torch {torch_version}"',
        "releases = [" + ", ".join(_quote(b) for b in branches) + "]",
        "",
        "[op_plugin_commit]",
    ]
    out += [f"{_quote(b)} = {_quote(commits[b])}" for b in branches]
    out += ["", "[registered]"]
    for name in names:
        indices = [i for i, b in enumerate(branches) if name in registered[b]]
        out.append(f"{_quote(name)} = {_quote(index_ranges(indices))}")
    return "\n".join(out) + "\n"


def render_schema(operators: dict[str, Operator], torch_version: str, surface: PythonSurface) -> str:
    functions, methods = python_names(operators, surface)
    out = [
        "# GENERATED by `python -m knowledge.generate_ops --op-plugin PATH --torch-npu PATH` (knowledge/generate_aten.py)",
        f"# from PyTorch {torch_version}'s native_functions.yaml (torchgen/packaged in the torch wheel).",
        "# kernel.OVERLOAD: an overload with no composite kernel (the backend must register it) = [cpu, covered_by...]:",
        "# cpu is 1 when PyTorch has a CPU kernel (torch_npu's fallback can run it on the host), covered_by the overloads",
        "# whose registration also covers it (structured delegate, out form). Overloads not listed decompose.",
        "# function / method: Python names -> the overloads they call; schema: the arguments that choose among them.",
        "# Do not hand-edit; regenerate.",
        "",
        f'torch = "{torch_version}"',
        "",
        "[kernel]",
    ]
    for name, op in sorted(operators.items()):
        if op.needs_kernel:
            out.append(f"{_quote(name)} = [{int(op.cpu_kernel)}{''.join(', ' + _quote(c) for c in op.covered_by)}]")
    out += ["", "[function]"]
    out += [f"{_quote(n)} = [{', '.join(map(_quote, o))}]" for n, o in sorted(functions.items())]
    out += ["", "[method]"]
    out += [f"{_quote(n)} = [{', '.join(map(_quote, o))}]" for n, o in sorted(methods.items())]
    selecting = {o for group in [*functions.values(), *methods.values()] if len(group) > 1 for o in group}
    out += ["", "[schema]"]
    out += [f"{_quote(o)} = {_quote(operators[o].schema.split('(', 1)[1].rsplit(') ->', 1)[0])}" for o in sorted(selecting)]
    return "\n".join(out) + "\n"


def generate(op_plugin: Path, torch_npu: Path, releases: list[dict], native_functions: Path, torch_version: str,
             parse_spec, torch_minor, output_dir: Path = OUTPUT_DIR) -> str:
    operators = read_native_functions(native_functions.read_text(encoding="utf-8"))
    aten = {base_of(o) for o in operators}
    foreach_cpu = {o for o, op in operators.items() if o.startswith("_foreach_") and op.cpu_kernel}
    ordered = list(reversed(releases))  # releases.toml lists newest first
    commits, registered = {}, {}
    for release in ordered:
        branch = release["branch"]
        commits[branch] = pinned_op_plugin(torch_npu, branch)
        own, foreach = torch_npu_registrations(torch_npu, branch, aten)
        plugin = op_plugin_registrations(op_plugin, commits[branch], torch_minor(release["torch"]), aten, parse_spec)
        registered[branch] = own | plugin | (foreach_cpu if foreach else set())
    output_dir.mkdir(parents=True, exist_ok=True)
    (output_dir / "npu_aten.toml").write_text(render_registrations(ordered, commits, registered, torch_version), encoding="utf-8")
    (output_dir / "aten_schema.toml").write_text(render_schema(operators, torch_version, PythonSurface.installed()), encoding="utf-8")
    return f"{output_dir}: {sum(len(r) for r in registered.values())} registrations over {len(ordered)} releases"
