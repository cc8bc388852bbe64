"""Small CPU tests: the DiT block runs and the entry modules import."""
import torch

import sample  # noqa: F401
import train  # noqa: F401
from dit.model import DiTBlock


def test_block_forward_on_cpu():
    block = DiTBlock(32, 4)
    x, c = torch.randn(2, 8, 32), torch.randn(2, 32)
    assert block(x, c).shape == x.shape
