"""How a shell script uses an environment variable it names, through tree-sitter-bash: a read that is only shown
(`echo "CUDA_VISIBLE_DEVICES: $CUDA_VISIBLE_DEVICES"`), the bare `export NAME` of a value assigned elsewhere in the
script (one setting, written on two lines), and a device pin that selects the devices rank order gives anyway.

On the pin: torch_npu reads ASCEND_RT_VISIBLE_DEVICES only (torch_npu/npu/__init__.py `_parse_visible_devices` on
v2.9.0-7.3.0, v2.10.0-26.1.0 and v2.12.0-26.1.0; transfer_to_npu does not map CUDA_VISIBLE_DEVICES), so on Ascend a
process ignores the pin, sees every NPU and takes NPU 0, or NPU `LOCAL_RANK` under a launcher. A pin of the leading
devices (`0`, `0,1,2,3`, `$(seq -s, 0 $((N-1)))`) therefore lands on the same devices, unless the number of processes
is taken from the visible devices (`deepspeed` without `--num_gpus`), the script hands the pin to something it cannot
see (`bash other.sh`, `srun`), or it gives the variable several values (one job per device). A pin of other cards
(`7`, `6,7`) under the same conditions leaves the job running, on NPUs 0..k-1 instead of the cards named (DEV201 low)."""

from __future__ import annotations

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

READS = frozenset({"simple_expansion", "expansion"})
MASK_READ = "mask-read"  # DEV201's facet for a read with a fallback (domains/device/mask_reads.py READ)
MASK_READ_USED = "mask-read-used"  # a read whose value is handed on (domains/device/mask_reads.py READ_USED)
ONE_JOB = "one-job-moved"  # DEV201's facet: a pin of other cards for one job, which runs on NPUs 0..k-1 without it
SHOW_COMMANDS = frozenset({"echo", "printf"})
SHOWN_REDIRECTS = frozenset({"1", "2", "/dev/stderr", "/dev/stdout", "/dev/null"})
LOOPS = frozenset({"for_statement", "c_style_for_statement", "while_statement"})
# commands that run programs the script does not show: a pin exported to them may select what they count
OPAQUE_RUNNERS = frozenset({"bash", "sh", "zsh", "source", ".", "exec", "srun", "mpirun", "mpiexec", "nohup",
                            "xargs", "parallel", "env", "sbatch", "ray", "submitit"})
# launcher options that fix how many local processes start; without one, the count is taken from the visible devices
COUNT_OPTIONS = {
    "deepspeed": ("--num_gpus", "--num_accelerators", "--include", "-i"),
    "accelerate": ("--num_processes", "--config_file"),
}
DEVICE_COUNT_WORDS = frozenset({"gpu", "auto", "xpu", "cuda"})  # torchrun --nproc-per-node values counted by torch
TORCHRUN_COUNT = ("--nproc_per_node", "--nproc-per-node")


def shown_only(name: Node) -> bool:
    """A read of the variable in what `echo`/`printf` writes to the terminal: a log line, not a use. Not when the
    output feeds a pipe, a command substitution or a file (`echo "X=$X" >> .env` writes a setting)."""
    read = name.parent
    if read is None or read.type not in READS:
        return False
    node = read.parent
    while node is not None and node.type in {"string", "concatenation"}:
        node = node.parent
    if node is None or node.type != "command":
        return False
    program = node.child_by_field_name("name")
    if program is None or parsing.text(program) not in SHOW_COMMANDS:
        return False
    holder = node.parent
    if holder is not None and holder.type == "redirected_statement":
        for redirect in holder.children_by_field_name("redirect"):
            target = redirect.named_children[-1] if redirect.named_children else None
            if target is None or parsing.text(target).strip("'\"") not in SHOWN_REDIRECTS:
                return False
        holder = holder.parent
    return holder is None or holder.type not in {"pipeline", "command_substitution", "process_substitution"}


def read_facet(name: Node) -> str | None:
    """DEV201's facet for a read of the mask: MASK_READ in a test, MASK_READ_USED where its value is handed on (a
    program's argument, a command substitution); None for a write (an assignment, `export`) and for an echo/printf
    that writes `X=$X` into a file, which sets the variable for whoever reads the file."""
    read = name.parent
    if read is None or read.type not in READS:
        return None
    if tested_only(name):
        return MASK_READ
    node = read.parent
    while node is not None and node.type in {"string", "concatenation"}:
        node = node.parent
    program = node.child_by_field_name("name") if node is not None and node.type == "command" else None
    holder = node.parent if node is not None else None
    if program is not None and parsing.text(program) in SHOW_COMMANDS and holder is not None \
            and holder.type == "redirected_statement":
        return None
    return MASK_READ_USED


def tested_only(name: Node) -> bool:
    """A read of the variable inside a test (`[ "${CUDA_VISIBLE_DEVICES+set}" = set ]`, `[[ -n $X ]]`): the script
    asks whether it is set or what it holds and goes on either way, so it is a read with a fallback (DEV201's
    mask-read), not a setting to mirror."""
    read = name.parent
    if read is None or read.type not in READS:
        return False
    node = read.parent
    while node is not None and node.type not in {"command", "variable_assignment", "command_substitution",
                                                 "process_substitution", "program"}:
        if node.type == "test_command":
            return True
        node = node.parent
    return False


def export_of_assignment(name: Node, assigned: frozenset[str]) -> bool:
    """`export NAME` (no value) in a script that assigns NAME on its own line elsewhere: the same setting."""
    holder = name.parent
    return (holder is not None and holder.type == "declaration_command" and parsing.text(name) in assigned
            and parsing.text(holder).split(None, 1)[0] == "export")


def standalone_assignments(root: Node, variable: str) -> list[Node]:
    """`NAME=...` and `export NAME=...` statements of the script (not `NAME=... command` prefixes)."""
    found = []
    for node in parsing.walk(root, prune=_ASSIGNMENT):
        if node.type == "variable_assignment":
            assigned = node.child_by_field_name("name")
            holder = node.parent
            if (assigned is not None and parsing.text(assigned) == variable
                    and (holder is None or holder.type != "command")):
                found.append(node)
    return found


_ASSIGNMENT = frozenset({"variable_assignment"})


def leading_devices_pin(name: Node, root: Node, whole_script: bool = True) -> bool:
    """The assignment of `name` selects devices 0..k-1, and every program the script starts under it takes the
    same devices on Ascend without it (see the module docstring). `whole_script` False (a Dockerfile, whose `ENV`
    reaches a command the file does not show, a notebook's `%env` or `%%bash` cell) judges only command prefixes."""
    assignment = name.parent
    return (assignment is not None and assignment.type == "variable_assignment"
            and _leading_devices(assignment.child_by_field_name("value"))
            and _one_ranked_job(assignment, name, root, whole_script))


def moved_devices_pin(name: Node, root: Node, whole_script: bool = True) -> bool:
    """The assignment of `name` gives a literal list of other devices (`7`, `6,7`) to one job whose processes take
    their device by rank: on Ascend the pin is ignored and the job still runs, on NPUs 0..k-1 instead of the cards
    named. Not for several values, a loop or a background job (jobs meant for separate cards would share NPU 0)."""
    assignment = name.parent
    if assignment is None or assignment.type != "variable_assignment":
        return False
    value = assignment.child_by_field_name("value")
    return (_literal_devices(value) and not _leading_devices(value)
            and _one_ranked_job(assignment, name, root, whole_script))


def _literal_devices(value: Node | None) -> bool:
    """`7`, `"6,7"`: device ids written out, no expansion."""
    if value is None or value.type not in {"word", "number", "string", "raw_string"} or any(
            child.type in READS or child.type == "command_substitution" for child in value.named_children):
        return False
    devices = parsing.text(value).strip("'\"").split(",")
    return all(device.isdigit() for device in devices)


def _one_ranked_job(assignment: Node, name: Node, root: Node, whole_script: bool) -> bool:
    """The pin holds one value for the script, outside loops, and every program it reaches takes its device by rank
    with a count of its own (see the module docstring)."""
    if _in_loop(assignment) or len(_values(root, parsing.text(name))) > 1:
        return False
    holder = assignment.parent
    if holder is not None and holder.type == "command":
        return not _backgrounded(holder) and _same_devices(holder)
    if not whole_script:
        return False
    commands = [c for c in _commands(root) if c.start_byte > assignment.end_byte]
    programs = [c for c in commands if _program(c) in OPAQUE_RUNNERS or _starts_workers(c)]
    return bool(programs) and all(_same_devices(c) for c in programs)


def _leading_devices(value: Node | None) -> bool:
    """`0`, `"0,1,2,3"`, or `$(seq -s, 0 $((N-1)))`: the devices from 0 up, in order."""
    if value is None:
        return False
    if value.type == "command_substitution":
        inner = value.named_children[0] if value.named_children else None
        return inner is not None and inner.type == "command" and _seq_from_zero(inner)
    if value.type not in {"word", "number", "string", "raw_string"} or any(
            child.type in READS or child.type == "command_substitution" for child in value.named_children):
        return False
    return leading_devices(parsing.text(value).strip("'\""))


def leading_devices(value: str) -> bool:
    """`0`, `0,1,2,3`: the devices from 0 up, in order."""
    devices = value.split(",")
    return devices == [str(index) for index in range(len(devices))]


def _seq_from_zero(command: Node) -> bool:
    """`seq -s, 0 LAST` (or `-s ','`): a comma list counting up from 0 by 1."""
    if _program(command) != "seq":
        return False
    words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
    separated, positional, index = False, [], 0
    while index < len(words):
        word = words[index]
        if word in {"-s", "--separator"} and index + 1 < len(words):
            separated = words[index + 1] == ","
            index += 2
            continue
        if word.startswith(("-s", "--separator=")):
            separated = word.split("=", 1)[-1].removeprefix("-s") == ","
        elif word.startswith("-") and not word[1:].isdigit():
            return False  # -w pads with zeros, -f formats
        else:
            positional.append(word)
        index += 1
    if not separated or len(positional) not in {2, 3}:
        return False
    return positional[0] == "0" and (len(positional) == 2 or positional[1] == "1")


def _same_devices(command: Node) -> bool:
    """The program a pin applies to takes devices by rank, with a process count that does not come from the
    visible devices: python itself, torchrun (one process unless told), deepspeed and accelerate with a count."""
    program = _program(command)
    if program in OPAQUE_RUNNERS:
        return False
    words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
    if program == "torchrun" or (program.startswith("python") and "-m" in words and _torch_launch(words)):
        return not any(_option(words, option) in DEVICE_COUNT_WORDS for option in TORCHRUN_COUNT)
    if program in COUNT_OPTIONS:
        return any(_option(words, option) is not None for option in COUNT_OPTIONS[program])
    return program.startswith("python")


def _starts_workers(command: Node) -> bool:
    program = _program(command)
    return program.startswith("python") or program in {"torchrun", "deepspeed", "accelerate"}


def _torch_launch(words: list[str]) -> bool:
    module = words[words.index("-m") + 1] if words.index("-m") + 1 < len(words) else ""
    return module in {"torch.distributed.launch", "torch.distributed.run"}


def _option(words: list[str], option: str) -> str | None:
    for index, word in enumerate(words):
        if word == option:
            return words[index + 1] if index + 1 < len(words) else ""
        if word.startswith(option + "="):
            return word.split("=", 1)[1]
    return None


def _program(command: Node) -> str:
    name = command.child_by_field_name("name")
    return parsing.text(name).rsplit("/", 1)[-1] if name is not None else ""


def _commands(root: Node) -> list[Node]:
    return [node for node in parsing.walk(root) if node.type == "command"]


def _values(root: Node, variable: str) -> set[str]:
    """Every value the script gives the variable, on its own line or as a command prefix."""
    values = set()
    for node in parsing.walk(root):
        if node.type == "variable_assignment":
            assigned, value = node.child_by_field_name("name"), node.child_by_field_name("value")
            if assigned is not None and parsing.text(assigned) == variable:
                values.add(parsing.text(value).strip("'\"") if value is not None else "")
    return values


def _in_loop(node: Node) -> bool:
    current = node.parent
    while current is not None:
        if current.type in LOOPS:
            return True
        current = current.parent
    return False


def _backgrounded(command: Node) -> bool:
    node = command
    while node is not None and node.type != "program":
        if node.next_sibling is not None and node.next_sibling.type == "&":
            return True
        node = node.parent
    return False
