"""k models of one architecture as one: stacked parameters and their batched forward pass.

The engine (:mod:`fedlib.fl.engine`) trains and evaluates the k local models of a round at once.
Here is how it represents them and runs them:

- :data:`Params` is one model's parameters, keyed by the ``state_dict`` names of the models in
  :mod:`fedlib.fl.models`; :data:`Stacked` holds k models, each tensor with a leading dimension
  k (slice i is worker i's model, the paper's local model ``theta_i``).
- :class:`BatchedMLP` and :class:`BatchedLeNet` apply every layer to all k models at once with
  hand-batched operations: batched matrix products for linear layers, grouped convolutions in
  channels-last layout for convolutional ones, and 2x2 max-pooling as the maximum of four views.
  Pooling comes before the ReLU, which is equivalent since ReLU is monotone, and cheaper.
- Each network is cut in two: a *first stage* (the first layer, or LeNet's conv1-pool-ReLU),
  computed either on images that all k models share (the publisher's validation and test sets)
  or on each model's own images (a worker's training batch), and the *rest*, which turns
  first-stage outputs into logits. The cut lets the engine form the first stage of averaged
  models from the local models' (see :mod:`fedlib.fl.engine`).
- :func:`sample_losses` is the cross-entropy of every model on every sample: the loss that
  training minimises and that the leave-one-out check compares (``l`` and ``l_{-i}``, the
  paper's Section 4.2).
- :func:`with_loo_averages` forms, in one step, the k + 1 plain averages that check compares:
  of all k models and of all but model i, for every i.
"""

from __future__ import annotations

import torch
from torch import Tensor
from torch.nn import functional as F

from fedlib.fl.models import IMAGE_SHAPE

#: One model's parameters, keyed by the ``nn.Module``'s ``state_dict`` names.
Params = dict[str, Tensor]
#: The parameters of k models: the same keys, each tensor with a leading dimension k.
Stacked = dict[str, Tensor]

#: On a CPU, LeNet's first stage runs in blocks of images whose conv1 feature maps (before the
#: pooling shrinks them fourfold) take about this many bytes, so that they stay in cache
#: (``benchmarks/recorded/README.md``).
STAGE1_BLOCK_BYTES = 2 << 20
#: On a CPU, the 5x5 patches of shared images (25 floats per pixel, whatever the number of
#: models) are unfolded for about this many bytes of patches at a time.
PATCH_BLOCK_BYTES = 8 << 20


def _split_windows(x: Tensor) -> Tensor:
    """View maps (..., H, W) as (..., 2, 2, H/2, W/2): the position in the 2x2 window first."""
    *lead, height, width = x.shape
    return x.view(*lead, height // 2, 2, width // 2, 2).movedim((-3, -1), (-4, -3))


def _corners(x: Tensor) -> tuple[Tensor, Tensor, Tensor, Tensor]:
    """The four window positions of (..., 2, 2, h, w), in ``max_pool2d``'s scan order."""
    return x[..., 0, 0, :, :], x[..., 0, 1, :, :], x[..., 1, 0, :, :], x[..., 1, 1, :, :]


class _MaxPool2x2(torch.autograd.Function):
    """2x2 max-pooling of window-split maps (..., 2, 2, h, w) into (..., h, w).

    The forward pass is the maximum of the four views of :func:`_corners`. Autograd through
    ``torch.maximum`` would split ties and fill four full-size zero tensors in the backward
    pass; this function keeps three 0/1 masks in the input's dtype and sends each window's
    gradient to its first maximal element, as ``max_pool2d`` does.
    """

    @staticmethod
    def forward(ctx: torch.autograd.function.FunctionCtx, x: Tensor) -> Tensor:
        a, b, c, d = _corners(x)
        top, bottom = torch.maximum(a, b), torch.maximum(c, d)
        if ctx.needs_input_grad[0]:
            masks = [torch.gt(u, v, out=torch.empty_like(top)) for u, v in ((b, a), (d, c))]
            masks.append(torch.gt(bottom, top, out=torch.empty_like(top)))
            ctx.save_for_backward(*masks)
            ctx.input_layout = (x.shape, x.stride(), x.dtype, x.device)
        return torch.maximum(top, bottom)

    @staticmethod
    def backward(ctx: torch.autograd.function.FunctionCtx, grad: Tensor) -> Tensor:
        right_in_top, right_in_bottom, bottom = ctx.saved_tensors
        shape, stride, dtype, device = ctx.input_layout
        grad_in = torch.empty_strided(shape, stride, dtype=dtype, device=device)
        a, b, c, d = _corners(grad_in)
        grad_bottom = grad * bottom
        for row, right, left_view, right_view in (
            (grad - grad_bottom, right_in_top, a, b),
            (grad_bottom, right_in_bottom, c, d),
        ):
            torch.mul(row, right, out=right_view)
            torch.sub(row, right_view, out=left_view)
        return grad_in


def _pool(x: Tensor) -> Tensor:
    """2x2 max-pooling of window-split maps (..., 2, 2, h, w) (see :class:`_MaxPool2x2`)."""
    return _MaxPool2x2.apply(x)


def _linear(p: Stacked, name: str, x: Tensor) -> Tensor:
    """The linear layer ``name`` of k models on inputs x (k, batch, in): (k, batch, out)."""
    return torch.baddbmm(p[f"{name}.bias"].unsqueeze(1), x, p[f"{name}.weight"].transpose(1, 2))


def sample_losses(logits: Tensor, labels: Tensor) -> Tensor:
    """Cross-entropy (k, c) of k models on c samples: logits (k, c, 10) against labels shared
    by all models (c,) or one row per model (k, c)."""
    index = labels.expand(logits.shape[:-1]).unsqueeze(-1)
    return -torch.log_softmax(logits, dim=-1).gather(-1, index).squeeze(-1)


def with_loo_averages(a: Tensor, dim: int) -> Tensor:
    """Append to k entries along ``dim`` their k leave-one-out means and their mean.

    With ``S`` the sum of the entries ``a_i``, the result holds the entries themselves, then
    ``(S - a_i) / (k - 1)`` for every i, formed in one step, then ``S / k``: 2k + 1 entries. It
    serves stacked parameters (``dim=0``) and, by linearity, first-layer pre-activations. The
    result has the memory layout of ``a`` (the same order of strides). For k = 1 the
    leave-one-out mean does not exist and is NaN.
    """
    k = a.shape[dim]
    order = sorted(range(a.dim()), key=a.stride, reverse=True)
    shape = list(a.shape)
    shape[dim] = 2 * k + 1
    out = a.new_empty([shape[d] for d in order]).permute([order.index(d) for d in range(a.dim())])
    out.narrow(dim, 0, k).copy_(a)
    mean = torch.mean(a, dim, keepdim=True, out=out.narrow(dim, 2 * k, 1))
    inv = 1.0 / (k - 1) if k > 1 else float("nan")
    torch.sub(mean * (k * inv), a, alpha=inv, out=out.narrow(dim, k, k))
    return out


class BatchedMLP:
    """784-200-200-10 over stacked parameters; its first stage is the first layer's
    pre-activation (200 features per model)."""

    #: The first stage is linear in the parameters, and with 784 multiply-adds per output the
    #: aggregates' are much cheaper to combine from the local models' than to compute.
    combine_first_stage = True
    #: Floats per sample and model of the widest activation in evaluation.
    eval_features = 200
    #: The parameters of the first stage (not needed once its outputs are combined).
    first_keys = ("fc1.weight", "fc1.bias")

    @staticmethod
    def first_shared(p: Stacked, x: Tensor) -> Tensor:
        """First-stage outputs (c, k, 200) of k models on shared images (c, 28, 28)."""
        k = p["fc1.weight"].shape[0]
        w = p["fc1.weight"].reshape(k * 200, 784)
        a = torch.addmm(p["fc1.bias"].reshape(-1), x.reshape(len(x), 784), w.t())
        return a.view(len(x), k, 200)

    @staticmethod
    def first_own(p: Stacked, x: Tensor) -> Tensor:
        """First-stage outputs (b, k, 200) of each model on its own images (k, b, 28, 28)."""
        return _linear(p, "fc1", x.flatten(2)).transpose(0, 1)

    @staticmethod
    def rest(p: Stacked, z: Tensor) -> Tensor:
        """Logits (k, c, 10) from first-stage outputs (c, k, 200)."""
        h = F.relu(_linear(p, "fc2", F.relu(z).transpose(0, 1)))
        return _linear(p, "fc3", h)


class BatchedLeNet:
    """LeNet-5 over stacked parameters; its first stage is conv1, 2x2 max-pool and ReLU.

    Feature maps are kept channels-last (channel index fastest), where the grouped convolutions
    are fastest and each pooling view reads whole channel vectors. On a CPU the first stage
    runs in blocks of images (see :data:`STAGE1_BLOCK_BYTES`).
    """

    #: The first stage ends in a max-pool and is not linear in the parameters (and with 25
    #: multiply-adds per conv1 output, combining pre-activations would not pay anyway).
    combine_first_stage = False
    #: Floats per sample and model of the widest activation in evaluation (conv2's output).
    eval_features = 16 * 10 * 10
    #: The parameters of the first stage.
    first_keys = ("conv1.weight", "conv1.bias")

    @staticmethod
    def _block_images(x: Tensor, maps: int, images: int) -> int:
        """Images per block (of the ``images`` in ``x``) such that their ``maps`` conv1 maps
        (28 x 28 each) fit :data:`STAGE1_BLOCK_BYTES` on a CPU; all of them elsewhere."""
        if x.device.type != "cpu":
            return max(1, images)
        per_image = maps * IMAGE_SHAPE[0] * IMAGE_SHAPE[1] * x.element_size()
        return max(1, STAGE1_BLOCK_BYTES // per_image)

    @classmethod
    def first_shared(cls, p: Stacked, x: Tensor) -> Tensor:
        """First-stage outputs (c, 6k, 14, 14) of k models on shared images (c, 28, 28).

        The 5x5 patches do not depend on the models: they are unfolded once for a run of
        images (:data:`PATCH_BLOCK_BYTES`), ordered by position in the pooling window, so that
        each of the four views the pooling compares is one contiguous block. Then, block by
        block (of :data:`STAGE1_BLOCK_BYTES` of conv1 maps on a CPU), one product of the
        patches with all k * 6 filters is pooled (one maximum over the four window positions)
        and rectified straight into the channels-last result: three kernel calls per block and
        no copy of the feature maps.
        """
        k = p["conv1.weight"].shape[0]
        weight = p["conv1.weight"].reshape(k * 6, 25).t()
        bias = p["conv1.bias"].reshape(-1)
        out = torch.empty(len(x), 14 * 14, 6 * k, dtype=x.dtype, device=x.device)
        step = cls._block_images(x, 6 * k, len(x))
        patch_bytes = IMAGE_SHAPE[0] * IMAGE_SHAPE[1] * 25 * x.element_size()
        run = max(step, PATCH_BLOCK_BYTES // patch_bytes // step * step)
        for start in range(0, len(x), run):
            xs = x[start : start + run]
            windows = F.pad(xs, (2, 2, 2, 2)).unfold(1, 5, 1).unfold(2, 5, 1)
            windows = windows.view(len(xs), 14, 2, 14, 2, 5, 5).permute(0, 2, 4, 1, 3, 5, 6)
            patches = windows.reshape(len(xs), 4 * 14 * 14, 25)
            for offset in range(0, len(xs), step):
                rows = patches[offset : offset + step]
                y = torch.addmm(bias, rows.reshape(-1, 25), weight)
                pooled = out[start + offset : start + offset + len(rows)]
                torch.amax(y.view(len(rows), 4, 14 * 14, 6 * k), 1, out=pooled)
                pooled.relu_()
        return out.view(len(x), 14, 14, 6 * k).permute(0, 3, 1, 2)

    @classmethod
    def first_own(cls, p: Stacked, x: Tensor) -> Tensor:
        """First-stage outputs (b, 6k, 14, 14) of each model on its own images (k, b, 28, 28):
        block by block, one grouped convolution in channels-last layout."""
        k = x.shape[0]
        w = p["conv1.weight"].reshape(k * 6, 1, 5, 5)
        bias = p["conv1.bias"].reshape(-1)
        stages = []
        for xs in x.split(cls._block_images(x, 6 * k, x.shape[1]), dim=1):
            xs = xs.transpose(0, 1).contiguous(memory_format=torch.channels_last)
            y = F.conv2d(xs, w, bias, padding=2, groups=k)
            stages.append(F.relu(_pool(_split_windows(y))))
        return torch.cat(stages)

    @staticmethod
    def rest(p: Stacked, h: Tensor) -> Tensor:
        """Logits (k, c, 10) from first-stage outputs (c, 6k, 14, 14)."""
        c, k = len(h), p["conv2.weight"].shape[0]
        h = h.contiguous(memory_format=torch.channels_last)
        w = p["conv2.weight"].reshape(k * 16, 6, 5, 5)
        h = F.conv2d(h, w, p["conv2.bias"].reshape(-1), groups=k)
        h = F.relu(_pool(_split_windows(h))).reshape(c, k, 400).transpose(0, 1)
        h = F.relu(_linear(p, "fc2", F.relu(_linear(p, "fc1", h))))
        return _linear(p, "fc3", h)


BATCHED_NETS: dict[str, type[BatchedMLP] | type[BatchedLeNet]] = {
    "mlp": BatchedMLP,
    "lenet": BatchedLeNet,
}

