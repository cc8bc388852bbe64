"""A time budget for the work on one file: past it, the work stops where it is and the file is listed as analysed
partially. Python code is stopped by an interval timer (SIGALRM, in a process's main thread on POSIX, where every
run of the analyzer does its per-file work, in-process or in a worker process); tree-sitter queries, which run in
C where no signal handler can stop them, ask `expired()` through their progress callback and are cancelled."""

from __future__ import annotations

import signal
import threading
import time
from collections.abc import Iterator
from contextlib import contextmanager

FILE_SECONDS = 10.0


class OverBudget(BaseException):
    """Raised inside the per-file work when its time is up. A BaseException so that a scanner's own `except
    Exception` (which keeps one scanner's bug from losing the file) does not swallow it."""


_deadline: float | None = None  # time.monotonic() when the current file's budget runs out


def expired() -> bool:
    return _deadline is not None and time.monotonic() > _deadline


def check() -> None:
    if expired():
        raise OverBudget()


def _expired(signum, frame) -> None:
    raise OverBudget()


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    global _deadline
    if seconds is None or seconds <= 0:
        yield
        return
    timer = hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()
    _deadline = time.monotonic() + seconds
    previous = signal.signal(signal.SIGALRM, _expired) if timer else None
    if timer:
        signal.setitimer(signal.ITIMER_REAL, seconds)
    try:
        yield
    finally:
        _deadline = None
        if timer:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
