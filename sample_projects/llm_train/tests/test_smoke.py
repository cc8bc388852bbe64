"""Small CPU tests: the model runs, the entry's arguments parse, and once the project is ported the default
device is one this host has."""
import importlib.util
import sys

import pytest
import torch

import train
from llm_train.model import TinyLM

PORTED = importlib.util.find_spec("llm_train._device") is not None


def tiny_model():
    return TinyLM(vocab=64, dim=32, n_layers=1, n_heads=4)


def test_forward_on_cpu():
    logits = tiny_model()(torch.randint(0, 64, (2, 8)))
    assert logits.shape == (2, 8, 64)


def test_default_device_parses(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["train.py"])
    assert torch.device(train.parse_args().device).type


@pytest.mark.skipif(not PORTED, reason="the default device is a CUDA one until the project is ported")
def test_default_device_exists_here(monkeypatch):
    monkeypatch.setattr(sys, "argv", ["train.py"])
    model = tiny_model().to(train.parse_args().device)
    assert model(torch.randint(0, 64, (1, 4), device=train.parse_args().device)).shape == (1, 4, 64)
