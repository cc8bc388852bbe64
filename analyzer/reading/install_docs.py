"""Install instructions in a project's documents (README*.md, INSTALL*.md, *install*.md), read as data, never run:
the install commands a reader is told to type, kept on their own lines so that a declaration read from them keeps its
line number.

Kept: a line that runs a `pip`/`pip3`/`python -m pip`/`uv pip`/`mim`/`conda`/`mamba` install or a `conda`/`mamba`
create (`conda create -n env python=3.8`: the environment's Python, rule DEP017) (at its start or after `&&`
or `;`, a `$ ` prompt taken off), with the lines its trailing backslashes continue onto, inside a fenced block whose info
string is empty or a shell's (```bash, ```shell, ```sh, ```console) or outside any block; outside any block, an install
written as inline code in a prose line ("via `pip3 install -r requirements.txt`.") is kept as that span alone; the same for a line that runs `cmake`
(whose `-DNAME=ON` options domains/custom_ops/cmake_options.py reads) and for one that runs
`python -m torch.distributed.launch` (at its start, after `&&`/`;` or environment assignments; whose launched script's argument parser domains/launch_ranks.py reads at the
target torch; no scanner reads a document's lines). Everything else becomes an
empty line: other shell (a prose line inside a block, `unit test (should see ...)`, would break the parse of every
command after it), other blocks, prose. Only the first MAX_CHARACTERS are read (install sections come early)."""

from __future__ import annotations

import posixpath
import re
from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing

MAX_CHARACTERS = 200_000
SHELL_FENCES = frozenset({"", "bash", "sh", "shell", "console", "zsh", "shell-session", "shellscript"})
_FENCE = re.compile(r"^\s{0,3}(```+|~~~+)\s*([\w+-]*)")
_PROMPT = re.compile(r"^\s*(?:\$|>|#)\s+")
_CREATE = re.compile(r"(?:^|&&|;)\s*(?:conda|mamba)\s+create\b")
_INSTALL = re.compile(r"(?:^|&&|;)\s*(?:(?:python3?\s+-m\s+|uv\s+)?(?:pip3?|mim|conda|mamba)\s+install|(?:conda|mamba)\s+create)\b")
_CMAKE = re.compile(r"(?:^|&&|;)\s*cmake\s")  # a build's configure line: the options it turns on (cmake_options.py)
_LAUNCH = re.compile(r"(?:^|&&|;)\s*(?:[A-Za-z_]\w*=\S*\s+)*python[\d.]*\s+-m\s+torch\.distributed\.launch\b")


# A Python floor a document states in prose or a list ("* Python>=3.7", "Python 3.8+", "python ≥ 3.9")
_PYTHON_FLOOR = re.compile(r"\bpython\s*(?:>=|≥|=>)\s*(3\.\d+(?:\.\d+)?)\b|\bpython\s*(3\.\d+(?:\.\d+)?)\s*\+",
                           re.IGNORECASE)


def stated_python_floors(text: str) -> list[tuple[int, str]]:
    """(1-based line, ">=3.7") of each lower bound on Python the document states, in its first MAX_CHARACTERS."""
    found = []
    for number, line in enumerate(text[:MAX_CHARACTERS].splitlines(), start=1):
        for match in _PYTHON_FLOOR.finditer(line):
            found.append((number, f">={match.group(1) or match.group(2)}"))
    return found


def is_install_doc(name: str) -> bool:
    """README.md, README_zh-CN.md, INSTALL.md, docs' installation.md / install_guide.md."""
    lower = name.lower()
    if not lower.endswith(".md"):
        return False
    return lower.startswith(("readme", "install")) or "install" in lower


_LINK = re.compile(r"\]\(\s*<?([^)\s>]+\.md)(?:#[^)\s]*)?>?(?:\s+\"[^\"]*\")?\s*\)", re.IGNORECASE)


def linked_install_docs(readme: str, read: Callable[[str], str | None] | None = None) -> frozenset[str]:
    """The install documents the root README links to by a relative Markdown link (`[Installation Guide]
    (docs/prepare_env/install_guide.md)`), as root-relative paths: the README hands its install steps to them, so
    they set up the project's code wherever they sit (a docs/ folder without Python). A document named for the
    install (INSTALL.md, install_guide.md, installation.md), or, where `read` gives a linked document's text (the
    caller's contained read: one hop, never out of the root), one whose shell lines set up torch or its environment
    whatever its name (Swin-Transformer's "See [get_started.md](get_started.md)": `conda create -n swin python=3.7`,
    `conda install pytorch==1.8.0`; holds_torch_setup). A linked README of a folder is about that folder; a link out
    of the root, to a URL or to an absolute path is none."""
    found = set()
    for path in linked_documents(readme):
        name = path.rsplit("/", 1)[-1].lower()
        if "install" in name:
            found.add(path)
        elif read is not None and not name.startswith("readme") and holds_torch_setup(read(path) or ""):
            found.add(path)
    return frozenset(found)


# words of a guide's name that hand it the README's usage: GETTING_STARTED.md, get_started.md, QUICKSTART.md
_USAGE_NAMES = ("install", "getting_started", "get_started", "gettingstarted", "getstarted", "quickstart",
                "quick_start")


def linked_usage_docs(readme: str) -> frozenset[str]:
    """The install documents (linked_install_docs) and the getting-started guides (OneFormer's GETTING_STARTED.md,
    which its README links "for training commands") the root README links to: the commands they tell a user to run
    are the README's own, handed on."""
    return frozenset(path for path in linked_documents(readme)
                     if re.sub(r"[\s-]+", "_", path.rsplit("/", 1)[-1].lower()).startswith(_USAGE_NAMES)
                     or "install" in path.rsplit("/", 1)[-1].lower())


def handed_install_docs(readme: str, paths, read: Callable[[str], str | None] | None = None) -> tuple[str, ...]:
    """The documents the README hands its install to, among `paths` (the tree's files and kept documents): those it
    links (linked_install_docs, linked_usage_docs) and a root INSTALL*.md (Restormer's INSTALL.md: `python setup.py
    develop --no_cuda_ext`), sorted."""
    present = set(paths)
    linked = linked_install_docs(readme, read) | linked_usage_docs(readme)
    root = {path for path in present if "/" not in path and path.lower().startswith("install") and is_install_doc(path)}
    return tuple(sorted((linked & present) | root))


def linked_documents(readme: str) -> frozenset[str]:
    """Every Markdown document the README links to by a relative link inside the root, as a root-relative path."""
    found = set()
    for match in _LINK.finditer(readme[:MAX_CHARACTERS]):
        target = match.group(1)
        if "://" in target or target.startswith(("/", "mailto:")):
            continue
        parts: list[str] = []
        for part in target.split("/"):
            if part in {"", "."}:
                continue
            if part == "..":
                if not parts:
                    break
                parts.pop()
                continue
            parts.append(part)
        else:
            if parts:
                found.add("/".join(parts))
    return frozenset(found)


_TORCH_WORD = re.compile(r"^['\"]?(?:py)?torch(?:[=<>!~\[;'\"]|$)", re.IGNORECASE)


def holds_torch_setup(text: str) -> bool:
    """Does the document's shell (its shell blocks and lines outside any block, as shell_view keeps them) install
    torch (`pip install torch==2.0.1`, `conda install pytorch==1.8.0 ...`) or create an environment with its Python
    (`conda create -n env python=3.8`)?"""
    for command in _commands_view(text, lambda command: bool(_INSTALL.search(command))).splitlines():
        words = command.split()
        if _CREATE.search(command) and any(word.lower().startswith("python=") for word in words):
            return True
        if any(_TORCH_WORD.match(word) for word in words):
            return True
    return False


def is_install_script(path: str) -> bool:
    """install.sh, install/install_torch.sh, scripts/setup_env.sh: a shell script that sets up the environment, whose
    pip pins (and its branch for an Ascend host, manifests.parse_install_commands) name the torch the project runs."""
    name = path.rsplit("/", 1)[-1].lower()
    return name.endswith(".sh") and name.startswith(("install", "setup"))


def sets_up_code(path: str, code_folders: set[str]) -> bool:
    """Is the document the setup of Python code: at the project's root, or in a folder holding Python at any depth
    (InternImage's detection/README.md)? One in a folder of cluster or serving launchers (open-r1's slurm/README.md)
    sets up another environment, not the code's."""
    folder = path.rsplit("/", 1)[0] if "/" in path else ""
    return folder == "" or folder in code_folders


def code_folders(python_paths) -> set[str]:
    """Every folder that holds a Python file, at any depth below it."""
    folders: set[str] = set()
    for path in python_paths:
        parts = path.split("/")[:-1]
        folders.update("/".join(parts[:end]) for end in range(1, len(parts) + 1))
    return folders


def shell_view(text: str) -> str:
    """The document with only its install commands, its cmake builds (their -D switches are read,
    domains/custom_ops/cmake_options.py) and its script launches (python/torchrun/deepspeed/accelerate launch running a
    .py file or a module: their TrainingArguments switches are read, domains/launch_flags.py) left, each on its own line
    number. A launch's `<placeholder>` words (`--master_port=<your_random_port>`, a reader's value to fill in, which the
    shell would read as redirections) become plain words of the same length."""
    return _commands_view(text, lambda command: bool(_INSTALL.search(command) or _LAUNCH.search(command)
                                                     or _CMAKE.search(command) or _RUN.search(command)),
                          _placeholders_out)


_INLINE_CODE = re.compile(r"(?<!`)`([^`\n]+)`(?!`)")


def _inline_installs(line: str, wanted) -> str:
    """The install commands a prose line writes as inline code ("Install other pip packages via `pip3 install -r
    requirements.txt`."), joined by `; ` as separate commands; "" when it writes none. Only installs: a span naming a
    script run in prose is an example, not the documented setup."""
    found = [span.strip() for span in _INLINE_CODE.findall(line)
             if _INSTALL.search(span.strip()) and wanted(span.strip()) and not span.strip().endswith("\\")]
    return "; ".join(" ".join(_quoted(word) for word in span.split()) for span in found)


def _quoted(word: str) -> str:
    """`mmcv>=2.0.0` of an install line as one quoted word: a document's reader means a requirement, not the shell's
    redirection to a file `=2.0.0` (`2>&1`, `> log.txt` stay redirections)."""
    if ("<" in word or ">" in word) and word[:1].isalpha() and not any(quote in word for quote in "'\"`$"):
        return f"'{word}'"
    return word


_PLACEHOLDER = re.compile(r"<([A-Za-z_][\w./:-]*)>")


def _placeholders_out(command: str, first: str) -> str:
    """`command` (a line of the launch whose first line is `first`) with `<name>` written `_name_`; an install
    line keeps its words, a requirement with a comparison quoted (`_quoted`); its `<package>` stays
    (`pip install <package>` installs nothing the reader names)."""
    if _INSTALL.search(first):
        return " ".join(_quoted(word) for word in command.split())
    if not _RUN.search(first):
        return command
    return _PLACEHOLDER.sub(lambda match: "_" + match.group(1) + "_", command)


_RUN = re.compile(r"(?:^|&&|;)\s*(?:[A-Za-z_]\w*=\S*\s+)*(?:python[\d.]*|torchrun|deepspeed|accelerate\s+launch)\s"
                  r"(?:.*\.py\b|(?:.*\s)?(?:-m|--module)[\s=]+[A-Za-z_])")
MODULE_FLAGS = ("-m", "--module")  # python -m, torchrun -m / --module, accelerate launch -m, deepspeed --module
RUNNERS = ("python", "torchrun", "deepspeed", "accelerate")


def run_scripts(text: str) -> list[tuple[str, str]]:
    """(program, .py file) for each command of the document's shell lines that runs a script (`CUDA_VISIBLE_DEVICES=0 python examples/run.py --flag`,
    `torchrun --nproc_per_node=8 generate.py`), as written (relative to the folder a reader runs them in), read from
    the same lines as the install commands (inside shell blocks or outside any block). A launch through a tool of the
    project's own (`accelerate launch x.py` in accelerate's README) is the tool's demonstration: the caller tells
    those apart by the program's name."""
    found: list[tuple[str, str]] = []
    for program, words in _launches(text):
        script = next((w for w in words if w.endswith(".py") and not w.startswith("-")), None)
        if script is not None:
            found.append((program, script))
    return found


def run_modules(text: str) -> list[tuple[str, str]]:
    """(program, dotted module) for each command of the same lines that runs a module by name: `python -m
    scripts.animate --config x.yaml`, `torchrun --nproc_per_node=2 -m pkg.train`, `accelerate launch -m pkg.train`
    (the launcher's own `python -m torch.distributed.launch x.py` is named too: the caller resolves the module in
    the tree, and x.py is run_scripts')."""
    found: list[tuple[str, str]] = []
    for program, words in _launches(text):
        module = _module(words)
        if module is not None:
            found.append((program, words[words.index(module)]))
    return found


def launch_lines(text: str, command_fences: frozenset[str] = frozenset()) -> list[tuple[int, str, list[str]]]:
    """(line, program, argument words) of each runner command of the document's shell lines, in document order
    (`<placeholder>` words read as plain words); `command_fences`: block info strings (python) whose lines are read
    too where a line is a runner command and no Python (`python app.py` under a ```python fence)."""
    return [(line, program, words) for line, _column, program, words in _placed_launches(text, command_fences)]


def _placed_launches(text: str, command_fences: frozenset[str]) -> list[tuple[int, int, str, list[str]]]:
    """launch_lines with each command's column."""
    view = _commands_view(text, lambda command: bool(_RUN.search(command)), _placeholders_out, command_fences)
    if not view.strip():
        return []
    found: list[tuple[int, int, str, list[str]]] = []
    for command in parsing.captures(parsing.query("bash", "(command name: (command_name) @name) @command"),
                                    parsing.parse("bash", view.encode())).get("command", []):
        program = parsing.text(command.child_by_field_name("name")).rsplit("/", 1)[-1]
        if not program.startswith(RUNNERS):
            continue
        words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
        if program != "accelerate" or words[:1] == ["launch"]:
            found.append((command.start_point.row + 1, command.start_point.column, program, words))
    return found


_CD = re.compile(r"(?:^|&&|;)\s*cd\s+\S")


def launch_folders(text: str, command_fences: frozenset[str] = frozenset()) -> list[tuple[int, str, list[str]]]:
    """(line, folder, argument words) of each runner command of launch_lines, with the folder the document's `cd`
    commands before it moved into (relative, as written, joined: `cd ./sub` then `python run.py` runs sub/run.py; ""
    at the start or after a `cd` to an absolute, home or variable path). The caller resolves the folder in the tree:
    a reader's `cd repo` into the clone is a prefix the tree's paths do not have."""
    return [(line, folder, words)
            for (line, _column, _program, words), folder in _in_folders(text, _placed_launches(text, command_fences),
                                                                         command_fences)]


def installed_requirements(text: str) -> list[tuple[str, str]]:
    """(folder, file) of each requirements file the document's install commands install (`pip install -r
    requirements.txt`, `--requirement=x.txt`, `-rx.txt`), the file as written, with the folder the `cd` commands before
    it moved into (as launch_folders: BrushNet's `cd examples/brushnet/` then `pip install -r requirements.txt`)."""
    view = _commands_view(text, lambda command: bool(_INSTALL.search(command)), _placeholders_out)
    placed: list[tuple[int, int, str]] = []
    if view.strip():
        for command in parsing.captures(parsing.query("bash", "(command name: (command_name) @name) @command"),
                                        parsing.parse("bash", view.encode())).get("command", []):
            words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
            if "install" not in words:
                continue
            for index, word in enumerate(words):
                if word in {"-r", "--requirement"} and index + 1 < len(words):
                    placed.append((command.start_point.row + 1, command.start_point.column, words[index + 1]))
                elif word.startswith("--requirement="):
                    placed.append((command.start_point.row + 1, command.start_point.column, word.split("=", 1)[1]))
                elif word.startswith("-r") and len(word) > 2 and not word.startswith("--"):
                    placed.append((command.start_point.row + 1, command.start_point.column, word[2:]))
    return [(folder, file) for (_line, _column, file), folder in _in_folders(text, placed)]


def _in_folders(text: str, placed: list, command_fences: frozenset[str] = frozenset()) -> list[tuple[tuple, str]]:
    """Each of `placed` ((line, column, ...) of a command, in document order) with the folder the document's `cd`
    commands before it moved into."""
    view = _commands_view(text, lambda command: bool(_CD.search(command)),
                          lambda command, _first: _PLACEHOLDER.sub(lambda match: "_" + match.group(1) + "_", command),
                          command_fences)
    moves: list[tuple[tuple[int, int], str]] = []
    if view.strip():
        for command in parsing.captures(parsing.query("bash", "(command name: (command_name) @name) @command"),
                                        parsing.parse("bash", view.encode())).get("command", []):
            if parsing.text(command.child_by_field_name("name")) == "cd":
                words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
                moves.append(((command.start_point.row + 1, command.start_point.column), words[0] if words else ""))
    moves.sort()
    found: list[tuple[tuple, str]] = []
    folder, done = "", 0
    for item in sorted(placed, key=lambda item: (item[0], item[1])):
        while done < len(moves) and moves[done][0] < (item[0], item[1]):
            folder = _moved(folder, moves[done][1])
            done += 1
        found.append((item, folder))
    return found


def _moved(folder: str, target: str) -> str:
    """The folder `cd target` moves into from `folder` (both relative to where the reader started)."""
    if not target or target.startswith(("/", "~", "$", "-")):
        return ""
    parts = [part for part in folder.split("/") if part]
    for part in target.split("/"):
        if part == "..":
            if not parts:
                return ""
            parts.pop()
        elif part not in {"", "."}:
            parts.append(part)
    return "/".join(parts)


def launch_flags(text: str) -> tuple[str, ...]:
    """The `--flag` words (before any `=`) the document's runner commands pass, each once, in document order:
    `python setup.py develop --cuda_ext` passes `--cuda_ext` (switched_on.py: a build switch the README turns on)."""
    found = {word.split("=", 1)[0]: None for _line, _program, words in launch_lines(text)
             for word in words if word.startswith("--") and len(word.split("=", 1)[0]) > 2}
    return tuple(found)


def _launches(text: str) -> list[tuple[str, list[str]]]:
    """(program, argument words) of each runner command (python, torchrun, deepspeed, accelerate launch) of the
    document's shell lines, `--module=name` split in two."""
    return [(program, [part for word in words for part in (word.split("=", 1) if word.startswith("--module=") else [word])])
            for _line, program, words in launch_lines(text)]


def launched_target(words: list[str]) -> tuple[str, str] | None:
    """What one runner command's words launch: ("module", dotted name) for `-m pkg.train` before any script, else
    ("script", the first .py word), else None (as run_modules and run_scripts read each command)."""
    words = [part for word in words for part in (word.split("=", 1) if word.startswith("--module=") else [word])]
    module = _module(words)
    if module is not None:
        return "module", words[words.index(module)]
    script = next((w for w in words if w.endswith(".py") and not w.startswith("-")), None)
    return ("script", script) if script is not None else None


def _module(words: list[str]) -> str | None:
    """The word naming the module after `-m` / `--module` (`--module=x` split off), where one is given before any
    script: the first such flag only (what follows the module is its own arguments)."""
    for index, word in enumerate(words):
        if word.endswith(".py") and not word.startswith("-"):
            return None
        if word in MODULE_FLAGS and index + 1 < len(words) and _DOTTED.match(words[index + 1]):
            return words[index + 1]
    return None


_DOTTED = re.compile(r"^[A-Za-z_]\w*(?:\.[A-Za-z_]\w*)*$")


def fence_opening(line: str) -> tuple[str, str] | None:
    """(the fence, the info string) of a Markdown line that opens or closes a fenced block (```python), else None."""
    opened = _FENCE.match(line)
    return (opened.group(1), opened.group(2)) if opened else None


def _commands_view(text: str, wanted, rewrite=None, command_fences: frozenset[str] = frozenset()) -> str:
    """The document with only the commands `wanted` keeps (with the lines their trailing backslashes continue onto)
    left, each on its own line number; `rewrite(line, first line of its command)` may rewrite a kept line in place.
    Inside a block whose info string is in `command_fences`, a wanted line is kept only where it is no Python."""
    kept: list[str] = []
    first = ""
    fence: str | None = None  # while inside a block: "shell", "command" (a command_fences one) or "other"
    marker = ""
    continued = False  # the previous kept line ended with a backslash
    for line in text[:MAX_CHARACTERS].splitlines():
        opened = fence_opening(line)
        if opened and (fence is None or (opened[0].startswith(marker[:3]) and not opened[1])):
            label = opened[1].lower()
            fence, marker = (None, "") if fence is not None else (
                "shell" if label in SHELL_FENCES else "command" if label in command_fences else "other",
                opened[0])
            kept.append("")
            continued = False
            continue
        command = _PROMPT.sub("", line, count=1).strip()
        if fence == "command" and not continued and wanted(command) and not _no_python(command):
            fence_keeps = False  # `python(...)`-like Python under a python fence: no command
        else:
            fence_keeps = fence != "other"
        if fence_keeps and (continued or wanted(command)):
            first = command if not continued else first
            kept.append(command if rewrite is None else rewrite(command, first))
            continued = command.endswith("\\")
        elif fence is None and (spans := _inline_installs(line, wanted)):
            kept.append(spans)
            continued = False
        else:
            kept.append("")
            continued = False
    return "\n".join(kept)


def _no_python(line: str) -> bool:
    """A line Python does not parse (`python app.py --share`): a shell command under a python fence."""
    return parsing.parse("python", line.encode("utf-8")).has_error


_SETUP_BUILD = re.compile(r"(?:^|&&|;)\s*python[\d.]*\s+setup\.py\s+(?:install|develop|build_ext)\b")


def installed_local_folders(text: str, script: bool = False) -> list[tuple[int, str]]:
    """(line, folder) of each folder of the tree the document's commands install from source: `pip install -e
    submodules/simple-knn`, `pip install ./ops`, `cd ops && python setup.py install` (the folder the `cd` commands
    before it moved into, as launch_folders), as written, normalised (`./x/` is `x`); the caller resolves it in the
    tree. A requirement name (`pip install timm`) is no folder: only words with a `/` or a leading `.` are read.
    `script`: the text is a shell script (PointNeXt's install.sh), whose `#` lines are comments, not a root prompt."""
    if script:
        text = _comments_out(text)
    view = _commands_view(text, lambda command: bool(_INSTALL.search(command) or _SETUP_BUILD.search(command)),
                          _placeholders_out)
    placed: list[tuple[int, int, str]] = []
    if view.strip():
        for command in parsing.captures(parsing.query("bash", "(command name: (command_name) @name) @command"),
                                        parsing.parse("bash", view.encode())).get("command", []):
            words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
            row, column = command.start_point.row + 1, command.start_point.column
            if words[:1] == ["setup.py"] and len(words) > 1 and words[1] in {"install", "develop", "build_ext"}:
                placed.append((row, column, "."))
            elif "install" in words:
                placed += [(row, column, word) for word in words[words.index("install") + 1:]
                           if not word.startswith("-") and ("/" in word or word.startswith(".")) and "://" not in word
                           and "+" not in word]
    found = []
    for (row, _column, word), folder in _in_folders(text, placed):
        joined = posixpath.normpath(posixpath.join(folder, word)) if folder else posixpath.normpath(word)
        if joined != "." and not joined.startswith(("/", "..", "~", "$")):
            found.append((row, joined))
    return found


def _comments_out(script: str) -> str:
    """The shell script with its comment lines (`# pip install -e ./old`) emptied, each line kept in place."""
    return "\n".join("" if line.lstrip().startswith("#") else line for line in script.splitlines())


_SCRIPT_RUN = re.compile(r"(?:^|&&|;)\s*(?:source|bash|sh|\.)\s+\S+\.sh\b")
_SHELLS = frozenset({"source", "bash", "sh", "."})


def run_shell_scripts(text: str) -> list[str]:
    """The shell scripts the document's commands run (`source install.sh`, `bash scripts/install.sh`, `sh setup.sh`),
    each with the folder the `cd` commands before it moved into (as launch_folders), normalised; the caller resolves
    it in the tree (a reader's `cd repo` into the clone is a prefix the tree's paths do not have)."""
    view = _commands_view(text, lambda command: bool(_SCRIPT_RUN.search(command)), _placeholders_out)
    placed: list[tuple[int, int, str]] = []
    if view.strip():
        for command in parsing.captures(parsing.query("bash", "(command name: (command_name) @name) @command"),
                                        parsing.parse("bash", view.encode())).get("command", []):
            if parsing.text(command.child_by_field_name("name")) not in _SHELLS:
                continue
            words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
            script = next((w for w in words if not w.startswith("-")), None)
            if script is not None and script.endswith(".sh"):
                placed.append((command.start_point.row + 1, command.start_point.column, script))
    found = []
    for (_row, _column, script), folder in _in_folders(text, placed):
        joined = posixpath.normpath(posixpath.join(folder, script))
        if not joined.startswith(("/", "..", "~", "$")):
            found.append(joined)
    return list(dict.fromkeys(found))
