"""Dockerfiles that build another accelerator's image, by what they install, not by their names.

OLMo's docker/Dockerfile.lumi starts FROM ubuntu and installs `torch==2.3.1 ... --index-url
https://download.pytorch.org/whl/rocm6.0`: the image for AMD's LUMI cluster. Nothing in it runs on Ascend, and its
torch pin is ROCm's, not a requirement the port has to fit; like another backend's code (context/project.py), the
whole file is `other-backend`. Read: the base image of each FROM, the URL after a package index option
(`--index-url`, `--extra-index-url`, `-i`, `-f`, `--find-links`) and a requirement's local version (`torch==2.3.1+rocm6.0`).
A token of one of them that starts with an image token of the conventions (`rocm`, so `rocm6.0` too) names that
backend. A CUDA image is not one of these: it is the build the port replaces (DEV212)."""

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

    image_tokens = load_context_conventions().backends.images
    found = {}
    for f in files:
        if not is_dockerfile(f.path):
            continue
        try:
            text = read_bytes(f.absolute, f.size, MAX_DOCKERFILE_BYTES).decode("utf-8", "replace")
        except (Unreadable, OSError):
            continue
        evidence = backend_evidence(text, image_tokens)
        if evidence is not None:
            found[f.path] = f"{f.path}: another accelerator's image ({evidence}); nothing in it runs on Ascend"
    return found


def backend_evidence(text: str, image_tokens: list[str]) -> str | None:
    """What in the Dockerfile names another backend's build (`line 91: --index-url .../whl/rocm6.0`), or None."""
    root = parsing.parse("bash", shell_view(text).encode("utf-8"))
    for command in parsing.captures(parsing.query("bash", COMMANDS), root).get("command", []):
        name = parsing.text(command.child_by_field_name("name"))
        words = [parsing.text(w).strip("'\"") for w in command.children_by_field_name("argument")]
        if name.upper() == "FROM":
            images = [w for w in words if not w.startswith("--")]
            candidates = images[:1]
        else:
            candidates = [words[i + 1] for i, w in enumerate(words[:-1]) if w in INDEX_OPTIONS]
            candidates += [w.split("=", 1)[1] for w in words if w.startswith(tuple(f"{o}=" for o in INDEX_OPTIONS))]
            candidates += [w for w in words if "+" in w and "==" in w]  # torch==2.3.1+rocm6.0
        for candidate in candidates:
            if _names_backend(candidate, image_tokens):
                return f"line {command.start_point.row + 1}: {candidate}"
    return None


def _names_backend(word: str, image_tokens: list[str]) -> bool:
    tokens = word.lower().translate(SEPARATORS).split()
    return any(token.startswith(t) for token in tokens for t in image_tokens)
