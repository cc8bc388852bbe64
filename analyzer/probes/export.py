"""`probe export DIR`: the probes as one standalone script (torch, and torch_npu on Ascend, are all it needs)."""

from __future__ import annotations

import ast
import json
from pathlib import Path

from ascend_feasibility.analyzer import __version__
from ascend_feasibility.analyzer.probes import catalog, environment, runner, standalone
from ascend_feasibility.knowledge import KnowledgeBase

MODULES = (catalog, environment, runner, standalone)  # in dependency order
PACKAGE = "ascend_feasibility.analyzer.probes"

SCRIPT_NAME = "ascend_feasibility_probes.py"
_HEADER = """#!/usr/bin/env python3
# Ascend feasibility probes, exported from ascend-feasibility {version}.
#
# Needs only Python 3.10+ and torch (plus torch_npu and CANN on an Ascend host). Usage:
#
#     python {script} run [--device auto|npu|cuda|cpu] [--probe NAME]... [--shapes small|medium|large|all] -o calibration.json
#     python {script} env
#     python {script} list
#
# Then, where the analyzer is installed: ascend-feasibility analyze PATH --calibration calibration.json
"""


def compatibility_table(kb: KnowledgeBase) -> list[dict]:
    return [{"torch_npu": r.torch_npu, "torch": r.torch, "cann": r.cann} for r in kb.releases]


def script_text(kb: KnowledgeBase) -> str:
    table = json.dumps(compatibility_table(kb), indent=1)
    return (
        _HEADER.format(version=__version__, script=SCRIPT_NAME)
        + "from __future__ import annotations\n"
        + "".join(_module_body(module) for module in MODULES)
        + f"\n\nCOMPATIBILITY[:] = {table}\n\n"
        + 'if __name__ == "__main__":\n    sys.exit(standalone_main())\n'
    )


def _module_body(module) -> str:
    """A probe module's source without `from __future__` and without imports of its sibling modules, which the
    joined script defines itself."""
    source = Path(module.__file__).read_text(encoding="utf-8")
    lines = source.splitlines(keepends=True)
    drop = set()
    for node in ast.parse(source).body:
        if isinstance(node, ast.ImportFrom) and (node.module == "__future__" or (node.module or "").startswith(PACKAGE)):
            drop.update(range(node.lineno - 1, node.end_lineno))
    return f"\n\n# ---- {module.__name__.rsplit('.', 1)[-1]} " + "-" * 60 + "\n" + "".join(
        line for number, line in enumerate(lines) if number not in drop
    )


def export_script(directory: Path, kb: KnowledgeBase) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SCRIPT_NAME
    path.write_text(script_text(kb), encoding="utf-8")
    path.chmod(0o755)
    return path
