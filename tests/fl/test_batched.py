"""The hand-batched layers of :mod:`fedlib.fl.batched` against PyTorch's own.

The batched networks as a whole are tested through the engine against the per-worker
reference loop (``test_engine.py``).
"""

from __future__ import annotations

import torch
from torch.nn import functional as F

from fedlib.fl import batched


def test_pooling_sends_tied_gradients_to_the_first_maximum_like_max_pool2d() -> None:
    x = torch.randint(0, 3, (2, 3, 8, 8)).double().requires_grad_(True)
    grad = torch.randn(2, 3, 4, 4, dtype=torch.float64)
    ours = batched._pool(batched._split_windows(x))
    expected = F.max_pool2d(x, 2)
    assert torch.equal(ours, expected)
    (grad_ours,) = torch.autograd.grad(ours, x, grad)
    (grad_expected,) = torch.autograd.grad(expected, x, grad)
    assert torch.equal(grad_ours, grad_expected)
