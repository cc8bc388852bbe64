"""Environment variables that turn a feature on: a site reached only while such a variable is set is `optional`,
unless the project sets the variable itself (analyzer/context/env_switches.py, switches.SwitchReader, round 18 B 32)."""

from __future__ import annotations

import pytest
from ascend_feasibility.analyzer.context.env_switches import env_off
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

PROFILER = ('import os\nimport torch\n\n\ndef push(name):\n    if os.environ.get("APP_PROFILE", "0") == "1":\n'
            '        torch.cuda.nvtx.range_push(name)\n\n\ndef mark(name):\n    if not os.getenv("APP_NVTX"):\n'
            '        return\n    torch.cuda.nvtx.mark(name)\n\n\nRANGES = os.getenv("APP_PROFILE_RANGES", "0") != "0"\n\n\n'
            'def pop():\n    if RANGES:\n        torch.cuda.nvtx.range_pop()\n')
RUN = "from app.profiler import push, mark, pop\npush('a')\nmark('b')\npop()\n"


def _nvtx(root):
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f for f in report.findings if f.path == "app/profiler.py" and f.rule == "DEV130"}


def test_a_profiler_behind_an_unset_variable_is_optional_and_named(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "", "app/profiler.py": PROFILER, "run.py": RUN})
    found = _nvtx(tmp_path)
    assert {line: f.reach for line, f in found.items()} == {7: "optional", 13: "optional", 21: "optional"}
    assert "environment variable `APP_PROFILE` is unset by default (default \"0\"" in found[7].reach_reason
    assert "`APP_NVTX` is unset by default (no default" in found[13].reach_reason
    assert "read into RANGES at line 16" in found[21].reach_reason
    assert not any(f.counted for f in found.values())


def test_a_variable_the_project_sets_or_that_defaults_on_keeps_the_site_counted(tmp_path):
    on = PROFILER.replace('os.getenv("APP_PROFILE_RANGES", "0") != "0"', 'os.getenv("APP_PROFILE_RANGES", "1") != "0"')
    write_tree(tmp_path, {"app/__init__.py": "", "app/profiler.py": on, "run.py": RUN,
                          "launch.sh": "#!/bin/bash\nexport APP_NVTX=1\npython run.py\n",
                          "setup_env.py": "import os\nos.environ['APP_PROFILE'] = '1'\n"})
    found = _nvtx(tmp_path)
    assert {line: f.reach for line, f in found.items()} == {7: "runs", 13: "runs", 21: "runs"}
    assert "the project turns it on" in found[7].reach_reason and "setup_env.py" in found[7].reach_reason
    assert "launch.sh" in found[13].reach_reason


def test_a_variable_set_to_a_false_word_turns_nothing_on(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "", "app/profiler.py": PROFILER, "run.py": RUN,
                          "setup_env.py": "import os\nos.environ['APP_PROFILE'] = '0'\n"})
    assert _nvtx(tmp_path)[7].reach == "optional"


@pytest.mark.parametrize(("expression", "off"), [
    ('os.getenv("X", "0") == "1"', ("X", 'default "0"')),
    ('os.environ.get("X")', ("X", "no default")),
    ('int(os.environ.get("X", "0"))', ("X", 'default "0"')),
    ('os.getenv("X", "false").lower() in ("1", "true")', ("X", 'default "false"')),
    ('os.getenv("X", "1") == "1"', None),  # on by default
    ('os.environ["X"] == "1"', None),  # raises while unset: no switch
    ('os.getenv("X", "0") == "1" or os.getenv("Y")', None),  # not one variable, not this reader's shape
    ('os.getenv("X", default) == "1"', None),  # a default out of sight
    ('not os.getenv("X")', None),  # true while unset
    ('X == "True"', ("X", "no default, read into X at line 2")),  # a name bound only to the variable's read
    ('Y == "True"', None),  # a name bound to something else too
])
def test_env_off_reads_the_test_with_the_variable_unset(expression, off):
    tree = parsing.parse("python", f"import os\nX = os.getenv('X')\nY = os.getenv('Y')\nY = 1\nflag = {expression}\n".encode())
    value = tree.named_children[4].named_children[0].child_by_field_name("right")
    assert env_off(value) == off


# BasicSR's ops modules and setup.py: the variable is read into a name (no default) and the name tested later
JIT_LOADER = ("import os\nimport torch\n\nAPP_JIT = os.getenv('APP_JIT')\nif APP_JIT == 'True':\n"
              "    from torch.utils.cpp_extension import load\n    ext = load('ext', sources=['a.cpp', 'a_kernel.cu'])\n"
              "else:\n    ext = None\n")
BUILD = ("import os\nimport torch\nfrom setuptools import setup\nfrom torch.utils.cpp_extension import CppExtension, CUDAExtension"
         "\n\nAPP_EXT = os.getenv('APP_EXT')\n\n\ndef make_ext(name, sources):\n"
         "    if torch.cuda.is_available() or os.getenv('FORCE_CUDA', '0') == '1':\n        extension = CUDAExtension\n"
         "    else:\n        extension = CppExtension\n    return extension(name=name, sources=sources)\n\n\n"
         "if __name__ == '__main__':\n    APP_EXT = os.getenv('APP_EXT')\n    if APP_EXT == 'True':\n"
         "        ext_modules = [make_ext('ext', ['a.cpp', 'a_kernel.cu'])]\n    else:\n        ext_modules = []\n"
         "    setup(name='app', ext_modules=ext_modules)\n")


def _by_rule(root, rule, path):
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f for f in report.findings if f.path == path and f.rule == rule}


def test_a_variable_read_into_a_name_and_tested_later_is_a_switch(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "from .ops import ext\n", "app/ops.py": JIT_LOADER,
                          "setup.py": BUILD, "README.md": "pip install .\n"})
    load = _by_rule(tmp_path, "OPS021", "app/ops.py")[7]
    assert load.reach == "optional" and not load.counted
    assert "`APP_JIT` is unset by default (no default, read into APP_JIT at line 4" in load.reach_reason
    build = _by_rule(tmp_path, "OPS062", "setup.py")[10]
    assert build.reach == "optional" and not build.counted
    assert "`APP_EXT` is unset by default" in build.reach_reason


@pytest.mark.parametrize(("loader", "build"), [
    (JIT_LOADER.replace("os.getenv('APP_JIT')", "os.getenv('APP_JIT', 'True')"),  # on by default
     BUILD.replace("    APP_EXT = os.getenv('APP_EXT')\n", "    APP_EXT = 'True'\n")),  # rebound to something else
    (JIT_LOADER + "APP_JIT = 'True'\n",  # a second binding of the name
     BUILD.replace("\nAPP_EXT = os.getenv('APP_EXT')\n", "\nAPP_EXT = os.getenv('APP_BUILD')\n")),  # another variable
])
def test_a_name_bound_otherwise_or_on_by_default_keeps_the_site_counted(tmp_path, loader, build):
    write_tree(tmp_path, {"app/__init__.py": "from .ops import ext\n", "app/ops.py": loader,
                          "setup.py": build, "README.md": "pip install .\n"})
    assert _by_rule(tmp_path, "OPS021", "app/ops.py")[7].reach == "runs"
    assert _by_rule(tmp_path, "OPS062", "setup.py")[10].reach == "runs"


def test_a_variable_the_launcher_sets_keeps_the_named_switch_counted(tmp_path):
    write_tree(tmp_path, {"app/__init__.py": "from .ops import ext\n", "app/ops.py": JIT_LOADER, "setup.py": BUILD,
                          "install.sh": "#!/bin/bash\nAPP_EXT=True pip install -e .\nexport APP_JIT=True\n"})
    assert _by_rule(tmp_path, "OPS021", "app/ops.py")[7].reach == "runs"
    assert _by_rule(tmp_path, "OPS062", "setup.py")[10].reach == "runs"


ENVS = ('import os\n\nenvironment_variables = {\n'
        '    "APP_NVTX_PROFILE": lambda: os.getenv("APP_NVTX_PROFILE", "0") != "0",\n'
        '    "APP_LOG_LEVEL": lambda: os.getenv("APP_LOG_LEVEL", "INFO"),\n}\n\n\n'
        'def __getattr__(name):\n    return environment_variables[name]()\n')
RANGE = ('import contextlib\nimport torch\n{import_line}\n\n\n@contextlib.contextmanager\ndef nvtx_range(name):\n'
         '    if not envs.APP_NVTX_PROFILE or not torch.cuda.is_available():\n        yield\n        return\n'
         '    torch.cuda.nvtx.range_push(name)\n    try:\n        yield\n    finally:\n        torch.cuda.nvtx.range_pop()\n')
USE = "import torch\nfrom app.profiler import nvtx_range\nwith nvtx_range('step'):\n    torch.ones(2)\n"


def _ranges(root, envs=ENVS, import_line="import app.envs as envs", extra=None):
    write_tree(root, {"app/__init__.py": "", "app/envs.py": envs, "run.py": USE,
                      "app/profiler.py": RANGE.format(import_line=import_line), **(extra or {})})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f for f in report.findings if f.path == "app/profiler.py" and f.rule == "DEV130"}


@pytest.mark.parametrize("import_line", ["import app.envs as envs", "from app import envs", "from . import envs"])
def test_a_switch_read_from_the_projects_table_of_environment_variables_is_optional(tmp_path, import_line):
    found = _ranges(tmp_path, import_line=import_line)
    assert {line: f.reach for line, f in found.items()} == {11: "optional", 15: "optional"}
    assert "`APP_NVTX_PROFILE` is unset by default (app.envs's table of environment variables)" in found[11].reach_reason


@pytest.mark.parametrize("envs", [ENVS.replace('os.getenv("APP_NVTX_PROFILE", "0")', 'os.getenv("APP_NVTX_PROFILE", "1")'),
                                  ENVS.replace('"APP_NVTX_PROFILE": lambda', '"APP_OTHER": lambda')])
def test_a_table_entry_on_by_default_or_missing_keeps_the_site_counted(tmp_path, envs):
    found = _ranges(tmp_path, envs=envs)
    assert {line: f.reach for line, f in found.items()} == {11: "runs", 15: "runs"}


def test_a_table_entry_a_launcher_exports_keeps_the_site_counted(tmp_path):
    found = _ranges(tmp_path, extra={"profile.sh": "#!/bin/bash\nexport APP_NVTX_PROFILE=1\npython run.py\n"})
    assert {line: f.reach for line, f in found.items()} == {11: "runs", 15: "runs"}


KERNEL = ("#include <cuda_runtime.h>\n\n__global__ void scale_kernel(float *out, const float *in, int n) {\n"
          "  int i = blockIdx.x * blockDim.x + threadIdx.x;\n  if (i < n) out[i] = in[i] * 2.0f;\n}\n")
KERNEL_LOADER = JIT_LOADER.replace("sources=['a.cpp', 'a_kernel.cu']", "sources=['src/a.cpp', 'src/a_kernel.cu']")
KERNEL_BUILD = BUILD.replace("['a.cpp', 'a_kernel.cu']", "['app/src/a.cpp', 'app/src/a_kernel.cu']")


def _kernel_tree(root, extra=None, build=KERNEL_BUILD):
    write_tree(root, {"app/__init__.py": "from .ops import ext\n", "app/ops.py": KERNEL_LOADER, "setup.py": build,
                      "app/src/a_kernel.cu": KERNEL, "README.md": "pip install .\n", **(extra or {})})
    report = analyze(root, AnalyzeOptions(jobs=1))
    return [f for f in report.findings if f.path == "app/src/a_kernel.cu"]


def test_a_kernel_only_switched_arms_build_or_load_is_optional(tmp_path):
    # BasicSR's .cu kernels: listed under `if BASICSR_EXT == 'True':` in setup.py and `if BASICSR_JIT == 'True':`
    found = _kernel_tree(tmp_path)
    assert found and all(f.reach == "optional" and not f.counted for f in found)
    assert "built or loaded only under an off-by-default switch (app/ops.py and 1 more)" in found[0].reach_reason
    assert "`APP_JIT` is unset by default" in found[0].reach_reason


@pytest.mark.parametrize("extra", [
    {"build.sh": "#!/bin/bash\nnvcc -c app/src/a_kernel.cu -o a.o\n"},  # another build names it
    {"app/src/CMakeLists.txt": "add_library(a SHARED a.cpp)\n"},  # a glob may take it
    {"install.sh": "#!/bin/bash\nexport APP_JIT=True\npython -c 'import app'\n"},  # the project sets the variable
])
def test_a_kernel_another_build_or_the_project_turns_on_stays_counted(tmp_path, extra):
    found = _kernel_tree(tmp_path, extra)
    assert found and all(f.reach == "runs" for f in found)


def test_a_kernel_one_unswitched_list_names_stays_counted(tmp_path):
    build = KERNEL_BUILD.replace("    if APP_EXT == 'True':\n        ext_modules", "    if True:\n        ext_modules")
    found = _kernel_tree(tmp_path, build=build)
    assert found and all(f.reach == "runs" for f in found)


# BasicSR's copy in CodeFormer: `if '--cuda_ext' in sys.argv:` ... `sys.argv.remove('--cuda_ext')` (round 24 B1 14,
# B2 41, verdicts V2): the extensions are built only when the install line adds the flag
ARGV_BUILD = KERNEL_BUILD.replace("import os\n", "import os\nimport sys\n", 1).replace(
    "    APP_EXT = os.getenv('APP_EXT')\n    if APP_EXT == 'True':\n", "    if '--cuda_ext' in sys.argv:\n").replace(
    "    else:\n        ext_modules = []\n", "        sys.argv.remove('--cuda_ext')\n    else:\n        ext_modules = []\n")


def test_a_build_behind_an_argv_flag_is_optional_and_names_the_flag(tmp_path):
    assert "'--cuda_ext' in sys.argv" in ARGV_BUILD
    found = _kernel_tree(tmp_path, build=ARGV_BUILD, extra={"app/ops.py": "ext = None\n"})  # no JIT load
    assert found and all(f.reach == "optional" and not f.counted for f in found)
    assert "(setup.py): `--cuda_ext` is off unless given (sys.argv, line 19)" in found[0].reach_reason
    assert _by_rule(tmp_path, "OPS062", "setup.py")[11].reach == "optional"
    assert "`--cuda_ext` is off unless given" in _by_rule(tmp_path, "OPS062", "setup.py")[11].reach_reason


@pytest.mark.parametrize("extra", [
    {"install.sh": "#!/bin/bash\npython setup.py develop --cuda_ext\n"},  # a launcher passes the flag
    {"README.md": "Install:\n\n```bash\npython setup.py develop --cuda_ext\n```\n"},  # the README's install passes it
])
def test_an_argv_flag_the_project_passes_keeps_the_build_counted(tmp_path, extra):
    found = _kernel_tree(tmp_path, build=ARGV_BUILD, extra=extra)
    assert found and all(f.reach == "runs" for f in found)
    assert _by_rule(tmp_path, "OPS062", "setup.py")[11].reach == "runs"


@pytest.mark.parametrize("build", [
    ARGV_BUILD.replace("    if '--cuda_ext' in sys.argv:\n", "    sys.argv.append('--cuda_ext')\n    if '--cuda_ext' in sys.argv:\n"),
    ARGV_BUILD.replace("'--cuda_ext' in sys.argv", "'cuda_ext' in sys.argv"),  # a word, not a flag
    ARGV_BUILD.replace("'--cuda_ext' in sys.argv", "'--cuda_ext' not in sys.argv"),  # the flag turns it off
])
def test_an_argv_flag_the_file_sets_or_no_flag_keeps_the_build_counted(tmp_path, build):
    found = _kernel_tree(tmp_path, build=build)
    assert found and all(f.reach == "runs" for f in found)
    assert _by_rule(tmp_path, "OPS062", "setup.py")[11].reach == "runs"


# NAFNet's setup.py: the opposite shape, `if '--no_cuda_ext' in sys.argv: ext_modules = [] ... else: [make_cuda_ext(...)]`,
# with `python setup.py develop --no_cuda_ext` in its README (round 34 B1 17): a plain install builds the extensions,
# the documented one does not
OPT_OUT_BUILD = ARGV_BUILD.replace("    if '--cuda_ext' in sys.argv:\n        ext_modules = [", "    if '--no_cuda_ext' in sys.argv:\n"
                                   "        ext_modules = []\n        sys.argv.remove('--no_cuda_ext')\n    else:\n        ext_modules = [").replace(
    "        sys.argv.remove('--cuda_ext')\n    else:\n        ext_modules = []\n", "")
NOT_IN_BUILD = ARGV_BUILD.replace("'--cuda_ext' in sys.argv", "'--no_cuda_ext' not in sys.argv").replace(
    "sys.argv.remove('--cuda_ext')", "pass")
README_OPT_OUT = {"README.md": "Install:\n\n```bash\npython setup.py develop --no_cuda_ext\n```\n"}


def test_the_opt_out_shape_is_read_as_written():
    assert "    else:\n        ext_modules = [make_ext(" in OPT_OUT_BUILD and "--cuda_ext'" not in OPT_OUT_BUILD
    assert "if '--no_cuda_ext' not in sys.argv:\n        ext_modules = [make_ext(" in NOT_IN_BUILD


@pytest.mark.parametrize("build", [OPT_OUT_BUILD, NOT_IN_BUILD])
def test_a_build_arm_the_readmes_install_opts_out_of_is_optional_and_names_the_flag(tmp_path, build):
    _kernel_tree(tmp_path, build=build, extra={"app/ops.py": "ext = None\n", **README_OPT_OUT})
    found = _by_rule(tmp_path, "OPS062", "setup.py")[11]  # in make_ext, which only the opt-out arm calls
    assert found.reach == "optional" and not found.counted
    assert found.reach_reason.startswith("taken only without `--no_cuda_ext` (sys.argv, line 19), and the project "
                                         "installs with it: `--no_cuda_ext` passed by the README")
    assert phrase("zh", found.reach_reason).startswith("仅在未给出 `--no_cuda_ext` 时执行")


# Restormer (round 36 verdicts, class 1): the README says "See [INSTALL.md](INSTALL.md)", and INSTALL.md installs with
# `python setup.py develop --no_cuda_ext`; a root INSTALL.md the README does not link is the project's install too
@pytest.mark.parametrize("extra, document", [
    ({"README.md": "See [INSTALL.md](INSTALL.md) for the installation.\n",
      "INSTALL.md": "Install:\n\n```\npython setup.py develop --no_cuda_ext\n```\n"}, "INSTALL.md"),
    ({"README.md": "Read [the guide](docs/install_guide.md).\n",
      "docs/install_guide.md": "```bash\npython setup.py develop --no_cuda_ext\n```\n"}, "docs/install_guide.md"),
    ({"README.md": "# app\n", "INSTALL.md": "```bash\npython setup.py develop --no_cuda_ext\n```\n"}, "INSTALL.md"),
])
def test_a_build_arm_the_install_guide_opts_out_of_is_optional_and_names_the_guide(tmp_path, extra, document):
    _kernel_tree(tmp_path, build=OPT_OUT_BUILD, extra={"app/ops.py": "ext = None\n", **extra})
    found = _by_rule(tmp_path, "OPS062", "setup.py")[11]
    assert found.reach == "optional" and not found.counted
    assert found.reach_reason.endswith(f"installs with it: `--no_cuda_ext` passed by {document}")


def test_a_guide_the_readme_does_not_hand_its_install_to_passes_nothing(tmp_path):
    _kernel_tree(tmp_path, build=OPT_OUT_BUILD, extra={
        "app/ops.py": "ext = None\n", "README.md": "# app\n",
        "docs/notes.md": "```bash\npython setup.py develop --no_cuda_ext\n```\n"})  # neither linked nor INSTALL*.md
    assert _by_rule(tmp_path, "OPS062", "setup.py")[11].reach == "runs"


@pytest.mark.parametrize("build, extra", [
    (OPT_OUT_BUILD, {}),  # the README installs with `pip install .`: the arm a plain install takes
    (NOT_IN_BUILD, {}),
    (OPT_OUT_BUILD + "\nmake_ext('other', ['b.cu'])\n", README_OPT_OUT),  # make_ext is called outside the arm too
])
def test_an_opt_out_arm_no_project_line_opts_out_of_stays_counted(tmp_path, build, extra):
    _kernel_tree(tmp_path, build=build, extra={"app/ops.py": "ext = None\n", **extra})
    assert _by_rule(tmp_path, "OPS062", "setup.py")[11].reach == "runs"


@pytest.mark.parametrize("source, expected", [
    ("import sys\nimport setuptools\nif '--no_ext' in sys.argv:\n    a = 1\nelse:\n    b = 2\n", [(5, 6, "--no_ext", 3)]),
    ("import sys\nimport setuptools\nif '--no_ext' not in sys.argv:\n    b = 2\n", [(4, 4, "--no_ext", 3)]),
    ("import sys\nimport setuptools\nif '--no_ext' in sys.argv:\n    a = 1\nelif x:\n    b = 2\nelse:\n    c = 3\n", []),
    ("import sys\nif '--no_ext' in sys.argv:\n    a = 1\nelse:\n    b = 2\n", []),  # no build script
    ("import sys\nimport setuptools\nsys.argv.append('--no_ext')\nif '--no_ext' in sys.argv:\n    a = 1\nelse:\n"
     "    b = 2\n", []),  # the file gives the flag itself
    ("import sys\nimport setuptools\ndef f():\n    pass\nif '--no_ext' in sys.argv:\n    a = 1\nelse:\n    f()\n",
     [(7, 8, "--no_ext", 5), (3, 4, "--no_ext", 5)]),  # a function only the arm calls
])
def test_which_arms_a_flag_leaves_out(source, expected):
    from ascend_feasibility.analyzer.context.argv_switches import opt_out_arms
    assert opt_out_arms(parsing.parse("python", source.encode())) == expected
