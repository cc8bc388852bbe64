"""Python a shell script runs as a string, `python -c CODE` (`python3 -c`, `python3.10 -Bc`, in a Dockerfile's RUN as
well) or a here-document fed to `python -` / `python <<EOF`, read as Python units of their own: the rules that read
modules read the one-liner too, and a finding lands on the shell file's line and column.

The code string is decoded the way bash does it: a single-quoted string is literal; a double-quoted one drops the
backslash before `$`, `` ` ``, `"` and `\\` (a here-document: as double quotes without `"`, literal under a quoted
delimiter), and its expansions (`$HOME`, `${N}`, `$(cmd)`) are no Python: each
becomes an opaque name of underscores, so `x = "$HOME"` stays a string and `print($N)` a call. Every byte of the
Python text keeps the position of the byte it came from (`Embedded.point`), and the text keeps the script's rows
(blank lines before it, its own newlines), so a suppression comment on the script's line covers it.

What the one-liner prints is its value when the script captures it (`N=$(python -c ...)`, backticks): a print there
is no report on the terminal. When the captured value becomes a launcher's process count (`torchrun
--nproc_per_node $N`), the one-liner is a `process_count`: a wrong number there starts no worker.

Nothing is run; a code string over MAX_CODE_BYTES is not read."""

from __future__ import annotations

import bisect
import re
from dataclasses import dataclass, field

from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.source import SourceText
from ascend_feasibility.domains.shell_pins import COUNT_OPTIONS, TORCHRUN_COUNT
from tree_sitter import Node

MAX_CODE_BYTES = 64 * 1024
MAX_UNITS = 64  # code strings read from one script
_PYTHON = re.compile(r"^(?:.*/)?python(?:[23](?:\.\d+)?)?$")
_DOUBLE_QUOTED_ESCAPES = frozenset(b'$`"\\')
_HEREDOC_ESCAPES = frozenset(b"$`\\")
_EXPANSIONS = frozenset({"simple_expansion", "expansion", "command_substitution", "arithmetic_expansion"})
_WRAPPERS = frozenset({"pipeline", "redirected_statement", "list", "subshell", "compound_statement"})
PROCESS_COUNT_OPTIONS = frozenset({*TORCHRUN_COUNT, *(o for options in COUNT_OPTIONS.values() for o in options
                                                      if o.startswith("--num"))})


@dataclass
class Embedded:
    """One code string: its Python text (rows as in the script) and where each of its bytes came from."""

    source: SourceText
    host: SourceText
    origins: list[int]  # Python byte offset - prefix → the script's byte offset
    prefix: int  # bytes of blank rows before the code
    use: str  # "shown" (its output goes to the terminal), "captured" or "process_count"
    _host_starts: list[int] = field(default_factory=list, repr=False)
    _starts: list[int] = field(default_factory=list, repr=False)

    def point(self, row: int, column: int) -> tuple[int, int]:
        """The script's (row, byte column) of a (row, byte column) in the Python text."""
        if not self._starts:
            self._starts = _line_starts(self.source.data)
            self._host_starts = _line_starts(self.host.data)
        offset = (self._starts[row] if row < len(self._starts) else len(self.source.data)) + column - self.prefix
        if not self.origins:
            return row, column
        if offset < 0:
            host = self.origins[0]
        elif offset >= len(self.origins):
            host = self.origins[-1] + 1
        else:
            host = self.origins[offset]
        host_row = bisect.bisect_right(self._host_starts, host) - 1
        return host_row, host - self._host_starts[host_row]


def python_strings(root: Node, host: SourceText) -> list[Embedded]:
    """Each `python -c CODE` of a shell tree (bash, or a Dockerfile's shell view: same positions as `host`)."""
    found: list[Embedded] = []
    for node in parsing.walk(root, source_order=True):
        if len(found) >= MAX_UNITS:
            break
        if node.type == "command":
            code = _code_argument(node)
            if code is not None and code.end_byte - code.start_byte <= MAX_CODE_BYTES:
                embedded = _decode(code, host, _use(node, root))
                if embedded is not None:
                    found.append(embedded)
        elif node.type == "heredoc_redirect":
            command = _stdin_interpreter(node)
            body = next((c for c in node.named_children if c.type == "heredoc_body"), None)
            if command is not None and body is not None and body.end_byte - body.start_byte <= MAX_CODE_BYTES:
                embedded = _heredoc(node, body, host, _use(command, root))
                if embedded is not None:
                    found.append(embedded)
    return found


def _code_argument(command: Node) -> Node | None:
    name = command.child_by_field_name("name")
    if name is None or not _PYTHON.match(parsing.text(name)):
        return None
    arguments = command.children_by_field_name("argument")
    for index, argument in enumerate(arguments):
        word = parsing.text(argument)
        if word == "--" or not word.startswith("-"):
            return None  # a script or `-m module`'s arguments follow: no -c of the interpreter
        if word == "-m":
            return None
        if re.fullmatch(r"-[BEIOqsSuv]*c", word):
            return arguments[index + 1] if index + 1 < len(arguments) else None
    return None


def _stdin_interpreter(redirect: Node) -> Node | None:
    """The `python` (`python -`, `python3 -u`) command that reads this here-document as its program."""
    statement = redirect.parent
    command = statement.child_by_field_name("body") if statement is not None else None
    if command is None or command.type != "command":
        return None
    name = command.child_by_field_name("name")
    if name is None or not _PYTHON.match(parsing.text(name)):
        return None
    words = [parsing.text(a) for a in command.children_by_field_name("argument")]
    return command if all(w == "-" or re.fullmatch(r"-[BEIOqsSuv]+", w) for w in words) else None


def _heredoc(redirect: Node, body: Node, host: SourceText, use: str) -> Embedded | None:
    """A here-document's text: literal under a quoted delimiter (`<<'EOF'`), else expanded as in double quotes,
    without the quote escape."""
    start = next((c for c in redirect.named_children if c.type == "heredoc_start"), None)
    text, origins = bytearray(), []
    if start is not None and parsing.text(start)[:1] in {"'", '"'}:
        text += host.data[body.start_byte:body.end_byte]
        origins.extend(range(body.start_byte, body.end_byte))
    else:
        _expanded(body, body.start_byte, body.end_byte, host.data, text, origins, _HEREDOC_ESCAPES)
    return _embedded(body, text, origins, host, use)


def _decode(code: Node, host: SourceText, use: str) -> Embedded | None:
    pieces = code.named_children if code.type == "concatenation" else [code]
    text, origins = bytearray(), []
    data = host.data
    for piece in pieces:
        if not _closed(piece):
            return None  # an unterminated quote: bash would not run it either
        if piece.type == "raw_string":
            start, end = piece.start_byte + 1, piece.end_byte - 1
            text += data[start:end]
            origins.extend(range(start, end))
        elif piece.type == "string":
            _expanded(piece, piece.start_byte + 1, piece.end_byte - 1, data, text, origins, _DOUBLE_QUOTED_ESCAPES)
        elif piece.type == "word":
            text += data[piece.start_byte:piece.end_byte]
            origins.extend(range(piece.start_byte, piece.end_byte))
        else:
            return None  # $'...', or an expansion as the whole code: nothing to read
    return _embedded(code, text, origins, host, use)


def _closed(piece: Node) -> bool:
    if piece.has_error:
        return False
    if piece.type == "raw_string":
        return piece.end_byte - piece.start_byte >= 2 and piece.text.endswith(b"'")
    if piece.type == "string":
        last = piece.children[-1] if piece.children else None
        return piece.child_count >= 2 and last is not None and last.type == '"' and not last.is_missing
    return True


def _embedded(code: Node, text: bytearray, origins: list[int], host: SourceText, use: str) -> Embedded | None:
    if not text.replace(b"_", b"").strip():
        return None  # nothing, or only expansions (`python -c "$CODE"`): no Python to read
    row = code.start_point.row
    prefix = b"\n" * row
    try:
        source = SourceText((prefix + bytes(text)).decode("utf-8"), prefix + bytes(text))
    except UnicodeDecodeError:
        return None
    return Embedded(source, host, origins, len(prefix), use)


def _expanded(node: Node, position: int, end: int, data: bytes, text: bytearray, origins: list[int],
              escapes: frozenset[int]) -> None:
    """The bytes from `position` to `end` as bash hands them to the program, expansions as underscores."""
    expansions = [(c.start_byte, c.end_byte) for c in node.named_children if c.type in _EXPANSIONS]
    index = 0
    while position < end:
        if index < len(expansions) and position >= expansions[index][0]:
            stop = min(expansions[index][1], end)
            for offset in range(position, stop):
                text.append(10 if data[offset] == 10 else 95)  # keeps the rows: `_` for each byte, newlines kept
                origins.append(offset)
            position, index = stop, index + 1
            continue
        byte = data[position]
        if byte == 92 and position + 1 < end and data[position + 1] in escapes:
            position += 1
            byte = data[position]
        text.append(byte)
        origins.append(position)
        position += 1


def _use(command: Node, root: Node) -> str:
    """What the script does with what the command prints (module docstring)."""
    node = command.parent
    while node is not None and node.type in _WRAPPERS:
        node = node.parent
    if node is None or node.type != "command_substitution":
        return "shown"
    holder = node.parent
    while holder is not None and holder.type in {"string", "concatenation"}:
        holder = holder.parent
    if holder is not None and holder.type == "command" and _count_value(holder, node):
        return "process_count"
    if holder is not None and holder.type == "variable_assignment":
        name = holder.child_by_field_name("name")
        if name is not None and _counts_processes(root, parsing.text(name)):
            return "process_count"
    return "captured"


def _count_value(command: Node, value: Node) -> bool:
    """`value` (or the word holding it) is the value of a process-count option of `command`."""
    arguments = command.children_by_field_name("argument")
    for index, argument in enumerate(arguments):
        if not (argument.start_byte <= value.start_byte and value.end_byte <= argument.end_byte):
            continue
        option = parsing.text(argument).split("=", 1)[0]
        if "=" in parsing.text(argument) and option in PROCESS_COUNT_OPTIONS:
            return True
        return index > 0 and parsing.text(arguments[index - 1]) in PROCESS_COUNT_OPTIONS
    return False


def _counts_processes(root: Node, variable: str) -> bool:
    """A read of `variable` is the value of a launcher's process-count option somewhere in the script."""
    for node in parsing.walk(root, prune=_EXPANSIONS):
        if node.type in _EXPANSIONS:
            name = next((c for c in node.named_children if c.type == "variable_name"), None)
            if name is not None and parsing.text(name) == variable and _read_as_count(node):
                return True
    return False


_EXPANSIONS = frozenset({"simple_expansion", "expansion"})


def _read_as_count(read: Node) -> bool:
    """The read is a process-count option's value: in the launcher's own words, or in a string of arguments the script
    hands to one later (`ARGS="--nproc_per_node $N --nnodes 1"`, then `torchrun $ARGS`)."""
    holder = read.parent
    if holder is not None and holder.type == "string":
        before = holder.text[1:read.start_byte - holder.start_byte].decode("utf-8", "replace").split()
        if before and (before[-1] in PROCESS_COUNT_OPTIONS or before[-1].rstrip("=") in PROCESS_COUNT_OPTIONS
                       and before[-1].endswith("=")):
            return True
    while holder is not None and holder.type in {"string", "concatenation"}:
        holder = holder.parent
    return holder is not None and holder.type == "command" and _count_value(holder, read)


def _line_starts(data: bytes) -> list[int]:
    starts = [0]
    position = data.find(b"\n")
    while position != -1:
        starts.append(position + 1)
        position = data.find(b"\n", position + 1)
    return starts
