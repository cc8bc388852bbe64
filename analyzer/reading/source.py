"""Reading a project's file into text that the parsers can take, or a reason why not."""

from __future__ import annotations

import bisect
import codecs
import io
import os
import stat
import tokenize
from dataclasses import dataclass
from pathlib import Path

MAX_FILE_BYTES = 5 * 1024 * 1024
BINARY_SNIFF_BYTES = 8192


class Unreadable(Exception):
    """The file cannot be analysed; the message is the reason shown in `skipped`."""


@dataclass(frozen=True)
class SourceText:
    """Decoded text plus its UTF-8 bytes (what tree-sitter parses) and the line offsets to map positions."""

    text: str
    data: bytes

    @classmethod
    def from_text(cls, text: str) -> "SourceText":
        return cls(text, text.encode("utf-8"))

    @property
    def line_count(self) -> int:
        return self.text.count("\n") + (0 if self.text.endswith("\n") or not self.text else 1)

    def line_bytes(self, row: int) -> bytes:
        """The 0-based row's bytes, without its newline."""
        lines = self._lines()
        return lines[row] if 0 <= row < len(lines) else b""

    def char_column(self, row: int, byte_column: int) -> int:
        """Convert a 0-based byte column to a 1-based character column (constant time on ASCII lines, a binary
        search over the line's continuation bytes otherwise: a long line with many findings stays linear)."""
        continuations = self._continuations(row)
        if not continuations:
            return byte_column + 1
        return byte_column - bisect.bisect_left(continuations, byte_column) + 1

    def line_text(self, row: int) -> str:
        cache = self._cache("_texts")
        if row not in cache:
            cache[row] = self.line_bytes(row).decode("utf-8", errors="replace")
        return cache[row]

    def _continuations(self, row: int) -> list[int]:
        cache = self._cache("_continuation_bytes")
        if row not in cache:
            line = self.line_bytes(row)
            cache[row] = [] if line.isascii() else [i for i, byte in enumerate(line) if 0x80 <= byte < 0xC0]
        return cache[row]

    def _cache(self, name: str) -> dict:
        cached = self.__dict__.get(name)
        if cached is None:
            cached = {}
            object.__setattr__(self, name, cached)
        return cached

    def _lines(self) -> list[bytes]:
        cached = self.__dict__.get("_split")
        if cached is None:
            cached = self.data.split(b"\n")
            object.__setattr__(self, "_split", cached)
        return cached


def read_bytes(path, size: int | None = None, limit: int | None = None) -> bytes:
    """Read a regular file of at most `limit` bytes (default MAX_FILE_BYTES); raise Unreadable with a reason otherwise.

    The file is opened without blocking and without following a final symbolic link, then checked with fstat:
    a FIFO, device or socket put in its place after discovery is refused, never read. At most limit + 1 bytes
    are read, whatever size the file claims."""
    limit = MAX_FILE_BYTES if limit is None else limit
    if size is not None and size > limit:
        raise Unreadable(_too_large(limit, size))
    flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOFOLLOW", 0) | getattr(os, "O_NOCTTY", 0)
    try:
        fd = os.open(path, flags)
    except OSError as exc:
        raise Unreadable(_os_reason(exc)) from None
    try:
        info = os.fstat(fd)
        if not stat.S_ISREG(info.st_mode):
            raise Unreadable(f"not a regular file ({file_type(info.st_mode)})")
        if info.st_size > limit:
            raise Unreadable(_too_large(limit, info.st_size))
        data = _read_fd(fd, min(info.st_size, limit) + 1, limit + 1)
    except OSError as exc:
        raise Unreadable(_os_reason(exc)) from None
    finally:
        os.close(fd)
    if len(data) > limit:
        raise Unreadable(_too_large(limit, len(data)))
    return data


def _read_fd(fd: int, expected: int, most: int) -> bytes:
    """Up to `most` bytes from `fd`, in one read when the file is the size it claimed (no buffered file object: this
    runs for every file, also on a warm cached run)."""
    chunks, total = [], 0
    while total < most:
        chunk = os.read(fd, min(most - total, max(expected - total, 65536)))
        if not chunk:
            break
        chunks.append(chunk)
        total += len(chunk)
    return chunks[0] if len(chunks) == 1 else b"".join(chunks)


def read_contained(root: Path, relative: str, limit: int | None = None) -> bytes:
    """Read `relative` (a POSIX path below `root`) only if it and every link on the way stay inside `root` and it
    is a regular file; Unreadable otherwise. What a settings file or an include names goes through here."""
    root = Path(os.path.realpath(root))
    candidate = root / relative
    try:
        resolved = Path(os.path.realpath(candidate))
    except (OSError, ValueError) as exc:
        raise Unreadable(f"cannot be resolved: {exc}") from None
    if resolved != root and not resolved.is_relative_to(root):
        raise Unreadable("symbolic link that leaves the project (not read)")
    try:
        info = os.stat(resolved)
    except OSError as exc:
        raise Unreadable(_os_reason(exc)) from None
    if not stat.S_ISREG(info.st_mode):
        raise Unreadable(f"not a regular file ({file_type(info.st_mode)})")
    return read_bytes(resolved, info.st_size, limit)


def file_type(mode: int) -> str:
    for test, name in ((stat.S_ISFIFO, "FIFO"), (stat.S_ISCHR, "character device"), (stat.S_ISBLK, "block device"),
                       (stat.S_ISSOCK, "socket"), (stat.S_ISDIR, "folder"), (stat.S_ISLNK, "symbolic link")):
        if test(mode):
            return name
    return "not a regular file"


def _too_large(limit: int, size: int) -> str:
    if limit >= 1024 * 1024:
        return f"larger than the {limit // (1024 * 1024)} MiB limit ({size} bytes)"
    return f"larger than the {limit} bytes limit ({size} bytes)"


def _os_reason(exc: OSError) -> str:
    if isinstance(exc, PermissionError):
        return "permission denied"
    return f"cannot be read: {exc.strerror or exc}"


def looks_binary(data: bytes) -> bool:
    return b"\x00" in data[:BINARY_SNIFF_BYTES]


def decode_python(data: bytes) -> SourceText:
    """Decode Python source honouring its PEP 263 declaration (UTF-8 by default)."""
    if looks_binary(data):
        raise Unreadable("binary content (NUL bytes)")
    try:
        encoding, _ = tokenize.detect_encoding(io.BytesIO(data).readline)
    except SyntaxError as exc:
        if "unknown encoding" in str(exc):
            raise Unreadable(f"declares an {exc}") from None
        raise Unreadable("not valid utf-8 and no encoding declaration") from None
    return _decode(data, encoding)


def decode_text(data: bytes) -> SourceText:
    """Decode a non-Python text file: UTF-8 (with or without BOM)."""
    if looks_binary(data):
        raise Unreadable("binary content (NUL bytes)")
    return _decode(data, "utf-8-sig")


def _decode(data: bytes, encoding: str) -> SourceText:
    try:
        codecs.lookup(encoding)
        text = data.decode(encoding)
    except LookupError:
        raise Unreadable(f"unknown encoding {encoding!r}") from None
    except UnicodeDecodeError as exc:
        raise Unreadable(f"not valid {encoding} at byte {exc.start}") from None
    except (UnicodeError, ValueError) as exc:  # codecs such as punycode raise their own errors on bad bytes
        raise Unreadable(f"not valid {encoding}: {type(exc).__name__}") from None
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceText.from_text(text.replace("\r\n", "\n").replace("\r", "\n"))
