"""Native sources that only an opt-in CMake option compiles: their kernels and the CMake lines of that block are
`optional`.

seamless_communication's ggml/ (unity.cpp, a C library with no torch in it) declares `option(GGML_CUBLAS "ggml: use
cuBLAS" OFF)` and names ggml-cuda.cu only inside `if (GGML_CUBLAS) ... enable_language(CUDA) ... set(GGML_CUDA_SOURCES
ggml-cuda.cu ggml-cuda.h) ... endif()`. Its documented builds pass `-DGGML_OPENBLAS=ON`; only a Makefile target named for
tests passes `-DGGML_CUBLAS=ON`. The default build compiles no CUDA, so the kernels are not port work: they and the
CUDA lines of that block are optional, with the option and its default as the reason. A build that turns the option on
(a README shell line, a Makefile target that is no test's, a shell script, a Dockerfile, CI YAML passing `-DX=ON`), an
option that defaults ON, or a source also named outside the block (or by a Python build) keeps `runs`.

CMake has no tree-sitter grammar here: its commands are read as `name(arguments)` with their lines, comments dropped,
which is all an option, an if block and a source list need.
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import PurePosixPath

from ascend_feasibility.domains.base import Hit, Scanner, Unit
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts

CMAKE_SOURCE_SUFFIXES = (".cu",)  # what a CUDA backend block compiles
OFF_VALUES = frozenset({"OFF", "FALSE", "NO", "0", "N", "IGNORE", "NOTFOUND"})
ON_VALUES = frozenset({"ON", "TRUE", "YES", "1", "Y"})
CONDITION_WORDS = frozenset({"AND", "OR", "NOT", "DEFINED", "(", ")"})
LINK_KEYWORDS = frozenset({"PUBLIC", "PRIVATE", "INTERFACE", "LINK_PUBLIC", "LINK_PRIVATE", "LINK_INTERFACE_LIBRARIES",
                           "debug", "optimized", "general"})
TEST_TARGET_WORDS = ("test", "check", "bench")  # Makefile targets that build for tests, not the documented build
# Variables CMake itself defines on some hosts: an `if (APPLE)` arm is no undefined, always-false switch
CMAKE_PLATFORM_NAMES = frozenset({"WIN32", "UNIX", "APPLE", "MSVC", "MINGW", "CYGWIN", "MSYS", "ANDROID", "IOS", "LINUX",
                                  "BSD", "XCODE", "EMSCRIPTEN", "WASI", "BORLAND", "WATCOM", "GHSMULTI", "MSVC_IDE"})


@dataclass(frozen=True)
class CMakeCommand:
    name: str  # lower case
    arguments: tuple[str, ...]
    line: int  # 1-based, where the command starts


@dataclass
class CMakeBlock:
    """The lines an `if (...)` arm covers and the options it needs ON (an AND-chain of plain names; none under an
    `else`/`elseif`, whose arm the options' default may take)."""

    path: str
    needs: tuple[str, ...]
    first: int
    last: int


@dataclass
class CMakeOptionFacts:
    options: list[tuple[str, bool, str]]  # (name, default ON, "path:line")
    blocks: list[CMakeBlock]
    sources: list[tuple[str, int, str, tuple[str, ...]]]  # (path, line, source file name, options its blocks need)
    named: set[str]  # upper-case names any other command's arguments write or read (set(X ON), list(APPEND X ...))
    links: list[tuple[str, int, str]]  # (path, line, name): libraries targets link, packages find_package looks for


def cmake_commands(text: str) -> list[CMakeCommand]:
    """The commands of a CMake file: `name(arguments)` over as many lines as its parentheses take, `#` comments and
    quotes read as CMake does (a quoted argument is one word)."""
    commands: list[CMakeCommand] = []
    name, words, word, depth, line, start = "", [], "", 0, 1, 1
    quoted = comment = ended = False
    head = ""
    for char in text:
        if char == "\n":
            line += 1
            comment = False
        if comment:
            continue
        if quoted:
            if char == '"':
                quoted = False
                words.append(word)
                word = ""
            else:
                word += char
            continue
        if depth == 0:
            if char == "#":
                comment = True
            elif char == "(":
                name, words, word, depth, start = head.lower(), [], "", 1, line
                head, ended = "", False
            elif char.isalnum() or char == "_":
                head, ended = (char, False) if ended else (head + char, False)
            elif char.isspace():
                ended = bool(head)
            else:
                head, ended = "", False
            continue
        if char == "#" and not word:
            comment = True
            continue
        if char == '"':
            quoted = True
            continue
        if char in "()" or char.isspace():
            if word:
                words.append(word)
                word = ""
            if char == "(":
                depth += 1
                words.append("(")
            elif char == ")":
                depth -= 1
                if depth == 0:
                    if name:
                        commands.append(CMakeCommand(name, tuple(words), start))
                    name = ""
                else:
                    words.append(")")
            continue
        word += char
    return commands


def read_cmake(path: str, text: str) -> CMakeOptionFacts:
    """The options a CMake file declares, the `if` arms it opens and the CUDA sources it names inside them."""
    facts = CMakeOptionFacts([], [], [], set(), [])
    frames: list[CMakeBlock] = []
    for command in cmake_commands(text):
        if command.name == "option" and len(command.arguments) >= 1:
            default = command.arguments[2].upper() if len(command.arguments) >= 3 else "OFF"
            facts.options.append((command.arguments[0], default not in OFF_VALUES, f"{path}:{command.line}"))
        elif command.name == "if":
            frames.append(CMakeBlock(path, _needed(command.arguments), command.line, command.line))
        elif command.name in {"elseif", "else"} and frames:
            frames[-1].last = command.line - 1
            facts.blocks.append(frames[-1])
            frames[-1] = CMakeBlock(path, (), command.line, command.line)
        elif command.name == "endif" and frames:
            frames[-1].last = command.line
            facts.blocks.append(frames.pop())
        else:
            if command.name == "target_link_libraries":
                facts.links += [(path, command.line, w) for w in command.arguments[1:] if w not in LINK_KEYWORDS]
            elif command.name == "find_package" and command.arguments:
                facts.links.append((path, command.line, command.arguments[0]))
            facts.named.update(w for w in command.arguments if w.isidentifier() and w.isupper())
            for word in command.arguments:
                name = word.rsplit("/", 1)[-1]
                if name.endswith(CMAKE_SOURCE_SUFFIXES) and "*" not in name and "$" not in name:
                    needs = tuple(sorted({n for frame in frames for n in frame.needs}))
                    facts.sources.append((path, command.line, name, needs))
    return facts


def _needed(condition: tuple[str, ...]) -> tuple[str, ...]:
    """The options an `if` condition needs ON: its plain names when they are joined by AND only (`GGML_CUBLAS`,
    `GGML_CUBLAS AND CUDAToolkit_FOUND`); none for an OR, a NOT or a comparison."""
    if any(word.upper() in {"OR", "NOT"} for word in condition):
        return ()
    names = [word for word in condition if word.upper() not in CONDITION_WORDS]
    if not names or not all(name.replace("_", "").isalnum() and not name[0].isdigit() for name in names):
        return ()
    return tuple(names)


def switched_on(text: str, kind: str) -> set[str]:
    """The options a build command turns on, `-DNAME=ON` (any true value, `:BOOL` typed or not). In a Makefile, not
    the recipes of a target that builds for tests (_test_targets): the documented build is another target."""
    found: set[str] = set()
    testing = _test_targets(text) if kind == "build" else set()
    target = ""
    for row in text.split("\n"):
        if kind == "build" and _rule(row) is not None:
            target = _rule(row)[0][0]
        if target in testing:
            continue
        for word in row.replace('"', " ").replace("'", " ").split():
            if word.startswith("-D") and "=" in word:
                name, value = word[2:].split("=", 1)
                if value.upper() in ON_VALUES:
                    found.add(name.split(":", 1)[0])
    return found


def _rule(row: str) -> tuple[list[str], list[str]] | None:
    """A Makefile rule line `targets: prerequisites` (lower-case words); None for a recipe, an assignment or prose."""
    if row[:1] in {"\t", " ", ""} or ":" not in row or "=" in row.split(":", 1)[0]:
        return None
    targets, prerequisites = row.split(":", 1)
    return [t.lower() for t in targets.split()] or [""], [p.lower() for p in prerequisites.replace("|", " ").split()]


def _test_targets(text: str) -> set[str]:
    """Makefile targets that build for tests: named for them (`cuda_tests`), or, the first (default) target aside,
    depended on only by such targets (`cuda_tests: build/src/libggml_cuda.so`, whose recipe passes -DGGML_CUBLAS=ON)."""
    rules = [rule for row in text.split("\n") if (rule := _rule(row)) is not None and not rule[0][0].startswith(".")]
    if not rules:
        return set()
    default = rules[0][0][0]
    dependents: dict[str, set[str]] = {}
    for targets, prerequisites in rules:
        for prerequisite in prerequisites:
            dependents.setdefault(prerequisite, set()).update(targets)
    testing = {t for targets, _ in rules for t in targets if any(word in t for word in TEST_TARGET_WORDS)}
    changed = True
    while changed:
        changed = False
        for targets, _ in rules:
            for t in targets:
                if t not in testing and t != default and dependents.get(t) and dependents[t] <= testing:
                    testing.add(t)
                    changed = True
    return testing


class CMakeOptionScanner(Scanner):
    """Records options, `if` arms and the CUDA sources named in them (CMake files), and `-DNAME=ON` switches of
    documented builds (Makefiles, shell scripts, README shell lines, Dockerfiles, CI YAML). No findings of its own."""

    domain = "custom_ops"
    kinds = frozenset({"build", "shell", "install-doc", "dockerfile", "yaml"})
    triggers = ("option", ".cu", "-D", "target_link_libraries", "find_package")

    def wants(self, unit: Unit) -> bool:
        name = PurePosixPath(unit.path).name
        if unit.kind == "build" and not (name in {"CMakeLists.txt", "Makefile"} or name.endswith(".cmake")):
            return False
        return super().wants(unit)

    def scan(self, unit: Unit) -> list[Hit]:
        facts = unit.cache.setdefault("custom_ops", CustomOpFacts())
        name = PurePosixPath(unit.path).name
        if name == "CMakeLists.txt" or name.endswith(".cmake"):
            read = read_cmake(unit.path, unit.source.text)
            facts.cmake_options += read.options
            facts.cmake_blocks += [(b.path, b.needs, b.first, b.last) for b in read.blocks if b.needs]
            facts.cmake_sources += read.sources
            facts.cmake_names += sorted(read.named)
            facts.cmake_links += read.links
        else:
            facts.build_switches += sorted(switched_on(unit.source.text, unit.kind))
        return []


def opt_in_sources(facts: CustomOpFacts, python_refs: set[str]) -> tuple[dict[str, str], dict[str, list[tuple[int, int, str]]]]:
    """(native source path → why, CMake path → (first, last, why) of the arms) for the CUDA sources every CMake
    naming of which lies in an arm needing an option that defaults OFF and that no documented build turns on.
    `python_refs`: the file names Python builds name (a setup.py source list): such a source is built there too."""
    declared: dict[str, tuple[bool, str]] = {}
    for name, on, where in facts.cmake_options:
        was = declared.get(name)
        declared[name] = (on or (was is not None and was[0]), where if was is None else was[1])
    switched = set(facts.build_switches)
    off = {name: where for name, (on, where) in declared.items() if not on and name not in switched}
    named = set(facts.cmake_names)

    def off_option(needs: tuple[str, ...]) -> str | None:
        """The first option an arm needs that is off by default: declared OFF, or a name no CMake command sets,
        no build passes and CMake does not define itself (an undefined variable is false)."""
        return next((n for n in needs if n in off or (n not in declared and n not in switched and n not in named
                                                        and not n.endswith("_FOUND") and not n.startswith("CMAKE_")
                                                        and n not in CMAKE_PLATFORM_NAMES)), None)

    namings: dict[str, list[tuple[str, ...]]] = {}
    for _path, _line, name, needs in facts.cmake_sources:
        namings.setdefault(name, []).append(needs)
    opted: dict[str, list[str]] = {}  # source file name → the options, one per naming
    for name, needs_list in namings.items():
        options = [off_option(needs) for needs in needs_list]
        # at least one naming behind a declared OFF option: an undefined variable alone (`if (WITH_CUDA)`, which a
        # setup.py may pass as -DWITH_CUDA=...) proves nothing; beside one (ggml's `if (GGML_HIPBLAS)` next to
        # `option(GGML_CUBLAS ... OFF)`) it is another opt-in backend
        if name not in python_refs and all(options) and any(option in off for option in options):
            opted[name] = sorted(set(options))
    if not opted and not off:
        return {}, {}
    sources = {}
    for kernel in facts.kernels:
        name = PurePosixPath(kernel.path).name
        if name in opted:
            sources[kernel.path] = why(opted[name], off)
    ranges: dict[str, list[tuple[int, int, str]]] = {}
    opting = off.keys() | {option for options in opted.values() for option in options}
    for path, needs, first, last in facts.cmake_blocks:
        # an arm of a declared OFF option, or of an undefined variable whose CUDA source is opted in above
        option = next((n for n in needs if n in opting), None)
        if option is not None:
            ranges.setdefault(path, []).append((first, last, why([option], off)))
    return sources, ranges


def why(options: list[str], off: dict[str, str]) -> str:
    """`off`: the declared OFF options → where; another option is a variable nothing defines."""
    said = [f"-D{o}=ON (the CMake option defaults to OFF, {off[o]})" if o in off
            else f"-D{o}=ON (a variable no CMake file or build sets: false)" for o in options]
    if len(said) == 1 and options[0] in off:
        return (f"compiled only with -D{options[0]}=ON: the CMake option defaults to OFF ({off[options[0]]}), and no "
                "documented build turns it on; the default build compiles no CUDA")
    return f"compiled only with {' or '.join(said)}, and no documented build turns it on; the default build compiles no CUDA"
