"""Hugging Face TrainingArguments switches a launch line turns on that do not hold on Ascend.

- `--tf32 True`: TrainingArguments.__post_init__ raises `ValueError("--tf32 requires Ampere or a newer GPU arch,
  cuda>=11 and torch>=1.7")` when `is_torch_tf32_available()` is False (transformers' training_args.py, every release
  from 4.x to the current one; the check returns False unless `torch.cuda.is_available()` and `torch.version.cuda` is
  set, with an exception for MUSA only). On the NPU torch.version.cuda is None, and transfer_to_npu keeps the check's
  CUDA answer (torch_npu/contrib/apis_config.json lists is_torch_tf32_available), so every launch stops at argument
  parsing. `tf32=True` given to TrainingArguments (or a trl config that subclasses it) in Python is the same.
- `--torch_compile True`: the Trainer compiles the model (backend `--torch_compile_backend`, inductor by default), which
  on Ascend needs torch_npu's compile backend (DEV501's text).

HfArgumentParser reads a bool field's value with `string_to_bool` ("yes", "true", "t", "y", "1" are true, case
insensitive), and a bare `--torch_compile` (nargs "?", const True) is true as well. A bare `--tf32` is left alone: a
project's own `store_true` switch of that name sets torch.backends flags, which PRC010 reads in Python.
"""

from __future__ import annotations

from collections.abc import Callable

from ascend_feasibility.analyzer.reading import parsing
from tree_sitter import Node

PROGRAMS = ("python", "torchrun", "deepspeed", "accelerate")  # the launch commands whose options a script receives
TRUE_WORDS = frozenset({"yes", "true", "t", "y", "1"})  # transformers.hf_argparser.string_to_bool
TF32 = "--tf32"
TORCH_COMPILE = "--torch_compile"
BARE_MEANS_TRUE = frozenset({TORCH_COMPILE})  # options read here whose bare form is no project's own switch
# TrainingArguments and the trl configs that subclass it (trl/trainer/*_config.py): their `tf32=True` is the same switch
TRAINING_ARGUMENT_CLASSES = frozenset({"TrainingArguments", "Seq2SeqTrainingArguments", "SFTConfig", "DPOConfig",
                                       "GRPOConfig", "ORPOConfig", "KTOConfig", "RewardConfig", "CPOConfig"})


def launcher_arguments(command_name: Node) -> list[Node]:
    """The argument words of a launch command (python, torchrun, deepspeed, accelerate: the options its script
    receives) whose name is `command_name`; none for another command."""
    if not parsing.text(command_name).rsplit("/", 1)[-1].startswith(PROGRAMS):
        return []
    return command_name.parent.children_by_field_name("argument")


def true_option(command_name: Node, option: str) -> Node | None:
    """The word that turns `option` on in the command whose name is `command_name` (`--tf32 True`: the word `True`;
    `--tf32=true`: that word; a bare `--torch_compile`: the option), or None."""
    words = launcher_arguments(command_name)
    for index, word in enumerate(words):
        text = parsing.text(word).strip("'\"")
        if text.startswith(option + "="):
            return word if text.split("=", 1)[1].lower() in TRUE_WORDS else None
        if text != option:
            continue
        following = parsing.text(words[index + 1]).strip("'\"") if index + 1 < len(words) else None
        if following is not None and following.lower() in TRUE_WORDS:
            return words[index + 1]
        if option in BARE_MEANS_TRUE and (following is None or following.startswith("-")):
            return word
        return None
    return None


def training_arguments_tf32(keyword: Node) -> bool:
    """`tf32=True` (the keyword node) given to TrainingArguments(...) or a trl config that subclasses it."""
    value = keyword.child_by_field_name("value")
    call = keyword.parent.parent if keyword.parent is not None else None
    if value is None or value.type != "true" or call is None or call.type != "call":
        return False
    function = call.child_by_field_name("function")
    if function is None or function.type not in {"identifier", "attribute"}:
        return False
    last = function if function.type == "identifier" else function.child_by_field_name("attribute")
    return last is not None and parsing.text(last) in TRAINING_ARGUMENT_CLASSES


# torchrun's own options (torch/distributed/run.py `get_args_parser`, torch 2.13; each also spelt with "_"), and
# torch.distributed.launch's --use-env (torch/distributed/launch.py `parse_args`). The switches take no value (argparse
# action check_env); the others take one (`--nnodes 1` or `--nnodes=1`).
TORCHRUN_SWITCHES = frozenset({"--standalone", "-m", "--module", "--no-python", "--run-path", "--virtual-local-rank",
                               "--use-env"})
TORCHRUN_VALUED = frozenset({
    "--nnodes", "--nproc-per-node", "--rdzv-backend", "--rdzv-endpoint", "--rdzv-id", "--rdzv-conf", "--max-restarts",
    "--monitor-interval", "--start-method", "--event-log-handler", "--role", "--log-dir", "-r", "--redirects", "-t",
    "--tee", "--local-ranks-filter", "--node-rank", "--master-addr", "--master-port", "--local-addr", "--logs-specs",
    "--numa-binding", "--signals-to-handle", "--shutdown-timeout", "--duplicate-stdout-filters",
    "--duplicate-stderr-filters", "--local-rank"})
# `--nproc_per_node gpu` counts CUDA devices and raises "Cuda is not available." without them
# (run.py determine_local_world_size); "auto" counts torch.accelerator's devices, an NPU's included
CUDA_ONLY_NPROC = frozenset({"gpu"})
TORCH_LAUNCH_MODULES = frozenset({"torch.distributed.launch", "torch.distributed.run"})


def plain_torch_launch(command_name: Node, device_variable: Callable[[str], bool]) -> bool:
    """`torchrun` or `python -m torch.distributed.launch|run` whose options before the script are only the launcher's own
    (torchrun's own, with a process count other than `gpu`), with no device variable (`device_variable`: one a rule reads,
    CUDA_VISIBLE_DEVICES=0, NCCL_P2P_DISABLE=1) set on the line: the line runs on the NPUs as written. An unknown
    option, a CUDA-only count or such a variable is not plain."""
    command = command_name.parent
    if command is None:
        return False
    for child in command.named_children:
        variable = child.child_by_field_name("name") if child.type == "variable_assignment" else None
        if variable is not None and device_variable(parsing.text(variable)):
            return False
    name = parsing.text(command_name).rsplit("/", 1)[-1]
    words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
    if name.startswith("python"):
        at = next((i for i, word in enumerate(words) if word == "-m"), None)
        if at is None or at + 1 >= len(words) or words[at + 1] not in TORCH_LAUNCH_MODULES or words[:at]:
            return False
        words = words[at + 2:]
    elif name != "torchrun":
        return False
    index = 0
    while index < len(words):
        word = words[index]
        if not word.startswith("-"):  # the script (or, after -m, the module): what follows is the script's; an
            return not word.startswith("$")  # expansion there (`${DISTRIBUTED_ARGS[@]}`) may hold any option
        option, _, value = word.partition("=")
        option = option[:2] + option[2:].replace("_", "-")
        if option in TORCHRUN_SWITCHES:
            if option in {"-m", "--module"}:
                return index + 1 < len(words)
            index += 1
            continue
        if option not in TORCHRUN_VALUED:
            return False
        if not value:
            index += 1
            value = words[index] if index < len(words) else ""
        if option == "--nproc-per-node" and value in CUDA_ONLY_NPROC:
            return False
        index += 1
    return False
