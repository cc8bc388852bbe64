"""Findings crossing from a pool worker to the main process: shared texts travel once, and arrive unchanged."""

import pickle
from pathlib import Path

import pytest
from ascend_feasibility.analyzer.core import transfer
from ascend_feasibility.analyzer.core.filework import FileWorker
from ascend_feasibility.analyzer.reading.discovery import discover

SAMPLE = Path(__file__).resolve().parent.parent / "sample_projects" / "llm_train"


@pytest.fixture
def results():
    files = [f for f in discover(SAMPLE, [], ()).files if f.kind == "python"]
    worker = FileWorker(None)
    return [r for r in (worker.process(f) for f in files) if r.findings]


@pytest.fixture
def sending(monkeypatch):
    monkeypatch.setattr(transfer, "_sending", True)
    monkeypatch.setattr(transfer, "_numbers", {})
    monkeypatch.setattr(transfer, "_sent", [])
    monkeypatch.setattr(transfer, "_standard", None)
    monkeypatch.setattr(transfer, "_received", {})


def test_findings_arrive_as_they_were_sent(results, sending):
    messages = [pickle.dumps(r) for r in results]  # as a worker writes them, in order
    transfer._sending = False  # the main process reads them
    transfer.start_receiving()
    received = [pickle.loads(m) for m in messages]
    for sent, got in zip(results, received):
        assert got.findings == sent.findings
        assert [f.model_fields_set for f in got.findings] == [f.model_fields_set for f in sent.findings]
        assert got.path == sent.path and got.facts == sent.facts


def test_a_shared_text_crosses_once(results, sending):
    twice = results[0].findings * 2
    first = pickle.dumps(results[0].__class__(path="a.py", findings=list(results[0].findings)))
    again = pickle.dumps(results[0].__class__(path="b.py", findings=twice))
    text = results[0].findings[0].message.en.encode("utf-8")
    assert text in first
    assert text not in again  # the second message carries a number for the text the first one sent
    assert len(transfer._sent) == len({id(getattr(f, name)) for f in results[0].findings for name in transfer.SHARED})


def test_outside_a_pool_worker_findings_pickle_as_they_are(results):
    assert not transfer._sending
    assert pickle.loads(pickle.dumps(results[0])).findings == results[0].findings
    assert transfer.pack(results[0].findings) is results[0].findings
