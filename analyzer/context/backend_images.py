"""Dockerfiles that build another accelerator's image, by what they install, not by their names.

OLMo's docker/Dockerfile.lumi starts FROM ubuntu and installs `torch==2.3.1 ... --index-url
https://download.pytorch.org/whl/rocm6.0`: the image for AMD's LUMI cluster. Nothing in it runs on Ascend, and its
torch pin is ROCm's, not a requirement the port has to fit; like another backend's code (context/project.py), the
whole file is `other-backend`. Read: the base image of each FROM, the URL after a package index option
(`--index-url`, `--extra-index-url`, `-i`, `-f`, `--find-links`) and a requirement's local version (`torch==2.3.1+rocm6.0`).
A token of one of them that starts with an image token of the conventions (`rocm`, so `rocm6.0` too) names that
backend. A CUDA image is not one of these: it is the build the port replaces (DEV212). Except a cloud vendor's GPU
training image (a SageMaker Deep Learning Container, Vertex AI, Azure ML; conventions `cloud_gpu_images`): FROM one,
the file builds that cloud's GPU container, which no Ascend host runs, not the project's install path."""

from __future__ import annotations

from ascend_feasibility.analyzer.context.roles import path_view
from ascend_feasibility.analyzer.reading import parsing
from ascend_feasibility.analyzer.reading.dockerfile import shell_view
from ascend_feasibility.knowledge import load_context_conventions

MAX_DOCKERFILE_BYTES = 1 << 20
INDEX_OPTIONS = frozenset({"--index-url", "--extra-index-url", "-i", "-f", "--find-links"})
COMMANDS = "(command name: (command_name) @name) @command"
SEPARATORS = str.maketrans({c: " " for c in "/:.-_+=@?&"})


def is_dockerfile(path: str) -> bool:
    name = path_view(path).name.lower()
    return name.startswith("dockerfile") or name.endswith(".dockerfile")


def other_backend_images(files) -> dict[str, str]:
    """path → why, for the Dockerfiles among `files` (path, absolute, size) that build another backend's image."""
    from ascend_feasibility.analyzer.reading.source import Unreadable, read_bytes

    backends = load_context_conventions().backends
    found = {}
    for f in files:
        if not is_dockerfile(f.path):
            continue
        try:
            text = read_bytes(f.absolute, f.size, MAX_DOCKERFILE_BYTES).decode("utf-8", "replace")
        except (Unreadable, OSError):
            continue
        evidence = backend_evidence(text, backends.images, backends.cloud_gpu_images)
        if evidence is not None:
            found[f.path] = f"{f.path}: {evidence}"
    return found


def backend_evidence(text: str, image_tokens: list[str], cloud_images=()) -> str | None:
    """What in the Dockerfile names another backend's build (`another accelerator's image (line 91: --index-url
    .../whl/rocm6.0)`), or None."""
    root = parsing.parse("bash", shell_view(text).encode("utf-8"))
    for command in parsing.captures(parsing.query("bash", COMMANDS), root).get("command", []):
        name = parsing.text(command.child_by_field_name("name"))
        words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
        if name.upper() == "FROM":
            images = [w for w in words if not w.startswith("--")]
            candidates = images[:1]
            vendor = cloud_gpu_vendor(candidates[0], cloud_images) if candidates else None
            if vendor is not None:
                return (f"a GPU training image of {vendor} (line {command.start_point.row + 1}: {candidates[0]}), the "
                        f"container for that cloud's NVIDIA GPU instances, which no Ascend host runs; an Ascend "
                        f"container starts from a CANN image")
        else:
            candidates = [words[i + 1] for i, w in enumerate(words[:-1]) if w in INDEX_OPTIONS]
            candidates += [w.split("=", 1)[1] for w in words if w.startswith(tuple(f"{o}=" for o in INDEX_OPTIONS))]
            candidates += [w for w in words if "+" in w and "==" in w]  # torch==2.3.1+rocm6.0
        for candidate in candidates:
            if _names_backend(candidate, image_tokens):
                return (f"another accelerator's image (line {command.start_point.row + 1}: {candidate}); nothing in it "
                        f"runs on Ascend")
    return None


def _names_backend(word: str, image_tokens: list[str]) -> bool:
    tokens = word.lower().translate(SEPARATORS).split()
    return any(token.startswith(t) for token in tokens for t in image_tokens)


def cloud_gpu_vendor(image: str, cloud_images) -> str | None:
    """The vendor whose GPU training image `image` is (conventions `cloud_gpu_images`), or None. `image` is a FROM's
    reference: registry host (a first part with a dot, a colon or `localhost`), repository, then `:tag`/`@digest`."""
    host, _, rest = image.lower().partition("/")
    if not rest or not any(c in host for c in ".:") and host != "localhost":
        return None  # Docker Hub (`pytorch/pytorch:...`): no cloud vendor's registry
    tokens = rest.translate(SEPARATORS).split()
    if not any(t == "gpu" or t.startswith("cuda") or (t.startswith("cu") and t[2:].isdigit()) for t in tokens):
        return None
    for entry in cloud_images:
        if any(h in host for h in entry.hosts) and rest.startswith(tuple(entry.repositories)):
            return entry.vendor
    return None
