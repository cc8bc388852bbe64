"""A device or backend literal under a dict key no code of the project reads is `cosmetic` at info: editing it
changes nothing that runs (analyzer/context/unread_keys.py; round 26 A1 3, Amphion's vendored HiFi-GAN
`"dist_config": {"dist_backend": "nccl", ...}`, read nowhere). A key the file or another file spells again (a
subscript, `.get`, an attribute, a keyword, a config), or a file that unpacks a mapping with `**`, keeps it."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

HPARAMS = ("import torch\n\n"
           "HIFIGAN = {\n"
           "    \"resblock\": \"1\",\n"
           "    \"dist_config\": {\n"
           "        \"dist_backend\": \"nccl\",\n"
           "        \"world_size\": 1,\n"
           "    },\n"
           "}\n"
           "CONFIG = {\"device\": \"cuda\", \"ddp_backend\": \"nccl\"}\n\n\n"
           "def build(config):\n"
           "    return torch.nn.Linear(2, 2).to(config[\"device\"])\n"
           "{extra}")


def _reaches(tmp_path, extra: str = "", files: dict[str, str] | None = None) -> dict[int, str]:
    write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "",
                          "pkg/hparams.py": HPARAMS.replace("{extra}", extra),
                          "app.py": "from pkg.hparams import CONFIG, build\n\nbuild(CONFIG)\n", **(files or {})})
    return {f.line: f.reach for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
            if f.path == "pkg/hparams.py" and f.rule.startswith(("DEV", "DST"))}


def test_a_backend_under_a_key_nothing_reads_is_cosmetic(tmp_path):
    write_tree(tmp_path, {"requirements.txt": "torch\n", "pkg/__init__.py": "", "pkg/hparams.py": HPARAMS.replace("{extra}", ""),
                          "app.py": "from pkg.hparams import CONFIG, build\n\nbuild(CONFIG)\n"})
    found = {(f.line, f.rule): (f.reach, f.severity, f.reach_reason) for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
             if f.path == "pkg/hparams.py"}
    assert found[(6, "DST002")] == ("cosmetic", "info", "`dist_backend` (under `dist_config`) is written only here: "
                                                        "no code of the project reads the key")
    # a top-level entry may be unpacked by another file (`init_process_group(**CONFIG)`), and `device` is read
    assert {reach for (line, _), (reach, _, _) in found.items() if line == 10} == {"runs"}


def test_a_key_the_file_reads_keeps_the_finding(tmp_path):
    assert _reaches(tmp_path / "get", "\n\ndef backend(h):\n    return h.get(\"dist_backend\")\n")[6] == "runs"
    assert _reaches(tmp_path / "attr", "\n\ndef backend(h):\n    return h.dist_backend\n")[6] == "runs"
    assert _reaches(tmp_path / "splat", "\n\ndef launch(run, h):\n    return run(**h)\n")[6] == "runs"


def test_a_key_another_file_spells_keeps_the_finding(tmp_path):
    train = ("import torch.distributed as dist\nfrom pkg.hparams import HIFIGAN\n\n"
             "dist.init_process_group(backend=HIFIGAN[\"dist_config\"][\"dist_backend\"])\n")
    assert _reaches(tmp_path / "code", files={"train.py": train})[6] == "runs"
    assert _reaches(tmp_path / "yaml", files={"conf/dist.yaml": "dist_backend: nccl\n"})[6] == "runs"


def test_only_a_mapping_unpacked_is_a_splat():
    """_splats matches only around the file's `**`: a call's `**cfg` and a dict's `{**base}` unpack a mapping; a
    `**kwargs` parameter and a power do not (the same answers a query over the whole tree gives)."""
    from ascend_feasibility.analyzer.context.unread_keys import _splats
    from ascend_feasibility.analyzer.reading import parsing

    cases = {"f(**cfg)\n": True, "d = {**base, 'a': 1}\n": True, "def f(**kwargs):\n    return 2 ** 3\n": False,
             "x = y ** 2\n": False, "def f(**kw):\n    g(**kw)\n": True}
    for code, expected in cases.items():
        tree = parsing.parse("python", code.encode())
        whole = bool(parsing.captures(parsing.query("python", "(dictionary_splat) @splat"), tree).get("splat"))
        assert _splats(tree) is expected is whole, code
