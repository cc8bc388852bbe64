"""A command line inside a YAML/JSON data document (`"CUDA_VISIBLE_DEVICES=0 vllm serve ..."` in a web site's
registry of deployment pages, round 25 A1 19 / B2 32) is no launch: domains/config_scanner.py reports such a string
only under a key a runner executes (knowledge/context/conventions.toml yaml_command_keys, json_command_keys); a bare
`NAME=value` item (docker-compose `environment:`) is a setting wherever it is."""

from __future__ import annotations

import json

import pytest
from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

from tests.helpers import write_tree

REGISTRY = json.dumps([{"slug": "vllm-gpu", "hardware": ["nvidia-gpu"], "install": "pip install vllm",
                        "serve": "CUDA_VISIBLE_DEVICES=0 .venv/bin/vllm serve org/model --port 8000"}], indent=2)
PACKAGE = json.dumps({"name": "demo", "scripts": {"serve": "CUDA_VISIBLE_DEVICES=0 python serve.py"}}, indent=2)
DEVCONTAINER = json.dumps({"postCreateCommand": "CUDA_VISIBLE_DEVICES=0 python warmup.py"}, indent=2)
COMPOSE_ITEM = json.dumps({"services": {"app": {"environment": ["CUDA_VISIBLE_DEVICES=0"]}}}, indent=2)


@pytest.mark.parametrize("path, text, found", [
    ("site/data/deployments.json", REGISTRY, False),  # page content of a registry
    ("package.json", PACKAGE, True),  # npm runs scripts
    ("devcontainer.json", DEVCONTAINER, True),  # the container's lifecycle command
    ("compose.json", COMPOSE_ITEM, True),  # a bare NAME=value item
])
def test_a_json_command_line_is_a_launch_only_under_a_key_a_tool_runs(tmp_path, path, text, found):
    files = {"serve.py": "import torch\nprint(torch.cuda.is_available())\n", path: text}
    report = analyze(write_tree(tmp_path, files), AnalyzeOptions(jobs=1))
    hits = [f for f in report.findings if f.path == path and f.rule == "DEV201"]
    assert bool(hits) == found, [(f.rule, f.line) for f in report.findings if f.path == path]
