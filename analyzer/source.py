"""Reading a project's file into text that the parsers can take, or a reason why not."""

from __future__ import annotations

import codecs
import io
import tokenize
from dataclasses import dataclass

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
        """Convert a 0-based byte column to a 1-based character column."""
        return len(self.line_bytes(row)[:byte_column].decode("utf-8", errors="replace")) + 1

    def line_text(self, row: int) -> str:
        return self.line_bytes(row).decode("utf-8", errors="replace")

    def _lines(self) -> list[bytes]:
        cached = self.__dict__.get("_split")
        if cached is None:
            cached = self.data.split(b"\n")
            object.__setattr__(self, "_split", cached)
        return cached


def read_bytes(path, size: int | None = None) -> bytes:
    """Read a file whose size is within the limit; raise Unreadable with a reason otherwise."""
    try:
        if size is None:
            size = path.stat().st_size
        if size > MAX_FILE_BYTES:
            raise Unreadable(f"larger than the {MAX_FILE_BYTES // (1024 * 1024)} MiB limit ({size} bytes)")
        return path.read_bytes()
    except PermissionError:
        raise Unreadable("permission denied") from None
    except OSError as exc:
        raise Unreadable(f"cannot be read: {exc.strerror or exc}") from None


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
    if text.startswith("\ufeff"):
        text = text[1:]
    return SourceText.from_text(text.replace("\r\n", "\n").replace("\r", "\n"))
