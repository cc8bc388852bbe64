"""class_uses' method_users and base_only are read at project time, for the files overridden_methods asks about
(speed24): a Python module's scan keeps its class_shapes and `uses_later`; the pass reads the few files it asks
again, from the bytes the scan read (checked by content hash: analyzer/core/scanned_bytes.py)."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.core.scanned_bytes import ScannedBytes
from ascend_feasibility.analyzer.reading.discovery import ProjectFile
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains.base import Unit
from ascend_feasibility.domains.phases import facts as phase_facts
from ascend_feasibility.domains.phases.class_uses import class_shapes, class_uses, later_uses

from tests.helpers import write_tree

CLASSES = ("from lib.ops import Pack, Called\n\n"
           "class Base(Module):\n    def forward(self, x):\n        return apply_fn(x)\n\n"
           "class SubNet(Base, Pack):\n    def forward(self, x):\n        return x\n\n"
           "def apply_fn(x):\n    return x\n\nthing = Called()\n")

# BasicSR's shape: the only class the project creates, DCNv2Pack, replaces the forward of the base class it inherits,
# which alone uses the Function's alias, so the Function is unreached (line 4 and its use at line 7)
DCN = {
    "lib/__init__.py": "", "lib/ops/__init__.py": "", "lib/archs/__init__.py": "",
    "lib/ops/deform.py": ("import torch\n\n\nclass ModulatedDeformFunction(torch.autograd.Function):\n"
                          "    @staticmethod\n    def forward(ctx, x):\n"
                          "        return torch.ops.my_ext.deform(x.cuda())\n\n\n"
                          "modulated_deform = ModulatedDeformFunction.apply\n\n\n"
                          "class ModulatedDeformConv(torch.nn.Module):\n    def forward(self, x):\n"
                          "        return modulated_deform(x)\n\n\n"
                          "class ModulatedDeformConvPack(ModulatedDeformConv):\n    def forward(self, x):\n"
                          "        return modulated_deform(x)\n"),
    "lib/archs/arch_util.py": ("import torchvision\nfrom lib.ops.deform import ModulatedDeformConvPack\n\n\n"
                               "class DCNv2Pack(ModulatedDeformConvPack):\n    def forward(self, x):\n"
                               "        return torchvision.ops.deform_conv2d(x)\n"),
    "lib/archs/other.py": "import torch\n\n\nclass Other(torch.nn.Module):\n    def forward(self, x):\n        return x.cuda()\n",
    "train.py": "from lib.archs.arch_util import DCNv2Pack\nfrom lib.archs.other import Other\n\n"
                "net = DCNv2Pack()\nnet(1).cuda()\nOther()(2)\n",
}


def _unit(text: str) -> Unit:
    return Unit("m.py", "python", SourceText.from_text(text))


def test_the_shapes_alone_and_the_later_reading_are_class_uses_halves():
    method_users, shapes, base_only = class_uses(_unit(CLASSES))
    assert ("apply_fn", "Base", ["forward"]) in method_users and base_only == ["Base", "Pack", "SubNet"]
    assert class_shapes(_unit(CLASSES)) == shapes
    assert later_uses("m.py", lambda path: CLASSES.encode()) == (method_users, base_only)
    # the bytes are gone (or changed): nothing is decided, every class keeps its reach
    assert later_uses("m.py", lambda path: None) == ([], [])
    assert later_uses("m.py", None) == ([], [])
    assert class_shapes(_unit("def f():\n    return 1\n")) == []


def test_a_module_holds_its_class_uses_back_and_a_notebook_does_not():
    found = phase_facts.collect("m.py", "python", [_unit(CLASSES)])
    assert found.uses_later and found.method_users == [] and found.base_only == []
    assert found.class_shapes == class_uses(_unit(CLASSES))[1]
    found.source = lambda path: CLASSES.encode() if path == "m.py" else None
    method_users, _, base_only = class_uses(_unit(CLASSES))
    assert found.class_uses() == (method_users, base_only) and not found.uses_later
    assert not phase_facts.collect("m.py", "python", [_unit("x = 1\n")]).uses_later  # no class: nothing to read
    cell = phase_facts.collect("n.ipynb", "notebook", [Unit("n.ipynb", "python", SourceText.from_text(CLASSES), cell=0)])
    assert not cell.uses_later and cell.method_users == method_users


def test_scanned_bytes_are_served_only_while_they_hash_as_scanned(tmp_path):
    from ascend_feasibility.analyzer.core.filework import content_digest
    path = tmp_path / "m.py"
    path.write_bytes(b"class A:\n    pass\n")
    scanned = ProjectFile("m.py", str(path), "python", path.stat().st_size)
    source = ScannedBytes([scanned], {"m.py": content_digest(path.read_bytes())}, {})
    assert source("m.py") == b"class A:\n    pass\n"
    assert source("other.py") is None  # not scanned
    path.write_bytes(b"class B:\n    pass\n")  # changed since the scan: not read as the scanned file
    assert source("m.py") is None
    assert ScannedBytes([scanned], {"m.py": content_digest(b"x")}, {"m.py": b"x"})("m.py") == b"x"  # read before


def _reached(report) -> dict[tuple[str, int], str]:
    return {(f.path, f.line): f.reach for f in report.findings}


def test_the_project_pass_reads_again_only_the_files_it_asks_about(tmp_path, monkeypatch):
    write_tree(tmp_path, DCN)
    asked: list[str] = []
    reading = ScannedBytes.__call__

    def counted(self, path):
        asked.append(path)
        return reading(self, path)

    monkeypatch.setattr(ScannedBytes, "__call__", counted)
    reached = _reached(analyze(tmp_path, AnalyzeOptions(jobs=1, generated="x")))
    assert reached[("lib/ops/deform.py", 7)] == "optional"  # the Function runs through no created class
    assert reached[("lib/archs/other.py", 6)] == "runs"
    # deform.py's method_users and base_only decide; other.py's class is asked about by no pass: not read again
    assert "lib/ops/deform.py" in asked and "lib/archs/other.py" not in asked and len(asked) == len(set(asked))


def test_without_the_later_reading_the_function_would_keep_its_reach(tmp_path, monkeypatch):
    write_tree(tmp_path, DCN)
    monkeypatch.setattr(ScannedBytes, "__call__", lambda self, path: None)  # the bytes changed since the scan
    assert _reached(analyze(tmp_path, AnalyzeOptions(jobs=1, generated="x")))[("lib/ops/deform.py", 7)] == "runs"


def test_a_warm_run_reads_the_asked_files_again_and_reports_as_cold(tmp_path):
    tree, folder = tmp_path / "tree", tmp_path / "cache"
    write_tree(tree, DCN)
    analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, generated="x"))
    (tree / "lib" / "notes.py").write_text("x = 1\n")  # a new file: the pass runs again, the others from the cache
    stats: dict = {}
    warm = analyze(tree, AnalyzeOptions(cache_dir=folder, jobs=1, generated="x", stats=stats))
    assert stats["cache_hits"] == len(DCN) and stats["cache_misses"] == 1
    cold = analyze(tree, AnalyzeOptions(jobs=1, generated="x"))
    assert warm.model_dump() == cold.model_dump()
    assert _reached(warm)[("lib/ops/deform.py", 7)] == "optional"
