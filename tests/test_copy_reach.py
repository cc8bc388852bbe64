"""A vendored copy's functions and classes that nothing the project runs names (analyzer/context/copy_reach.py): the
host calls one or two functions of a copied package, and the rest of the copy's code, imported with it, is `optional`
(round 27 B1 C1, B2 C4, A1 C1: MuseTalk's copy of Whisper, a detectron2 copy's trainers and hooks beside the one
predictor the host builds). What the host may reach by a name it writes (a call, a callback, a re-export used through
the package, a star import, a class whose methods its instances run) stays `runs`, and the host's own code is never
judged so."""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.context.copy_reach import copy_folder, library_folder
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree as write

COPY = "app/whisper/whisper"  # a repository copied whole keeps its layout: the folder named for its package holds it
UTILS = """import torch


def load_model(name):
    torch.cuda.synchronize()
    return name


def transcribe_file(path):
    torch.cuda.synchronize()
    return _decode(path)


def _decode(path):
    return torch.zeros(1).cuda()


class Decoder:
    def run(self, x):
        torch.cuda.synchronize()
        return x


def on_chunk(x):
    torch.cuda.synchronize()
    return x
"""
HOST = """from app.whisper.whisper.utils import load_model


def main():
    return load_model("base")


if __name__ == "__main__":
    main()
"""


def tree(host: str = HOST, **extra: str) -> dict[str, str]:
    files = {"app/__init__.py": "", "app/whisper/whisper/__init__.py": "", f"{COPY}/utils.py": UTILS,
             "app/main.py": host, "README.md": "Run `python app/main.py`.\n"}
    return files | extra


def reach_by_line(report, path: str) -> dict[int, str]:
    return {f.line: f.reach for f in report.findings if f.path == path}


def line_of(text: str, needle: str, after: str) -> int:
    lines = text.splitlines()
    start = next(i for i, line in enumerate(lines) if after in line)
    return next(i for i in range(start, len(lines)) if needle in lines[i]) + 1


def run(root: Path):
    return analyze(root, AnalyzeOptions(jobs=1))


def sync(after: str) -> int:
    return line_of(UTILS, "torch.cuda.synchronize()", after)


def test_the_copys_functions_the_host_never_names_are_optional(tmp_path):
    report = run(write(tmp_path, tree()))
    found = reach_by_line(report, f"{COPY}/utils.py")
    assert found[sync("def load_model")] == "runs"  # the host calls it
    for name in ("def transcribe_file", "class Decoder", "def on_chunk"):
        assert found[sync(name)] == "optional", name
    assert found[line_of(UTILS, ".cuda()", "def _decode")] == "optional"  # only the uncalled transcribe_file calls it
    why = next(f.reach_reason for f in report.findings
               if f.path == f"{COPY}/utils.py" and f.line == sync("def transcribe_file"))
    assert why.startswith("vendored app/whisper/: nothing the project runs calls transcribe_file")


def test_a_function_a_reached_copy_function_calls_runs(tmp_path):
    host = HOST.replace("load_model", "transcribe_file")
    found = reach_by_line(run(write(tmp_path, tree(host))), f"{COPY}/utils.py")
    assert found[sync("def transcribe_file")] == "runs"
    assert found[line_of(UTILS, ".cuda()", "def _decode")] == "runs"  # transcribe_file calls it
    assert found[sync("def load_model")] == "optional"


def test_the_methods_of_a_class_the_host_instantiates_run(tmp_path):
    host = HOST.replace("import load_model", "import Decoder, load_model").replace(
        'return load_model("base")', 'return Decoder().run(load_model("base"))')
    found = reach_by_line(run(write(tmp_path, tree(host))), f"{COPY}/utils.py")
    assert found[sync("class Decoder")] == "runs"
    assert found[sync("def on_chunk")] == "optional"


def test_a_function_the_host_passes_as_a_callback_runs(tmp_path):
    host = HOST.replace("import load_model", "import load_model, on_chunk").replace(
        'return load_model("base")', 'return list(map(on_chunk, [load_model("base")]))')
    found = reach_by_line(run(write(tmp_path, tree(host))), f"{COPY}/utils.py")
    assert found[sync("def on_chunk")] == "runs"


def test_a_name_re_exported_by_the_package_and_used_through_it_runs(tmp_path):
    init = "from .utils import load_model, transcribe_file\n\n__all__ = ['load_model', 'transcribe_file']\n"
    host = "from app.whisper import whisper\n\n\ndef main():\n    return whisper.transcribe_file('a.wav')\n"
    found = reach_by_line(run(write(tmp_path, tree(host, **{f"{COPY}/__init__.py": init}))), f"{COPY}/utils.py")
    assert found[sync("def transcribe_file")] == "runs"
    # the package's own re-export of load_model is no use: nothing the host runs names it
    assert found[sync("def load_model")] == "optional"


def test_a_star_import_by_the_host_keeps_the_module(tmp_path):
    host = "from app.whisper.whisper.utils import *\n\n\ndef main():\n    return load_model('base')\n"
    found = reach_by_line(run(write(tmp_path, tree(host))), f"{COPY}/utils.py")
    assert set(found.values()) == {"runs"}


def test_a_copy_module_the_project_launches_keeps_its_functions(tmp_path):
    main = "\n\nif __name__ == '__main__':\n    transcribe_file('a.wav')\n"
    files = tree(**{f"{COPY}/utils.py": UTILS + main, "run.sh": f"python {COPY}/utils.py\n"})
    found = reach_by_line(run(write(tmp_path, files)), f"{COPY}/utils.py")
    assert found[sync("def transcribe_file")] == "runs"


def test_an_unlaunched_copy_modules_main_block_reaches_nothing(tmp_path):
    # the copy's own command line (a `__main__` block) that no launcher or README of the project runs
    cli = "from .utils import transcribe_file\n\nif __name__ == '__main__':\n    transcribe_file('a.wav')\n"
    found = reach_by_line(run(write(tmp_path, tree(**{f"{COPY}/cli.py": cli}))), f"{COPY}/utils.py")
    assert found[sync("def transcribe_file")] == "optional"


def test_a_module_looking_names_up_keeps_its_functions(tmp_path):
    lookup = UTILS + "\n\ndef pick(name):\n    return getattr(Decoder(), name)\n"
    found = reach_by_line(run(write(tmp_path, tree(**{f"{COPY}/utils.py": lookup}))), f"{COPY}/utils.py")
    assert found[sync("def transcribe_file")] == "runs"


def test_the_hosts_own_uncalled_function_is_not_judged_so(tmp_path):
    # the same package and module at the host's own place: its public functions may be its users' API
    files = {"app/__init__.py": "", "app/speech/__init__.py": "", "app/speech/utils.py": UTILS,
             "app/main.py": HOST.replace("app.whisper.whisper.utils", "app.speech.utils"),
             "setup.py": "from setuptools import setup\nsetup(name='app', packages=['app'])\n"}
    found = reach_by_line(run(write(tmp_path, files)), "app/speech/utils.py")
    assert found[sync("def transcribe_file")] == "runs"


def test_a_copy_folder_is_a_vendored_folder_or_a_copied_repository_layout():
    assert copy_folder("app/whisper/whisper/utils.py") == "app/whisper"
    assert copy_folder("pkg/third_party/longcat/ops/a.py") == "pkg/third_party/longcat"
    # at the root the layout is the project's own (whisper/whisper is no copy), and so is a plain package
    assert copy_folder("whisper/whisper/utils.py") is None
    assert copy_folder("app/speech/utils.py") is None


def test_a_copy_in_a_vendored_folder_is_judged_the_same(tmp_path):
    files = {"app/__init__.py": "", "app/third_party/__init__.py": "", "app/third_party/asr/__init__.py": "",
             "app/third_party/asr/utils.py": UTILS, "app/main.py": HOST.replace("whisper.whisper", "third_party.asr"),
             # the copy's streaming helper names on_chunk through its module; nothing the host runs calls stream
             "app/third_party/asr/stream.py": "from . import utils\n\n\ndef stream(x):\n    return utils.on_chunk(x)\n"}
    found = reach_by_line(run(write(tmp_path, files)), "app/third_party/asr/utils.py")
    assert found[sync("def load_model")] == "runs"
    assert found[sync("def on_chunk")] == "optional"


def test_a_host_looking_a_copy_modules_function_up_by_a_computed_name_keeps_the_module(tmp_path):
    host = ("from app.whisper.whisper import utils\n\n\ndef main(step):\n"
            "    return getattr(utils, step + '_file')('a.wav')\n")
    found = reach_by_line(run(write(tmp_path, tree(host))), f"{COPY}/utils.py")
    assert found[sync("def transcribe_file")] == "runs"
    # a literal name is a use of that name only
    literal = "from app.whisper.whisper import utils\n\n\ndef main():\n    return getattr(utils, 'load_model')('a')\n"
    found = reach_by_line(run(write(tmp_path / "literal", tree(literal))), f"{COPY}/utils.py")
    assert found[sync("def load_model")] == "runs"
    assert found[sync("def transcribe_file")] == "optional"


# a catalogued library (conventions roles.vendored_packages) copied below the host's root and imported through it:
# Uni-ControlNet's annotator/uniformer/mmcv/, whose runner, hooks and dist helpers the host never calls (round 35 A1/A2
# class 1)
HOOKS = """import torch
from app.seg.mmcv.registry import HOOKS


@HOOKS.register_module()
class EmptyCacheHook:
    def after_epoch(self, runner):
        torch.cuda.empty_cache()


@HOOKS.register_module()
class TextLoggerHook:
    def after_iter(self, runner):
        torch.cuda.empty_cache()


if torch.__version__ >= '1.6':
    @HOOKS.register_module()
    class Fp16OptimizerHook:
        def before_run(self, runner):
            torch.cuda.empty_cache()
"""
MMCV = {"app/__init__.py": "", "app/seg/__init__.py": "", "app/seg/mmcv/__init__.py": "",
        "app/seg/mmcv/registry.py": "HOOKS = {}\n", "app/seg/mmcv/utils.py": UTILS, "app/seg/mmcv/hooks.py": HOOKS,
        "app/main.py": HOST.replace("app.whisper.whisper.utils", "app.seg.mmcv.utils"),
        "app/configs/schedule.py": "log_config = dict(hooks=[dict(type='TextLoggerHook')])\n",
        "README.md": "Run `python app/main.py`.\n"}


def empty_cache(after: str) -> int:
    return line_of(HOOKS, "torch.cuda.empty_cache()", after)


def test_a_catalogued_library_copied_below_the_root_is_a_vendored_copy(tmp_path):
    report = run(write(tmp_path, MMCV))
    found = reach_by_line(report, "app/seg/mmcv/utils.py")
    assert found[sync("def load_model")] == "runs"
    assert found[sync("def transcribe_file")] == "optional"
    why = next(f.reach_reason for f in report.findings
               if f.path == "app/seg/mmcv/utils.py" and f.line == sync("def transcribe_file"))
    assert why.startswith("vendored app/seg/mmcv/: nothing the project runs calls transcribe_file")
    hooks = reach_by_line(report, "app/seg/mmcv/hooks.py")
    # a registered class is built by the name a config writes: the host's config names TextLoggerHook only
    assert hooks[empty_cache("class TextLoggerHook")] == "runs"
    assert hooks[empty_cache("class EmptyCacheHook")] == "optional"
    # a class defined under a module-level `if` is read like the module's own classes
    assert hooks[empty_cache("class Fp16OptimizerHook")] == "optional"


def test_a_folder_named_as_a_library_the_host_wrote_is_not_judged(tmp_path):
    # every module of it imports the host outside it: the project's own package, whatever its name
    own = "from app.common import helper\n" + UTILS
    files = MMCV | {"app/common.py": "def helper():\n    return 1\n", "app/seg/mmcv/utils.py": own,
                    "app/seg/mmcv/hooks.py": "from app.common import helper\n" + HOOKS}
    found = reach_by_line(run(write(tmp_path, files)), "app/seg/mmcv/utils.py")
    assert found[line_of(own, "torch.cuda.synchronize()", "def transcribe_file")] == "runs"


def test_a_library_folder_imported_by_the_librarys_own_name_is_not_judged(tmp_path):
    # ConvNeXt's object_detection/mmdet/ adds modules to the installed mmdet (`import mmdet...` with its parent on
    # sys.path): no file imports it through its place in the project
    files = {"det/mmdet/__init__.py": "", "det/mmdet/utils.py": UTILS,
             "det/train.py": "import sys\nsys.path.insert(0, 'det')\nfrom mmdet.utils import load_model\n\n"
                             "if __name__ == '__main__':\n    load_model('a')\n"}
    report = run(write(tmp_path, files))
    assert not any((f.reach_reason or "").startswith("vendored") for f in report.findings)


def test_a_getattr_on_a_dotted_module_path_or_an_object_keeps_only_that_module(tmp_path):
    # `getattr(torch.optim, name)` looks up torch.optim; `getattr(self.cfg, name)` may look up any module the file
    # imports, but only in that module's namespace (the package's __init__.py), never in the rest of the package
    builder = ("import torch\nfrom app.whisper.whisper import utils\n\n\n"
               "def build(name):\n    return getattr(torch.optim, name)\n")
    config = ("from app.whisper import whisper\n\n\n"
              "class Config:\n    def __getattr__(self, name):\n        return getattr(self.cfg, name)\n")
    files = tree(**{f"{COPY}/builder.py": builder, f"{COPY}/config.py": config})
    found = reach_by_line(run(write(tmp_path, files)), f"{COPY}/utils.py")
    assert found[sync("def load_model")] == "runs"
    assert found[sync("def transcribe_file")] == "optional"


def test_a_library_folder_is_a_catalogued_name_below_a_folder_of_the_project():
    assert library_folder("annotator/uniformer/mmcv/runner/hooks/memory.py") == "annotator/uniformer/mmcv"
    assert library_folder("annotator/uniformer/mmseg/apis/test.py") == "annotator/uniformer/mmseg"
    # at the root, or at the top of src/, it is the library itself
    assert library_folder("mmcv/runner/hooks/memory.py") is None
    assert library_folder("src/mmcv/runner/hooks/memory.py") is None
    assert library_folder("annotator/uniformer/mmcv_custom/checkpoint.py") is None
