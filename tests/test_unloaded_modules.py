"""Modules of the project's packages that nothing the product runs loads are optional (analyzer/context/unloaded.py):
a subpackage only tests import (nanotron's fp8/), and helper modules of an application's package that its scripts never
reach (CogVideo's rife/RIFE.py). A module product code imports, one a string of product code names, an entry script,
a launched script, a console entry and an unimported module of a library package keep `runs`."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import reported_at, write_tree

CUDA = "import torch\nx = torch.ones(1).cuda()\n"


def _reach_by_path(root) -> dict[str, set[tuple[str, str | None]]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    found: dict[str, set[tuple[str, str | None]]] = {}
    for f in report.findings:
        if f.role == "product":
            for path in reported_at(f):  # byte-identical copies fold into one finding
                found.setdefault(path, set()).add((f.reach, f.reach_reason))
    return found


def test_package_modules_only_tests_load_are_optional_and_loaded_ones_run(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n[project.scripts]\nmylib-cli = "mylib.cli:main"\n',
        "run_train.sh": "python mylib/serve.py --port 1\n",
        "run_train.py": "from mylib.trainer import train\nfrom mylib.models import LazyModel\ntrain()\n",
        "mylib/__init__.py": "",
        "mylib/trainer.py": CUDA + "def train():\n    return x\n",
        "mylib/fp8/__init__.py": "from mylib.fp8.linear import FP8Linear\n",
        "mylib/fp8/linear.py": CUDA + "class FP8Linear:\n    pass\n",
        "mylib/fp8/utils.py": CUDA,  # nothing imports it, inside a subpackage only tests load
        "mylib/models/__init__.py": ("from mylib.utils import _LazyModule\n"
                                     "_import_structure = {'lazy_model': ['LazyModel']}\n"
                                     "sys.modules[__name__] = _LazyModule(__name__, _import_structure)\n"),
        "mylib/utils.py": "class _LazyModule:\n    pass\n",
        "mylib/models/lazy_model.py": CUDA + "class LazyModel:\n    pass\n",
        "mylib/convert.py": CUDA + "if __name__ == '__main__':\n    print(x)\n",
        "mylib/serve.py": CUDA,
        "mylib/cli.py": CUDA + "def main():\n    return x\n",
        "mylib/public_api.py": CUDA,  # a library's module nothing imports: its users may
        "tests/__init__.py": "",
        "tests/fp8/test_linear.py": "from mylib.fp8 import FP8Linear\n",
        "tests/test_rest.py": ("from mylib.models.lazy_model import LazyModel\nfrom mylib import convert, serve, cli\n"
                               "from mylib.trainer import train\n"),
    })
    reach = _reach_by_path(tmp_path)
    only_tests = "imported only by tests (tests/fp8/test_linear.py): no product code loads it"
    assert reach["mylib/fp8/linear.py"] == {("optional", only_tests)}
    assert reach["mylib/fp8/utils.py"] == {
        ("optional", "in mylib/fp8/, a package imported only by tests (tests/fp8/test_linear.py): no product code loads it")}
    for loaded in ("mylib/trainer.py", "mylib/models/lazy_model.py", "mylib/convert.py", "mylib/serve.py",
                   "mylib/cli.py", "mylib/public_api.py"):
        assert {r for r, _ in reach[loaded]} == {"runs"}, loaded


def test_a_src_layout_package_is_read_by_its_import_name(tmp_path):
    write_tree(tmp_path, {
        "src/mylib/__init__.py": "",
        "src/mylib/core.py": CUDA,
        "src/mylib/fp8/__init__.py": "",
        "src/mylib/fp8/kernel.py": CUDA,
        "train.py": "from mylib.core import x\n",
        "tests/test_fp8.py": "from mylib.fp8.kernel import x\nfrom mylib.core import x\n",
    })
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["src/mylib/core.py"]} == {"runs"}
    assert {r for r, _ in reach["src/mylib/fp8/kernel.py"]} == {"optional"}


def test_an_application_package_module_its_scripts_never_reach_is_optional(tmp_path):
    write_tree(tmp_path, {
        "app/server.py": "import rife_model\n",
        "app/rife_model.py": "from rife.RIFE_HDv3 import Model\n",
        "app/rife/__init__.py": "",
        "app/rife/RIFE_HDv3.py": CUDA + "from .warplayer import warp\nclass Model:\n    pass\n",
        "app/rife/warplayer.py": CUDA + "def warp():\n    return x\n",
        "app/rife/RIFE.py": CUDA + "from .refine import *\n",  # nothing imports it
        "app/rife/refine.py": CUDA + "from .warplayer import warp\n",  # only RIFE.py imports it
    })
    reach = _reach_by_path(tmp_path)
    for live in ("app/rife/RIFE_HDv3.py", "app/rife/warplayer.py"):
        assert {r for r, _ in reach[live]} == {"runs"}, live
    unreached = "imported by nothing the scripts beside app/rife/ load: no product code loads it"
    assert reach["app/rife/RIFE.py"] == {("optional", unreached)}
    assert reach["app/rife/refine.py"] == {("optional", unreached)}


def test_the_reasons_read_in_chinese():
    for reason in ("imported only by tests (tests/fp8/test_linear.py): no product code loads it",
                   "in mylib/fp8/, a package imported only by tests (tests/t.py): no product code loads it",
                   "imported by nothing the scripts beside app/rife/ load: no product code loads it"):
        assert phrase("zh", reason) != reason


def test_a_library_no_entry_point_drives_keeps_what_only_its_tests_import(tmp_path):
    write_tree(tmp_path, {
        "setup.py": "from setuptools import setup\nsetup(name='kern')\n",
        "kern/__init__.py": "",
        "kern/ops.py": CUDA,
        "tests/test_ops.py": "from kern.ops import x\n",
    })
    assert {r for r, _ in _reach_by_path(tmp_path)["kern/ops.py"]} == {"runs"}  # its users import kern.ops
    write_tree(tmp_path, {"train.py": "import kern.core\n", "kern/core.py": "import torch\n"})
    assert {r for r, _ in _reach_by_path(tmp_path)["kern/ops.py"]} == {"optional"}  # the project's entry drives kern
    write_tree(tmp_path, {"kern/__init__.py": "from kern.core import *\n"})  # a published API: a library's users
    assert {r for r, _ in _reach_by_path(tmp_path)["kern/ops.py"]} == {"runs"}  # import kern.ops as well



def _vila_like(tmp_path, distribution: str) -> None:
    """VILA's shape: pyproject names the project `vila`, its package is `llava` (whose __init__.py publishes `load`),
    shell launchers run llava/train/train_mem.py, and realqmemllama.py is a copy nothing imports."""
    write_tree(tmp_path, {
        "pyproject.toml": f'[project]\nname = "{distribution}"\n',
        "scripts/sft.sh": "torchrun --nproc_per_node 8 llava/train/train_mem.py --model qwen\n",
        "llava/__init__.py": "from .entry import *\n",
        "llava/entry.py": "__all__ = ['load']\ndef load(path):\n    from llava.model.builder import build\n    return build(path)\n",
        "llava/train/__init__.py": "",
        "llava/train/train_mem.py": "from llava.model.builder import build\nbuild('x')\n",
        "llava/model/__init__.py": "",
        "llava/model/builder.py": "from llava.model.qmemllama import QMemLlama\ndef build(p):\n    return QMemLlama()\n",
        "llava/model/qmemllama.py": CUDA + "class QMemLlama:\n    pass\n",
        "llava/model/realqmemllama.py": CUDA + "from .fake_quant import q\nclass QMemLlama:\n    pass\n",
        "llava/model/fake_quant.py": CUDA + "def q():\n    return x\n",  # only the unimported copy imports it
        "llava/model/registry_only.py": CUDA,  # a string of product code names it: loaded by name
        "llava/model/table.py": "MODELS = {'r': 'llava.model.registry_only'}\n",
    })


def test_an_application_package_module_nothing_imports_is_optional(tmp_path):
    _vila_like(tmp_path, "vila")
    reach = _reach_by_path(tmp_path)
    unreached = ("imported by nothing the launchers and entry points of the application package llava/ load: "
                 "no product code loads it")
    assert reach["llava/model/realqmemllama.py"] == {("optional", unreached)}
    assert reach["llava/model/fake_quant.py"] == {("optional", unreached)}
    assert {r for r, _ in reach["llava/model/qmemllama.py"]} == {"runs"}
    assert unreached not in {why for _, why in reach["llava/model/registry_only.py"]}  # loaded by its name (opt_in.py)
    assert phrase("zh", unreached) != unreached


def test_a_package_published_under_its_own_name_is_a_library_whose_users_import_any_module(tmp_path):
    _vila_like(tmp_path, "llava-torch")  # pip install llava-torch; import llava: its users may import realqmemllama
    reach = _reach_by_path(tmp_path)
    for path in ("llava/model/realqmemllama.py", "llava/model/fake_quant.py", "llava/model/qmemllama.py"):
        assert {r for r, _ in reach[path]} == {"runs"}, path


def test_an_application_reads_namespace_subpackages_and_modules_named_in_any_string(tmp_path):
    _vila_like(tmp_path, "vila")
    write_tree(tmp_path, {
        "llava/model/language_model/qwen.py": CUDA,  # no __init__.py: a namespace subpackage builder imports from
        "llava/model/language_model/realqwen.py": CUDA,  # ... beside a copy nothing imports
        "llava/model/builder.py": ("from llava.model.qmemllama import QMemLlama\n"
                                   "from llava.model.language_model.qwen import x\ndef build(p):\n    return QMemLlama()\n"),
        "llava/train/args.py": "encoder: str = '{\"_target_\": \"llava.model.encoders.BasicEncoder\"}'\n",
        "llava/model/encoders/__init__.py": "from .image import *\n",  # loaded by the JSON string's target
        "llava/model/encoders/image/__init__.py": "from .basic import *\n",
        "llava/model/encoders/image/basic.py": CUDA,
    })
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["llava/model/language_model/realqwen.py"]} == {"optional"}
    for live in ("llava/model/language_model/qwen.py", "llava/model/encoders/image/basic.py"):
        assert {r for r, _ in reach[live]} == {"runs"}, live


def test_a_library_module_whose_only_import_is_commented_out_is_optional(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n',
        "train.py": "from mylib.model import Model\nif __name__ == '__main__':\n    Model()\n",
        "mylib/__init__.py": "from mylib.model import Model\n",
        "mylib/model.py": ("from transformers import LlamaModel\n# from .modeling_llama import LlamaModel\n"
                           "from mylib.encoders.builder import build\n# import order matters here\n"
                           "class Model(LlamaModel):\n    pass\n"),
        "mylib/modeling_llama.py": CUDA,
        "mylib/kept.py": CUDA,  # commented out once, imported live once
        "mylib/user.py": "# from .kept import x\nfrom .kept import x\n",
        "mylib/encoders/__init__.py": "",
        "mylib/encoders/builder.py": ("# from .dev.eva_vit import EvaViT\ndef build(name):\n"
                                     "    if name == 'clip':\n        return None\n"),
        "mylib/encoders/dev/__init__.py": "",
        "mylib/encoders/dev/eva_vit.py": "from .clip.model import Clip\n" + CUDA,
        "mylib/encoders/dev/clip/__init__.py": "",
        # its xattn switch is on in the folder's own configs: no matter, nothing loads the folder
        "mylib/encoders/dev/clip/model.py": ("import xformers.ops as xops\nclass Clip:\n"
                                             "    def __init__(self, xattn=False):\n        if xattn:\n"
                                             "            self.mask = xops.LowerTriangularMask()\n"),
        "mylib/encoders/dev/clip/model_configs/big.json": '{"vision_cfg": {"xattn": true}}\n',
        "mylib/public_api.py": CUDA,  # a library's module nothing imports and no comment names: its users may
    })
    reach = _reach_by_path(tmp_path)
    assert reach["mylib/modeling_llama.py"] == {
        ("optional", "its only import, mylib/model.py:2, is commented out: nothing imports it")}
    folder = "in mylib/encoders/dev/, whose only import, mylib/encoders/builder.py:1, is commented out: nothing imports it"
    assert ("optional", folder) in reach["mylib/encoders/dev/clip/model.py"]  # the xformers mask
    assert {r for r, _ in reach["mylib/encoders/dev/clip/model.py"]} == {"optional"}
    assert reach["mylib/encoders/dev/eva_vit.py"] == {
        ("optional", "its only import, mylib/encoders/builder.py:1, is commented out: nothing imports it")}
    for live in ("mylib/kept.py", "mylib/public_api.py"):
        assert {r for r, _ in reach[live]} == {"runs"}, live
    assert phrase("zh", folder) != folder


BENCH = CUDA + ("def attend(q):\n    return q\n"
                "if __name__ == '__main__':\n    q = torch.randn((4, 8), device='cuda')\n    print(attend(q))\n")


def _unpublished_tree(extra: dict[str, str] | None = None) -> dict[str, str]:
    """Show-o's shape: no build file, root scripts import `models` (whose __init__.py re-exports a class) and
    `training`; models/training_utils.py and training/omni_attention.py (a `__main__` benchmark) nothing imports."""
    return {
        "inference.py": "from models import Showo\nfrom training.prompting import prompt\nShowo()\nprompt()\n",
        "models/__init__.py": "from .modeling import Showo\n",
        "models/modeling.py": CUDA + "class Showo:\n    pass\n",
        "models/training_utils.py": CUDA + "class EMA:\n    pass\n",
        "training/__init__.py": "",
        "training/prompting.py": CUDA + "def prompt():\n    return x\n",
        "training/train.py": "from training.prompting import prompt\nif __name__ == '__main__':\n    prompt()\n",
        "training/omni_attention.py": BENCH,
        **(extra or {}),
    }


def test_unimported_modules_of_an_unpublished_package_are_optional_its_benchmark_too(tmp_path):
    write_tree(tmp_path, _unpublished_tree())
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["models/training_utils.py"]} == {"optional"}
    assert {r for r, _ in reach["training/omni_attention.py"]} == {"optional"}
    (why,) = {w for _, w in reach["training/omni_attention.py"]}
    assert "no setup.py, setup.cfg or pyproject.toml publishes" in why and "benchmark" in why
    for loaded in ("models/modeling.py", "training/prompting.py"):
        assert {r for r, _ in reach[loaded]} == {"runs"}, loaded


def test_a_published_package_a_launched_benchmark_and_a_real_main_keep_runs(tmp_path):
    write_tree(tmp_path, _unpublished_tree({
        "pyproject.toml": '[project]\nname = "models"\n',  # published: its users may import training_utils
        "bench.sh": "python training/omni_attention.py\n",  # the project runs it
    }))
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["models/training_utils.py"]} == {"runs"}
    assert {r for r, _ in reach["training/omni_attention.py"]} == {"runs"}
    tmp = tmp_path / "plain"
    write_tree(tmp, _unpublished_tree({  # a main block that runs the module's own program, no demo input
        "training/omni_attention.py": CUDA + "def main():\n    return x\nif __name__ == '__main__':\n    main()\n"}))
    assert {r for r, _ in _reach_by_path(tmp)["training/omni_attention.py"]} == {"runs"}


MODELS_INIT = ('AVAILABLE_MODELS = {"llava": "Llava", "qwen_vl": "QwenVL", "idefics": "Idefics", "whisper_tt": "Whisper"}\n'
               'from harness.models.registry import get_model\n')
REGISTRY = ('import importlib\n'  # the loader sits in another file than the table (lmms-eval's registry_v2.py)
            'def get_model(name):\n'
            '    from harness.models import AVAILABLE_MODELS\n'
            '    module = importlib.import_module(f"harness.models.simple.{name}")\n'
            '    return getattr(module, AVAILABLE_MODELS[name])\n')


SIDE_SCRIPT = ("import torch.distributed as dist\ndef main():\n    dist.init_process_group(backend=\"nccl\")\n"
               "if __name__ == \"__main__\":\n    main()\n")


def _harness(tmp_path, program: bool) -> None:
    """An evaluation harness loading its model adapters by name from a string table (lmms-eval's shape)."""
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "harness"\n',
        "harness/__init__.py": "from .evaluator import evaluate\n",
        "harness/evaluator.py": "from harness.models import get_model\ndef evaluate(name):\n    return get_model(name)\n",
        "harness/utils.py": ("import torch\ndef used():\n    return 1\n"
                             "def clear_cache():\n    torch.cuda.empty_cache()\n"),
        "harness/models/__init__.py": MODELS_INIT,
        "harness/models/registry.py": REGISTRY,
        "harness/models/simple/__init__.py": "",
        "harness/models/simple/llava.py": "from harness.utils import used\n" + CUDA,
        "harness/models/simple/qwen_vl.py": CUDA,
        "harness/models/simple/idefics.py": CUDA,
        "harness/models/simple/cambrian.py": CUDA,  # in no table, imported by nothing
        "harness/models/whisper_tt.py": CUDA,  # its key names simple/whisper_tt, which does not exist
        "harness/models/model_utils/__init__.py": "",
        "harness/models/model_utils/parallel.py": CUDA,  # imported by nothing
        "harness/tasks/__init__.py": "",
        "harness/tasks/eval_sam.py": SIDE_SCRIPT,  # a scorer run by hand after the tasks
        **({"harness/__main__.py": "from harness.evaluator import evaluate\nevaluate('llava')\n"} if program else {}),
    })


def test_a_program_loading_plugins_through_a_string_table_leaves_what_no_table_or_import_names_optional(tmp_path):
    _harness(tmp_path, program=True)
    reach = _reach_by_path(tmp_path)
    unregistered = ("not in the plugin table of harness/models/__init__.py that loads the modules of "
                    "harness/models/simple/ by name, and imported by nothing the program harness/ runs: no product "
                    "code loads it")
    assert reach["harness/models/simple/cambrian.py"] == {("optional", unregistered)}
    assert phrase("zh", unregistered) != unregistered
    for dead in ("harness/models/whisper_tt.py", "harness/models/model_utils/parallel.py"):
        assert {r for r, _ in reach[dead]} == {"optional"}, dead
    for plugin in ("harness/models/simple/llava.py", "harness/models/simple/qwen_vl.py",
                   "harness/models/simple/idefics.py"):
        assert {r for r, _ in reach[plugin]} == {"runs"}, plugin
    assert {r for r, _ in reach["harness/utils.py"]} == {"optional"}  # clear_cache: called by nothing
    side = ("a side script of the program harness/: its own `if __name__ == \"__main__\":` block, run by hand; "
            "nothing the program's entries run imports or launches it")
    assert reach["harness/tasks/eval_sam.py"] == {("optional", side)}
    assert phrase("zh", side) != side


def test_the_backend_item_comes_from_the_program_not_its_side_script(tmp_path):
    for program, bucket in ((True, "optional"), (False, "required")):
        root = tmp_path / str(program)
        _harness(root, program=program)
        items = analyze(root, AnalyzeOptions(jobs=1)).effort.items
        assert [i.bucket for i in items if i.rule == "adoption:hccl"] == [bucket], program


def test_a_side_script_a_launcher_runs_is_an_entry_of_the_program(tmp_path):
    _harness(tmp_path, program=True)
    write_tree(tmp_path, {"scripts/score.sh": "python harness/tasks/eval_sam.py --split val\n"})
    assert {r for r, _ in _reach_by_path(tmp_path)["harness/tasks/eval_sam.py"]} == {"runs"}


def test_a_library_without_a_program_keeps_its_unregistered_modules_public(tmp_path):
    _harness(tmp_path, program=False)  # no __main__.py, no console script: its users import it module by module
    reach = _reach_by_path(tmp_path)
    for path in ("harness/models/simple/cambrian.py", "harness/models/whisper_tt.py",
                 "harness/models/model_utils/parallel.py", "harness/utils.py", "harness/tasks/eval_sam.py"):
        assert {r for r, _ in reach[path]} == {"runs"}, path


def test_a_table_no_by_name_loader_reads_is_no_plugin_table(tmp_path):
    _harness(tmp_path, program=True)
    write_tree(tmp_path, {"harness/models/registry.py": REGISTRY.replace("importlib.import_module", "load_plugin")})
    reach = _reach_by_path(tmp_path)
    assert {r for r, _ in reach["harness/models/simple/cambrian.py"]} == {"runs"}


def test_a_table_of_settings_names_no_plugin_folder(tmp_path):
    _harness(tmp_path, program=True)
    write_tree(tmp_path, {"harness/models/__init__.py": MODELS_INIT.replace(
        '{"llava": "Llava", "qwen_vl": "QwenVL", "idefics": "Idefics", "whisper_tt": "Whisper"}',
        '{"fp16": "float16", "bf16": "bfloat16", "fp32": "float32"}')})
    reach = _reach_by_path(tmp_path)
    for path in ("harness/models/simple/cambrian.py", "harness/models/simple/qwen_vl.py"):
        assert {r for r, _ in reach[path]} == {"runs"}, path


ADAPTER = ("import torch\nfrom transformers import AutoModelForCausalLM\n"
           "model = AutoModelForCausalLM.from_pretrained('x').cuda()\nmodel.eval()\n"
           "with torch.no_grad():\n    out = model.generate(torch.ones(1))\n")


def test_a_program_s_plugins_are_no_entry_files_of_the_port(tmp_path):
    adapters = [f"harness/models/simple/{m}.py" for m in ("llava", "qwen_vl", "idefics", "cambrian")]
    for program in (True, False):
        root = tmp_path / str(program)
        _harness(root, program=program)
        write_tree(root, dict.fromkeys(adapters, ADAPTER))
        items = analyze(root, AnalyzeOptions(jobs=1)).effort.items
        sites = {s for i in items if i.rule == "adoption:entry-points" for s in i.sites}
        if program:  # each run loads the adapter its command names: none is an entry file
            assert not sites & set(adapters)
        else:  # a library's modules with import-time work stay entries
            assert sites >= set(adapters)
