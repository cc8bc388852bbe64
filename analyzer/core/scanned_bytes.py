"""A file's bytes again, for a project pass that reads a few files once more (Domain.read_later): exactly those the
scan read, or none.

The scan keeps no file's bytes: a worker reads, parses and forgets them. Where a project pass needs a record that only
a few files' re-reading can answer (class_uses' method_users and base_only, for the classes the pass judges), the file
is read again and served only when its content hash equals the one of its scan result (FileResult.digest, the cache's
key): a file changed since the scan is not read as if it were the one scanned. The caller then decides nothing from it.
"""

from __future__ import annotations

from pathlib import Path

from ascend_feasibility.analyzer.core.filework import content_digest
from ascend_feasibility.analyzer.reading.discovery import ProjectFile
from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes


class ScannedBytes:
    """`files`: the files scanned; `digests`: path → the content hash of its scan result; `read`: bytes read before
    the scan (FileWorker.read), which the scan did not read again either."""

    def __init__(self, files: list[ProjectFile], digests: dict[str, str | None], read: dict[str, bytes]) -> None:
        self._files = {f.path: f for f in files}
        self._digests = digests
        self._read = read

    def __call__(self, path: str) -> bytes | None:
        """The bytes of `path` the scan read, or None (not scanned, unreadable now, or no longer those bytes)."""
        project_file, digest = self._files.get(path), self._digests.get(path)
        if project_file is None or digest is None:
            return None
        data = self._read.get(path)
        if data is None:
            try:
                data = read_bytes(Path(project_file.absolute), project_file.size)
            except Unreadable:
                return None
        return data if content_digest(data) == digest else None
