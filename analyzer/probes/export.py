"""`probe export DIR`: the probes as one standalone script (torch, and torch_npu on Ascend, are all it needs)."""

from __future__ import annotations

import json
from pathlib import Path

from analyzer import __version__
from analyzer.probes import core
from knowledge import KnowledgeBase

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
    source = Path(core.__file__).read_text(encoding="utf-8")
    table = json.dumps(compatibility_table(kb), indent=1)
    return (
        _HEADER.format(version=__version__, script=SCRIPT_NAME)
        + source
        + f"\n\nCOMPATIBILITY[:] = {table}\n\n"
        + 'if __name__ == "__main__":\n    sys.exit(standalone_main())\n'
    )


def export_script(directory: Path, kb: KnowledgeBase) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / SCRIPT_NAME
    path.write_text(script_text(kb), encoding="utf-8")
    path.chmod(0o755)
    return path
