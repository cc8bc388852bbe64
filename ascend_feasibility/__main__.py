"""`python -m ascend_feasibility`. Python puts the working folder first on sys.path for -m: run from inside an analyzed tree,
its own modules (a `rich/` folder, say) would be imported in place of the libraries. That entry is dropped unless it
is where this package lives (a source checkout). `python -P -m ascend_feasibility` (Python 3.11+) or the `ascend-feasibility`
console script avoid it altogether, and also protect this package itself."""

import os
import sys


def _drop_working_folder() -> None:
    home = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
    if sys.path and sys.path[0] in ("", os.getcwd()) and os.path.realpath(sys.path[0] or ".") != os.path.realpath(home):
        del sys.path[0]


_drop_working_folder()

from ascend_feasibility.analyzer.core.cli import main  # noqa: E402 - after the path is made safe

raise SystemExit(main())
