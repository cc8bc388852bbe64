"""Small CPU tests: the device this host picks can hold a tensor."""
import torch

import generate


def test_picked_device_holds_a_tensor():
    device = generate.pick_device()
    assert torch.ones(2, device=device).sum().item() == 2.0
