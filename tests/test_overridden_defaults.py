"""A "cuda" parameter default that every call in the project overrides is never used: its finding is dropped
(analyzer/context/propagation.py overridden_defaults). audiocraft's NoiseSchedule.__init__(..., device='cuda') is
called by two other modules with `**cfg.schedule, device=device` and by a test with device='cpu' (round 12 A2 row
98). A default some call leaves in place, or of a class that may be called out of sight, stays a finding."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

SCHEDULE = ("import torch\n\n\n"
            "class NoiseSchedule:\n"
            "    def __init__(self, beta=1e-4, num_steps=1000, device='cuda', **kwargs):\n"
            "        self.betas = torch.zeros(num_steps, device=device)\n\n\n"
            "def make_noise(n, device='cuda'):\n"
            "    return torch.randn(n, device=device)\n")


def _default_lines(root, path="pkg/schedule.py") -> set[int]:
    report = analyze(root, AnalyzeOptions(jobs=1))
    return {f.line for f in report.findings if f.path == path and f.rule.startswith("DEV") and f.line in (5, 9)}


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
    assert _default_lines(tmp_path) == set()


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
