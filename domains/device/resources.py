"""Cluster and process resources named for NVIDIA GPUs: Ray's GPU resource, and nvidia-smi run from Python.

- Ray: `num_gpus=` given to a Ray call (`ray.remote`, `ray.init`, `.options(...)`), the `"GPU"` resource in a
  resource dict, a placement-group bundle or a node's resource table (`{"GPU": n}`, `info.get("GPU")`,
  `info["GPU"]`), `"num_gpus"` as an options key (`options["num_gpus"] = n`), and `ray.get_gpu_ids()`, in files
  that import ray. A statement or function that already names the `"NPU"` resource has its NPU arm and is left
  alone.
- nvidia-smi: a shell command (scripts, notebook shell escapes) whose program is `nvidia-smi`, or a command whose
  program is `nvidia-smi` given to a process launcher (subprocess, os.system/popen),
  as a string or as the first item of an argument list, except in a function that already names the NPU or
  Ascend (a detection chain with its NPU arm). A launch whose failure is caught and only logged, and whose value only
  fills a log, is a diagnostic (domains/device/logged_probes.py); a launch that is a statement of its own, through
  the shell, its output left to the console, only prints (domains/device/printed_launches.py), as does a script's
  variable set from nvidia-smi and only echoed (domains/device/echoed_assignments.py).
"""

from __future__ import annotations

from functools import cache

from ascend_feasibility.analyzer.context.display import DisplaySites
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.python_names import qualified_name
from ascend_feasibility.domains.base import Hit, Scanner, Span, Unit
from ascend_feasibility.domains.device.echoed_assignments import echoed_only
from ascend_feasibility.domains.device.logged_probes import LOGGED_ONLY, logged_diagnostic
from ascend_feasibility.domains.device.printed_launches import PRINTED_ONLY, printed_only
from ascend_feasibility.domains.python_refs import PythonDomainScanner, PythonScan, literal_is_docstring, unit_references
from ascend_feasibility.domains.python_words import words
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

QUERY = r"""
((keyword_argument name: (identifier) @num_gpus) (#eq? @num_gpus "num_gpus"))
((string (string_content) @resource_name) (#any-of? @resource_name "GPU" "num_gpus"))
((string (string_content) @program) (#match? @program "^nvidia-smi( |$)"))
"""

RAY_GPU_NAMES = {"ray.get_gpu_ids"}
PROCESS_LAUNCHERS = {
    "subprocess.run", "subprocess.call", "subprocess.check_call", "subprocess.check_output", "subprocess.Popen",
    "subprocess.getoutput", "subprocess.getstatusoutput", "os.system", "os.popen",
}
NPU_WORDS = {"npu", "ascend"}
SHELL_QUERY = "(command name: (command_name) @command)"
STATEMENTS = {"expression_statement", "return_statement", "assignment", "if_statement", "elif_clause", "decorator"}


@cache
def _display() -> DisplaySites:
    """The conventions' message calls: what a handler or a caller may call to only show a value."""
    return DisplaySites(load_context_conventions().guards)


class _ResourceScan(PythonScan):
    GATED = ((("num_gpus", "GPU", "nvidia-smi"), QUERY),)

    def run(self) -> list[Hit]:
        found = self.captures()
        uses_ray = any(target == "ray" or target.startswith("ray.") for target in self.imports.bindings.values())
        if uses_ray:
            for reference in unit_references(self.unit):
                if reference.name in RAY_GPU_NAMES and not _has_npu_arm(reference.node):
                    self.hit("ray-gpu-resource", reference.name, reference.node)
            for keyword in found.get("num_gpus", []):
                self._num_gpus(keyword.parent)
            for content in found.get("resource_name", []):
                self._gpu_resource(content.parent)
        for content in found.get("program", []):
            self._program(content.parent)
        return self.hits

    def _num_gpus(self, argument: Node) -> None:
        value = argument.child_by_field_name("value")
        if value is not None and value.type in {"integer", "float"} and float(parsing.text(value).replace("_", "")) == 0:
            return  # num_gpus=0 asks Ray for no GPU: nothing NVIDIA-specific
        call = argument.parent.parent if argument.parent is not None else None
        if call is None or call.type != "call" or _has_npu_arm(call):
            return
        function = call.child_by_field_name("function")
        method = function.child_by_field_name("attribute") if function.type == "attribute" else None
        name = qualified_name(function, self.imports) or ""
        if name == "ray" or name.startswith("ray.") or (method is not None and parsing.text(method) == "options"):
            self.hit("ray-gpu-resource", " ".join(parsing.text(argument).split()), argument)

    def _gpu_resource(self, string: Node) -> None:
        """"GPU" or "num_gpus" as a resource or options dict key, a `.get("GPU")` argument or a subscript."""
        parent = string.parent
        if parent is None or _has_npu_arm(string):
            return
        if parent.type == "pair" and parent.child_by_field_name("key") == string:
            symbol = " ".join(parsing.text(parent).split())
        elif parent.type == "subscript":
            symbol = " ".join(parsing.text(parent).split())
        elif parent.type == "argument_list" and parent.named_children[0] == string:
            call = parent.parent
            function = call.child_by_field_name("function")
            if function.type != "attribute" or parsing.text(function.child_by_field_name("attribute")) != "get":
                return
            symbol = " ".join(parsing.text(call).split())
        else:
            return
        self.hit("ray-gpu-resource", symbol[:80], string)

    def _program(self, string: Node) -> None:
        if literal_is_docstring(string):
            return
        argument = string.parent if string.parent is not None and string.parent.type in {"list", "tuple"} else string
        if argument.parent is not None and argument.parent.type == "assignment":
            call = self._launch_of(argument.parent)
        elif argument.parent is None or argument.parent.type != "argument_list" or argument.parent.named_children[0] != argument:
            return
        else:
            call = argument.parent.parent
            if qualified_name(call.child_by_field_name("function"), self.imports) not in PROCESS_LAUNCHERS:
                return
        if call is not None and not npu_aware_function(call):
            launcher = qualified_name(call.child_by_field_name("function"), self.imports)
            facets = (LOGGED_ONLY,) if logged_diagnostic(call, _display().is_message_call) \
                else (PRINTED_ONLY,) if argument is string and printed_only(call, launcher, string) else ()
            self.hit("nvidia-smi-call", parsing.text(string)[:80], string, facets=facets)

    def _launch_of(self, assignment: Node) -> Node | None:
        """`command = "nvidia-smi --query-gpu=..."` then `subprocess.check_output(command.split())` in the same scope:
        the launch that runs the command held by the name."""
        binding = parsing.named_binding(assignment)
        if binding is None:
            return None
        name, scope = binding
        for current in parsing.walk(scope, limit=5000):
            if current.type == "call" and current.start_byte > assignment.end_byte:
                arguments = current.child_by_field_name("arguments")
                first = arguments.named_children[0] if arguments is not None and arguments.named_children else None
                head = parsing.text(first).split(".")[0] if first is not None else ""
                if head == name and qualified_name(current.child_by_field_name("function"), self.imports) in PROCESS_LAUNCHERS:
                    return current
        return None


def npu_aware_function(node: Node) -> bool:
    """The function around the node names the NPU or Ascend (`elif is_ascend_available(): return "npu"`): it has
    its NPU path already, and nvidia-smi there is one backend's probe."""
    current = node.parent
    while current is not None and current.type != "function_definition":
        current = current.parent
    return current is not None and bool(NPU_WORDS & words(current))


def _has_npu_arm(node: Node) -> bool:
    """The statement around the node, or the function it is in, also names the "NPU" resource
    (`x.get("GPU") if ... else x.get("NPU")`; `if cuda: options["num_gpus"] = n` beside `if npu: {"NPU": n}`)."""
    statement = node
    while statement is not None and statement.type not in STATEMENTS:
        statement = statement.parent
    if statement is None:
        return False
    if statement.type == "if_statement":
        statement = statement.child_by_field_name("condition")
    if _names_npu(statement, {"block"}):
        return True
    function = statement.parent
    while function is not None and function.type != "function_definition":
        function = function.parent
    return function is not None and _names_npu(function, set())


def _names_npu(root: Node, skip: set[str]) -> bool:
    return any(current.type == "string_content" and parsing.text(current) == "NPU"
               for current in parsing.walk(root, prune=skip))


class DeviceResourceScanner(PythonDomainScanner):
    domain = "device"
    triggers = ("num_gpus", "GPU", "nvidia-smi", "get_gpu_ids")
    scan_class = _ResourceScan


class NvidiaSmiShellScanner(Scanner):
    """nvidia-smi run by a shell script or a notebook's shell escape."""

    domain = "device"
    kinds = frozenset({"shell"})
    triggers = ("nvidia-smi",)

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.code = RuleIndex(kb, self.domain).code_for("nvidia-smi-call")

    def scan(self, unit: Unit) -> list[Hit]:
        root = unit.tree()
        found = parsing.captures(parsing.query("bash", SHELL_QUERY), root)
        commands = [node for node in found.get("command", []) if parsing.text(node).rsplit("/", 1)[-1] == "nvidia-smi"]
        stops = _stops_on_error(root, unit.source.text) if commands else False
        return [
            Hit(self.code, parsing.text(node.parent)[:80], Span.of(node.parent),
                facets=(PRINTED_ONLY,) if not stops and (_printed_only(node.parent) or echoed_only(node.parent, root))
                else ())
            for node in commands
        ]


STATEMENT_LISTS = frozenset({"program", "compound_statement", "do_group"})


def _printed_only(command: Node) -> bool:
    """nvidia-smi run as a statement of its own, its output left to the terminal or the job's log: not captured
    (`$(...)`), piped, redirected to a file something may read, or tested (`if`, `&&`, `||`)."""
    return command.type == "command" and command.parent is not None and command.parent.type in STATEMENT_LISTS


def _stops_on_error(root: Node, text: str) -> bool:
    """Does the script stop at a failing command (`set -e`, `set -o errexit`, `#!/bin/bash -e`)? Then a missing
    nvidia-smi ends the job on Ascend."""
    first = text.split("\n", 1)[0]
    if first.startswith("#!") and any(w.startswith("-") and not w.startswith("--") and "e" in w for w in first.split()[1:]):
        return True
    for node in parsing.walk(root, prune=frozenset({"heredoc_body", "raw_string"}), limit=200_000):
        if node.type != "command":
            continue
        words = [parsing.text(c) for c in node.named_children]
        if words and words[0] == "set" and any(w == "errexit" or (w.startswith("-") and not w.startswith("--")
                                                                   and "e" in w) for w in words[1:]):
            return True
    return False
