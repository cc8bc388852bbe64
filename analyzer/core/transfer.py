"""Findings on their way from a worker process of the analyzer's pool to the main process, shared texts sent once.

A finding's message, replacement and effort are objects the finding factory shares among every finding of the same
rule, symbol and context. Pickled with each file's result, they were most of the bytes a worker sent (about 1.7 KB per
finding) and most of the main process's time to read them. In a pool worker each such object crosses once, with a
number, and later findings carry the number. A pool's results are read by one thread of the main process in the
order each worker wrote them, so a number always arrives after its object. Outside a pool worker (one process, tests)
findings are pickled as they are.
"""

from __future__ import annotations

import os

from ascend_feasibility.analyzer.core.models import Finding

SHARED = ("message", "replacement", "effort_hours")
_FIELDS = tuple(Finding.model_fields)
_SHARED_AT = tuple(_FIELDS.index(name) for name in SHARED)

_sending = False
_numbers: dict[int, int] = {}  # in a worker: id of a shared object → its number
_sent: list = []  # the objects numbered, kept alive so that no other object takes their id
_standard: tuple[str, ...] | None = None  # in a worker: the fields-given set most findings have
_received: dict[tuple[int, int], object] = {}  # in the main process: (worker pid, number) → object
_field_sets: dict[tuple[str, ...], set[str]] = {}  # in the main process: one set per distinct fields-given set


def start_sending() -> None:
    """In a worker process of the analyzer's pool (filework.init_worker)."""
    global _sending
    _sending = True


def start_receiving() -> None:
    """In the main process, before a pool starts: forget what an earlier pool sent (worker pids are reused)."""
    _received.clear()


def pack(findings: list[Finding]) -> object:
    global _standard
    if not _sending or not findings:
        return findings
    new, rows = [], []
    for finding in findings:
        fields = finding.__pydantic_fields_set__
        if _standard is None:
            _standard = tuple(sorted(fields))
        given = None if len(fields) == len(_standard) and fields.issuperset(_standard) else tuple(sorted(fields))
        values = finding.__dict__
        row = [values[name] for name in _FIELDS]
        for index in _SHARED_AT:
            shared = row[index]
            number = _numbers.get(id(shared))
            if number is None:
                number = _numbers[id(shared)] = len(_sent)
                _sent.append(shared)
                new.append((number, shared))
            row[index] = number
        rows.append((given, row))
    return os.getpid(), _standard, new, rows


def unpack(packed: object) -> list[Finding]:
    if isinstance(packed, list):
        return packed
    pid, standard, new, rows = packed
    for number, shared in new:
        _received[(pid, number)] = shared
    findings = []
    for given, row in rows:
        for index in _SHARED_AT:
            row[index] = _received[(pid, row[index])]
        names = standard if given is None else given
        fields = _field_sets.get(names)
        if fields is None:
            fields = _field_sets[names] = set(names)  # shared: findings are frozen, and a copy copies the set
        finding = Finding.__new__(Finding)
        finding.__setstate__({"__dict__": dict(zip(_FIELDS, row)), "__pydantic_fields_set__": fields,
                              "__pydantic_extra__": None, "__pydantic_private__": None})
        findings.append(finding)
    return findings
