"""A time budget for the work on one file: past it, the work stops where it is and the file is listed as analysed
partially. Uses an interval timer (SIGALRM), so it applies in a process's main thread on POSIX, where every run
of the analyzer does its per-file work (in-process or in a worker process); elsewhere the work is unbounded.

A signal handler runs between Python bytecodes, so a long call into C (a tree-sitter query) finishes first: the
tree size and depth budgets (`parsing.over_budget`) keep those calls short."""

from __future__ import annotations

import signal
import threading
from collections.abc import Iterator
from contextlib import contextmanager

FILE_SECONDS = 10.0


class OverBudget(BaseException):
    """Raised inside the per-file work when its time is up. A BaseException so that a scanner's own `except
    Exception` (which keeps one scanner's bug from losing the file) does not swallow it."""


def _expired(signum, frame) -> None:
    raise OverBudget()


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    usable = (
        seconds is not None and seconds > 0 and hasattr(signal, "setitimer")
        and threading.current_thread() is threading.main_thread()
    )
    if not usable:
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expired)
    signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
        signal.signal(signal.SIGALRM, previous)
