"""Module-level functions and classes nothing in the project names are optional (analyzer/context/unreferenced.py):
in an application's package, in scripts outside any package, and private names anywhere. A name written anywhere else
(a call, an import, `__all__`, a string, a YAML config; not a comment, a docstring or a log sentence) keeps `runs`, and so do decorated definitions, a
library's public functions and modules that look their names up at run time."""

from __future__ import annotations

from types import SimpleNamespace

from ascend_feasibility.analyzer.context.written_names import writers
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase
from ascend_feasibility.domains.phases.symbols import read_words, unnamed_symbols

from tests.helpers import write_tree

CUDA = "    return torch.ones(1).cuda()\n"


def _reach_by_line(root) -> dict[tuple[str, int], tuple[str, str | None]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {(f.path, f.line): (f.reach, f.reach_reason) for f in report.findings if f.rule == "DEV004"}


def _application(tmp_path, extra: dict[str, str] | None = None) -> None:
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "vila"\n',
        "scripts/train.sh": "torchrun llava/train/train_mem.py\n",
        "llava/__init__.py": "",
        "llava/train/__init__.py": "",
        "llava/train/train_mem.py": "from llava.train.attn import HybridAttention\nHybridAttention()\n",
        "llava/train/attn.py": ("import torch\n"
                                "class HybridAttention:\n    def forward(self):\n" + CUDA.replace("    ", "        ") +
                                "class AsyncHybridAttention:\n    def forward(self):\n" + CUDA.replace("    ", "        ") +
                                "def validity_check():\n" + CUDA +
                                "@torch.no_grad()\ndef registered():\n" + CUDA +
                                "def in_config():\n" + CUDA +
                                "def in_comment():\n" + CUDA),
        "configs/model.yaml": "model:\n  target: llava.train.attn.in_config\n",
        "llava/train/notes.py": "# in_comment() was the old entry\n",
        **(extra or {}),
    })


def test_functions_and_classes_nothing_names_in_an_application_are_optional(tmp_path):
    _application(tmp_path)
    reach = _reach_by_line(tmp_path)
    assert reach[("llava/train/attn.py", 4)] == ("runs", None)  # HybridAttention, which train_mem.py uses
    assert reach[("llava/train/attn.py", 7)] == (
        "optional", "line 5: class AsyncHybridAttention is named nowhere else in the project (no call, reference, "
                    "export or config entry): nothing reaches it")
    assert reach[("llava/train/attn.py", 9)][0] == "optional"  # validity_check()
    for kept in (12, 14):  # decorated, named in a YAML target
        assert reach[("llava/train/attn.py", kept)] == ("runs", None), kept
    assert reach[("llava/train/attn.py", 16)][0] == "optional"  # named only in a comment (domains/phases/prose.py)
    why = reach[("llava/train/attn.py", 9)][1]
    assert phrase("zh", why) != why and "函数" in phrase("zh", why)


def test_a_module_that_looks_its_names_up_keeps_them(tmp_path):
    _application(tmp_path, {"llava/train/attn_cli.py": "", "llava/train/train_mem.py":
                            "from llava.train.attn import HybridAttention\nHybridAttention()\n"})
    with open(tmp_path / "llava/train/attn.py", "a") as handle:
        handle.write("if __name__ == '__main__':\n    import fire\n    fire.Fire()\n")
    reach = _reach_by_line(tmp_path)
    assert {reach[("llava/train/attn.py", line)][0] for line in (7, 9)} == {"runs"}


def test_a_library_keeps_its_public_functions_and_judges_private_ones(tmp_path):
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n',
        "mylib/__init__.py": "from mylib.ops import used\n",
        "mylib/ops.py": ("import torch\ndef used():\n" + CUDA + "def public_helper():\n" + CUDA +
                         "def _private_helper():\n" + CUDA),
        "train.py": "from mylib import used\nused()\n",
    })
    reach = _reach_by_line(tmp_path)
    assert reach[("mylib/ops.py", 3)] == ("runs", None)
    assert reach[("mylib/ops.py", 5)] == ("runs", None)  # its users may call it
    assert reach[("mylib/ops.py", 7)][0] == "optional"


def test_a_published_package_judges_public_functions_of_the_copies_it_vendors(tmp_path):
    """Round 18 A21, B8: a copy of another project under the package's third_party/ is no API of the package."""
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n',
        "mylib/__init__.py": "from mylib.third_party.sparse.ops import used\n",
        "mylib/third_party/__init__.py": "", "mylib/third_party/sparse/__init__.py": "",
        "mylib/third_party/sparse/ops.py": "import torch\ndef used():\n" + CUDA + "def supports_fast_path():\n" + CUDA,
        "mylib/ops.py": "import torch\ndef public_helper():\n" + CUDA,
        "train.py": "from mylib import used\nused()\n",
    })
    reach = _reach_by_line(tmp_path)
    assert reach[("mylib/third_party/sparse/ops.py", 3)] == ("runs", None)  # used by the package
    assert reach[("mylib/third_party/sparse/ops.py", 5)][0] == "optional"  # named nowhere else
    assert reach[("mylib/ops.py", 3)] == ("runs", None)  # near miss: the package's own public function



def _vendoring(tmp_path, name: str) -> None:
    """A project published as `name` beside a copy of TRL (a catalogued library) at the top level."""
    write_tree(tmp_path, {
        "pyproject.toml": f'[project]\nname = "{name}"\n',
        "trl/__init__.py": "from .trainer.utils import get_quantization_config, pad\n",
        "trl/trainer/__init__.py": "",
        "trl/trainer/utils.py": "import torch\ndef get_quantization_config():\n" + CUDA + "def pad():\n" + CUDA,
        "llava/__init__.py": "", "llava/ops.py": "import torch\ndef public_helper():\n" + CUDA,
        "llava/train.py": "from trl import pad\npad()\n",
    })


def test_a_function_of_a_vendored_library_the_project_never_calls_is_optional(tmp_path):
    """Round 20 B1 C2, A1 class 5: trl/ copied beside llava/; only the re-export names get_quantization_config."""
    _vendoring(tmp_path, "llava")
    reach = _reach_by_line(tmp_path)
    assert reach[("trl/trainer/utils.py", 3)][0] == "optional"  # named nowhere but its re-export
    assert "only re-exported by trl/__init__.py" in reach[("trl/trainer/utils.py", 3)][1]
    assert reach[("trl/trainer/utils.py", 5)] == ("runs", None)  # the project calls it
    assert reach[("llava/ops.py", 3)] == ("runs", None)  # the published package's own public function


def test_a_catalogued_library_folder_is_the_project_itself_when_it_publishes_that_name(tmp_path):
    _vendoring(tmp_path, "trl")  # TRL's own repository: its API is its users'
    assert _reach_by_line(tmp_path)[("trl/trainer/utils.py", 3)] == ("runs", None)


ENVS = ('import os\nfrom typing import TYPE_CHECKING\n\nif TYPE_CHECKING:\n    APP_TARGET_DEVICE: str = "cuda"\n\n'
        'environment_variables = {\n    "APP_TARGET_DEVICE": lambda: os.getenv("APP_TARGET_DEVICE", "cuda"),\n'
        '    "APP_LOG_DEVICE": lambda: os.getenv("APP_LOG_DEVICE", "cuda"),\n'
        '    "APP_OTHER_DEVICE": lambda: os.getenv("APP_ELSE", "cuda"),\n}\n\n\n'
        'def __getattr__(name):\n    return environment_variables[name]()\n')


def _device_reach(root) -> dict[int, str]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f.reach for f in report.findings if f.rule == "DEV001" and f.path == "mylib/envs.py"}


def test_an_environment_table_entry_nothing_reads_is_optional_even_in_a_library(tmp_path):
    """Round 18 A81: the "cuda" default of an envs.py entry whose key nothing else in the project names."""
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n', "mylib/__init__.py": "", "mylib/envs.py": ENVS,
        "mylib/run.py": "import torch\nfrom mylib import envs\nx = torch.zeros(1).to(envs.APP_LOG_DEVICE)\n",
    })
    reach = _device_reach(tmp_path)
    assert reach[5] == "optional" and reach[8] == "optional"  # the TYPE_CHECKING declaration and the entry
    assert reach[9] == "runs"  # read as envs.APP_LOG_DEVICE
    assert reach[10] == "runs"  # near miss: its value reads another variable than its key


def test_an_environment_table_entry_another_file_names_keeps_its_reach(tmp_path):
    """Another file that names the key (here a launcher's export) may read it: the entry is not judged."""
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n', "mylib/__init__.py": "", "mylib/envs.py": ENVS,
        "run.sh": "export APP_TARGET_DEVICE=npu\npython -m mylib.run\n", "mylib/run.py": "print(1)\n",
    })
    assert _device_reach(tmp_path)[8] == "runs"


def test_a_script_function_nothing_calls_is_optional(tmp_path):
    write_tree(tmp_path, {"serve.py": "import torch\ndef serve_main():\n" + CUDA + "def old_serve():\n" + CUDA +
                                            "serve_main()\n"})
    reach = _reach_by_line(tmp_path)
    assert reach[("serve.py", 3)] == ("runs", None)
    assert reach[("serve.py", 5)][0] == "optional"


def test_words_are_the_identifier_runs_of_code_strings_and_comments():
    written, _ = read_words("x = fn(a.b_c, 'LongName/other.cu')  # note 9abc".encode())
    asked = ["LongName", "other", "note", "9abc", "b_c", "Long", "fn", "a.b_c", "other.cu"]
    assert set(writers(asked, [SimpleNamespace(path="m.py", words=written)])) == {"LongName", "other", "note"}


def test_dotted_names_are_runs_of_three_parts_or_more_and_a_text_without_two_dots_in_a_run_has_none():
    from ascend_feasibility.domains.phases import symbols

    cases = {
        b'{"loss": [1.25, 2.5], "lr": 3e-4}': set(),  # numbers: one dot per run, so the runs are not even split
        b"a.b-c.d 1.2.3 x.y.z .p.q.r. self.a.b m..n": {"x.y.z", "p.q.r"},
        "model: llava.model.Enc\u00e9 # pkg.mod.Cls".encode(): {"llava.model.Enc\u00e9", "pkg.mod.Cls"},
    }
    for data, dotted in cases.items():
        assert read_words(data)[1] == dotted
        plain = set(data.translate(symbols._SPACES).split())  # what the two-dot gate lets be skipped
        assert symbols._dotted_names(set(data.translate(symbols._DOTTED).split()) - plain) == dotted


def test_a_name_beside_a_non_ascii_space_is_a_word_of_its_own():
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    text = "def lonely():\n    pass\ndef named():\n    pass\n# named\u00a0here, lonely\u00e9 not\n"
    found = unnamed_symbols(Unit("m.py", "python", SourceText.from_text(text)))
    assert found == [("lonely", 1, 2, "function")]


def test_unnamed_symbols_leave_out_what_the_file_names_again(tmp_path):
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    text = ("__all__ = ['exported']\ndef exported():\n    pass\ndef called():\n    pass\ncalled()\n"
            "def lonely():\n    pass\nclass Alone:\n    pass\n@register\ndef decorated():\n    pass\n")
    found = unnamed_symbols(Unit("m.py", "python", SourceText.from_text(text)))
    # the module's own `__all__` exports `exported`, which is no use of it (prec41b: lama's data_parallel.py)
    assert found == [("exported", 2, 3, "function"), ("lonely", 7, 8, "function"), ("Alone", 9, 10, "class")]


def test_a_file_calling_globals_names_everything_but_one_importing_a_globals_module_does_not():
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit

    def found(text):
        return [s[0] for s in unnamed_symbols(Unit("m.py", "python", SourceText.from_text(text)))]
    assert found("from .globals import get_group\nclass AsyncAttention:\n    pass\n") == ["AsyncAttention"]
    assert found("class AsyncAttention:\n    pass\ncls = globals()[name]\n") == []


def test_a_symbol_named_only_inside_itself_is_named_nowhere_else():
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    text = ("class AsyncAttention(Base):\n    def __init__(self):\n        super(AsyncAttention, self).__init__()\n"
            "def countdown(n):\n    return countdown(n - 1) if n else 0\n")
    assert [s[0] for s in unnamed_symbols(Unit("m.py", "python", SourceText.from_text(text)))] == [
        "AsyncAttention", "countdown"]


def test_a_symbol_named_only_inside_other_definitions_is_listed_with_them():
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    from ascend_feasibility.domains.phases.symbols import module_symbols
    text = ("import functools\n@functools.lru_cache()\ndef _gloo_group():\n    return 1\n"
            "def all_reduce_dict(d):\n    return _gloo_group()\n"
            "@register\ndef _registered():\n    pass\ndef uses_registered():\n    return _registered()\n"
            "def _called_at_top():\n    pass\n_called_at_top()\n")
    unnamed, inner = module_symbols(Unit("m.py", "python", SourceText.from_text(text)))
    assert unnamed == [("all_reduce_dict", 5, 6, "function"), ("uses_registered", 10, 11, "function")]
    # a cache decorator registers nothing; @register may: _registered is no candidate at all
    assert inner == [("_gloo_group", 2, 4, "function", ["all_reduce_dict"])]


def test_an_init_re_exports_the_names_it_writes_only_in_its_imports_and_all():
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    from ascend_feasibility.domains.phases.symbols import reexported_names
    text = ("from .dist_utils import (DistOptimizerHook, all_reduce_dict,\n    reduce_mean as mean)\n"
            "from .speed import SpeedMonitor\ncallbacks = Registry()\ncallbacks.register('speed', func=SpeedMonitor)\n"
            "__all__ = ['DistOptimizerHook', 'all_reduce_dict', 'mean']\n# DistOptimizerHook is the hook\n")
    unit = Unit("pkg/utils/__init__.py", "python", SourceText.from_text(text))
    assert reexported_names(unit) == ["all_reduce_dict", "mean"]
    assert reexported_names(Unit("pkg/utils/core.py", "python", SourceText.from_text(text))) == ["all_reduce_dict", "mean"]


def test_a_class_a_module_only_imports_is_named_nowhere_else(tmp_path):
    """PixArt: PixArt.py imports LabelEmbedder beside the blocks it builds, and nothing builds it: its methods are
    unreached. A class the importer builds, or a name a third file imports from the importer and uses, runs."""
    blocks = ("import torch\nclass LabelEmbedder:\n    def token_drop(self):\n" + CUDA.replace("    ", "        ") +
              "class FinalLayer:\n    def forward(self):\n" + CUDA.replace("    ", "        ") +
              "class Passed:\n    def forward(self):\n" + CUDA.replace("    ", "        "))
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "pixart"\n',
        "train.sh": "python diffusion/train.py\n",
        "diffusion/__init__.py": "",
        "diffusion/blocks.py": blocks,
        "diffusion/model.py": "from diffusion.blocks import LabelEmbedder, FinalLayer, Passed  # the blocks\nFinalLayer()\n",
        "diffusion/train.py": "from diffusion.model import Passed\nPassed()\n",
    })
    reach = _reach_by_line(tmp_path)
    assert reach[("diffusion/blocks.py", 4)][0] == "optional"
    assert reach[("diffusion/blocks.py", 7)] == ("runs", None)
    assert reach[("diffusion/blocks.py", 10)] == ("runs", None)


def test_a_module_imported_whole_beside_a_from_import_of_it_reaches_what_the_file_calls_through_it(tmp_path):
    """Round 34 V1-2 (mae main_pretrain.py:30-31, ConvNeXt main.py:30-31): `import util.misc as misc` or `import utils`
    beside `from ... import NativeScalerWithGradNormCount`, then `misc.init_distributed_mode(args)`: the call runs. A
    name a file writes only as a word, with `from utils import` of another name and no `import utils`, does not."""
    def helpers(name: str) -> str:  # each module's function has its own name: no file names the other's
        return f"import torch\nclass Scaler:\n    pass\ndef {name}(args):\n" + CUDA + "def unused_helper():\n" + CUDA
    write_tree(tmp_path, {
        "util/__init__.py": "",
        "util/misc.py": helpers("init_distributed_mode"),
        "utils.py": helpers("setup_distributed"),
        "main_pretrain.py": ("import util.misc as misc\nfrom util.misc import Scaler\n"
                             "misc.init_distributed_mode(None)\nScaler()\n"),
        "main.py": "from utils import Scaler\nimport utils\nutils.setup_distributed(None)\nScaler()\n",
        "other.py": "from utils import Scaler\nScaler()\nunused_helper = None\n",
    })
    reach = _reach_by_line(tmp_path)
    assert reach[("util/misc.py", 5)] == ("runs", None)
    assert reach[("utils.py", 5)] == ("runs", None)
    assert reach[("utils.py", 7)][0] == "optional"  # other.py's `unused_helper` is its own


def test_a_constant_holding_a_variable_name_that_nothing_names_is_no_site(tmp_path):
    """torchchat's distributed/utils.py, in a published package: TRACE_FILE and DUMP_ON_TIMEOUT are never read, only
    ASYNC_ERROR_HANDLING reaches `os.environ[env] = val`; another file naming a constant keeps it."""
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "mylib"\n',
        "mylib/__init__.py": "",
        "mylib/utils.py": ("import os\n"
                           "TRACE_FILE = \"TORCH_NCCL_DEBUG_INFO_TEMP_FILE\"\n"
                           "DUMP_ON_TIMEOUT = \"TORCH_NCCL_DUMP_ON_TIMEOUT\"\n"
                           "ASYNC_ERROR_HANDLING = \"TORCH_NCCL_ASYNC_ERROR_HANDLING\"\n"
                           "HEARTBEAT = \"TORCH_NCCL_HEARTBEAT_TIMEOUT_SEC\"\n"
                           "def init():\n    os.environ[ASYNC_ERROR_HANDLING] = \"3\"\n"),
        "mylib/launch.py": "import os\nfrom mylib.utils import HEARTBEAT, init\nos.environ[HEARTBEAT] = \"60\"\ninit()\n",
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reach = {f.line: (f.reach, f.reach_reason) for f in report.findings if f.path == "mylib/utils.py" and f.rule.startswith("DST")}
    assert reach[2][0] == "optional" and "constant TRACE_FILE is named nowhere else" in reach[2][1]
    assert reach[3][0] == "optional"
    assert reach[4][0] == "runs"  # read by init(), which writes it
    assert reach[5][0] == "runs"  # another file writes it


def test_a_symbol_named_only_in_the_main_block_is_listed_with_that_block_as_its_user():
    from ascend_feasibility.analyzer.context.written_names import MAIN_BLOCK_USER
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    from ascend_feasibility.domains.phases.symbols import module_symbols
    text = ("def generate_image(prompt):\n    return _draw(prompt)\n"
            "def _draw(prompt):\n    return prompt\n"
            "def kept(x):\n    return x\nkept(1)\n"
            "if __name__ == \"__main__\":\n    tyro.cli(generate_image)\n")
    unnamed, inner = module_symbols(Unit("m.py", "python", SourceText.from_text(text)))
    assert unnamed == []
    # called at the top level outside the block: named; the block itself is no symbol
    assert inner == [("generate_image", 1, 2, "function", [MAIN_BLOCK_USER]), ("_draw", 3, 4, "function", ["generate_image"])]
    # a guard with an else branch, or another test, is no main block: its names count as named
    for guard in ("if __name__ == \"__main__\":\n    tyro.cli(generate_image)\nelse:\n    pass\n",
                  "if __name__ == \"other\":\n    tyro.cli(generate_image)\n"):
        unnamed, inner = module_symbols(Unit("m.py", "python", SourceText.from_text(text.split("if __name__")[0] + guard)))
        assert [name for name, *_ in inner] == ["_draw"]


def _unit(text: str):
    from ascend_feasibility.analyzer.reading.source import SourceText
    from ascend_feasibility.domains.base import Unit
    return Unit("m.py", "python", SourceText.from_text(text))


def test_an_alias_of_a_name_is_a_value_its_users_hold():
    from ascend_feasibility.domains.phases.symbols import module_symbols
    # round 24 B2 37: `modulated_deform_conv = ModulatedDeformConvFunction.apply`, used only in a class's forward
    text = ("class DeformFunction(Function):\n    pass\n\n"
            "deform_apply = DeformFunction.apply\n\n"
            "class DeformConv(Module):\n    def forward(self, x):\n        return deform_apply(x)\n"
            "other_alias = build().apply\n")
    unnamed, inner = module_symbols(_unit(text))
    assert ("DeformConv", 6, 8, "class") in unnamed
    assert ("deform_apply", 4, 4, "value", ["DeformConv"]) in inner
    assert ("DeformFunction", 1, 2, "class", ["deform_apply"]) in inner
    assert not any(entry[0] == "other_alias" for entry in unnamed + inner)  # a call's attribute may run code


def test_a_class_imported_only_under_an_alias_nobody_writes_again_is_optional(tmp_path):
    """Round 29 B1 row 13's shape: `from .stylegan3 import SynthesisLayer as AFSynthesisLayer`, the alias never written again,
    while another module defines its own `SynthesisLayer`, which the importer also imports and builds: the aliased class
    is unreached. Where the importer
    builds the alias (`AFToRGB()`), the class keeps `runs`."""
    layers = ("import torch\nclass SynthesisLayer:\n    def forward(self):\n" + CUDA.replace("    ", "        ") +
              "class ToRGB:\n    def forward(self):\n" + CUDA.replace("    ", "        "))
    write_tree(tmp_path, {
        "pyproject.toml": '[project]\nname = "portrait"\n',
        "train.sh": "python models/train.py\n",
        "models/__init__.py": "",
        "models/stylegan3.py": layers,
        "models/stylegan2.py": "class SynthesisLayer:\n    pass\n\nclass Net:\n    def build(self):\n        return SynthesisLayer()\n",
        "models/sr.py": ("from models.stylegan2 import Net, SynthesisLayer\n"
                         "from models.stylegan3 import SynthesisLayer as AFSynthesisLayer, ToRGB as AFToRGB\n"
                         "class SR:\n    def forward(self):\n        return AFToRGB(), Net(), SynthesisLayer()\n"),
        "models/train.py": "from models.sr import SR\nSR()\n",
    })
    reach = _reach_by_line(tmp_path)
    assert reach[("models/stylegan3.py", 4)] == (
        "optional", "line 2: class SynthesisLayer is only imported (by models/sr.py) and never named again there: an "
                    "import is no call, nothing reaches it")
    assert reach[("models/stylegan3.py", 7)] == ("runs", None)  # ToRGB, built through its alias


def test_a_class_whose_only_construction_is_commented_out_is_optional(tmp_path):
    """Round 29 A1 row 5, A2 row 87's shape: the detector imports Hand beside Body and builds only Body; the line
    building Hand is commented out. Hand's methods are unreached; Body, built, keeps `runs`."""
    parts = ("import torch\nclass Hand:\n    def __call__(self):\n" + CUDA.replace("    ", "        ") +
             "class Body:\n    def __call__(self):\n" + CUDA.replace("    ", "        "))
    write_tree(tmp_path, {
        "app.py": "from pose.detector import Detector\nDetector()\n",
        "pose/__init__.py": "",
        "pose/parts.py": parts,
        "pose/detector.py": ("from pose.parts import Body, Hand\n"
                             "class Detector:\n    def __init__(self):\n        self.body = Body()\n"
                             "        # self.hand = Hand()\n"),
    })
    reach = _reach_by_line(tmp_path)
    assert reach[("pose/parts.py", 4)] == (
        "optional", "line 2: class Hand is only imported (by pose/detector.py) and never named again there: an import "
                    "is no call, nothing reaches it")
    assert reach[("pose/parts.py", 7)] == ("runs", None)


def test_a_name_imported_and_written_only_inside_definitions_lists_them():
    from ascend_feasibility.domains.phases.symbols import imported_users
    text = ("import torchvision\n"
            "try:\n    from lib.ops.dcn import ModulatedDeformConvPack, modulated_deform\n"
            "except ImportError:\n    pass\n"
            "from lib.util import helper_fn, RegisteredBase, UsedAtTop, InComment\n"
            "__all__ = ['DCNv2Pack']\n\n"
            "class DCNv2Pack(ModulatedDeformConvPack):\n"
            "    def forward(self, x):\n        return modulated_deform(x) + helper_fn(x)\n\n"
            "def make():\n    return helper_fn(1)\n\n"
            "@ARCH_REGISTRY.register()\nclass Registered(RegisteredBase):\n    pass\n\n"
            "model = UsedAtTop()\n# InComment is kept for the docs\n"
            "class Detector:\n    def __init__(self):\n        # self.hand = Commented(1)\n        self.doc = 'Quoted'\n")
    text = text.replace("InComment\n", "InComment, Commented, Quoted\n", 1)
    assert imported_users(_unit(text)) == [("Commented", []),  # only a comment in Detector writes it: no use
                                           ("InComment", []),  # a comment at module level is no use either
                                           ("ModulatedDeformConvPack", ["DCNv2Pack"]),
                                           ("Quoted", ["Detector"]),  # a string may be looked up: a use
                                           # a registry's registration builds it by a name string only: the
                                           # registered class is its user, reached where a config names it
                                           ("RegisteredBase", ["Registered"]),
                                           ("helper_fn", ["DCNv2Pack", "make"]),
                                           ("modulated_deform", ["DCNv2Pack"])]
    # a module-level call writes the name: not listed; another decorator may register it under any name: a use
    assert "RegisteredBase" not in dict(imported_users(_unit(text.replace("@ARCH_REGISTRY.register()", "@register"))))
    assert imported_users(_unit(text + "x = globals()['DCNv2Pack']\n")) == []  # a file looking names up


def test_an_aliased_import_is_listed_under_the_imported_name_with_the_alias_users():
    """`from ..stylegan3 import SynthesisLayer as AFSynthesisLayer`: the file writes the defining module's name only in
    the import, so its use of that name is the alias's use: none when the alias is written nowhere else."""
    from ascend_feasibility.domains.phases.symbols import imported_users
    text = ("from lib.sg3 import SynthesisLayer as AFSynthesisLayer, ToRGB as AFToRGB, Mapping as AFMapping\n"
            "from lib.sg2 import Block as OtherBlock\n"
            "class Block:\n    pass\n\n"
            "class Head:\n    def forward(self):\n        return AFToRGB()\n\n"
            "net = AFMapping()\n")
    found = dict(imported_users(_unit(text)))
    assert found["lib.sg3.SynthesisLayer"] == []  # imported, never written again: no use
    assert found["lib.sg3.ToRGB"] == ["Head"]  # the alias's users are the imported name's users
    assert "lib.sg3.Mapping" not in found  # the alias is used at module level: used
    assert "lib.sg2.Block" not in found  # the file defines its own Block
    assert found["AFSynthesisLayer"] == []  # the local name as before
    # another import binds the bare name, used by Head: the alias's entry is still its own
    both = dict(imported_users(_unit("from .sg2 import Layer\nfrom .sg3 import Layer as AFLayer\n"
                                     "class Head:\n    def forward(self):\n        return Layer()\n")))
    assert both["sg3.Layer"] == [] and both["Layer"] == ["Head"]
    # no other import binds it and the file writes the bare name at module level: it may mean the module's
    assert "sg3.Layer" not in dict(imported_users(_unit("from sg3 import Layer as AFLayer\nprint('Layer')\n")))


def test_class_uses_reads_methods_bases_overrides_and_base_only_names():
    from ascend_feasibility.domains.phases.class_uses import class_uses
    text = ("from lib.ops import Pack, Plain, Called, helper_fn\n__all__ = ['SubNet']\n\n"
            "class Base(Module):\n    scale = helper_fn\n    def forward(self, x):\n        return apply_fn(x)\n"
            "    def extra(self):\n        return apply_fn(1)\n\n"
            "class SubNet(Base, Pack):\n    def forward(self, x):\n        return x\n"
            "    def extra(self):\n        return super().extra()\n"
            "    def other(self):\n        return Plain.other(self)\n\n"
            "class Uses(Called):\n    def __init__(self):\n        super(Uses, self).__init__()\n\n"
            "def apply_fn(x):\n    return x\n\nthing = Called()\n")
    method_users, shapes, base_only = class_uses(_unit(text))
    assert ("apply_fn", "Base", ["extra", "forward"]) in method_users
    assert not any(name == "helper_fn" for name, _, _ in method_users)  # a class attribute: the class's own use
    assert ("SubNet", ["Base", "Pack"], ["forward"]) in shapes  # extra calls super(), other calls Plain.other
    assert ("Uses", ["Called"], []) in shapes
    # Base, Pack and SubNet are written only as bases, in imports, in __all__ and in their own statements; Called is
    # created at module level, Plain named in a method, Uses only in its own statement
    assert base_only == ["Base", "Pack", "SubNet", "Uses"]


def _spelled_out_verdict(other, modules, name, project):
    """import_reach's verdict as its docstring spells it, each import read in turn (the reading before speed23)."""
    imported = {*other.imports, *other.nested_imports}
    sources = {dotted.rpartition(".")[0] for dotted in imported}

    def above(dotted):
        return dotted in modules or any(module.startswith(dotted + ".") for module in modules)

    if any(above(module) for module in other.star_imports):
        return True, False, False
    touched = bound_elsewhere = False
    for dotted in imported:
        if (dotted not in sources or dotted in other.plain_imports) and above(dotted):
            return True, False, False
        parent, _, leaf = dotted.rpartition(".")
        if parent in modules:
            if leaf == name:
                return True, False, False
            touched = True
        elif parent and above(parent):
            if leaf == name:
                return True, False, False
        elif leaf == name and not any(
                bool(source.star_imports) or any(d.rpartition(".")[2] == name for d in source.imports)
                or _spelled_out_verdict(source, modules, name, {})[0] for source in project.get(parent, ())):
            bound_elsewhere = True
    return False, touched, bound_elsewhere


def test_the_import_verdicts_answer_as_each_import_read_in_turn():
    """import_reach.ImportVerdicts reads each file's imports once (by last part, their sources, the names a
    statement binds) and each module's packages above once: every verdict is the one of reading every import
    for every question, over every pair of these import spellings, modules and names."""
    from itertools import combinations, product

    from ascend_feasibility.analyzer.context.import_reach import ImportVerdicts

    spellings = [["pkg.m", "pkg.m.X"], ["pkg.m", "pkg.m.Y"], ["pkg", "pkg.m"], ["pkg.m"], ["pkg"], ["pkg", "pkg.X"],
                 ["lib", "lib.X"], ["other", "other.X"], ["X"], ["pkg.mm", "pkg.mm.X"], [".m", ".m.X"]]
    stars = [[], ["pkg"], ["lib"]]
    rebinder = SimpleNamespace(path="other.py", imports=["other2", "other2.X"], nested_imports=[], star_imports=[],
                               plain_imports=[], unnamed_symbols=[], inner_named=[], class_shapes=[], words="")
    project = {"other": [rebinder], "lib": [SimpleNamespace(**{**vars(rebinder), "path": "lib.py", "imports": []})]}
    verdicts = ImportVerdicts(project)
    asked = 0
    for n, (first, second) in enumerate(combinations(spellings, 2)):
        for star, plain in product(stars, (False, True)):  # plain: `import pkg.m` / `import pkg` also written
            other = SimpleNamespace(path=f"f{n}_{len(star)}_{star[:1]}_{plain}.py", imports=first,
                                    nested_imports=second, star_imports=star,
                                    plain_imports=[d for d in {*first, *second} if plain and d in ("pkg.m", "pkg")],
                                    unnamed_symbols=[], inner_named=[], class_shapes=[], words="")
            for modules in map(frozenset, ({"pkg.m"}, {"pkg.m", "m"}, {"a.pkg.m", "pkg.m", "m"}, {"lib"})):
                for name in ("X", "Y", "m", "Z"):
                    assert verdicts._verdict(other, modules, name, True) == \
                        _spelled_out_verdict(other, modules, name, project), (first, second, star, plain, modules, name)
                    asked += 1
    assert asked == 55 * 3 * 2 * 4 * 4
    assert ImportVerdicts()._packages(frozenset({"a.pkg.m", "m"})) == {"a.pkg.m", "a.pkg", "a", "m"}


def _carried_checkout(tmp_path, root_build: bool = False, root_imports: bool = True) -> None:
    """An application whose root scripts import a library checkout it carries in a sub-folder with its own build file
    (round 31 A2 C1, B1 C3, B2 C5): `detector/setup.py` above `detector/detector/`."""
    write_tree(tmp_path, {
        **({"pyproject.toml": '[project]\nname = "app"\n'} if root_build else {}),
        "detector/setup.py": "from setuptools import setup\nsetup(name='detector')\n",
        "detector/detector/__init__.py": "",
        "detector/detector/util.py": ("import torch\ndef used():\n" + CUDA +
                                      "def init_distributed_mode():\n" + CUDA +
                                      "def gather(data):\n    if data:\n        return gather_cpu(data)\n" + CUDA +
                                      "def gather_cpu(data):\n    import torch.distributed as dist\n"
                                      "    dist.gather(data)\n" + CUDA),
        "demo.py": "from detector.util import used\nused()\n" if root_imports else "print('demo')\n",
    })


def test_a_library_checkout_an_application_carries_has_no_public_api_of_its_own(tmp_path):
    _carried_checkout(tmp_path)
    reach = _reach_by_line(tmp_path)
    assert reach[("detector/detector/util.py", 3)] == ("runs", None)  # what the application calls
    assert reach[("detector/detector/util.py", 5)] == (
        "optional", "line 4: function init_distributed_mode is named nowhere else in the project (no call, reference, "
                    "export or config entry): nothing reaches it")


def test_a_checkout_in_a_published_project_or_imported_by_nothing_keeps_its_public_api(tmp_path):
    _carried_checkout(tmp_path, root_build=True)  # near miss: the root publishes the sub-folder's package as its own
    assert _reach_by_line(tmp_path)[("detector/detector/util.py", 5)] == ("runs", None)


def test_a_checkout_nothing_outside_imports_keeps_its_public_api(tmp_path):
    _carried_checkout(tmp_path, root_imports=False)  # near miss: a library shipped beside the code
    assert _reach_by_line(tmp_path)[("detector/detector/util.py", 5)] == ("runs", None)


def test_functions_naming_only_each_other_are_unreached(tmp_path):
    """`gather` calls `gather_cpu`, whose `dist.gather(...)` writes `gather` back: a cycle nothing outside enters."""
    _carried_checkout(tmp_path)
    reach = _reach_by_line(tmp_path)
    for line, name in ((9, "gather"), (13, "gather_cpu")):
        assert reach[("detector/detector/util.py", line)][0] == "optional", name
        assert "a cycle no code path enters" in reach[("detector/detector/util.py", line)][1]


def test_a_cycle_someone_outside_enters_runs(tmp_path):
    _carried_checkout(tmp_path)  # near miss: the demo calls into the cycle
    (tmp_path / "demo.py").write_text("from detector.util import used, gather\nused()\ngather([1])\n")
    reach = _reach_by_line(tmp_path)
    assert reach[("detector/detector/util.py", 9)] == ("runs", None)
    assert reach[("detector/detector/util.py", 13)] == ("runs", None)


TILES = ("import torch\n"
         "from somelib.utils import is_xformers_available\n\n\n"
         "def attn_sdpa(x):\n" + CUDA +
         "\n\ndef attn_plain(x):\n" + CUDA +
         "\n\ndef attn_xformers(x):\n    return x\n\n\n"
         "def build(queue):\n"
         "    if {test}:\n"
         "        queue.append(lambda x: attn_xformers(x))\n"
         "    elif hasattr(torch, 'sdpa'):\n"
         "        queue.append(lambda x: attn_sdpa(x))\n"
         "    else:\n"
         "        queue.append(lambda x: attn_plain(x))\n"
         "    return queue\n")


def test_a_function_named_only_in_an_arm_a_function_object_kills_is_optional(tmp_path):
    """Round 30 A2 86 (SUPIR's tilevae.py): `attn_forward_new_pt2_0` is named only in a lambda of the `elif` after
    `if is_xformers_available:`, which tests the imported function without calling it (always true): no code runs it."""
    _application(tmp_path, {"llava/train/tiles.py": TILES.format(test="is_xformers_available"),
                            "llava/train/train_mem.py": "from llava.train.tiles import build\nbuild([])\n"})
    reach = _reach_by_line(tmp_path)
    why = ("line 5: function attn_sdpa is named only in an arm that never runs (line 18: `is_xformers_available` names "
           "a function and is not called: the test is always true, so the later arms never run)")
    assert reach[("llava/train/tiles.py", 6)] == ("optional", why)
    assert reach[("llava/train/tiles.py", 10)][0] == "optional"  # attn_plain, in the else arm
    assert phrase("zh", why).startswith("第 5 行：函数 attn_sdpa 只在一个永不执行的分支中被提及")


def test_a_function_named_in_an_arm_that_may_run_keeps_its_reach(tmp_path):
    for test, tiles in (("is_xformers_available()", None),  # called: either arm may run
                        ("use_xformers", None),  # a plain name, not a function
                        ("is_xformers_available", "    return queue\n\n\nattn_sdpa(None)\n")):  # named elsewhere too
        code = TILES.format(test=test)
        if tiles is not None:
            code = code.replace("    return queue\n", tiles)
        _application(tmp_path, {"llava/train/tiles.py": code,
                                "llava/train/train_mem.py": "from llava.train.tiles import build\nbuild([])\n"})
        reach = _reach_by_line(tmp_path)
        assert reach[("llava/train/tiles.py", 6)] == ("runs", None), test


def _pooled_tool(tmp_path, importer: str = "from face.keypoints import Extractor\nExtractor().go()\n") -> None:
    """Round 32 B1 C4: a package module the product imports for a class, whose short-named `run` only its own
    `if __name__ == "__main__":` batch tool passes on (`pool.imap_unordered(run, ...)`)."""
    write_tree(tmp_path, {
        "infer.py": importer,
        "face/__init__.py": "",
        "face/keypoints.py": ("import torch\nfrom multiprocessing import Pool\n"
                       "class Extractor:\n    def go(self):\n        return 1\n"
                       "def run(data):\n" + CUDA +
                       "if __name__ == '__main__':\n    pool = Pool(2)\n"
                       "    for done in pool.imap_unordered(run, [1, 2]):\n        print(done)\n"),
    })


def test_a_short_named_function_only_the_self_test_block_passes_on_is_a_demo(tmp_path):
    _pooled_tool(tmp_path)
    reach, why = _reach_by_line(tmp_path)[("face/keypoints.py", 7)]
    assert reach == "optional"
    assert "function run is named only in the self-test block" in why


def test_a_short_named_self_test_function_a_product_file_can_import_keeps_its_reach(tmp_path):
    for importer in ("from face.keypoints import Extractor, run\nExtractor().go()\nrun(1)\n",
                     "import face.keypoints\nface.keypoints.Extractor().go()\nface.keypoints.run(1)\n"):
        _pooled_tool(tmp_path / importer[:4], importer)
        assert _reach_by_line(tmp_path / importer[:4])[("face/keypoints.py", 7)] == ("runs", None), importer


def test_a_short_name_is_listed_only_where_the_main_block_alone_names_it():
    from ascend_feasibility.analyzer.context.written_names import MAIN_BLOCK_USER
    from ascend_feasibility.domains.phases.symbols import module_symbols
    text = ("def run(x):\n    return x\n"
            "def go(x):\n    return x\n"
            "def fn(x):\n    return x\n"
            "def caller(x):\n    return go(x)\n"
            "caller(1)\n"
            "if __name__ == '__main__':\n    pool.map(run, [1])\n")
    unnamed, inner = module_symbols(_unit(text))
    # `fn`, named nowhere, and `go`, named only in another definition: too short to ask other files about
    assert unnamed == []
    assert inner == [("run", 1, 2, "function", [MAIN_BLOCK_USER])]


# prec41b (round 32 A1 rows 17, 24, 36, 69; V1, V2) ----------------------------------------------------------------------
def _reach_of(root, rule: str) -> dict[tuple[str, int], tuple[str, str | None]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {(f.path, f.line): (f.reach, f.reach_reason) for f in report.findings if f.rule == rule}


def _segmentation_library(tmp_path, train: str) -> None:
    """An application's package importing a sub-package through a folder with no __init__.py (`lib/`), whose module
    lists a DataParallel subclass in its own `__all__`, and whose __init__.py re-exports it: nothing builds it."""
    write_tree(tmp_path, {
        "train.py": train,
        "models/seg/__init__.py": "from .net import build\n",
        "models/seg/net.py": "from .lib.nn import SyncBN\ndef build():\n    return SyncBN()\n",
        "models/seg/lib/nn/__init__.py": "from .modules import SyncBN\nfrom .parallel import ScatteredDP\n",
        "models/seg/lib/nn/modules.py": "class SyncBN:\n    pass\n",
        "models/seg/lib/nn/parallel.py": ("import torch.nn as nn\n__all__ = ['ScatteredDP']\n"
                                          "class GatherDP(nn.DataParallel):\n    pass\n"
                                          "class ScatteredDP(GatherDP):\n    pass\n"),
    })


def test_a_data_parallel_subclass_only_exported_re_exported_and_subclassed_is_not_built(tmp_path):
    _segmentation_library(tmp_path, "from models.seg import build\nbuild()\n")
    reach, why = _reach_of(tmp_path, "DST010")[("models/seg/lib/nn/parallel.py", 3)]
    assert reach == "optional"
    assert why == "line 3: class GatherDP is named only in ScatteredDP, which nothing in the project reaches"


def test_a_data_parallel_subclass_a_script_builds_stays_counted(tmp_path):
    _segmentation_library(tmp_path, "from models.seg import build\nfrom models.seg.lib.nn import ScatteredDP\n"
                                    "ScatteredDP(build())\n")
    assert _reach_of(tmp_path, "DST010")[("models/seg/lib/nn/parallel.py", 3)] == ("runs", None)


def _registry_application(tmp_path, config_type: str, decorator: str = "@ARCH_REGISTRY.register()") -> None:
    """A program building its network by a config's `type:` through a registry its archs register in."""
    write_tree(tmp_path, {
        "run.py": ("import yaml\nfrom app.archs import build\n"
                   "build(yaml.safe_load(open('configs/train.yaml'))['network'])\n"),
        "configs/train.yaml": f"network:\n  type: {config_type}\n",
        "app/__init__.py": "",
        "app/registry.py": "class Registry(dict):\n    pass\nARCH_REGISTRY = Registry()\n",
        "app/archs.py": ("import torch\nfrom app.registry import ARCH_REGISTRY\n"
                         f"{decorator}\nclass ConfiguredNet:\n    def forward(self):\n" + CUDA.replace("    ", "        ") +
                         f"{decorator}\nclass OtherNet:\n    def forward(self):\n" + CUDA.replace("    ", "        ") +
                         "def build(opt):\n    return ARCH_REGISTRY.get(opt['type'])()\n"),
    })


def test_a_registered_class_no_shipped_config_names_is_not_built(tmp_path):
    _registry_application(tmp_path, "ConfiguredNet")
    reach = _reach_by_line(tmp_path)
    assert reach[("app/archs.py", 6)] == ("runs", None)  # `type: ConfiguredNet` in configs/train.yaml
    assert reach[("app/archs.py", 10)] == (
        "optional", "line 7: class OtherNet is named nowhere else in the project (no call, reference, export or "
                    "config entry): nothing reaches it (registered in ARCH_REGISTRY, which builds it only from a "
                    "config's `type=` or a string that names it)")


def test_a_registered_class_a_config_names_or_a_registration_by_another_name_stays_counted(tmp_path):
    _registry_application(tmp_path, "OtherNet")
    assert _reach_by_line(tmp_path)[("app/archs.py", 10)] == ("runs", None)
    for decorator in ("@ARCH_REGISTRY.register('alias')", "@app.register()"):  # built by another name; no registry
        other = tmp_path / decorator[1:4]
        _registry_application(other, "ConfiguredNet", decorator)
        assert _reach_by_line(other)[("app/archs.py", 10)] == ("runs", None), decorator


def _registered_runners(tmp_path, config: str, decorator: str = "@RUNNERS.register_module()") -> None:
    """A published library (setup.py find_packages()) whose runners register in a registry and are re-exported by the
    package's __init__.py; a shipped config picks one by `type=` (ViTPose's mmcv_custom/apex_runner)."""
    write_tree(tmp_path, {
        "setup.py": "from setuptools import find_packages, setup\nsetup(name='poser', packages=find_packages())\n",
        "configs/train.py": config,
        "tools/train.py": "from mmcv import Config\nimport custom\ncfg = Config.fromfile('configs/train.py')\n",
        "custom/__init__.py": "from .runners import AmpRunner, PlainRunner\n__all__ = ['AmpRunner', 'PlainRunner']\n",
        "custom/runners.py": ("import torch\nfrom mmcv.runner import RUNNERS\n\n\n"
                              f"{decorator}\nclass AmpRunner:\n    def resume(self):\n" + CUDA.replace("    ", "        ") +
                              "\n\n@RUNNERS.register_module()\nclass PlainRunner:\n    def resume(self):\n"
                              + CUDA.replace("    ", "        ")),
    })


def test_a_registered_class_no_file_names_is_unreached_in_a_published_library(tmp_path):
    _registered_runners(tmp_path, "runner = dict(type='PlainRunner')\n")
    reach = _reach_by_line(tmp_path)
    assert reach[("custom/runners.py", 14)] == ("runs", None)  # `type='PlainRunner'` in the shipped config
    assert reach[("custom/runners.py", 8)] == (
        "optional", "line 5: class AmpRunner is named nowhere else in the project (no call, reference, export or "
                    "config entry) (only re-exported by custom/__init__.py): nothing reaches it (registered in "
                    "RUNNERS, which builds it only from a config's `type=` or a string that names it)")
    for decorator in ("@RUNNERS.register_module", "@RUNNERS.register_module(force=True)"):  # mmcv 1.x's old form
        other = tmp_path / decorator[-5:].strip("()=")
        _registered_runners(other, "runner = dict(type='PlainRunner')\n", decorator)
        assert _reach_by_line(other)[("custom/runners.py", 8)][0] == "optional", decorator


def test_a_registered_class_a_config_names_by_its_name_or_alias_stays_counted(tmp_path):
    for folder, config, decorator in (
            ("named", "runner = dict(type='AmpRunner')\n", "@RUNNERS.register_module()"),
            # a Python config that is code (it imports a project module) writes the string the registry builds by
            ("code", "from custom import PlainRunner\nrunner = dict(type='AmpRunner', base=PlainRunner)\n",
             "@RUNNERS.register_module"),
            ("alias", "runner = dict(type='AmpRun')\n", "@RUNNERS.register_module(name='AmpRun')"),
            ("aliases", "runner = dict(type='AmpRun')\n", "@RUNNERS.register_module(name=['Fp16Run', 'AmpRun'])"),
            ("short", "runner = dict(type='PlainRunner')\n", "@RUNNERS.register_module(name='amp')"),  # no word
            ("computed", "runner = dict(type='PlainRunner')\n", "@RUNNERS.register_module(name=NAME)"),
            ("positional", "runner = dict(type='PlainRunner')\n", "@RUNNERS.register_module('amp')")):
        _registered_runners(tmp_path / folder, config, decorator)
        assert _reach_by_line(tmp_path / folder)[("custom/runners.py", 8)] == ("runs", None), folder


def test_an_undecorated_public_class_of_a_published_library_keeps_runs(tmp_path):
    _registered_runners(tmp_path, "runner = dict(type='PlainRunner')\n", "")
    assert _reach_by_line(tmp_path)[("custom/runners.py", 8)] == ("runs", None)  # its users' API


def test_an_alias_no_file_writes_leaves_the_registered_class_unreached(tmp_path):
    _registered_runners(tmp_path, "runner = dict(type='PlainRunner')\n", "@RUNNERS.register_module(name='AmpRun')")
    reach, why = _reach_by_line(tmp_path)[("custom/runners.py", 8)]
    assert reach == "optional" and "registered in RUNNERS" in why


def _host_with_library_copy(tmp_path, setup: str) -> None:
    """An application whose setup.py publishes it under its own name, carrying a copy of a catalogued library
    (basicsr, knowledge/dependencies/packages.toml) of which it uses one function."""
    write_tree(tmp_path, {
        "setup.py": setup,
        "main.py": "from basicsr.utils import used\nused()\n",
        "basicsr/__init__.py": "",
        "basicsr/utils.py": "import torch\ndef used():\n" + CUDA + "def unused_helper():\n" + CUDA,
    })


def test_a_library_copy_beside_a_project_setup_py_names_otherwise_is_judged(tmp_path):
    _host_with_library_copy(tmp_path, "from setuptools import setup\nsetup(name='hostapp', version='0.1')\n")
    reach = _reach_by_line(tmp_path)
    assert reach[("basicsr/utils.py", 3)] == ("runs", None)
    assert reach[("basicsr/utils.py", 5)][0] == "optional"


def test_a_library_copy_is_the_library_where_setup_py_names_it_or_names_nothing_literal(tmp_path):
    for folder, setup in (("own", "from setuptools import setup\nsetup(name='basicsr')\n"),
                          ("computed", "from setuptools import setup\nNAME = 'hostapp'\nsetup(name=NAME)\n")):
        _host_with_library_copy(tmp_path / folder, setup)
        assert _reach_by_line(tmp_path / folder)[("basicsr/utils.py", 5)] == ("runs", None), folder


def test_setup_py_name_is_a_literal_setup_call_argument(tmp_path):
    from ascend_feasibility.analyzer.reading.config import load_project_config, setup_py_name
    write_tree(tmp_path, {"a/setup.py": "import setuptools\nsetuptools.setup(name=\"host-app\")\n",
                          "b/setup.py": "from setuptools import setup\nsetup(name=f'{x}-app')\n",
                          "c/setup.py": "setup(name='x')\n", "c/pyproject.toml": '[project]\nname = "y"\n'})
    assert setup_py_name(tmp_path / "a") == "host-app"
    assert setup_py_name(tmp_path / "b") == ""
    assert setup_py_name(tmp_path / "missing") == ""
    assert load_project_config(tmp_path / "c").distribution == "y"  # pyproject's [project] name wins


def _swallowed_extension(tmp_path, extra: dict[str, str] | None = None) -> None:
    """An op module importing its compiled extension in a `try:` that ignores the ImportError, and calling it."""
    write_tree(tmp_path, {
        "run.py": "from ops.act import fused\nfused(1)\n",
        "ops/__init__.py": "",
        "ops/act.py": ("import torch\ntry:\n    from . import act_ext\nexcept ImportError:\n    pass\n"
                       "def fused(x):\n    y = torch.ones(1).cuda()\n    return act_ext.fused(x, y)\n"
                       "def plain(x):\n" + CUDA + "plain(1)\n"),
        **(extra or {}),
    })


def test_a_call_through_a_swallowed_extension_import_nothing_holds_or_builds_cannot_run(tmp_path):
    _swallowed_extension(tmp_path)
    reach = _reach_by_line(tmp_path)
    assert reach[("ops/act.py", 7)] == (
        "optional", "line 6: calls through `act_ext`, which the module imports in a `try:` that ignores its "
                    "ImportError; the project holds no `act_ext` module, no native source beside it and no extension "
                    "build: the call fails on every device")
    assert reach[("ops/act.py", 10)] == ("runs", None)  # plain() calls no extension


def test_a_call_through_an_extension_the_project_holds_or_builds_stays_counted(tmp_path):
    for folder, extra in (("source", {"ops/src/act_kernel.cu": "__global__ void k() {}\n"}),
                          ("built", {"setup.py": "from torch.utils.cpp_extension import CUDAExtension\n"
                                                 "ext_modules = [CUDAExtension('ops.act_ext', ['a.cu'])]\n"}),
                          ("held", {"ops/act_ext.py": "def fused(x, y):\n    return x\n"})):
        _swallowed_extension(tmp_path / folder, extra)
        assert _reach_by_line(tmp_path / folder)[("ops/act.py", 7)] == ("runs", None), folder
