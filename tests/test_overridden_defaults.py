"""A "cuda" parameter default that every call in the project overrides is never used: its finding is cosmetic at
info (analyzer/context/propagation.py project_overridden_defaults). audiocraft's NoiseSchedule.__init__(..., device='cuda') is
called by two other modules with `**cfg.schedule, device=device` and by a test with device='cpu' (round 12 A2 row
98). A default some call leaves in place, or of a class that may be called out of sight (a registry, a config that
names it), stays a finding."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze
from ascend_feasibility.analyzer.reporting.localize import phrase

from tests.helpers import write_tree

SCHEDULE = ("import torch\n\n\n"
            "class NoiseSchedule:\n"
            "    def __init__(self, beta=1e-4, num_steps=1000, device='cuda', **kwargs):\n"
            "        self.betas = torch.zeros(num_steps, device=device)\n\n\n"
            "def make_noise(n, device='cuda'):\n"
            "    return torch.randn(n, device=device)\n")


def _defaults(root, path="pkg/schedule.py") -> dict[int, tuple[str, str, str | None]]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: (f.reach, f.severity, f.reach_reason) for f in report.findings
            if f.path == path and f.rule.startswith("DEV") and f.line in (5, 9)}


def _default_lines(root) -> set[int]:
    """The lines of the defaults still counted."""
    return {line for line, (reach, _, _) in _defaults(root).items() if reach == "runs"}


def test_defaults_every_call_across_modules_overrides_are_no_finding(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/schedule.py": SCHEDULE,
        "pkg/solver.py": ("from .schedule import NoiseSchedule, make_noise\n\n\n"
                          "def build(cfg, device):\n"
                          "    make_noise(4, device)\n"
                          "    return NoiseSchedule(**cfg, device=device)\n"),
        "pkg/models.py": ("from pkg import schedule as sched\n\n\n"
                          "def load(device):\n    return sched.NoiseSchedule(1e-4, 10, device)\n"),
        "tests/test_schedule.py": "from pkg.schedule import NoiseSchedule\n\n\ndef test_it():\n    NoiseSchedule(device='cpu')\n",
    })
    found = _defaults(tmp_path)
    assert found[5] == ("cosmetic", "info", "every call of NoiseSchedule() in the project passes device "
                                            "(pkg/models.py and 2 more files): the default is never used")
    assert found[9] == ("cosmetic", "info", "every call of make_noise() in the project passes device (pkg/solver.py): "
                                            "the default is never used")
    assert phrase("zh", found[9][2]) == "项目中对 make_noise() 的每次调用都传入了 device（pkg/solver.py）：默认值从未被使用"


def test_defaults_a_call_leaves_in_place_or_escaping_stay(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/schedule.py": SCHEDULE,
        "pkg/solver.py": ("from .schedule import NoiseSchedule, make_noise\n\n\n"
                          "def build(cfg, device, args):\n"
                          "    make_noise(*args)\n"  # a position only *args knows
                          "    NoiseSchedule(device=device)\n"
                          "    return NoiseSchedule(**cfg)\n"),  # the default, unless cfg holds a device
    })
    assert _default_lines(tmp_path) == {5, 9}
    write_tree(tmp_path, {
        "pkg/solver.py": ("from .schedule import NoiseSchedule, make_noise\n\n\n"
                          "REGISTRY = {'noise': NoiseSchedule}\n\n\n"  # called out of sight
                          "def build(device):\n    make_noise(4, device=device)\n    return NoiseSchedule(device=device)\n"),
    })
    assert _default_lines(tmp_path) == {5}
    write_tree(tmp_path, {  # ControlNet's cldm_v15.yaml: `target: ...FrozenCLIPEmbedder`, built with the default
        "pkg/solver.py": ("from .schedule import NoiseSchedule, make_noise\n\n\n"
                          "def build(device):\n    make_noise(4, device=device)\n    return NoiseSchedule(device=device)\n"),
        "configs/model.yaml": "schedule:\n  target: pkg.schedule.NoiseSchedule\n",
    })
    assert _default_lines(tmp_path) == {5}


FIELDS = ("import torch\nfrom dataclasses import dataclass, field\n\n\n"
          "class RingKVCache:\n"
          "    def __init__(self, batch, capacity, device=torch.device('cuda')):\n"
          "        self.cache = torch.zeros(batch, capacity, device=device)\n\n\n"
          "@dataclass\n"
          "class ASRService:\n"
          "    batch: int\n"
          "    device: str = 'cuda'\n\n\n"
          "@dataclass(frozen=True)\n"
          "class FinetuneParams:\n"
          "    lr: float\n"
          "    device: torch.device = torch.device('cuda')\n")


def _field_lines(root) -> dict[int, str]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f.reach for f in report.findings if f.path == "pkg/cache.py" and f.rule.startswith("DEV")}


def test_call_and_dataclass_field_defaults_every_construction_passes_are_no_finding(tmp_path):
    """Round 21 A1 rows 31, 35, 47: `device=torch.device("cuda")` in an __init__ and a `@dataclass` field `device: str
    = "cuda"` (or `= torch.device("cuda")`) whose only constructions pass device: the default never applies."""
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/cache.py": FIELDS,
        "pkg/use.py": ("import torch\nfrom .cache import RingKVCache, ASRService, FinetuneParams\n\n\n"
                       "def build(config, args):\n"
                       "    c = RingKVCache(1, 2, device=config.device)\n"
                       "    s = ASRService(4, config.device)\n"  # by position: the field's place in the constructor
                       "    p = FinetuneParams(lr=1e-3, device=torch.device(args.device))\n"
                       "    return c, s, p\n"),
    })
    assert _field_lines(tmp_path) == {6: "cosmetic", 13: "cosmetic", 19: "cosmetic"}
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reasons = {f.line: f.reach_reason for f in report.findings if f.path == "pkg/cache.py"}
    assert reasons[13] == "every call of ASRService() in the project passes device (pkg/use.py): the default is never used"


def test_field_defaults_a_construction_leaves_or_out_of_sight_stay(tmp_path):
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/cache.py": FIELDS,
        "pkg/use.py": ("from .cache import RingKVCache, ASRService, FinetuneParams\n\n\n"
                       "def build(config):\n"
                       "    c = RingKVCache(1, 2)\n"  # the default device
                       "    s = ASRService(4)\n"
                       "    p = FinetuneParams(1e-3)\n"
                       "    return c, s, p\n"),
    })
    assert _field_lines(tmp_path) == {6: "runs", 13: "runs", 19: "runs"}
    fields = FIELDS.replace("@dataclass\nclass ASRService:", "@register('asr')\nclass ASRService:").replace(
        "class FinetuneParams:", "class FinetuneParams(Base):").replace("from dataclasses", "from pkg.base import Base, register\nfrom dataclasses")
    write_tree(tmp_path, {
        "pkg/base.py": "def register(name):\n    return lambda cls: cls\n\n\nclass Base:\n    pass\n",
        "pkg/cache.py": fields,  # a registry's class; a field after a base's fields, passed by position
        "pkg/use.py": ("from .cache import ASRService, FinetuneParams\n\n\n"
                       "def build(config):\n"
                       "    return ASRService(4, device=config.device), FinetuneParams(1e-3, config.device)\n"),
    })
    assert {line: reach for line, reach in _field_lines(tmp_path).items() if line > 10} == {14: "runs", 20: "runs"}
    write_tree(tmp_path, {  # a field the constructor does not take: nothing passes it
        "pkg/cache.py": ("from dataclasses import dataclass, field\n\n\n@dataclass\nclass ASRService:\n"
                         "    batch: int\n    device: str = field(init=False, default='cuda')\n"),
        "pkg/use.py": "from .cache import ASRService\n\n\ndef build(config):\n    return ASRService(4, config.device)\n",
    })
    assert _field_lines(tmp_path) == {7: "runs"}


def test_port_leaves_defaults_every_call_overrides(tmp_path):
    """shap-e's renderers (round 22 port hunks 3, 4, 7): `device: torch.device = torch.device("cuda")` in a class's
    __init__ that the project builds only with `device=device` is cosmetic, and port leaves it (and imports nothing
    for it); a default some call leaves in place is still rewritten."""
    from ascend_feasibility.analyzer.port.core import PortOptions, port
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/renderer.py": ("import torch\n\n\nclass Renderer:\n"
                            "    def __init__(self, n, device: torch.device = torch.device('cuda')):\n"
                            "        self.x = torch.zeros(n, device=device)\n"),
        "pkg/grid.py": "import torch\n\n\ndef grid(n, device='cuda'):\n    return torch.zeros(n, device=device)\n",
        "pkg/configs.py": ("from pkg.renderer import Renderer\nfrom pkg.grid import grid\n\n\n"
                           "def build(device):\n    grid(3)\n    return Renderer(3, device=device)\n"),
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    by_site = {(f.path, f.line): f for f in report.findings if f.rule.startswith("DEV")}
    assert by_site[("pkg/renderer.py", 5)].reach == "cosmetic" and by_site[("pkg/grid.py", 4)].reach == "runs"
    result = port(tmp_path, report, PortOptions())
    changed = {r.path: r.new for r in result.rewrites}
    assert "pkg/renderer.py" not in changed
    assert "DEVICE_TYPE" in changed["pkg/grid.py"]  # the default grid(3) leaves in place
    assert ("pkg/renderer.py", 5) in {(f.path, f.line) for f, why in result.skipped_sites
                                      if why == "a default every call overrides"}


def test_conditional_defaults_every_call_overrides_are_no_finding(tmp_path):
    """tortoise-tts' `format_conditioning(clip, ..., device="cuda" if not torch.backends.mps.is_available() else
    "mps")`, whose only caller passes `device=self.device` (round 22 A1 row 46, A2 row 76): the default never
    applies. The same default a call leaves in place stays."""
    default = "'cuda' if not torch.backends.mps.is_available() else 'mps'"
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/api.py": (f"import torch\n\n\ndef format_conditioning(clip, n=5, device={default}):\n"
                       "    return torch.zeros(n, device=device)\n\n\n"
                       "class TTS:\n    def __init__(self, device):\n        self.device = device\n\n"
                       "    def run(self, vs):\n        return format_conditioning(vs, device=self.device)\n"),
        "pkg/other.py": (f"import torch\n\n\ndef fill(clip, n=5, device={default}):\n"
                         "    return torch.zeros(n, device=device)\n\n\ndef run(vs):\n    return fill(vs)\n"),
    })
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    lines = {(f.path, f.line) for f in report.findings if f.rule == "DEV001" and f.reach == "runs"}
    assert ("pkg/api.py", 4) not in lines
    assert ("pkg/other.py", 4) in lines


ATTRS = ("import attr\nimport torch\nimport torch.nn as nn\n\n\n"
         "@attr.s(eq=False, repr=False)\n"
         "class Block(nn.Module):\n"
         "    width: int = attr.ib()\n"
         "    device: torch.device = attr.ib(default=torch.device('cuda'))\n\n"
         "    def __attrs_post_init__(self):\n"
         "        super().__init__()\n"
         "        self.proj = nn.Linear(self.width, self.width, device=self.device)\n\n\n"
         "@attr.s(eq=False, repr=False)\n"
         "class Encoder(nn.Module):\n"
         "    width: int = attr.ib()\n"
         "    note: str = 'not a field under attr.s'\n"
         "    device: torch.device = attr.ib(default=torch.device('cuda'))\n\n"
         "    def __attrs_post_init__(self):\n"
         "        super().__init__()\n"
         "        self.block = Block(self.width, self.device)\n")
FACTORY = ("import torch\nfrom .clip import Encoder\n\n\n"
           "def create_clip_model(device=None):\n"
           "    if device is None:\n"
           "        device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
           "    return Encoder(width=8, device=device)\n")


def _attrs_lines(root) -> dict[int, str]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line: f.reach for f in report.findings if f.path == "pkg/clip.py" and f.rule.startswith("DEV")
            and f.line in (9, 20)}


def test_attrs_field_defaults_every_construction_passes_are_no_finding(tmp_path):
    """Round 25 A1 50, A2 73, 80, 99 (glide-text2im's CLIP encoders): `device: torch.device =
    attr.ib(default=torch.device("cuda"))` in `@attr.s` classes based on nn.Module, each built only with the device
    passed, by keyword or by position (nn.Module has no fields, and under attr.s only attr.ib() assignments are
    fields): the default never applies."""
    write_tree(tmp_path, {"requirements.txt": "torch\nattrs\n", "pkg/__init__.py": "", "pkg/clip.py": ATTRS,
                          "pkg/model_creation.py": FACTORY})
    assert _attrs_lines(tmp_path) == {9: "cosmetic", 20: "cosmetic"}


def test_attrs_field_defaults_a_construction_leaves_or_a_fielded_base_stay(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\nattrs\n", "pkg/__init__.py": "",
                          "pkg/clip.py": ATTRS.replace("Block(self.width, self.device)", "Block(self.width)"),
                          "pkg/model_creation.py": FACTORY.replace("width=8, device=device", "width=8")})
    assert _attrs_lines(tmp_path) == {9: "runs", 20: "runs"}
    # under auto_attribs every annotated assignment is a field: `note` takes position 1, so the positional device
    # argument is no device; a base with fields of its own puts them first (a keyword still passes the field)
    clip = ATTRS.replace("@attr.s(eq=False, repr=False)\nclass Block", "@attr.s(auto_attribs=True)\nclass Block").replace(
        "    width: int = attr.ib()\n    device: torch.device = attr.ib(default=torch.device('cuda'))\n\n    def __attrs_post",
        "    width: int = attr.ib()\n    note: str = 'a field'\n    device: torch.device = attr.ib(default=torch.device('cuda'))\n\n    def __attrs_post", 1)
    clip = clip.replace("class Encoder(nn.Module)", "class Encoder(Base)").replace("import attr\n", "import attr\nfrom .base import Base\n")
    write_tree(tmp_path, {"pkg/base.py": "class Base:\n    pass\n", "pkg/clip.py": clip,
                          "pkg/model_creation.py": FACTORY})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    reaches = {f.line: f.reach for f in report.findings if f.path == "pkg/clip.py" and f.rule.startswith("DEV")}
    assert reaches.get(11) == "runs" and reaches.get(22) == "cosmetic", reaches


GEOMETRY = ("import torch\n\n\nclass Geometry:\n    pass\n\n\n"
            "class FlexiGeometry(Geometry):\n"
            "    def __init__(self, grid_res=64, scale=2.0, device='cuda', renderer=None):\n"
            "        super(FlexiGeometry, self).__init__()\n"
            "        self.verts = torch.zeros(grid_res, device=device)\n")


def test_a_class_naming_itself_in_super_is_not_passed_out_of_sight(tmp_path):
    """Round 25 A2 51 (InstantMesh's FlexiCubesGeometry): `super(FlexiGeometry, self).__init__()` hands the class to
    super(), which never calls it; its only construction passes device by keyword, so the default is never used. A
    construction that leaves device out keeps the finding."""
    mesh = ("from .geometry import FlexiGeometry\n\n\n"
            "class Mesh:\n"
            "    def init_geometry(self, device):\n"
            "        self.geometry = FlexiGeometry(\n            grid_res=128,\n            device=device,\n        )\n")
    write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/geometry.py": GEOMETRY,
                          "pkg/mesh.py": mesh})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert {f.line: f.reach for f in report.findings if f.path == "pkg/geometry.py"} == {9: "cosmetic"}
    write_tree(tmp_path, {"pkg/mesh.py": mesh.replace("            device=device,\n", "")})
    report = analyze(tmp_path, AnalyzeOptions(jobs=1))
    assert {f.line: f.reach for f in report.findings if f.path == "pkg/geometry.py"} == {9: "runs"}


PIPELINE = ("import torch\n\n\n"
            "class Pipeline:\n"
            "    @classmethod\n"
            "    def from_single_file(cls, ckpt, config, device='cuda', **kwargs):\n"
            "        return cls(torch.load(ckpt).to(device))\n\n"
            "    @classmethod\n"
            "    def from_pretrained(cls, path, **kwargs):\n"
            "        return cls.from_single_file(path, path, {passing}**kwargs)\n\n"
            "    def __init__(self, model):\n"
            "        self.model = model\n")


def test_a_keyword_beside_a_kwargs_splat_passes_the_parameter(tmp_path):
    """Round 26 A2 93: Hunyuan3D's from_pretrained calls `cls.from_single_file(..., device=device, **kwargs)`, its only
    call: the keyword is passed whatever the splat holds. A call passing only the splat may leave the default."""
    files = {"requirements.txt": "torch\n", "pkg/__init__.py": "",
             "app.py": "from pkg.pipelines import Pipeline\n\nPipeline.from_pretrained('y', device='cpu')\n"}
    write_tree(tmp_path / "kept", {**files, "pkg/pipelines.py": PIPELINE.format(passing="")})
    write_tree(tmp_path / "passed", {**files, "pkg/pipelines.py": PIPELINE.format(passing="device=device, ").replace(
        "from_pretrained(cls, path, **kwargs)", "from_pretrained(cls, path, device='cpu', **kwargs)")})
    lines = {name: {f.line for f in analyze(tmp_path / name, AnalyzeOptions(jobs=1)).findings
                    if f.path == "pkg/pipelines.py" and f.rule.startswith("DEV")} for name in ("kept", "passed")}
    assert 6 in lines["kept"]
    assert 6 not in lines["passed"]


NAMESAKE = ("import torch\n\n\n"
            "class Inference:\n"
            "    def __init__(self, path, device='cuda'):\n"
            "        self.model = torch.load(path).to(device)\n")


def test_a_namesake_class_of_another_module_does_not_keep_the_default(tmp_path):
    """Round 26 A1 5: Amphion defines `Inference` in two modules; the flattened one is built only with `device=device`,
    while an app builds the other with no device. The app's call is not one of the flattened class's; a call of the
    flattened one through its own module, or through a package re-exporting it, is."""
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "",
        "pkg/a/__init__.py": "",
        "pkg/b/__init__.py": "",
        "pkg/a/semantic.py": NAMESAKE,
        "pkg/b/flattened.py": NAMESAKE + "        self.steps = 8\n",
        "pkg/b/utils.py": "from pkg.b.flattened import Inference\n\n\ndef get(path, device):\n"
                          "    return Inference(path, device=device)\n",
        "app.py": "from pkg.a.semantic import Inference\n\nmodel = Inference('x')\n",
    })

    def reaches():
        return {f.path: f.reach for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
                if f.rule.startswith("DEV") and f.line == 5 and f.path.startswith("pkg/")}

    assert reaches() == {"pkg/a/semantic.py": "runs", "pkg/b/flattened.py": "cosmetic"}
    write_tree(tmp_path, {"tool.py": "from pkg.b.flattened import Inference\n\nmodel = Inference('y')\n"})
    assert reaches()["pkg/b/flattened.py"] == "runs"
    (tmp_path / "tool.py").unlink()
    write_tree(tmp_path, {"pkg/b/__init__.py": "from .flattened import Inference\n",
                          "tool.py": "from pkg.b import Inference\n\nmodel = Inference('y')\n"})
    assert reaches()["pkg/b/flattened.py"] == "runs"


def test_defaults_behind_a_package_re_export_every_call_overrides_are_no_finding(tmp_path):
    """Round 28 A1 row 30: the package's __init__.py re-exports the class (`from .schedule import NoiseSchedule`), and
    every caller, through the package (`pkg.NoiseSchedule(..., device=device)`) or by name, passes device: a
    re-export calls nothing, so the default is never used."""
    write_tree(tmp_path, {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "from .schedule import NoiseSchedule, make_noise\n",
        "pkg/schedule.py": SCHEDULE,
        "infer.py": "import pkg\n\ndetector = pkg.NoiseSchedule(1e-4, flip=False, device='cuda:0')\n",
        "prep.py": "from pkg import NoiseSchedule\n\n\ndef run(device):\n    return NoiseSchedule(device=device)\n",
    })
    found = _defaults(tmp_path)
    assert found[5] == ("cosmetic", "info", "every call of NoiseSchedule() in the project passes device "
                                            "(infer.py and 1 more files): the default is never used")


def test_defaults_behind_a_package_re_export_a_call_leaves_or_the_package_names_stay(tmp_path):
    files = {
        "requirements.txt": "torch\n",
        "pkg/__init__.py": "from .schedule import NoiseSchedule\n",
        "pkg/schedule.py": SCHEDULE,
        "infer.py": "import pkg\n\ndetector = pkg.NoiseSchedule(1e-4, device='cuda:0')\n",
        "prep.py": "from pkg import NoiseSchedule\n\n\ndef run():\n    return NoiseSchedule(num_steps=4)\n",
    }
    write_tree(tmp_path, files)
    assert 5 in _default_lines(tmp_path)  # prep.py leaves the default in place
    write_tree(tmp_path, {  # the package itself hands the class on (a registry built in __init__.py)
        "prep.py": "from pkg import NoiseSchedule\n\n\ndef run(device):\n    return NoiseSchedule(device=device)\n",
        "pkg/__init__.py": "from .schedule import NoiseSchedule\n\nSCHEDULES = {'noise': NoiseSchedule}\n",
    })
    assert 5 in _default_lines(tmp_path)


HELPER = ("import torch\n\n\n"
          "class FaceHelper:\n"
          "    def __init__(self, size=512, device=None):\n"
          "        self.size = size\n"
          "        if device is None:\n"
          "            self.device = torch.device('cuda' if torch.cuda.is_available() else 'cpu')\n"
          "        else:\n"
          "            self.device = device\n")


def _arm_line(root) -> tuple[str, str, str | None]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return next((f.reach, f.severity, f.reach_reason) for f in report.findings
                if f.path == "pkg/helper.py" and f.rule.startswith("DEV") and f.line == 8)


def test_none_default_device_arm_every_construction_passes_is_no_finding(tmp_path):
    """Round 30 A1 36 (SUPIR's face helper): `if device is None: self.device = torch.device('cuda' ...)` in an
    __init__ every construction of which passes `device=` by keyword: the arm never runs."""
    write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/helper.py": HELPER,
                          "app.py": ("import torch\nfrom pkg.helper import FaceHelper\n\n"
                                     "device = torch.device('cpu')\n"
                                     "helper = FaceHelper(256, device=device)\n")})
    reach, severity, why = _arm_line(tmp_path)
    assert (reach, severity) == ("cosmetic", "info")
    assert why == ("line 7: if device is None:, taken only by the default; every call of FaceHelper() in the project "
                   "passes device (app.py): the default is never used")
    assert phrase("zh", why).startswith("第 7 行：if device is None:，仅在取默认值时进入；项目中对 FaceHelper()")


def test_none_default_device_arm_a_call_may_pass_none_stays(tmp_path):
    """A construction that leaves the device out, passes None, passes it by position (None is not seen there), or
    forwards its own None-defaulted parameter may take the arm: it stays a finding."""
    base = {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/helper.py": HELPER}
    for call in ("FaceHelper(256)\nFaceHelper(256, device=dev)",
                 "FaceHelper(256, device=None)\nFaceHelper(256, device=dev)",
                 "FaceHelper(256, dev)",
                 "def build(device=None):\n    return FaceHelper(256, device=device)\n\n\nbuild()"):
        write_tree(tmp_path, {**base, "app.py": f"import torch\nfrom pkg.helper import FaceHelper\n\ndev = 'cpu'\n{call}\n"})
        assert _arm_line(tmp_path)[0] == "runs", call
    write_tree(tmp_path, {**base, "app.py": ("from pkg.helper import FaceHelper\n\n"  # built out of sight too
                                             "HELPERS = {'face': FaceHelper}\nFaceHelper(256, device='cpu')\n")})
    assert _arm_line(tmp_path)[0] == "runs"
