"""Predictors a hosted platform's manifest names: a separate deployment of the model, not the product's path.

LLaVA-NeXT's cog.yaml (`predict: "predict.py:Predictor"`, `build.gpu: true`) packages a LLaVA-1.5 checkpoint for
Replicate's NVIDIA hosting with pins of its own (torch 2.0.1); no README or script runs predict.py and nothing imports
it (round 20 A2 row 51). Porting it ports nothing the project ships. Where no product code imports the predictor
(analyzer/context/propagation.py guarded_modules), its sites are optional, "a Replicate Cog predictor (cog.yaml);
deploy it on Ascend separately", and the report names it a deployment, which the port leaves alone. Which manifests
name a predictor, and under which key, is knowledge (conventions [[backends.hosted_predictors]]); the predictor is the
file the manifest names, relative to the manifest's folder, never a file found by its own name.
"""

from __future__ import annotations

import yaml
from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.reading import bounded_yaml
from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes
from ascend_feasibility.knowledge.models import BackendConventions

MAX_MANIFEST_BYTES = 1 << 20


def hosted_predictors(files, backends: BackendConventions) -> dict[str, str]:
    """Predictor path → why, for each hosted platform's manifest among `files` (path, absolute, size) whose top-level
    key names `FILE.py:Class` of a Python file of the tree."""
    by_name = {p.manifest.lower(): p for p in backends.hosted_predictors}
    if not by_name:
        return {}
    existing = {f.path for f in files}
    found: dict[str, str] = {}
    for f in files:
        predictor = by_name.get(path_view(f.path).name.lower())
        if predictor is None:
            continue
        named = _named(f, predictor.key)
        if named is None:
            continue
        folder = path_view(f.path).parent
        path = named if folder == "." else f"{folder}/{named}"
        if path in existing:
            found.setdefault(path, f"a {predictor.platform} predictor ({path_view(f.path).name}); deploy it on Ascend "
                                   "separately")
    return found


def _named(f, key: str) -> str | None:
    """The file part of the manifest's `key: "FILE.py:Class"`, normalised (no ./), or None."""
    try:
        document = bounded_yaml.compose(read_bytes(f.absolute, f.size, MAX_MANIFEST_BYTES).decode("utf-8", "replace"))
    except (Unreadable, OSError, yaml.YAMLError):
        return None
    if not isinstance(document, yaml.MappingNode):
        return None
    value = next((v.value for k, v in document.value if isinstance(k, yaml.ScalarNode) and k.value == key
                  and isinstance(v, yaml.ScalarNode)), None)
    if not isinstance(value, str) or ":" not in value:
        return None
    named = value.rsplit(":", 1)[0].strip().removeprefix("./")
    if not named.endswith(".py") or named.startswith("/") or ".." in path_view(named).parts:
        return None
    return named
