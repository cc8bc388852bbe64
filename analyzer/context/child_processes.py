"""A CUDA variable set only for a child process that runs no torch: that program's setting, not a torch_npu port item.

audiocraft's metrics/fad.py builds `env`, sets `env["CUDA_VISIBLE_DEVICES"] = str(gpu_index)` and hands it to
`subprocess.Popen([python, "-m", "frechet_audio_distance.create_embeddings_main", ...], env={**env, **self.tf_env})`:
Google's TensorFlow FAD tool. TensorFlow has no Ascend backend, so on an Ascend host the child runs on the CPU whatever
the variable says, and ASCEND_RT_VISIBLE_DEVICES would mean nothing to it.

The variable's mapping is followed one step to its consumers: every read of the name in its function (other than
more `name[key] = value` writes) must be the `env=` of a subprocess call (directly, `{**name, ...}` or `dict(name, ...)`),
or the mapping is the `env=` value itself. Each call's command (a list or string, or a name assigned one in that
function) must run a module (`-m pkg.mod`) or a program that the conventions list as another framework's tool
(opt_in.other_runtimes, opt_in.other_framework_tools). A command of the project's own Python, a launcher, a shell
script or a package not listed (`-m vllm...`, which runs torch) keeps the finding: that child is the Ascend path.
`os.environ[...] = ...` is the parent's own environment and never read so.

A native inference program (llama.cpp's llama-server, whisper.cpp, stable-diffusion.cpp: C/C++ over ggml, built per
backend) is often started from a command and an environment built in other methods (unsloth 015bdef studio/backend/
core/rag/embed_llama_server.py: `_build_env` returns `env` with `env["CUDA_VISIBLE_DEVICES"] = ""`, `_spawn_once`
hands it to `subprocess.Popen(cmd, env=env)`, `cmd` starting with the resolved llama-server binary; llama_cpp.py's
`LlamaCppBackend._emit_child_gpu_visibility(env, pinned)` writes the mask into a caller's mapping). Where the mapping
leaves its function that way (or goes to a subprocess whose command is not Python), the class or function that writes
it names the program (opt_in.native_programs: `class LlamaCppBackend`, `class LlamaServerBackend`): that child is not a
torch program, and on Ascend it sees an NPU only through a CANN build of its own. A mapping handed to a Python or
launcher command (`sys.executable`, `python`, `torchrun`) in the function, and a file that names a CANN build
(GGML_CANN), keep the finding."""

from __future__ import annotations

import re
from dataclasses import dataclass

from ascend_feasibility.analyzer.context.guards import Guard
from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

MAX_DEPTH = 40
MAX_USES = 20
MAX_SCOPE_NODES = 20000
SUBPROCESS_CALLS = frozenset({"Popen", "run", "call", "check_call", "check_output", "create_subprocess_exec",
                              "create_subprocess_shell"})
SUBPROCESS_MODULES = frozenset({"subprocess", "asyncio"})
BARE_CALLS = frozenset({"Popen", "check_call", "check_output", "create_subprocess_exec"})  # `from subprocess import`
PYTHON_PROGRAMS = frozenset({"sys.executable", "torchrun", "accelerate", "deepspeed", "bash", "sh"})  # or python*
PARENT_ENVIRONMENTS = frozenset({"environ"})  # `from os import environ`: the process's own environment
# a file that builds the program for CANN (llama.cpp and whisper.cpp: -DGGML_CANN=ON; stable-diffusion.cpp: SD_CANN); a
# "CANN" among the backend names a log parser recognises (unsloth's _GPU_OFFLOAD_MARKERS) builds nothing
CANN_BUILD = (b"GGML_CANN", b"SD_CANN", b"LLAMA_CANN")
CAMEL = re.compile(r"(?<=[a-z0-9])(?=[A-Z])")


@dataclass(frozen=True)
class ChildGuard(Guard):
    program: str = ""
    framework: str = ""
    native: bool = False  # a native program named by the code that writes its environment

    def reason(self) -> str:
        if self.native:
            return (f"only the environment of a child process that runs {self.program}, a native program, not torch: "
                    f"it does not use torch_npu, and on Ascend it sees an NPU only through a CANN build of its own "
                    f"(that build is the port item, not this variable); {Guard.reason(self)}")
        return (f"only the environment of a child process that runs {self.program} ({self.framework}), not torch: it "
                f"does not use torch_npu, and on Ascend it runs on the CPU; {Guard.reason(self)}")


class ChildProcessReader:
    def __init__(self, tools: dict[str, str], native: dict[str, str] | None = None) -> None:
        self.tools = tools  # module (or a package above it) or program → the framework it runs on
        self.native = native or {}  # snake-case words of a class or function name → the native program it runs
        self.memo: dict[tuple[str, int], object] = {}  # per unit: cleared by the owner's unit reset

    def guard(self, node: Node) -> ChildGuard | None:
        if node.type != "string":
            return None
        mapping = _mapping_of(node)
        if mapping is None:
            return None
        name, scope, direct = mapping
        calls = [direct] if direct is not None else self._consumers(name, scope)
        if calls and self._starts_processes(node):
            found = [self._foreign_command(call, scope) for call in calls]
            if all(f is not None for f in found):
                program, framework = found[0]
                return ChildGuard("other-backend", calls[0], program=program, framework=framework)
        if name in PARENT_ENVIRONMENTS or any(self._runs_python(call, scope) for call in calls):
            return None
        return self._native_child(node)

    def _native_child(self, node: Node) -> ChildGuard | None:
        """The class or function around the write named for a native program, in a file that names no CANN build."""
        if not self.native:
            return None
        current = node.parent
        while current is not None:
            if current.type in {"function_definition", "class_definition"}:
                words = f"_{CAMEL.sub('_', parsing.text(current.child_by_field_name('name'))).lower().strip('_')}_"
                program = next((p for key, p in self.native.items() if f"_{key}_" in words), None)
                if program is not None:
                    return None if self._names_cann(node) else \
                        ChildGuard("other-backend", current, program=program, native=True)
            current = current.parent
        return None

    def _names_cann(self, node: Node) -> bool:
        root = parsing.root_of(node)
        key = ("cann", root.id)
        if key not in self.memo:
            spelled = root.text or b""
            self.memo[key] = any(token in spelled for token in CANN_BUILD)
        return self.memo[key]

    def _runs_python(self, call: Node, scope: Node) -> bool:
        """The call's command starts with Python or a launcher (`sys.executable`, `python3`, `torchrun`)."""
        command = _command_argument(call)
        if command is not None and command.type == "identifier":
            values = [a.child_by_field_name("right") for a in _assignments(self._reads(scope), parsing.text(command))]
        else:
            values = [command]
        for value in values:
            if value is None:
                continue
            first = value.named_children[0] if value.type in {"list", "tuple"} and value.named_children else value
            word = _literal(first) if first.type == "string" else parsing.text(first)
            word = (word or "").split(" ", 1)[0].rsplit("/", 1)[-1]
            if word in PYTHON_PROGRAMS or word.startswith("python"):
                return True
        return False

    def _starts_processes(self, node: Node) -> bool:
        root = parsing.root_of(node)
        key = ("spawns", root.id)
        if key not in self.memo:
            spelled = root.text or b""
            self.memo[key] = b"subprocess" in spelled and any(t.split(".")[0].encode() in spelled for t in self.tools)
        return self.memo[key]

    def _consumers(self, name: str, scope: Node) -> list[Node]:
        """The subprocess calls that take the mapping `name` as their environment, or [] when anything else reads it."""
        uses = self._reads(scope).get(name, [])
        if len(uses) > MAX_USES:
            return []
        calls = []
        for use in uses:
            if _written_into(use) or _assigned(use):
                continue
            call = _env_of_call(use)
            if call is None:
                return []
            calls.append(call)
        return calls

    def _reads(self, scope: Node) -> dict[str, list[Node]]:
        key = ("names", scope.id)
        if key not in self.memo:
            self.memo[key] = _identifiers(scope)
        return self.memo[key]

    def _foreign_command(self, call: Node, scope: Node) -> tuple[str, str] | None:
        command = _command_argument(call)
        if command is None:
            return None
        if command.type == "identifier":
            values = [a.child_by_field_name("right") for a in _assignments(self._reads(scope), parsing.text(command))]
            if not values or any(v is None for v in values):
                return None
        else:
            values = [command]
        found = [self._program(value) for value in values]
        return found[0] if found and all(f is not None and f == found[0] for f in found) else None

    def _program(self, command: Node) -> tuple[str, str] | None:
        if command.type == "string":
            words = _literal(command)
            words = words.split() if words is not None else []
        elif command.type == "list":
            words = [_literal(e) for e in command.named_children]
        else:
            return None
        if words and words[0] is not None and words[0].rsplit("/", 1)[-1] in self.tools:
            program = words[0].rsplit("/", 1)[-1]  # its own `-m` (llama-server's model) is no Python module
            return f"`{program}`", self.tools[program]
        for index, word in enumerate(words[:-1]):
            if word == "-m" and words[index + 1] is not None:
                module = words[index + 1]
                parts = module.split(".")
                framework = next((self.tools[k] for k in (".".join(parts[:n]) for n in range(len(parts), 0, -1))
                                  if k in self.tools), None)
                return (f"`-m {module}`", framework) if framework is not None else None
        if words and words[0] is not None:
            program = words[0].rsplit("/", 1)[-1]
            framework = self.tools.get(program)
            return (f"`{program}`", framework) if framework is not None else None
        return None


def _mapping_of(node: Node) -> tuple[str, Node, Node | None] | None:
    """(name, scope, None) for `name["CUDA_VISIBLE_DEVICES"] = ...` or `name = {..., "CUDA_VISIBLE_DEVICES": ...}`;
    ("", scope, call) for a dict that is itself a call's `env=`; None otherwise (`os.environ[...]` included)."""
    parent = node.parent
    if parent is None:
        return None
    if parent.type == "subscript" and parent.child_by_field_name("value") is not None:
        value, assignment = parent.child_by_field_name("value"), parent.parent
        if (value.type != "identifier" or assignment is None or assignment.type != "assignment"
                or assignment.child_by_field_name("left") is None or assignment.child_by_field_name("left").id != parent.id):
            return None
        return parsing.text(value), _scope(assignment), None
    if parent.type == "pair" and parent.child_by_field_name("key") is not None \
            and parent.child_by_field_name("key").id == node.id and parent.parent is not None:
        dictionary = parent.parent
        holder = dictionary.parent
        if holder is not None and holder.type == "assignment" and holder.child_by_field_name("right") is not None \
                and holder.child_by_field_name("right").id == dictionary.id:
            left = holder.child_by_field_name("left")
            return (parsing.text(left), _scope(holder), None) if left is not None and left.type == "identifier" else None
        call = _env_of_call(dictionary)
        return ("", _scope(dictionary), call) if call is not None else None
    return None


def _scope(node: Node) -> Node:
    scope = node.parent
    while scope.parent is not None and scope.type != "function_definition":
        scope = scope.parent
    return scope


def _env_of_call(node: Node) -> Node | None:
    """The subprocess call whose `env=` is `node`, `{**node, ...}` or `dict(node, ...)`."""
    current = node
    for _ in range(MAX_DEPTH):
        parent = current.parent
        if parent is None:
            return None
        if parent.type in {"dictionary_splat", "dictionary"}:
            current = parent
            continue
        if parent.type == "argument_list" and parent.parent is not None and parent.parent.type == "call" \
                and parsing.text(parent.parent.child_by_field_name("function")) == "dict":
            current = parent.parent
            continue
        if parent.type == "keyword_argument" and parsing.text(parent.child_by_field_name("name")) == "env" \
                and parent.child_by_field_name("value").id == current.id:
            call = parent.parent.parent if parent.parent is not None else None
            return call if call is not None and call.type == "call" and _is_subprocess(call) else None
        return None
    return None


def _is_subprocess(call: Node) -> bool:
    function = call.child_by_field_name("function")
    if function is None:
        return False
    if function.type == "identifier":
        return parsing.text(function) in BARE_CALLS
    if function.type == "attribute":
        owner, attribute = function.child_by_field_name("object"), function.child_by_field_name("attribute")
        return parsing.text(owner) in SUBPROCESS_MODULES and parsing.text(attribute) in SUBPROCESS_CALLS
    return False


def _command_argument(call: Node) -> Node | None:
    arguments = call.child_by_field_name("arguments")
    if arguments is None:
        return None
    for argument in arguments.named_children:
        if argument.type == "keyword_argument":
            if parsing.text(argument.child_by_field_name("name")) == "args":
                return argument.child_by_field_name("value")
            continue
        return argument if argument.type not in {"list_splat", "dictionary_splat"} else None
    return None


def _literal(node: Node) -> str | None:
    """The text of a plain string literal (no f-string, no concatenation), else None."""
    if node.type != "string" or node.child_count < 2:
        return None
    start, end = node.children[0], node.children[-1]
    if "f" in parsing.text(start).lower() or any(c.type == "interpolation" for c in node.named_children):
        return None
    return node.text[start.end_byte - node.start_byte : end.start_byte - node.start_byte].decode("utf-8", "replace")


def _identifiers(scope: Node) -> dict[str, list[Node]]:
    found: dict[str, list[Node]] = {}
    for current in parsing.walk(scope, limit=MAX_SCOPE_NODES, named=False):
        if current.type == "identifier" and not _is_attribute_or_keyword(current):
            found.setdefault(parsing.text(current), []).append(current)
    return found


def _is_attribute_or_keyword(identifier: Node) -> bool:
    parent = identifier.parent
    if parent is None:
        return False
    if parent.type == "attribute":
        attribute = parent.child_by_field_name("attribute")
        return attribute is not None and attribute.id == identifier.id
    if parent.type == "keyword_argument":
        name = parent.child_by_field_name("name")
        return name is not None and name.id == identifier.id
    return False


def _written_into(use: Node) -> bool:
    """`name[key] = value`: a write into the mapping."""
    parent = use.parent
    return (parent is not None and parent.type == "subscript" and parent.child_by_field_name("value").id == use.id
            and parent.parent is not None and parent.parent.type == "assignment"
            and parent.parent.child_by_field_name("left").id == parent.id)


def _assigned(use: Node) -> bool:
    parent = use.parent
    return (parent is not None and parent.type == "assignment" and parent.child_by_field_name("left") is not None
            and parent.child_by_field_name("left").id == use.id)


def _assignments(names: dict[str, list[Node]], name: str) -> list[Node]:
    return [use.parent for use in names.get(name, []) if _assigned(use)]
