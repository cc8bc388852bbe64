"""Which of a project's manifests its install commands read (round 19: Janus's README installs with `pip install -e
.`, which reads pyproject.toml's `torch>=2.0.1`; its requirements.txt, pinning `torch==2.0.1`, is named by nothing).

Per file: the requirements files an install command names (`pip install -r X`, `-c X`, `--requirement X`) and the
project installs (`pip install -e .`, `pip install .[dev]`, `python setup.py develop`), read from the shell of scripts,
Dockerfiles and install documents; and the requirements files a package manifest reads itself (setup.py's
`open("requirements.txt")`, pyproject's `[tool.setuptools.dynamic] dependencies = {file = [...]}`). For the project: is
a requirements file read by nothing while the project installs itself from its package manifest? Then a pin there
is a stale line, not the torch the project runs."""

from __future__ import annotations

from pathlib import PurePosixPath

import tomllib
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

READS = "reads"  # a requirements file an install command or a package manifest reads
PROJECT = "project"  # an install of the project itself from its package manifest
REQUIREMENT_OPTIONS = frozenset({"-r", "-c", "--requirement", "--constraint"})
PROJECT_ARGUMENTS = frozenset({".", "./"})
SETUP_COMMANDS = frozenset({"install", "develop"})
EDITABLE_OPTIONS = frozenset({"-e", "--editable"})
VCS_PREFIXES = ("git+", "hg+", "svn+", "bzr+")
MAX_NODES = 200_000  # a setup.py is small; a huge one is read this far
_COMMAND_QUERY = "(command name: (command_name) @name) @command"


def install_reads(relative: str, root: Node) -> list[str]:
    """`reads:<path>` for each requirements file an install command of the shell names (relative to the file's
    folder and as written, since a script may run from the root), `project:<path>` for each project install."""
    found = []
    for command in parsing.captures(parsing.query("bash", _COMMAND_QUERY), root).get("command", []):
        program = parsing.text(command.child_by_field_name("name")).rsplit("/", 1)[-1]
        words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
        if program.startswith("python") and words[:1] == ["setup.py"] and SETUP_COMMANDS & set(words[1:2]):
            found.append(f"{PROJECT}:{relative}")
            continue
        if program.startswith("python") and words[:2] == ["-m", "pip"]:
            program, words = "pip", words[2:]
        if program == "uv" and words[:1] == ["pip"]:
            program, words = "pip", words[1:]
        if program not in {"pip", "pip3"} or "install" not in words:
            continue
        args = words[words.index("install") + 1:]
        for at, word in enumerate(args):
            option, _, attached = word.partition("=")
            if option in REQUIREMENT_OPTIONS and (attached or at + 1 < len(args)):
                found += [f"{READS}:{name}" for name in _named(relative, attached or args[at + 1])]
            elif word.split("[", 1)[0] in PROJECT_ARGUMENTS or (word in EDITABLE_OPTIONS and at + 1 < len(args)
                                                                 and args[at + 1].startswith(VCS_PREFIXES)):
                # `pip install -e "git+https://…/moshi.git#egg=moshi&subdirectory=moshi"`: the project from its repository
                found.append(f"{PROJECT}:{relative}")
    return found


def manifest_reads(relative: str, root: Node | None = None, pyproject: str | None = None) -> list[str]:
    """`reads:<path>` for the .txt files setup.py names in its strings, or pyproject's dynamic dependencies read."""
    names: list[str] = []
    if root is not None:
        for node in parsing.walk(root, limit=MAX_NODES):
            if node.type == "string_content" and parsing.text(node).endswith(".txt"):
                names.append(parsing.text(node))
    if pyproject is not None:
        try:
            table = tomllib.loads(pyproject)
        except tomllib.TOMLDecodeError:
            return []
        dynamic = table.get("tool", {}).get("setuptools", {}).get("dynamic", {})
        for value in dynamic.values() if isinstance(dynamic, dict) else ():
            files = value.get("file", []) if isinstance(value, dict) else []
            names += [files] if isinstance(files, str) else [f for f in files if isinstance(f, str)]
    return [f"{READS}:{name}" for n in names for name in _named(relative, n)]


def _named(relative: str, argument: str) -> list[str]:
    """The paths an argument may name: beside the file that names it, and from the project's root."""
    argument = argument.removeprefix("./")
    folder = PurePosixPath(relative).parent
    beside = str(folder / argument) if str(folder) != "." else argument
    return sorted({beside, argument})


def unread(path: str, reads: frozenset[str]) -> bool:
    """Does no install command or package manifest read the requirements file `path`, while the project installs
    itself from its package manifest? False where the project shows no install of its own (nothing to go by), or a
    named file's path ends with `path` or `path` with it (`-r requirements.txt` from a folder's script)."""
    if not any(r.startswith(f"{PROJECT}:") for r in reads):
        return False
    return not named(path, reads)


def named(path: str, reads: frozenset[str]) -> bool:
    """Does an install command or a package manifest name the requirements file `path` (a named file's path ends
    with `path` or `path` with it: `-r requirements.txt` from a folder's script)?"""
    names = [r.split(":", 1)[1] for r in reads if r.startswith(f"{READS}:")]
    return any(n == path or n.endswith(f"/{path}") or path.endswith(f"/{n}") for n in names)


def unchosen(requirements: set[str], manifests: set[str], reads: frozenset[str], manifest_torch: bool) -> set[str]:
    """The requirements files whose torch pin does not choose the target (round 21 moshi, seamless_communication):
    no install command or package manifest names them, the project shows an install of its own (`pip install .`,
    `pip install -e git+…`), and a package manifest (`manifests`: pyproject.toml, setup.py, setup.cfg paths) in their
    folder or a parent folder is what installs that code. The `requirements.txt` beside such
    a manifest still speaks for it where no package manifest declares torch (`manifest_torch`): many setup.py files
    leave torch to the requirements file a user installs by hand."""
    if not any(r.startswith(f"{PROJECT}:") for r in reads):  # no install of the project shown: nothing to go by
        return set()
    folders = {str(PurePosixPath(m).parent) for m in manifests}
    unread_files = set()
    for path in requirements:
        at = PurePosixPath(path)
        governing = [f for f in folders if f == "." or at.parent.is_relative_to(f)]
        if not governing or named(path, reads):
            continue
        if not manifest_torch and at.name.lower() == "requirements.txt" and str(at.parent) in governing:
            continue
        unread_files.add(path)
    return unread_files
