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


_armed_in: int | None = None  # the thread (the main one) in which an enclosing `armed()` installed the handler


def _usable() -> bool:
    return hasattr(signal, "setitimer") and threading.current_thread() is threading.main_thread()


@contextmanager
def armed() -> Iterator[None]:
    """Install the handler once for many budgets (one per file of a run): each `time_budget` inside then only sets
    the timer. Installing and restoring a handler per file cost as much as analysing a small file."""
    global _armed_in
    if _armed_in is not None or not _usable():
        yield
        return
    previous = signal.signal(signal.SIGALRM, _expired)
    _armed_in = threading.get_ident()
    try:
        yield
    finally:
        _armed_in = None
        signal.signal(signal.SIGALRM, previous)


def arm_process() -> None:
    """Install the handler for the rest of this process's life (a worker process of the analyzer's own pool)."""
    global _armed_in
    if _armed_in is None and _usable():
        signal.signal(signal.SIGALRM, _expired)
        _armed_in = threading.get_ident()


@contextmanager
def time_budget(seconds: float | None) -> Iterator[None]:
    if seconds is None or seconds <= 0:
        yield
        return
    if _armed_in is not None and _armed_in == threading.get_ident():
        signal.setitimer(signal.ITIMER_REAL, seconds)
        try:
            yield
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
        return
    if not _usable():
        yield
        return
    with armed(), time_budget(seconds):
        yield
