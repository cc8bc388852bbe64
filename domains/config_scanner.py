"""Everything outside Python source, for every domain: environment variables, device and backend settings,
launch lines, DeepSpeed and accelerate configs, in shell scripts, Dockerfiles, notebook shell and YAML/JSON."""

from __future__ import annotations

import yaml
from ascend_feasibility.analyzer.context.backend_images import cloud_gpu_vendor
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.domains import launch_attention, launch_flags, launch_ranks, shell_pins
from ascend_feasibility.domains.base import Domain, FileView, Hit, ProjectRun, Scanner, Span, Unit, UnitUnreadable
from ascend_feasibility.domains.distributed.interface_exclusions import (
    DEFAULT_EXCLUSION,
    excludes_only_default_skipped,
)
from ascend_feasibility.domains.python_refs import ENV_REMOVED
from ascend_feasibility.domains.rule_index import RuleIndex
from ascend_feasibility.knowledge import load_context_conventions
from tree_sitter import Node

SHELL_QUERY = r"""
(variable_assignment name: (variable_name) @name)
(simple_expansion (variable_name) @name)
(expansion (variable_name) @name)
(declaration_command (variable_name) @name)
(unset_command (variable_name) @name)
(command name: (command_name) @command)
"""

ENV_TRIGGERS = ("CUDA", "CUDNN", "CUBLAS", "NVIDIA", "NVTE", "NCCL")
NVIDIA_REGISTRIES = ("nvidia/", "nvcr.io/nvidia/", "docker.io/nvidia/")  # base images whose whole stack is CUDA
LAUNCHERS = {"torchrun", "deepspeed", "accelerate"}
# the launchers whose own flags and device selection DST040 states apart from torchrun's (its variants' `when`)
LAUNCHER_FAMILIES = {"accelerate launch": ("accelerate-launch",), "deepspeed": ("deepspeed-launcher",)}
# a torchrun line with only torchrun's own options and no device variable: it runs as written (DST040's variant)
PLAIN_LAUNCH = "plain-torch-launch"
DEVICE_KEYS = {"device", "device_type", "map_location", "accelerator_device"}
BACKEND_KEYS = {"backend", "dist_backend", "ddp_backend", "distributed_backend"}
DEEPSPEED_KEYS = {"zero_optimization", "train_micro_batch_size_per_gpu"}


class YamlUnreadable(UnitUnreadable):
    """The YAML could not be composed; the message says where and why."""


class ShellConfigScanner(Scanner):
    domain = "configuration"
    kinds = frozenset({"shell", "dockerfile"})
    triggers = ENV_TRIGGERS + ("torchrun", "torch.distributed", "deepspeed", "accelerate", "--device", "FROM", "from",
                               launch_flags.TF32, launch_flags.TORCH_COMPILE, launch_attention.KEY)

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb)

    def _removal_changes_nothing(self, code: str) -> bool:
        """Does the rule say removing its variable changes nothing on Ascend (its `env-removed` variant)?"""
        return any(ENV_REMOVED in variant.when for variant in self.kb.rules[code].variants)

    def scan(self, unit: Unit) -> list[Hit]:
        root = unit.tree()
        found = parsing.captures(parsing.query("bash", SHELL_QUERY), root)
        hits = []
        stages = _cuda_stages(found.get("command", [])) if unit.kind == "dockerfile" else []
        assigned: dict[str, frozenset[str]] = {}  # names each env rule's variables are assigned on their own line
        for node in found.get("name", []):
            name = parsing.text(node)
            code = self.index.env_rule(name)
            if code is None or shell_pins.shown_only(node):
                continue
            if node.parent is not None and node.parent.type == "unset_command" and self._removal_changes_nothing(code):
                continue  # `unset NCCL_SOCKET_IFNAME` assigns nothing, and removing it changes nothing on Ascend
            if name not in assigned:
                assigned[name] = frozenset({name} if shell_pins.standalone_assignments(root, name) else ())
            if shell_pins.export_of_assignment(node, assigned[name]):
                continue
            if name == "CUDA_VISIBLE_DEVICES" and shell_pins.leading_devices_pin(
                    node, root, whole_script=unit.kind == "shell" and unit.cell is None):
                code = self.index.code_for("cuda-visible-devices-default-pin")
            elif name == "CUDA_VISIBLE_DEVICES" and shell_pins.moved_devices_pin(
                    node, root, whole_script=unit.kind == "shell" and unit.cell is None):
                hits.append(Hit(code, name, Span.of(node), facets=(shell_pins.ONE_JOB,)))
                continue
            elif name == "CUDA_VISIBLE_DEVICES" and (read := shell_pins.read_facet(node)) is not None:
                hits.append(Hit(code, name, Span.of(node), facets=(read,)))  # read advice, not a twin to set
                continue
            image = _stage_image(stages, node.start_point.row)
            if image is not None:  # set in a CUDA image's stage: the CANN image that replaces it (DEV212) drops it
                hits.append(Hit(code, name, Span.of(node), npu=image, facets=(CUDA_IMAGE_STAGE,)))
                continue
            hits.append(Hit(code, name, Span.of(node), facets=_value_facets(node)))
        cuda_image, cuda_packages = False, None
        for node in found.get("command", []):
            if unit.kind == "dockerfile" and parsing.text(node).upper() == "FROM":
                image = _cuda_base_image(node)
                if image is not None:
                    cuda_image = True
                    hits.append(Hit(self.index.code_for("cuda-base-image"), image, Span.of(node.parent)))
                continue
            if unit.kind == "dockerfile" and cuda_packages is None:
                word = _cuda_package_source(node)
                cuda_packages = None if word is None else (word, node)
            launcher = _launcher(node)
            if launcher is not None:  # from the program on: `PYTHONPATH=... \` before it is no part of the launch
                end = node.parent.end_point
                plain = launch_flags.plain_torch_launch(node, lambda name: self.index.env_rule(name) is not None)
                hits.append(Hit(self.index.code_for("launcher-line"), launcher,
                                Span(node.start_point.row, node.start_point.column, end.row, end.column),
                                facets=(PLAIN_LAUNCH,) if plain else LAUNCHER_FAMILIES.get(launcher, ())))
            device = _device_option(node)
            if device is not None:
                hits.append(Hit(self.index.code_for("launch-device-cuda"), parsing.text(device), Span.of(device)))
            hits += _switch_hits(node, self.index)
            for word, value in launch_attention.flash_requests(node):  # the launcher's attn_implementation (ATT030)
                hits.append(Hit(self.index.code_for("hf-flash-attention-implementation"), value, Span.of(word)))
        if cuda_packages is not None and not cuda_image:  # FROM ubuntu, then CUDA's torch: a CUDA image all the same
            word, node = cuda_packages
            hits.append(Hit(self.index.code_for("cuda-base-image"), word, Span.of(node.parent), facets=("cuda-packages",)))
        return hits


class LaunchDocScanner(Scanner):
    """The script launches of an install document's shell lines (README.md's ```bash blocks, read by
    analyzer/reading/install_docs.py shell_view): stanford_alpaca documents its `torchrun ... train.py ... --tf32 True`
    runs in the README only, with no shell script beside them. Only the TrainingArguments switches are read here;
    the document's other shell (environment variables, the launcher line itself) is a reader's, not the project's."""

    domain = "configuration"
    kinds = frozenset({"install-doc"})
    triggers = (launch_flags.TF32, launch_flags.TORCH_COMPILE)

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb)

    def scan(self, unit: Unit) -> list[Hit]:
        hits: list[Hit] = []
        for node in parsing.captures(parsing.query("bash", "(command name: (command_name) @command)"),
                                     unit.tree()).get("command", []):
            hits += _switch_hits(node, self.index)
        return hits


def _switch_hits(command_name, index: RuleIndex) -> list[Hit]:
    """PRC047 / DEV705 for the TrainingArguments switches a launch line turns on (domains/launch_flags.py)."""
    hits = []
    for option, detector in ((launch_flags.TF32, "hf-tf32-argument"),
                             (launch_flags.TORCH_COMPILE, "launch-torch-compile-flag")):
        word = launch_flags.true_option(command_name, option)
        if word is not None:  # one item per switch: the rule's symbol scope lists every script as a site
            hits.append(Hit(index.code_for(detector), f"{option} True", Span.of(word)))
    return hits


CUDA_DEVICE_WORDS = ("cuda", "gpu")


def _device_option(command_name):
    """`python examples/rec_image.py ... --device cuda` (Open-Sora-Plan's scripts/causalvae/rec_image.sh): the
    launcher names the device the script runs on; the word after `--device` (or `--device=cuda:0`), else None."""
    words = launch_flags.launcher_arguments(command_name)
    for index, word in enumerate(words):
        text = parsing.text(word).strip("'\"")
        value, node = None, word
        if text == "--device" and index + 1 < len(words):
            node = words[index + 1]
            value = parsing.text(node).strip("'\"")
        elif text.startswith("--device="):
            value = text.split("=", 1)[1]
        if value is not None and value.lower().split(":", 1)[0] in CUDA_DEVICE_WORDS:
            return node
    return None


CUDA_IMAGE_STAGE = "cuda-image-stage"


def _cuda_stages(command_names) -> list[tuple[int, str | None]]:
    """A Dockerfile's stages in order: the row of each FROM and its CUDA base image (None for another base)."""
    return sorted((node.start_point.row, _cuda_base_image(node)) for node in command_names
                  if parsing.text(node).upper() == "FROM")


def _stage_image(stages: list[tuple[int, str | None]], row: int) -> str | None:
    """`FROM nvidia/cuda:... (line 17)` where `row` lies in a stage built FROM a CUDA image, else None: the variables
    set there (TORCH_CUDA_ARCH_LIST for the builder's CUDA build) go with the image the port replaces."""
    image = None
    for start, base in stages:
        if start > row:
            break
        image = None if base is None else f"`{base}` (line {start + 1})"
    return image


def _cuda_base_image(command_name) -> str | None:
    """The image of `FROM nvidia/cuda:12.1.0-devel`, `FROM pytorch/pytorch:${PYTORCH}-cuda${CUDA}-cudnn8-devel` or
    `FROM nvcr.io/nvidia/pytorch:24.01-py3`: an NVIDIA registry or a CUDA tag. None for another base image."""
    words = [w for w in command_name.parent.children_by_field_name("argument") if not parsing.text(w).startswith("--")]
    if not words:
        return None  # `FROM --platform=$BUILDPLATFORM image`: the flags come before the image
    image = parsing.text(words[0])
    name = image.lower()
    if name.startswith(NVIDIA_REGISTRIES) or "cuda" in name.rpartition("/")[2]:
        return image
    if cloud_gpu_vendor(image, load_context_conventions().backends.cloud_gpu_images) is not None:
        return image  # `...dkr.ecr...amazonaws.com/pytorch-training:2.1.0-gpu-py310-cu121`: a cloud's CUDA image
    return None


CUDA_CHANNELS = ("nvidia",)  # conda channels of CUDA's runtime (conda install ... -c nvidia)
CUDA_TORCH_PACKAGES = ("pytorch-cuda",)  # conda's CUDA build of torch (pytorch-cuda=11.8)
CHANNEL_OPTIONS = ("-c", "--channel")
INDEX_OPTIONS = ("--index-url", "--extra-index-url", "-i")


def _cuda_package_source(command_name) -> str | None:
    """The word of an install command that takes torch's CUDA build or CUDA's runtime: `-c nvidia`, `pytorch-cuda=11.8`,
    `--index-url https://download.pytorch.org/whl/cu118`; None for another command."""
    words = [parsing.text(w).strip("'\"") for w in command_name.parent.children_by_field_name("argument")]
    for index, word in enumerate(words):
        following = words[index + 1] if index + 1 < len(words) else ""
        if word in CHANNEL_OPTIONS and following in CUDA_CHANNELS:
            return f"{word} {following}"
        if word.split("=", 1)[0] in CUDA_TORCH_PACKAGES and "=" in word:
            return word
        if word in INDEX_OPTIONS and _cuda_wheel_index(following):
            return f"{word} {following}"
    return None


def _cuda_wheel_index(url: str) -> bool:
    """download.pytorch.org/whl/cu118: the last path part is `cu` and digits."""
    last = url.rstrip("/").rpartition("/")[2].lower()
    return last.startswith("cu") and last[2:].isdigit()


def _launcher(command_name) -> str | None:
    """`torchrun`, `deepspeed`, `accelerate launch`, `python -m torch.distributed.launch|run`."""
    name = parsing.text(command_name).rsplit("/", 1)[-1]
    words = [parsing.text(w) for w in command_name.parent.children_by_field_name("argument")]
    if name in {"torchrun", "deepspeed"}:
        return name
    if name == "accelerate" and words[:1] == ["launch"]:
        return "accelerate launch"
    if name.startswith("python") and "-m" in words:
        module = words[words.index("-m") + 1] if words.index("-m") + 1 < len(words) else ""
        if module in {"torch.distributed.launch", "torch.distributed.run"}:
            return f"python -m {module}"
    return None


class YamlConfigScanner(Scanner):
    """YAML configs, and JSON ones (JSON is YAML) up to a size where they are settings rather than data."""

    domain = "configuration"
    kinds = frozenset({"yaml", "json"})
    triggers = ENV_TRIGGERS + ("cuda", "nccl", "MULTI_GPU", "zero_optimization", "train_micro_batch_size_per_gpu")
    MAX_JSON_CHARS = 256 * 1024

    def __init__(self, kb, target) -> None:
        super().__init__(kb, target)
        self.index = RuleIndex(kb)

    def wants(self, unit: Unit) -> bool:
        if unit.kind == "json" and len(unit.source.text) > self.MAX_JSON_CHARS:
            return False
        return super().wants(unit)

    def scan(self, unit: Unit) -> list[Hit]:
        hits: list[Hit] = []
        for document in compose_documents(unit):
            if isinstance(document, yaml.MappingNode):
                self._deepspeed_config(document, unit, hits)
            self._walk(document, unit, hits, "")
        return hits

    def _walk(self, node: yaml.Node, unit: Unit, hits: list[Hit], where: str) -> None:
        """`where` is the key path of `node` (`run`, `trainer.devices[]`): a setting's symbol names its whole path,
        so that the same setting repeated across config files is recognised as one (project_scope)."""
        if isinstance(node, yaml.MappingNode):
            for key, value in node.value:
                inner = where
                if isinstance(key, yaml.ScalarNode):
                    inner = f"{where}.{key.value}" if where else str(key.value)
                    self._key(key, value, unit, hits, inner)
                self._walk(key, unit, hits, where)
                self._walk(value, unit, hits, inner)
        elif isinstance(node, yaml.SequenceNode):
            for item in node.value:
                self._walk(item, unit, hits, f"{where}[]")
        elif isinstance(node, yaml.ScalarNode) and "=" in str(node.value):
            name, value = str(node.value).split("=", 1)
            code = self.index.env_rule(name)
            # docker-compose style "NAME=value" list items; "NAME=value command ..." is a command line, a launch only
            # under a key a runner executes (a web site's registry of deployment pages holds such strings as data)
            if code is not None and (not value.strip().split(maxsplit=1)[1:] or _command_key(unit.kind, where)):
                hits.append(Hit(code, name, _span(node, unit, len(name))))

    def _key(self, key: yaml.ScalarNode, value: yaml.Node, unit: Unit, hits: list[Hit], where: str) -> None:
        name = str(key.value)
        scalar = str(value.value) if isinstance(value, yaml.ScalarNode) else None
        code = self.index.env_rule(name)
        if code is not None:
            hits.append(Hit(code, name, _span(key, unit, len(name))))
        elif name == "name" and scalar is not None and self.index.env_rule(scalar):
            # Kubernetes style: env: [{name: NAME, value: ...}]
            hits.append(Hit(self.index.env_rule(scalar), scalar, _span(value, unit)))
        elif scalar is None:
            return
        elif name in DEVICE_KEYS and _is_cuda_device(scalar):
            hits.append(
                Hit(self.index.code_for("device-string"), f"{where}: {scalar}", _span(value, unit),
                    scalar.replace("cuda", "npu", 1))
            )
        elif name in BACKEND_KEYS and scalar == "nccl":
            hits.append(Hit(self.index.code_for("nccl-string"), f"{where}: {scalar}", _span(value, unit), "hccl"))
        elif name == "distributed_type" and scalar == "MULTI_GPU":
            hits.append(Hit(self.index.code_for("accelerate-multi-gpu"), f"{where}: {scalar}", _span(value, unit)))

    def _deepspeed_config(self, document: yaml.MappingNode, unit: Unit, hits: list[Hit]) -> None:
        keys = {str(k.value): (k, v) for k, v in document.value if isinstance(k, yaml.ScalarNode)}
        if not DEEPSPEED_KEYS & set(keys):
            return
        stage = "?"
        zero = keys.get("zero_optimization")
        if zero is not None and isinstance(zero[1], yaml.MappingNode):
            for k, v in zero[1].value:
                if str(k.value) == "stage" and isinstance(v, yaml.ScalarNode):
                    stage = str(v.value)
        first_key = next(iter(keys.values()))[0]
        hits.append(Hit(self.index.code_for("deepspeed-config"), f"DeepSpeed config (ZeRO stage {stage})",
                        _span(first_key, unit, len(str(first_key.value)))))


def _command_key(kind: str, where: str) -> bool:
    """Is some key of the path `where` (`jobs.test.steps[].run`) one whose string a runner executes (knowledge/context/
    conventions.toml yaml_command_keys, json_command_keys)?"""
    roles = load_context_conventions().roles
    keys = frozenset(roles.json_command_keys if kind == "json" else roles.yaml_command_keys)
    return any(part.split("[", 1)[0] in keys for part in where.split("."))


def compose_documents(unit: Unit) -> list[yaml.Node]:
    try:
        return unit.yaml_documents()
    except yaml.YAMLError as exc:
        mark = getattr(exc, "problem_mark", None)
        where = f" (line {mark.line + 1})" if mark is not None else ""
        problem = getattr(exc, "problem", None) or str(exc).splitlines()[0]
        raise YamlUnreadable(f"YAML not parsed: {problem}{where}") from None


def _is_cuda_device(value: str) -> bool:
    head, _, index = value.partition(":")
    return head == "cuda" and (index == "" or index.isdigit())


def _span(node: yaml.Node, unit: Unit, length: int | None = None) -> Span:
    """YAML marks count characters; spans count bytes like tree-sitter's."""

    def byte_column(row: int, char_column: int) -> int:
        return len(unit.source.line_text(row)[:char_column].encode("utf-8"))

    start_row, start_col = node.start_mark.line, node.start_mark.column
    if length is not None:
        end_row, end_col = start_row, start_col + length
    else:
        end_row, end_col = node.end_mark.line, node.end_mark.column
    return Span(start_row, byte_column(start_row, start_col), end_row, byte_column(end_row, end_col))


class ConfigurationDomain(Domain):
    """Launch scripts, Dockerfiles and YAML configs: their settings belong to other domains' rules (an NCCL variable,
    a device string), read here because the file kinds need their own scanners."""

    name = "configuration"
    scanner_classes = (ShellConfigScanner, YamlConfigScanner, LaunchDocScanner)
    facts_type = launch_ranks.LaunchFacts

    def collect(self, file: FileView) -> launch_ranks.LaunchFacts | None:
        """Launches of torch.distributed.launch and the scripts' --local_rank declarations (domains/launch_ranks.py)."""
        return launch_ranks.collect(file)

    def add_findings(self, run: ProjectRun) -> None:
        # an install document's launch: no scanner reads its lines, so the finding is made here (domains/launch_ranks.py)
        facts = [f for f in run.facts[self.name] if f is not None]
        run.findings += launch_ranks.doc_launch_findings(facts, run.target.release.torch, run.factory, run.context)

    def report(self, run: ProjectRun) -> None:
        # at torch 2 the launcher passes --local-rank, which a script declaring only --local_rank rejects
        facts = [f for f in run.facts[self.name] if f is not None]
        if facts:
            run.findings = launch_ranks.rank_launch_findings(run.findings, facts, run.target.release.torch, run.factory)


def _value_facets(name: Node) -> tuple[str, ...]:
    """What an assignment's literal value says for its rule's variants: an exclusion list HCCL's default realises."""
    assignment = name.parent
    value = assignment.child_by_field_name("value") if assignment is not None and assignment.type == "variable_assignment" else None
    if value is None or value.type not in {"word", "string", "raw_string"} or any(
            child.type != "string_content" for child in value.named_children):
        return ()
    return (DEFAULT_EXCLUSION,) if excludes_only_default_skipped(parsing.text(value).strip("'\"")) else ()
