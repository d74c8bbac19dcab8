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


def test_lenet_first_stages_equal_conv_pool_relu_per_model_across_blocks(monkeypatch) -> None:
    """Blocks too small for one image, for a few, and for the whole input: every first stage
    is conv1, 2x2 max-pooling and ReLU of each model, and does not depend on the blocking."""
    k, n = 3, 7
    gen = torch.Generator().manual_seed(0)
    p = {"conv1.weight": torch.randn(k, 6, 1, 5, 5, generator=gen, dtype=torch.float64),
         "conv1.bias": torch.randn(k, 6, generator=gen, dtype=torch.float64)}
    shared = torch.randn(n, 28, 28, generator=gen, dtype=torch.float64)
    own = torch.randn(k, n, 28, 28, generator=gen, dtype=torch.float64)

    def expected(i: int, images: torch.Tensor) -> torch.Tensor:
        y = F.conv2d(images.unsqueeze(1), p["conv1.weight"][i], p["conv1.bias"][i], padding=2)
        return F.relu(F.max_pool2d(y, 2))

    map_bytes = 6 * k * 28 * 28 * 8
    outputs = []
    for block, patches in ((1, 1), (2 * map_bytes, 3 * 28 * 28 * 25 * 8), (1 << 40, 1 << 40)):
        monkeypatch.setattr(batched, "STAGE1_BLOCK_BYTES", block)
        monkeypatch.setattr(batched, "PATCH_BLOCK_BYTES", patches)
        first_shared = batched.BatchedLeNet.first_shared(p, shared)
        first_own = batched.BatchedLeNet.first_own(p, own)
        for i in range(k):
            models = slice(6 * i, 6 * i + 6)
            torch.testing.assert_close(first_shared[:, models], expected(i, shared))
            torch.testing.assert_close(first_own[:, models], expected(i, own[i]))
        assert first_shared.is_contiguous(memory_format=torch.channels_last)
        outputs.append(first_shared)
    assert all(torch.equal(out, outputs[0]) for out in outputs)
