"""Native extensions the project falls back from: an extension whose Python module every product import reaches only
in a try with a working fallback (fairseq's lightconv_cuda behind LightweightConv's `except ImportError` with the
pure-PyTorch LightweightConv1dTBC after it; libnat_cuda with the CPU libnat) never has to run on Ascend. Its kernels,
binding and own build file take that reach (optional), with the fallback as the reason; an extension some import
needs without a fallback stays required."""

from __future__ import annotations

from pathlib import PurePosixPath

from ascend_feasibility.analyzer.context.propagation import extension_fallback
from ascend_feasibility.domains.base import ProjectRun
from ascend_feasibility.domains.custom_ops.records import CustomOpFacts, ExtensionRecord


def fallback_extensions(facts: CustomOpFacts, run: ProjectRun) -> dict[str, tuple[str, str]]:
    """Native files (and builders that build nothing else) of extensions with a fallback: path → (reach, why)."""
    natives = sorted({r.path for r in facts.kernels if r.kind == "cuda"} | {b.path for b in facts.bindings})
    result: dict[str, tuple[str, str]] = {}
    covered_by_builder: dict[str, list[bool]] = {}
    for extension in facts.extensions:
        if not extension.sources or extension.name in {"", "?"}:
            covered_by_builder.setdefault(extension.path, []).append(False)
            continue
        reason = extension_fallback({extension.name, extension.name.rsplit(".", 1)[-1]}, run.modules,
                                    run.context, run.guarded)
        covered_by_builder.setdefault(extension.path, []).append(reason is not None)
        if reason is None:
            continue
        folders = _source_folders(extension)
        for path in natives:
            if str(PurePosixPath(path).parent) in folders and run.context.of(path).reach == "runs":
                result.setdefault(path, ("optional", reason))
        builder_folder = str(PurePosixPath(extension.path).parent)
        if builder_folder != "." and builder_folder in folders:
            result.setdefault(extension.path, ("optional", reason))
    # a builder that also builds a required extension keeps its own reach
    for builder, covered in covered_by_builder.items():
        if not all(covered):
            result.pop(builder, None)
    return result


def _source_folders(extension: ExtensionRecord) -> set[str]:
    """The folders holding the extension's sources, named from the project root or from the builder's folder."""
    here = PurePosixPath(extension.path).parent
    folders = set()
    for source in extension.sources:
        for base in (PurePosixPath(), here):
            folders.add(str((base / source).parent))
    return folders
