"""A backend literal in a config module's top-level setting that no code of the project reads is `cosmetic` at info
(analyzer/context/unread_settings.py; round 41 A1 class 1: CenterPoint's configs set `dist_params =
dict(backend="nccl")` while its tools/train.py hard-codes the backend). A launcher that reads the setting
(`init_dist(args.launcher, **cfg.dist_params)`, mmcv 1.x's tools/train.py) keeps the finding counted."""

from __future__ import annotations

from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

CONFIG = ("import itertools\n\n"
          "tasks = [dict(class_names=[\"car\"])]\n"
          "class_names = list(itertools.chain(*[t[\"class_names\"] for t in tasks]))\n"
          "model = dict(type=\"CenterPoint\", reader=dict(num_filters=[64]))\n"
          "total_epochs = 20\n"
          "dist_params = dict(\n"
          "    backend=\"nccl\", init_method=\"env://\"\n"
          ")\n"
          "log_level = \"INFO\"\n")
HARD_CODED = ("import argparse\n\nimport torch\nimport torch.distributed as dist\n\nfrom tools.config import Config\n\n\n"
              "def main():\n"
              "    parser = argparse.ArgumentParser()\n"
              "    parser.add_argument(\"config\")\n"
              "    args = parser.parse_args()\n"
              "    cfg = Config.fromfile(args.config)\n"
              "    dist.init_process_group(backend=\"nccl\", init_method=\"env://\")\n"
              "    model = torch.nn.Linear(2, 2).cuda()\n"
              "    return cfg.total_epochs, model\n\n\n"
              "if __name__ == \"__main__\":\n    main()\n")
READS = HARD_CODED.replace("    dist.init_process_group(backend=\"nccl\", init_method=\"env://\")\n",
                           "    dist.init_process_group(**cfg.dist_params)\n")


def _config_findings(tmp_path, train: str) -> dict[int, tuple[str, str, str | None]]:
    write_tree(tmp_path, {"requirements.txt": "torch\n", "tools/__init__.py": "",
                          "tools/config.py": "class Config:\n    @staticmethod\n    def fromfile(path):\n        return path\n",
                          "tools/train.py": train, "configs/nusc/centerpoint.py": CONFIG,
                          "configs/waymo/centerpoint.py": CONFIG})
    return {f.line: (f.reach, f.severity, f.reach_reason) for f in analyze(tmp_path, AnalyzeOptions(jobs=1)).findings
            if f.path.startswith("configs/") and f.rule == "DST002"}


def test_a_backend_setting_no_launcher_reads_is_cosmetic(tmp_path):
    found = _config_findings(tmp_path, HARD_CODED)
    assert found == {8: ("cosmetic", "info", "`dist_params` is set in config modules only: "
                                            "no code of the project reads the setting")}


def test_a_backend_setting_the_launcher_reads_keeps_its_reach(tmp_path):
    found = _config_findings(tmp_path, READS)
    assert {reach for reach, _, _ in found.values()} == {"runs"}


def test_settings_are_a_config_modules_top_level_mappings():
    from ascend_feasibility.analyzer.context.unread_settings import settings
    from ascend_feasibility.analyzer.reading import parsing
    from ascend_feasibility.analyzer.reading.module_statements import ModuleStatements

    code = ("_base_ = ['./runtime.py']\nenv_cfg = dict(dist_cfg=dict(backend='nccl'))\n"
            "dist_params = dict(backend='nccl')\nopts = {'backend': 'nccl'}\nlog_level = 'INFO'\nlr = 0.1\n")
    module = ModuleStatements(parsing.parse("python", code.encode()))
    # mmengine's Runner reads env_cfg itself; a string or a number binds no mapping
    assert settings(module, False) == [(3, 3, "dist_params"), (4, 4, "opts")]
