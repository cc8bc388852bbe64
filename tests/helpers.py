"""Run the per-file analysis on a snippet, the way the pipeline runs it on a project's file."""

from __future__ import annotations

import tempfile
from pathlib import Path

from ascend_feasibility.analyzer.core.filework import FileResult, FileWorker
from ascend_feasibility.analyzer.reading.discovery import ProjectFile

FILE_NAME_BY_LANGUAGE = {
    "python": "snippet.py", "shell": "run.sh", "dockerfile": "Dockerfile", "yaml": "config.yaml", "cuda": "kernel.cu",
    "cpp": "binding.cpp", "cmake": "CMakeLists.txt",
}
KIND_BY_LANGUAGE = {
    "python": "python", "shell": "shell", "dockerfile": "dockerfile", "yaml": "yaml", "cuda": "cuda", "cpp": "cpp",
    "cmake": "build",
}

_WORKERS: dict[tuple[str | None, str | None], FileWorker] = {}


def worker(torch_npu: str | None = None, project_path: str | None = None) -> FileWorker:
    """The worker for a target; with `project_path`, one whose project context is a project of that one file (its
    role and reach by its path: tests/test_x.py is a test, a file named for another backend is other-backend)."""
    key = (torch_npu, project_path)
    if key not in _WORKERS:
        if project_path is None:
            _WORKERS[key] = FileWorker(torch_npu)
        else:
            from ascend_feasibility.analyzer.context.project import build_project_context

            _WORKERS[key] = FileWorker(torch_npu, build_project_context([project_path]))
    return _WORKERS[key]


def scan_bytes(data: bytes, language: str = "python", torch_npu: str | None = None, name: str | None = None,
               in_project: bool = False) -> FileResult:
    """The file's findings; `in_project`: judged as the one file of a project at `name` (its path decides its role)."""
    project_path = name if in_project else None
    name = name or FILE_NAME_BY_LANGUAGE[language]
    with tempfile.TemporaryDirectory() as folder:
        path = Path(folder) / name
        path.parent.mkdir(parents=True, exist_ok=True)  # a name with folders (a test file's role comes from them)
        path.write_bytes(data)
        project_file = ProjectFile(path=name, absolute=str(path), kind=KIND_BY_LANGUAGE.get(language, language), size=len(data))
        return worker(torch_npu, project_path).process(project_file)


def scan(code: str, language: str = "python", torch_npu: str | None = None, path: str | None = None) -> FileResult:
    """`path`: scan the code as the one file of a project at that path (see scan_bytes)."""
    return scan_bytes(code.encode("utf-8"), language, torch_npu, path, in_project=path is not None)


def rules_found(code: str, language: str = "python", torch_npu: str | None = None) -> list[str]:
    return [f.rule for f in scan(code, language, torch_npu).findings]


PROJECT_FILES = {"requirements": "requirements.txt", "python": "snippet.py"}


def analyze_snippet_project(code: str, language: str, path: str | None = None, files: dict[str, str] | None = None):
    """The whole-project analysis on a one-file project: for rules judged across files (dependencies).
    A Python snippet gets a requirements file beside it that declares only numpy. `path`: where the snippet lies;
    `files`: other files of the project (path → text)."""
    from ascend_feasibility.analyzer.core.pipeline import AnalyzeOptions, analyze

    with tempfile.TemporaryDirectory() as folder:
        root = Path(folder)
        snippet = root / (path or PROJECT_FILES[language])
        snippet.parent.mkdir(parents=True, exist_ok=True)
        snippet.write_text(code, encoding="utf-8")
        if language == "python":
            (root / "requirements.txt").write_text("numpy\n", encoding="utf-8")
        write_tree(root, files or {})
        return analyze(root, AnalyzeOptions(jobs=1))


def write_tree(root: Path, files: dict[str, str]) -> Path:
    """Write a small project: relative path → text."""
    for name, text in files.items():
        path = root / name
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text, encoding="utf-8")
    return root


def reported_at(finding) -> list[str]:
    """The paths a finding stands for: its own and, where it was folded from byte-identical copies of its file
    (analyzer/context/project_scope.fold_identical_files), each copy's, listed in its sites at the same line."""
    paths = [finding.path]
    for site in finding.sites or []:
        path, _, line = site.rpartition(":")
        if path and line == str(finding.line) and path not in paths:
            paths.append(path)
    return paths

