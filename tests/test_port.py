"""`ascend-feasibility port`: fix applicability as data, each rewrite (flagged and not), bad input, determinism,
--apply, and the sample projects end to end (patch pinned by tests/golden/port/, `git apply`, the sample's tests)."""

from __future__ import annotations

import ast
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core.cli import main
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.port import PortOptions, port, summarize, unified_diff
from ascend_feasibility.analyzer.port.summary import summary_lines
from ascend_feasibility.analyzer.port.verify import verify_script
from ascend_feasibility.knowledge import load_device_module, load_knowledge

from tests.golden_format import SAMPLES, port_golden_path, port_patch, sample_names

FIXES = {"safe", "unsafe", "display-only"}


def test_every_rule_has_a_fix_and_safe_ones_an_edit():
    kb = load_knowledge()
    assert {rule.fix for rule in kb.rules.values()} <= FIXES
    for rule in kb.rules.values():
        assert (rule.edit is not None) == (rule.fix != "display-only"), rule.code
    assert {code for code, rule in kb.rules.items() if rule.fix == "safe"} >= {
        "DEV001", "DEV003", "DEV004", "DEV101", "DEV102", "DEV104", "DEV105", "DEV106", "DEV140", "DEV141",
        "DST001", "PRC010", "DEV201",
    }


def test_npu_style_names_exist_in_every_release():
    """A wrong replacement is the worst bug: every torch.npu name an npu-style edit writes is in every release's
    torch_npu.npu.__all__ (amp names in npu.amp's)."""
    kb = load_knowledge()
    for rule in kb.rules.values():
        edit = rule.edit
        if edit is None or not edit.npu.startswith("torch.npu."):
            continue
        for api in edit.apis or [""]:
            name = edit.npu.split("(")[0].split(" ")[0].format(api=api)[len("torch.npu."):]
            for release in kb.releases:
                profile = kb.profiles[release.profile]
                table = profile.amp_all if name.startswith("amp.") else profile.npu_all
                assert name.split(".")[-1 if name.startswith("amp.") else 0] in table, (rule.code, name, release.torch_npu)


def test_device_module_pieces_compile():
    template = load_device_module()
    for piece in template.function:
        compile(template.header + piece.code, piece.name, "exec", dont_inherit=True)


def test_explain_shows_the_fix(capsys):
    assert main(["explain", "DEV101"]) == 0
    assert "Port fix**: safe" in capsys.readouterr().out
    assert main(["explain", "OPS001", "--lang", "zh"]) == 0
    assert "仅提示" in capsys.readouterr().out


def _project(tmp_path: Path, files: dict[str, str]) -> Path:
    root = tmp_path / "proj"
    for name, content in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(content, encoding="utf-8")
    return root


def _port(root: Path, **options):
    report = analyze(root, AnalyzeOptions(jobs=1))
    result = port(root, report, PortOptions(**options))
    return report, result


def _new(result, path: str) -> str | None:
    return next((r.new for r in result.rewrites if r.path == path), None)


MAIN = 'if __name__ == "__main__":\n    main()\n'


def _port_one(tmp_path: Path, name: str, source: str, **options):
    """Port a one-file project; the result and the file's new text. A second file names the module's functions and
    classes (a function nothing in the project names is unreached, and port leaves unreached code)."""
    _, result = _port(_project(tmp_path, {name: source, **uses(source)}), **options)
    return result, _new(result, name)


def uses(source: str) -> dict[str, str]:
    """`uses.py`: a tuple of strings naming the module-level functions and classes of a Python source, as the rest of
    a project would (call them, import them; a comment is prose, no use: domains/phases/prose.py)."""
    try:
        tree = ast.parse(source)
    except SyntaxError:
        return {}
    names = [n.name for n in tree.body if isinstance(n, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))]
    return {"uses.py": f"NAMED = {tuple(names)!r}\n"} if names else {}


def test_torch_cuda_calls_go_through_the_device_module(tmp_path):
    result, new = _port_one(tmp_path, "run.py", (
        "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n    torch.cuda.empty_cache()\n"
        "    n = torch.cuda.get_device_properties(0)\n    return n\n\n\n" + MAIN))
    assert "    # ascend: DEV101\n    _device.synchronize()\n" in new
    assert "    # ascend: DEV102\n    _device.empty_cache()\n" in new
    assert "torch.cuda.get_device_properties(0)" in new  # the device module offers no get_device_properties: left
    assert "import proj_device as _device  # ascend: port (device module)" in new
    module = result.new_files["proj_device.py"]
    assert "def synchronize(" in module and "def empty_cache(" in module and "def manual_seed(" not in module


def test_a_cuda_device_context_follows_its_ported_argument(tmp_path):
    """Round 26 port hunk 6: `with torch.cuda.device(rank):` around a ported body, its argument now "npu:N", was left
    and raised ("Expected a cuda device"); the context goes through the device module (torch.npu.device on NPU)."""
    result, new = _port_one(tmp_path, "run.py", (
        "import torch\n\n\ndef main(cuda_id):\n    rank = torch.device(f\"cuda:{cuda_id}\")\n"
        "    with torch.cuda.device(rank):\n        torch.cuda.empty_cache()\n\n\n" + MAIN))
    assert "    with _device.device(rank):\n" in new and "torch.cuda.device(" not in new
    module = result.new_files["proj_device.py"]
    assert "def device(" in module and "_MODULE.device(device)" in module and "nullcontext()" in module
    # a name that is no call (a type check) is left as it was
    _, kept = _port_one(tmp_path / "b", "run.py", (
        "import torch\n\n\ndef main(d):\n    torch.cuda.empty_cache()\n    return isinstance(d, torch.cuda.device)\n\n\n"
        + MAIN))
    assert "_device.empty_cache()" in kept and "isinstance(d, torch.cuda.device)" in kept


def test_device_strings_methods_and_backend(tmp_path):
    root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/core.py": (
        "import torch\nimport torch.distributed as dist\n\n\ndef setup(model, rank):\n"
        "    dist.init_process_group(backend=\"nccl\")\n    dev = torch.device(\"cuda:1\")\n"
        "    a = model.cuda()\n    b = model.cuda(non_blocking=True)\n    c = model.cuda(rank)\n    return dev, a, b, c\n"),
        "train.py": "from pkg.core import setup\n\nsetup(None, 0)\n"})  # a caller: pkg is no published library
    _, result = _port(root)
    new = _new(result, "pkg/core.py")
    assert "dist.init_process_group(backend=_device.DIST_BACKEND)" in new
    assert 'torch.device(f"{_device.DEVICE_TYPE}:1")' in new
    assert "a = _device.move(model)" in new and "b = _device.move(model, non_blocking=True)" in new
    assert "c = _device.move(model, rank)" in new  # the index goes to the picked device
    assert "from pkg import _device  # ascend: port (device module)" in new
    assert result.device_module == "pkg/_device.py"


def test_relative_imports_in_the_package_give_a_relative_import(tmp_path):
    root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/a.py": "X = 1\n", "pkg/sub/__init__.py": "",
                               "pkg/sub/b.py": "import torch\n\nfrom ..a import X\n\n\ndef f():\n    torch.cuda.synchronize()\n"})
    _, result = _port(root)
    assert "from .. import _device  # ascend: port (device module)" in _new(result, "pkg/sub/b.py")


def test_autocast_keeps_the_dtype_and_grad_scaler(tmp_path):
    result, new = _port_one(tmp_path, "train.py", (
        "import torch\nfrom torch.cuda.amp import GradScaler, autocast\n\n\ndef main(x):\n"
        "    scaler = GradScaler(init_scale=1024)\n    with autocast():\n        y = x * 2\n"
        "    with torch.cuda.amp.autocast(True, torch.bfloat16):\n        y = y * 2\n    return scaler, y\n\n\n" + MAIN))
    assert "with torch.autocast(_device.DEVICE_TYPE, dtype=torch.float16):" in new
    assert "with torch.autocast(_device.DEVICE_TYPE, enabled=True, dtype=torch.bfloat16):" in new
    assert "scaler = _device.GradScaler(init_scale=1024)" in new
    assert "def GradScaler(*args, **kwargs):" in result.new_files["proj_device.py"]


def test_an_autocast_that_with_a_and_b_never_enters_is_left_alone(tmp_path):
    # `A and B` enters B: the first autocast is never entered on CUDA, and porting it would add NPU autocast (DEV158);
    # the second is the entered operand and is ported
    _, new = _port_one(tmp_path, "train.py", (
        "import torch\n\n\ndef main(x):\n    with torch.cuda.amp.autocast() and torch.no_grad():\n        y = x * 2\n"
        "    with torch.no_grad() and torch.cuda.amp.autocast():\n        y = y * 2\n    return y\n\n\n" + MAIN))
    assert "    with torch.cuda.amp.autocast() and torch.no_grad():\n" in new
    assert "    with torch.no_grad() and torch.autocast(_device.DEVICE_TYPE, dtype=torch.float16):\n" in new


def test_assignments_get_their_npu_twin_and_reads_do_not(tmp_path):
    result, new = _port_one(tmp_path, "train.py", (
        "import os\n\nimport torch\n\nos.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0,1\"\n"
        "torch.backends.cuda.matmul.allow_tf32 = True\nprint(os.environ.get(\"CUDA_VISIBLE_DEVICES\"))\n"))
    assert ('os.environ["CUDA_VISIBLE_DEVICES"] = "0,1"\nos.environ["ASCEND_RT_VISIBLE_DEVICES"] = '
            'os.environ["CUDA_VISIBLE_DEVICES"]  # ascend: ignore[DEV201] (port)\n') in new
    assert "torch.backends.cuda.matmul.allow_tf32 = True\n_device.mirror_tf32_matmul()\n" in new
    assert 'print(os.environ.get("CUDA_VISIBLE_DEVICES"))' in new


def test_cuda_checks_are_rewritten_only_where_they_pick_the_device(tmp_path):
    result, new = _port_one(tmp_path, "run.py", (
        "import torch\n\n\ndef main(device):\n    name = \"cuda\" if torch.cuda.is_available() else \"cpu\"\n"
        "    if torch.cuda.is_available():\n        x = torch.zeros(1, device=\"cuda\")\n"
        "    if not torch.cuda.is_available():\n        return None\n"
        "    kind = \"cuda\" if \"cuda\" in device else \"cpu\"\n    return name, x, kind\n\n\n" + MAIN))
    # the exit at line 8 stays: the pick before it on the same check is left with it (round 27 port hunk 1)
    assert "name = \"cuda\" if torch.cuda.is_available() else \"cpu\"" in new
    assert "    if _device.is_available():\n        # ascend: DEV001\n        x = torch.zeros(1, device=_device.DEVICE_TYPE)" in new
    assert "if not torch.cuda.is_available():" in new  # guards the rest of the function: left for a human
    held = {o.finding.line: o.reason for o in result.outcomes if o.reason}
    assert "leaves the block early" in held[8]


def test_npu_style_writes_torch_npu_directly(tmp_path):
    result, new = _port_one(tmp_path, "run.py", (
        "import torch\n\n\ndef main(m):\n    torch.cuda.synchronize()\n    return m.cuda(), torch.device(\"cuda\")\n\n\n"
        + MAIN), style="npu")
    assert "torch.npu.synchronize()" in new and "m.npu()" in new and 'torch.device("npu")' in new
    assert not result.new_files
    assert "import torch_npu  # noqa: F401" in new  # no entry point found: each file that writes torch.npu loads it


def test_tests_examples_and_guarded_code_are_not_rewritten(tmp_path):
    root = _project(tmp_path, {"tests/test_x.py": "import torch\n\n\ndef test_x():\n    torch.cuda.synchronize()\n",
                               "examples/demo.py": "import torch\ntorch.cuda.synchronize()\n"})
    _, result = _port(root)
    assert not result.rewrites and not result.new_files


def test_unsafe_and_only(tmp_path):
    source = "import torch\n\n\ndef f(x):\n    torch.cuda.synchronize()\n    return x.to(\"cuda\", dtype=torch.float64)\n"
    root = _project(tmp_path, {"lib.py": source})
    _, safe = _port(root)
    assert "torch.float64" in _new(safe, "lib.py")
    _, unsafe = _port(root, unsafe=True)
    assert "dtype=torch.float32" in _new(unsafe, "lib.py") and "# ascend: DEV001, PRC001" in _new(unsafe, "lib.py")
    _, only = _port(root, only=frozenset({"DEV101"}))
    assert "_device.synchronize()" in _new(only, "lib.py") and '"cuda"' in _new(only, "lib.py")


def test_unsafe_leaves_float64_statistics_the_code_keeps_on_the_cpu(tmp_path):
    """FID's shape: the activations come back with `.cpu()`, and the float64 statistics computed from them (in the
    methods the file's own callers feed) never reach the device, so no PRC001 edit lowers them to float32. The same
    conversion of a tensor the caller moved to the device is still edited."""
    source = ("import torch\n\n\nclass FID:\n    def activations(self, batches):\n        found = []\n"
              "        for batch in batches:\n            torch.cuda.synchronize()\n"
              "            found.append(self.model(batch.to(self.device)).detach().cpu())\n"
              "        return torch.cat(found, dim=0)\n\n    def statistics(self, batches):\n"
              "        return self.summary(self.activations(batches))\n\n    @staticmethod\n    def summary(x):\n"
              "        x = x.to(torch.float64)\n        return x.mean(dim=0)\n\n    def step(self, batch):\n"
              "        return self.scale(batch.to(self.device))\n\n    @staticmethod\n    def scale(y):\n"
              "        return y.to(torch.float64) * 2\n")
    root = _project(tmp_path, {"lib.py": source})
    _, unsafe = _port(root, unsafe=True)
    new = _new(unsafe, "lib.py")
    assert "x = x.to(torch.float64)" in new
    assert "return y.to(torch.float32) * 2" in new


def test_plan_comments_come_only_with_their_flag(tmp_path):
    root = _project(tmp_path, {"lib.py": "import subprocess\n\n\ndef f():\n    return subprocess.run([\"nvidia-smi\"])\n"})
    _, safe = _port(root)
    assert not safe.rewrites
    assert not _port(root, unsafe=True)[1].rewrites
    report, unsafe = _port(root, unsafe=True, plan_comments=True)
    new = _new(unsafe, "lib.py")
    assert "    # ascend: DEV211 (display-only): " in new and 'subprocess.run(["nvidia-smi"])' in new
    assert all(t.safe == t.unsafe == 0 for t in summarize(report, unsafe) if t.rule == "DEV211")


def test_a_project_with_its_own_npu_code_keeps_its_abstraction(tmp_path):
    root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/npu_accelerator.py": "import torch_npu\n\n\ndef name():\n    return \"npu\"\n",
                               "pkg/run.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n"})
    report, result = _port(root)
    assert report.project.npu_code
    assert not result.new_files and not result.rewrites
    assert any("own NPU code" in (o.reason or "") for o in result.outcomes)


def test_bad_input_is_listed_and_never_patched(tmp_path):
    root = _project(tmp_path, {"broken.py": "import torch\ntorch.cuda.synchronize()\ndef (:\n",
                               "good.py": "import torch\ntorch.cuda.synchronize()\n"})
    (root / "latin.py").write_bytes(b"import torch\ntorch.cuda.synchronize()\nx = '\xe9'\n")
    report, result = _port(root)
    listed = dict(result.unpatched)
    assert listed.get("broken.py") == "does not parse"
    assert "broken.py" not in {r.path for r in result.rewrites}
    assert "good.py" in {r.path for r in result.rewrites}
    tallies = {t.rule: t for t in summarize(report, result)}
    assert tallies["DEV101"].safe >= 1 and tallies["DEV101"].left >= 1


def test_the_patch_is_deterministic_and_compiles(tmp_path):
    first = port_patch("llm_train")
    assert first == port_patch("llm_train")
    assert first.count("diff --git") >= 3


def test_cli_writes_patch_and_verify_script(tmp_path, capsys):
    out = tmp_path / "out"
    out.mkdir()
    assert main(["port", str(SAMPLES / "llm_train"), "-o", str(out / "port.patch")]) == 0
    assert "sites rewritten" in capsys.readouterr().err
    script = (out / "verify_npu.py").read_text(encoding="utf-8")
    compile(script, "verify_npu.py", "exec", dont_inherit=True)
    assert "PATCHED_MODULES = ['llm_train._device', 'llm_train.checkpoint', 'train']" in script
    assert (out / "port.patch").read_text(encoding="utf-8") == port_golden_path("llm_train").read_text(encoding="utf-8")


def test_cli_usage_errors(tmp_path, capsys):
    assert main(["port", str(tmp_path / "missing")]) == 2
    assert main(["port", str(SAMPLES / "llm_train"), "--only", "NOPE999"]) == 2
    assert main(["port", str(SAMPLES / "llm_train"), "--force"]) == 2


def _git_repo(tmp_path: Path) -> Path:
    from dulwich import porcelain

    root = _project(tmp_path, {"run.py": "import torch\n\n\ndef main():\n    torch.cuda.synchronize()\n\n\n" + MAIN})
    porcelain.init(str(root))
    porcelain.add(str(root), paths=[str(root / "run.py")])
    porcelain.commit(str(root), message=b"init", author=b"t <t@t>", committer=b"t <t@t>")
    return root


def test_apply_refuses_a_dirty_tree_and_writes_nothing(tmp_path, capsys):
    root = _git_repo(tmp_path)
    (root / "run.py").write_text((root / "run.py").read_text() + "# local edit\n", encoding="utf-8")
    before = (root / "run.py").read_text()
    assert main(["port", str(root), "--apply"]) == 2
    assert "uncommitted changes" in capsys.readouterr().err
    assert (root / "run.py").read_text() == before and not (root / "proj_device.py").exists()
    assert main(["port", str(root), "--apply", "--force"]) == 0
    assert "_device.synchronize()" in (root / "run.py").read_text()
    assert (root / "proj_device.py").exists() and (root / "verify_npu.py").exists()


def test_apply_on_a_clean_tree(tmp_path):
    root = _git_repo(tmp_path)
    assert main(["port", str(root), "--apply"]) == 0
    compile((root / "run.py").read_text(), "run.py", "exec")


@pytest.mark.parametrize("name", sample_names())
def test_sample_port_is_pinned_applies_and_its_tests_pass(name, tmp_path):
    patch = port_patch(name)
    assert patch == port_golden_path(name).read_text(encoding="utf-8"), "run python -m tests.update_goldens"
    copy = tmp_path / name
    shutil.copytree(SAMPLES / name, copy, ignore=shutil.ignore_patterns("__pycache__"))
    if not patch:
        return
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "port.patch").write_text(patch, encoding="utf-8")
    for args in (["--check"], []):
        done = subprocess.run(["git", "apply", *args, str(tmp_path / "port.patch")], cwd=copy, capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
    for path in copy.rglob("*.py"):
        compile(path.read_text(encoding="utf-8"), str(path), "exec", dont_inherit=True)
    if (copy / "tests").is_dir() and name != "fused_kernels":  # fused_kernels' tests need its CUDA extension
        done = subprocess.run([sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", "tests"], cwd=copy,
                              capture_output=True, text=True, timeout=300)
        assert done.returncode == 0, done.stdout[-3000:]
        assert "skipped" not in done.stdout.splitlines()[-1]  # the ported-only tests ran too


def test_verify_script_lists_matching_probes():
    root = SAMPLES / "llm_train"
    report = analyze(root, AnalyzeOptions(jobs=1))
    script = verify_script(report, port(root, report, PortOptions()), "tests")
    assert "TEST_FOLDER = 'tests'" in script and "'rms-norm'" in script and "'matmul-precision'" in script


def test_verify_without_an_npu_says_not_verified(tmp_path):
    """This host has no torch_npu: the script claims nothing (exit 2), and --allow-cpu runs the steps as a dry run
    that still says NOT VERIFIED on an NPU; --phases runs only the tests importing that phase's entries."""
    copy = tmp_path / "llm_train"
    shutil.copytree(SAMPLES / "llm_train", copy, ignore=shutil.ignore_patterns("__pycache__"))
    report = analyze(copy, AnalyzeOptions(jobs=1))
    script = verify_script(report, port(copy, report, PortOptions()), "tests", copy)
    assert script.startswith("#!/usr/bin/env python3\n# verify_npu.py: Written by ascend-feasibility port")
    assert "ascend_feasibility_probes.py run" not in script  # the probe script's usage is not this script's
    assert "PHASE_TESTS = {'training': ['tests/test_smoke.py']}" in script
    (copy / "verify_npu.py").write_text(script, encoding="utf-8")
    run = [sys.executable, "verify_npu.py", "--skip-probes"]
    plain = subprocess.run(run, cwd=copy, capture_output=True, text=True, timeout=300)
    assert plain.returncode == 2 and "NOT VERIFIED on an NPU" in plain.stdout.splitlines()[-1]
    dry = subprocess.run(run + ["--allow-cpu", "--skip-tests"], cwd=copy, capture_output=True, text=True, timeout=300)
    assert "dry run" in dry.stdout and dry.stdout.splitlines()[-1].endswith("NOT VERIFIED on an NPU"), dry.stdout
    phases = subprocess.run(run + ["--allow-cpu", "--phases", "training"], cwd=copy, capture_output=True, text=True,
                            timeout=300)
    assert "pytest tests/test_smoke.py exit" in phases.stdout, phases.stdout + phases.stderr


def _committed_copy(tmp_path: Path, name: str) -> Path:
    from dulwich import porcelain

    copy = tmp_path / name
    shutil.copytree(SAMPLES / name, copy, ignore=shutil.ignore_patterns("__pycache__"))
    porcelain.init(str(copy))
    porcelain.add(str(copy), paths=[str(p) for p in copy.rglob("*") if p.is_file() and ".git" not in p.parts])
    porcelain.commit(str(copy), message=b"init", author=b"t <t@t>", committer=b"t <t@t>")
    return copy


def test_port_is_idempotent_and_a_later_analysis_counts_nothing_it_wrote(tmp_path):
    from dulwich import porcelain

    copy = _committed_copy(tmp_path, "llm_train")
    assert main(["port", str(copy), "--apply"]) == 0
    porcelain.add(str(copy), paths=[str(p) for p in copy.rglob("*") if p.is_file() and ".git" not in p.parts])
    porcelain.commit(str(copy), message=b"port", author=b"t <t@t>", committer=b"t <t@t>")
    report, again = _port(copy)
    assert unified_diff(again) == ""
    ours = [f for f in report.findings if f.path in {"llm_train/_device.py", "verify_npu.py"} and not f.suppressed]
    assert all(f.reach == "npu-path" for f in ours), [(f.rule, f.path, f.reach) for f in ours]
    tf32 = [f for f in report.findings if f.rule == "PRC010" and f.path == "train.py"]
    assert tf32 and all(f.suppressed for f in tf32)  # the mirror after it: marked handled
    # the write (0..7 for 8 ranks: DEV703) and the added line that reads it (DEV201), each under its own marker
    twins = sorted((f.rule, f.line) for f in report.findings if f.path == "scripts/train.sh"
                   and f.rule in {"DEV201", "DEV703"} and f.suppressed)
    assert twins == [("DEV201", 6), ("DEV703", 5)], twins
    assert not report.unused_suppressions


def test_verify_script_passes_on_the_ported_sample_and_fails_on_a_missing_import(tmp_path):
    copy = _committed_copy(tmp_path, "llm_train")
    assert main(["port", str(copy), "--apply"]) == 0
    done = subprocess.run([sys.executable, str(copy / "verify_npu.py"), "--skip-probes", "--allow-cpu"], cwd=copy,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert done.stdout.splitlines()[-1] == ("verify_npu: dry run passed (environment, imports, tests) on a host without "
                                            "an NPU: NOT VERIFIED on an NPU")
    other = _committed_copy(tmp_path, "llm_infer")  # imports transformers, which this venv lacks
    assert main(["port", str(other), "--apply"]) == 0
    done = subprocess.run([sys.executable, str(other / "verify_npu.py"), "--skip-probes", "--skip-tests", "--allow-cpu"], cwd=other,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 1 and done.stdout.splitlines()[-1] == (
        "verify_npu: dry run FAILED: imports (environment, imports) on a host without an NPU: NOT VERIFIED on an NPU")


def test_verify_script_compiles_but_never_imports_a_script_that_runs_at_import(tmp_path):
    # nanoGPT-style: train.py trains when imported; the library module beside it (and the device module) is imported
    root = _project(tmp_path, {
        "train.py": "import torch\nopen('RAN', 'w').write('x')\ntorch.cuda.synchronize()\n",
        "lib.py": "import torch\n\n\ndef sync():\n    torch.cuda.synchronize()\n",
        "uses.py": "NAMED = ('sync',)\n",  # the rest of the project names it (nothing naming it: unreached)
    })
    assert main(["port", str(root), "--apply"]) == 0
    done = subprocess.run([sys.executable, str(root / "verify_npu.py"), "--skip-probes", "--skip-tests", "--allow-cpu"], cwd=root,
                          capture_output=True, text=True, timeout=300)
    assert done.returncode == 0, done.stdout[-2000:] + done.stderr[-2000:]
    assert "2 patched modules imported, 1 scripts compiled only" in done.stdout  # lib.py and the device module
    assert not (root / "RAN").exists()


def test_transfer_to_npu_only_with_its_flag_and_a_comment_on_its_side_effects():
    root = SAMPLES / "llm_train"
    report = analyze(root, AnalyzeOptions(jobs=1))
    plain = {r.path: r.new for r in port(root, report, PortOptions()).rewrites}
    assert "transfer_to_npu" not in plain["train.py"]
    flagged = {r.path: r.new for r in port(root, report, PortOptions(transfer_to_npu=True)).rewrites}
    assert "    from torch_npu.contrib import transfer_to_npu  # noqa: F401\n" in flagged["train.py"]
    assert "torch.jit.script is disabled" in flagged["train.py"]
    assert "transfer_to_npu" not in flagged["llm_train/checkpoint.py"]  # entry points only


def test_shell_scripts_get_the_npu_twin_of_cuda_visible_devices(tmp_path):
    root = _project(tmp_path, {"train.py": "import torch\n", "scripts/run.sh": (
        "set -e\nexport CUDA_VISIBLE_DEVICES=0,1\nCUDA_VISIBLE_DEVICES=2 torchrun \\\n  train.py\n"
        "echo $CUDA_VISIBLE_DEVICES\nif true; then export CUDA_VISIBLE_DEVICES=3; fi\n")})
    _, result = _port(root)
    new = _new(result, "scripts/run.sh")
    assert "# ascend: ignore[DEV201] (port: completed for Ascend)\nexport CUDA_VISIBLE_DEVICES=0,1\n" \
           "export ASCEND_RT_VISIBLE_DEVICES=\"${CUDA_VISIBLE_DEVICES}\"  # ascend: ignore[DEV201] (port)\n" in new
    assert "ASCEND_RT_VISIBLE_DEVICES=2 CUDA_VISIBLE_DEVICES=2 torchrun \\\n" in new
    assert "echo $CUDA_VISIBLE_DEVICES\nif true; then export CUDA_VISIBLE_DEVICES=3; fi\n" in new  # a read; a shared line


def test_a_file_without_a_final_newline_and_an_odd_name(tmp_path):
    root = _project(tmp_path, {"run.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()",
                               "odd name.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n"})
    _, result = _port(root)
    assert dict(result.unpatched)["odd name.py"] == "its path needs quoting in a patch"
    patch = unified_diff(result)
    assert "\\ No newline at end of file\n" in patch
    if shutil.which("git") is None:
        pytest.skip("git is not installed")
    (tmp_path / "p.patch").write_text(patch, encoding="utf-8")
    done = subprocess.run(["git", "apply", str(tmp_path / "p.patch")], cwd=root, capture_output=True, text=True)
    assert done.returncode == 0, done.stderr
    assert (root / "run.py").read_text(encoding="utf-8").endswith("    _device.synchronize()")


FLASH = ("import torch\nfrom flash_attn import flash_attn_func\n\n\ndef attn(q, k, v):\n"
         "    return flash_attn_func(q, k, v, causal=True)\n")


def test_flash_attn_goes_through_the_device_module_only_with_unsafe(tmp_path):
    _, safe = _port_one(tmp_path / "a", "model.py", FLASH)
    assert safe is None or "flash_attn_func(q, k, v, causal=True)" in safe
    result, new = _port_one(tmp_path / "b", "model.py", FLASH, unsafe=True)
    assert ("# ascend: DEP020\ntry:\n    from flash_attn import flash_attn_func\nexcept ImportError:  # not built for Ascend\n"
            "    flash_attn_func = None\n") in new
    assert "    # ascend: ATT001\n    return _device.flash_attn_func(q, k, v, causal=True)\n" in new
    module = result.new_files["proj_device.py"]
    assert 'torch_npu.npu_fusion_attention(q, k, v, q.shape[2], "BSND", atten_mask=mask, scale=scale,' in module
    assert "sparse_mode=3 if causal else 0" in module and "q.shape[-1] ** -0.5" in module
    _, npu = _port_one(tmp_path / "c", "model.py", FLASH, unsafe=True, style="npu")
    assert "return flash_attn_func(q, k, v, causal=True)" in npu  # no npu-style rewrite: left for a human


def test_flash_attn_wrapper_maps_arguments_on_npu():
    """The NPU branch, with a stand-in torch_npu that records the call: explicit scale, keep_prob, causal mask."""
    import types

    import torch
    from ascend_feasibility.analyzer.port import render_device_module

    namespace: dict = {}
    exec(compile(render_device_module({"flash_attn_func"}), "_device.py", "exec"), namespace)
    calls = []
    namespace["torch_npu"] = types.SimpleNamespace(
        npu_fusion_attention=lambda *a, **k: calls.append((a, k)) or (torch.zeros(1),))
    namespace["DEVICE_TYPE"] = "npu"
    attend = namespace["flash_attn_func"]
    q = torch.randn(2, 5, 4, 16)
    attend(q, q, q, 0.1, None, True)
    args, kwargs = calls[-1]
    assert args[3:] == (4, "BSND") and kwargs["scale"] == 0.25 and kwargs["keep_prob"] == pytest.approx(0.9)
    assert kwargs["sparse_mode"] == 3 and kwargs["atten_mask"].shape == (2048, 2048)
    assert kwargs["atten_mask"][0, :3].tolist() == [False, True, True]  # True = masked: the strict upper triangle
    attend(q, q, q, softmax_scale=0.5, deterministic=False)
    assert calls[-1][1]["scale"] == 0.5 and calls[-1][1]["atten_mask"] is None and calls[-1][1]["sparse_mode"] == 0
    with pytest.raises(NotImplementedError, match="window_size"):
        attend(q, q, q, window_size=(4, 0))


def test_a_project_device_module_of_its_own_is_never_replaced(tmp_path):
    root = _project(tmp_path, {"pkg/__init__.py": "", "pkg/_device.py": "NAME = 'mine'\n",
                               "pkg/run.py": "import torch\n\n\ndef f():\n    torch.cuda.synchronize()\n"})
    _, result = _port(root)
    assert result.device_module == "pkg/_ascend_device.py" and "pkg/_device.py" not in result.new_files
    assert "from pkg import _ascend_device as _device  # ascend: port (device module)" in _new(result, "pkg/run.py")


def test_port_over_mutated_files_never_crashes_and_every_patched_file_compiles(tmp_path):
    from tests.fuzz_corpus import generate

    root = tmp_path / "fuzz"
    for relative, data in generate(300, seed=15):
        path = root / relative
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(data)
    for folder in root.iterdir():
        (folder / "__init__.py").write_text("", encoding="utf-8")  # packages, so that the device module can be imported
    analysed = analyze(root, AnalyzeOptions(jobs=1))
    # the corpus holds NPU code of its own; without it the device module and its imports are exercised too
    plain = analysed.model_copy(update={"project": analysed.project.model_copy(update={"npu_code": []})})
    runs = [(analysed, PortOptions()), (analysed, PortOptions(unsafe=True)), (plain, PortOptions(unsafe=True)),
            (plain, PortOptions(style="npu", unsafe=True))]
    assert port(root, plain, PortOptions()).device_module is not None
    for report, options in runs:
        result = port(root, report, options)
        for rewrite in result.rewrites:
            if rewrite.path.endswith(".py"):
                compile(rewrite.new, rewrite.path, "exec", dont_inherit=True)
        for path, content in result.new_files.items():
            compile(content, path, "exec", dont_inherit=True)
        assert all(reason and "\n" not in reason for _, reason in result.unpatched)
        assert unified_diff(result) == unified_diff(port(root, report, options))


def test_a_byte_identical_copy_counted_once_is_still_rewritten(tmp_path):
    """The report folds a copied file's findings into its first path (the copies as sites); port edits every copy."""
    source = "import torch\n\n\ndef run(x):\n    torch.cuda.empty_cache()\n    return x\n"
    root = _project(tmp_path, {"ops_a.py": source, "ops_b.py": source, "uses.py": "# run\n"})
    report, result = _port(root)
    syncs = [f for f in report.findings if "empty_cache" in f.symbol]
    assert [f.path for f in syncs] == ["ops_a.py"] and syncs[0].sites == ["ops_a.py:5", "ops_b.py:5"]
    assert "_device.empty_cache()" in (_new(result, "ops_a.py") or "") and _new(result, "ops_a.py") == _new(result, "ops_b.py")


def test_every_site_of_a_rule_on_a_line_is_rewritten(tmp_path):
    """The report names DEV004 once on `a, b = x.cuda(), y.cuda()` (one finding per rule and line); port reads the
    file again and rewrites both calls, or the second one raises on an Ascend host."""
    result, new = _port_one(tmp_path, "run.py", (
        "import torch\n\n\ndef main(x, y):\n    a, b = x[None].cuda(), y[None].cuda()\n    return a, b\n\n\n" + MAIN))
    assert "    a, b = _device.move(x[None]), _device.move(y[None])\n" in new
    assert ".cuda()" not in new
    assert result.left_on_edited == []


def test_the_patched_files_are_read_again_and_what_is_left_on_an_edited_line_is_listed(tmp_path):
    """`torch.cuda.FloatTensor` (DEV107) has no rewrite: on the line port edited for `.cuda()`, the re-read of the
    patched text finds it, and the summary lists it for the reviewer, at its line in the original file (the one the
    `left:` lines use; the patch adds an import above it). So is one on another line of a statement port edited
    (`torch.view_as_complex(` above the argument PRC001 narrows); one on a statement port left alone is not."""
    root = _project(tmp_path, {"run.py": (
        "import torch\n\n\ndef main(x):\n    d, c = x.cuda(), torch.cuda.FloatTensor(2)\n    e, f = (\n"
        "        torch.cuda.FloatTensor(3),\n        x.cuda())\n    g = torch.cuda.FloatTensor(4)\n    return d, c, e, f, g\n\n\n"
        + MAIN)})
    report, result = _port(root)
    new = _new(result, "run.py")
    assert "    d, c = _device.move(x), torch.cuda.FloatTensor(2)" in new and "        _device.move(x))" in new
    assert result.left_on_edited == [("run.py", 5, "DEV107", "torch.cuda.FloatTensor"),
                                     ("run.py", 7, "DEV107", "torch.cuda.FloatTensor")]
    lines = summary_lines(summarize(report, result), result, report)
    assert "  left on an edited line: run.py:5 DEV107 torch.cuda.FloatTensor" in lines


def test_the_re_read_honours_the_ignore_markers_port_writes(tmp_path):
    """The line port adds to complete a `CUDA_VISIBLE_DEVICES` write carries `# ascend: ignore[DEV201] (port)`:
    analyze reads it as suppressed, and so does the re-read, so it is not listed as left on an edited line. A
    DEV107 on an edited line with no marker still is."""
    root = _project(tmp_path, {"run.py": (
        "import os\n\nimport torch\n\n\ndef main(x):\n    os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n"
        "    d, c = x.cuda(), torch.cuda.FloatTensor(2)\n    return d, c\n\n\n" + MAIN)})
    report, result = _port(root)
    new = _new(result, "run.py")
    assert 'os.environ["CUDA_VISIBLE_DEVICES"]  # ascend: ignore[DEV201] (port)\n' in new
    assert [(path, rule) for path, _, rule, _ in result.left_on_edited] == [("run.py", "DEV107")]


def test_a_file_that_never_imports_torch_gets_no_device_module_and_keeps_its_env_var_completion(tmp_path):
    """An installer (it runs pip; no torch import anywhere, none through a project module) must run where torch is
    not installed: its "cuda" label is left with the reason and no device module import is added, while the
    CUDA_VISIBLE_DEVICES write (for the child programs it starts) still gets its NPU twin. An option's default in
    a torch-free params.py (the value the torch program receives) is rewritten. A module that loads torch through the project (`from .model
    import build`, model.py importing torch) is rewritten, so is one that imports torch inside a function, and so is
    `.cuda()` on a library's model in a file with no torch import (only a "cuda" literal is held there)."""
    root = _project(tmp_path, {
        "installer.py": (
            "import os\nimport subprocess\n\n\ndef main(x):\n"
            "    os.environ[\"CUDA_VISIBLE_DEVICES\"] = \"0\"\n    label = \"cuda\" if x else \"cpu\"\n"
            "    subprocess.run([\"python\", \"-m\", \"pip\", \"install\", \"torch\"], check=True)\n    return label\n\n\n"
            + MAIN.replace("main()", "main(1)")),
        "params.py": ("import argparse\n\n\ndef parse():\n    parser = argparse.ArgumentParser()\n"
                      "    parser.add_argument(\"--device\", default=\"cuda\")\n    return parser.parse_args()\n\n\n"
                      + MAIN.replace("main()", "parse()")),
        "demo.py": "from transformers import AutoModel\n\n\ndef main():\n    return AutoModel.from_pretrained(\"m\").cuda()\n"
                   "\n\n" + MAIN,
        "lazy.py": "def probe():\n    import torch\n    torch.cuda.synchronize()\n\n\n" + MAIN.replace("main()", "probe()"),
        "pkg/__init__.py": "",
        "pkg/model.py": "import torch\n\n\ndef build():\n    return torch.nn.Linear(2, 2)\n",
        "pkg/run.py": "from .model import build\n\n\ndef main():\n    return build().cuda()\n\n\n" + MAIN})
    _, result = _port(root)
    new = _new(result, "installer.py")
    assert 'label = "cuda" if x else "cpu"' in new and "_device" not in new
    assert 'parser.add_argument("--device", default=_device.DEVICE_TYPE)' in _new(result, "params.py")
    assert 'os.environ["ASCEND_RT_VISIBLE_DEVICES"] = os.environ["CUDA_VISIBLE_DEVICES"]' in new
    left = {o.finding.rule: o.reason for o in result.outcomes if o.finding.path == "installer.py" and o.reason}
    assert list(left) == ["DEV001"] and left["DEV001"].startswith("an installer that never imports torch")
    assert "    _device.synchronize()" in _new(result, "lazy.py")
    assert '    return _device.move(AutoModel.from_pretrained("m"))' in _new(result, "demo.py")  # a torch object's call
    assert "    return _device.move(build())" in _new(result, "pkg/run.py")


def test_a_default_is_held_where_a_test_of_the_same_value_stays(tmp_path):
    """gorilla_cli's shape, negated: `--device` defaults to "cuda" and `load_model(path, device)` keeps `if device !=
    "cuda": raise` (the rest of the function is what it guards, so port leaves the test). Rewriting the default would
    hand "npu" to that test, which raises `ValueError: Invalid device: npu`: the default stays with the test. `--out`,
    whose value no test reads, is rewritten."""
    source = (
        "import argparse\n\nimport torch\n\n\ndef load_model(path, device):\n    kwargs = {}\n"
        "    if device != \"cuda\":\n        raise ValueError(f\"Invalid device: {device}\")\n"
        "    kwargs = {\"torch_dtype\": torch.float16}\n"
        "    return torch.nn.Linear(2, 2).to(device), kwargs\n\n\ndef main():\n"
        "    parser = argparse.ArgumentParser()\n    parser.add_argument(\"--device\", type=str, default=\"cuda\")\n"
        "    parser.add_argument(\"--out\", type=str, default=\"cuda\")\n    args = parser.parse_args()\n"
        "    return load_model(\"m\", args.device), args.out\n\n\n" + MAIN)
    result, new = _port_one(tmp_path, "cli.py", source, unsafe=True)
    assert '    parser.add_argument("--device", type=str, default="cuda")\n' in new
    assert '    parser.add_argument("--out", type=str, default=_device.DEVICE_TYPE)\n' in new
    held = next(o.reason for o in result.outcomes if o.finding.rule == "DEV001" and o.finding.line == 16)
    assert held.startswith("the test of device at line 8 stays (")
    from ascend_feasibility.analyzer.port.summary import left_by_reason
    assert ("a device test of the same value stays: a default changed to the NPU would reach it unported", ["DEV001"],
            1) in left_by_reason([o for o in result.outcomes if o.reason])


def test_a_test_whose_other_arm_raises_is_widened_with_its_default(tmp_path):
    """gorilla_cli's own shape: `elif device == "cuda":` with `else: raise`. The widened test opens its own arm to
    the NPU; the raise stays for devices neither arm names, so the test and the "cuda" default both go to the NPU."""
    source = (
        "import argparse\n\nimport torch\n\n\ndef load_model(path, device):\n    if device == \"cpu\":\n"
        "        kwargs = {}\n    elif device == \"cuda\":\n        kwargs = {\"torch_dtype\": torch.float16}\n"
        "    else:\n        raise ValueError(f\"Invalid device: {device}\")\n"
        "    return torch.nn.Linear(2, 2).to(device), kwargs\n\n\ndef main():\n"
        "    parser = argparse.ArgumentParser()\n    parser.add_argument(\"--device\", type=str, default=\"cuda\")\n"
        "    args = parser.parse_args()\n    return load_model(\"m\", args.device)\n\n\n" + MAIN)
    result, new = _port_one(tmp_path, "cli.py", source, unsafe=True)
    assert "    elif device in _device.ACCELERATOR_TYPES:\n" in new
    assert '    parser.add_argument("--device", type=str, default=_device.DEVICE_TYPE)\n' in new
    assert '        raise ValueError(f"Invalid device: {device}")\n' in new
    assert not [o for o in result.outcomes if o.reason]


def test_a_device_test_is_widened_only_where_the_arm_it_opens_runs_on_the_npu(tmp_path):
    """`if "cuda" in str(input.device):` choosing `torch.ops.aten._weight_int4pack_mm` (no NPU kernel in any release
    of knowledge/operators/npu_aten.toml) is left, and the summary says why; the same test choosing
    `torch.ops.aten.mm` (registered for the NPU) is widened."""
    source = (
        "import torch\n\n\ndef linear_int4(input, weight, scales, groupsize):\n"
        "    if \"cuda\" in str(input.device):\n"
        "        out = torch.ops.aten._weight_int4pack_mm(input, weight, groupsize, scales)\n"
        "    else:\n"
        "        out = torch.ops.aten._weight_int4pack_mm_for_cpu(input, weight, groupsize, scales)\n"
        "    return out\n\n\n"
        "def matmul(input, weight):\n"
        "    if \"cuda\" in str(input.device):\n"
        "        out = torch.ops.aten.mm.default(input, weight)\n"
        "    else:\n"
        "        out = input @ weight\n"
        "    return out\n")
    result, new = _port_one(tmp_path, "quant.py", source, unsafe=True)
    held = {o.finding.line: o.reason for o in result.outcomes if o.finding.rule == "DEV145"}
    assert held[5].startswith("the branch it decides runs torch.ops.aten._weight_int4pack_mm, an ATen operator "
                              "with no NPU kernel")
    assert held[13] is None
    assert "    if \"cuda\" in str(input.device):\n        out = torch.ops.aten._weight_int4pack_mm(" in new
    assert "    if _device.names_accelerator(str(input.device)):\n        out = torch.ops.aten.mm.default(" in new


METRIC_LOGGER = (
    "import torch\n\n\nclass MetricLogger:\n    def log_every(self, iterable, header):\n"
    "        log_msg = [header, '{meters}']\n        if torch.cuda.is_available():\n"
    "            log_msg.append('max mem: {memory:.0f}')\n        log_msg = ' '.join(log_msg)\n"
    "        for i, obj in enumerate(iterable):\n            yield obj\n            if i % 10 == 0:\n"
    "                if torch.cuda.is_available():\n"
    "                    print(log_msg.format(meters=str(self), memory=torch.cuda.max_memory_allocated() / 1024))\n"
    "                else:\n                    print(log_msg.format(meters=str(self)))\n\n\n"
    "def main():\n    for _ in MetricLogger().log_every(range(3), 'x'):\n        pass\n\n\n" + MAIN)


def test_tests_of_one_condition_in_a_function_are_ported_together(tmp_path):
    """BLIP's MetricLogger.log_every: the first `torch.cuda.is_available()` adds `{memory}` to the format, the second
    (reach cuda-only-guarded: it "only guards a message") supplies `memory=`. Rewriting the first alone makes every
    log line raise KeyError on NPU; both are rewritten, with the memory query the second guards."""
    result, new = _port_one(tmp_path, "utils.py", METRIC_LOGGER)
    assert new.count("if _device.is_available():") == 2 and "torch.cuda" not in new
    assert "memory=_device.max_memory_allocated() / 1024" in new
    assert not any(f.rule == "DEV104" for f, _ in result.skipped_sites)


def test_tests_of_one_condition_are_held_together_when_one_cannot_be_rewritten(tmp_path):
    """The second test's branch keeps `torch.cuda.FloatTensor` (no rewrite): it stays, and so does the first, with the
    reason; a test of another condition (`... and header`) decides on its own."""
    source = METRIC_LOGGER.replace("print(log_msg.format(meters=str(self), memory=", "print(torch.cuda.FloatTensor(1), "
                                   "log_msg.format(meters=str(self), memory=").replace(
        "    def log_every(self, iterable, header):\n",
        "    def log_every(self, iterable, header):\n        if torch.cuda.is_available() and header:\n"
        "            torch.cuda.synchronize()\n")
    result, new = _port_one(tmp_path, "utils.py", source)
    held = {o.finding.line: o.reason for o in result.outcomes if o.finding.rule == "DEV104"}
    assert held[9] == ("the test of the same condition at line 15 stays (the branch it decides keeps DEV107 at line 16: "
                       "on NPU it would run CUDA-only code): the tests of one condition in a function are ported "
                       "together, or their branches disagree on NPU")
    assert held[6] is None and "    if _device.is_available() and header:\n" in new
    assert new.count("if torch.cuda.is_available():") == 2


FALLBACK_AND_DTYPE = '''import torch


class Runner:
    def __init__(self, device="cuda"):
        self.device = device
        if self.device == "cuda" and not torch.cuda.is_available():
            self.device = "cpu"

    def dtype(self, x):
        if x.device.type == "cuda":
            return x.half()
        return x


def main():
    print(Runner().dtype(torch.ones(2)))


if __name__ == "__main__":
    main()
'''


def test_port_leaves_a_site_whose_advice_says_to_leave_it(tmp_path):
    # round 25 port audit / prec29d "Left": DEV007's cuda-missing-fallback variant says "Leave the test as it is"
    # (info, (0, 0) hours), yet `port --unsafe` widened it; the dtype-choice test beside it asks for the widening
    result, new = _port_one(tmp_path, "model.py", FALLBACK_AND_DTYPE, unsafe=True)
    assert 'if self.device == "cuda" and not torch.cuda.is_available():' in new
    assert "if x.device.type in _device.ACCELERATOR_TYPES:" in new
    left = {(f.rule, f.line): why for f, why in result.skipped_sites}
    assert left[("DEV007", 7)] == "its advice says to leave it"
    assert ("DEV007", 11) not in left
