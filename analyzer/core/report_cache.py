"""The last report of each analysed root, kept beside the per-file cache, for a re-run in which nothing changed.

A report is a function of the run's inputs: every file's result (each cached one named by its key in cache.py, which
hashes the file's content, path, kind and context, the target and the analyzer itself; each file that is never cached,
a requirements file reading its `-r` includes, by a hash of the result this run made of it), the files discovered, the
project's settings (pyproject's table, the roles CI adds), the options that change findings, what discovery and the
settings skipped, and the git revision. The run key hashes them all, so a re-run whose key is the stored one has the
stored report, less its date, which is the run's own: the project-level passes (the import graph, the phase plan,
reach) are not run again and no cached file result is loaded. A run in which any file's result depends on timing or
an analyzer error stores none.

One entry per analysed root (a later run replaces it), sealed and validated as the per-file entries are: an entry
edited by hand, from another key, truncated or from another version is a miss.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Iterable
from pathlib import Path

from ascend_feasibility.analyzer.core.cache import MAX_ENTRY_BYTES, FileCache, read_sealed, write_sealed
from ascend_feasibility.analyzer.core.models import Report
from pydantic_core import to_json


def run_settings(cache: FileCache, **inputs) -> bytes:
    """The run's inputs besides its files' results, as bytes for `ReportCache.run_key`: what the per-file keys hash
    of the run (the analyzer, the target, the project's own packages) and `inputs` (plain data, dataclasses and
    models)."""
    return to_json({"file keys": cache.salt, **inputs})


class ReportCache:
    """The stored report of `root`, under the run key it was made for."""

    def __init__(self, folder: Path, root: Path) -> None:
        name = hashlib.blake2b(os.fsencode(os.path.realpath(root)), digest_size=16).hexdigest()
        self.path = folder / "report" / f"{name}.json"

    def exists(self) -> bool:
        return os.path.isfile(self.path)

    @staticmethod
    def run_key(settings: bytes, parts: Iterable[str]) -> str:
        """`settings`: the run's inputs besides its files, as bytes; `parts`: each file's path and key (or result hash),
        in path order."""
        digest = hashlib.blake2b(settings, digest_size=20)
        for part in parts:
            digest.update(b"\0" + part.encode("utf-8", errors="surrogateescape"))
        return digest.hexdigest()

    def load(self, key: str) -> Report | None:
        payload = read_sealed(self.path, f"report-{key}")
        if payload is None:
            return None  # none yet, another run's report, edited, or cut short
        try:
            return Report.model_validate_json(payload)
        except ValueError:  # a report of another shape: not a hit
            return None

    def store(self, key: str, report: Report) -> None:
        payload = to_json(report)  # bytes at once: a large project's report is tens of MB
        if len(payload) <= MAX_ENTRY_BYTES:
            try:
                write_sealed(self.path, f"report-{key}", payload)
            except OSError:
                return  # a read-only or full cache folder: the next run makes its report again
