"""The batched training and evaluation engine: all workers of a round in one pass.

The k local models of a round live as *stacked* parameters: one dictionary with the keys of the
model's ``state_dict`` and tensors with a leading dimension k (slice i is worker i's model).
Every layer is applied to all k models at once with hand-batched operations: batched matrix
products for linear layers, grouped convolutions in channels-last layout for convolutional ones,
and 2x2 max-pooling as the maximum of four views (several times faster than ``max_pool2d`` on a
CPU). Pooling comes before the ReLU, which is equivalent since ReLU is monotone, and cheaper.

Evaluation runs the local models and the k + 1 plain-average aggregates of the leave-one-out
check as one stack of 2k + 1 models over chunks of the shared validation images. The aggregates'
parameters are formed in one step: the average without model i is ``(S - theta_i) / (k - 1)``
with ``S`` the sum of all k, the full average ``S / k``. For the MLP the first layer's linearity
saves most of their cost: its pre-activations ``a_i = W1_i x + b1_i`` for all k local models
come from one matrix product, and the aggregates' follow from them by the same formula,
``(S_a - a_i) / (k - 1)`` and ``S_a / k``, without touching the images again. (For LeNet-5 the
first convolution has only 25 multiply-adds per output, and computing the aggregates' directly
is cheaper than combining the large feature maps.)

Randomness enters only through explicit ``torch.Generator`` objects (initial weights, batch
orders); on a CPU a run is reproducible bit for bit (same machine and number of threads).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch
from torch import Tensor
from torch.nn import functional as F

from fedlib.fl.device import resolve_device
from fedlib.fl.models import IMAGE_SHAPE, NUM_CLASSES, make_model

#: One model's parameters, keyed by the ``nn.Module``'s ``state_dict`` names.
Params = dict[str, Tensor]
#: The parameters of k models: the same keys, each tensor with a leading dimension k.
Stacked = dict[str, Tensor]

#: Bytes of the widest activation of all evaluated models per evaluation chunk, by device
#: type (any other device uses the ``"cuda"`` value). On a CPU this keeps every intermediate
#: tensor below glibc's 32 MiB ``mmap`` threshold, so that its memory is reused instead of
#: being mapped afresh (and page-faulted) for every chunk.
EVAL_CHUNK_BYTES = {"cpu": 24 << 20, "cuda": 256 << 20}

#: On a CPU, LeNet's first stage runs in blocks of images whose conv1 feature maps (before the
#: pooling shrinks them fourfold) take about this many bytes, so that they stay in cache.
STAGE1_BLOCK_BYTES = 2 << 20


def batch_orders(k: int, n: int, epochs: int, generator: torch.Generator) -> Tensor:
    """Independent random orders of each worker's samples, one per worker and epoch.

    Parameters
    ----------
    k, n, epochs
        Workers, samples per worker and local epochs (all at least 1).
    generator
        The source of randomness (a CPU generator keeps the orders reproducible).

    Returns
    -------
    Tensor
        int64 tensor (k, epochs, n); ``orders[i, e]`` is a permutation of ``range(n)``.

    Examples
    --------
    >>> batch_orders(2, 4, 1, torch.Generator().manual_seed(0)).shape
    torch.Size([2, 1, 4])
    """
    for name, value in (("k", k), ("n", n), ("epochs", epochs)):
        if value < 1:
            raise ValueError(f"{name} must be at least 1, got {value}")
    perms = [torch.randperm(n, generator=generator) for _ in range(k * epochs)]
    return torch.stack(perms).view(k, epochs, n)


# ---------------------------------------------------------------------- batched layers


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
    pass; this function keeps three 0/1 masks in the input's dtype (comparisons into a float
    output are several times faster than into a bool one on a CPU) and sends each window's
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


def _with_averages(a: Tensor, dim: int, keep: bool) -> Tensor:
    """Append to k entries along ``dim`` their k leave-one-out means and their mean.

    With ``S`` the sum of the entries ``a_i``, the result holds (when ``keep``) the entries
    themselves, then ``(S - a_i) / (k - 1)`` for every i, formed in one step, then ``S / k``:
    2k + 1 entries, or k + 1 without ``keep``. It serves stacked parameters (``dim=0``) and,
    by linearity, first-layer pre-activations. The result has the memory layout of ``a`` (the
    same order of strides). For k = 1 the leave-one-out mean does not exist and is NaN.
    """
    k = a.shape[dim]
    first = k if keep else 0
    order = sorted(range(a.dim()), key=a.stride, reverse=True)
    shape = list(a.shape)
    shape[dim] = first + k + 1
    out = a.new_empty([shape[d] for d in order]).permute([order.index(d) for d in range(a.dim())])
    if keep:
        out.narrow(dim, 0, k).copy_(a)
    mean = torch.mean(a, dim, keepdim=True, out=out.narrow(dim, first + k, 1))
    inv = 1.0 / (k - 1) if k > 1 else float("nan")
    torch.sub(mean * (k * inv), a, alpha=inv, out=out.narrow(dim, first, k))
    return out


def _nll(logits: Tensor, labels: Tensor) -> Tensor:
    """Cross-entropy (k, c) of logits (k, c, 10) against labels (c,) or (k, c)."""
    index = labels.expand(logits.shape[:-1]).unsqueeze(-1)
    return -torch.log_softmax(logits, dim=-1).gather(-1, index).squeeze(-1)


class _BatchedMLP:
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


class _BatchedLeNet:
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
    def _stage1(y: Tensor) -> Tensor:
        """Max-pool and ReLU of window-split conv1 outputs (..., 2, 2, 14, 14)."""
        return F.relu(_pool(y))

    @staticmethod
    def _blocks(x: Tensor, maps: int, dim: int) -> tuple[Tensor, ...]:
        """Split images along ``dim`` into blocks whose ``maps`` conv1 maps (28 x 28 each) fit
        :data:`STAGE1_BLOCK_BYTES` on a CPU; one block elsewhere."""
        if x.device.type != "cpu":
            return (x,)
        per_image = maps * IMAGE_SHAPE[0] * IMAGE_SHAPE[1] * x.element_size()
        return x.split(max(1, STAGE1_BLOCK_BYTES // per_image), dim=dim)

    @classmethod
    def first_shared(cls, p: Stacked, x: Tensor) -> Tensor:
        """First-stage outputs (c, 6k, 14, 14) of k models on shared images (c, 28, 28).

        Block by block, one product of the 5x5 patches with all k * 6 filters. The patches are
        ordered by position in the pooling window, so that each of the four views the pooling
        compares is one contiguous block. The result is channels-last.
        """
        k = p["conv1.weight"].shape[0]
        weight = p["conv1.weight"].reshape(k * 6, 25).t()
        bias = p["conv1.bias"].reshape(-1)
        stages = []
        for xs in cls._blocks(x, 6 * k, 0):
            windows = F.pad(xs, (2, 2, 2, 2)).unfold(1, 5, 1).unfold(2, 5, 1)
            windows = windows.view(len(xs), 14, 2, 14, 2, 5, 5).permute(0, 2, 4, 1, 3, 5, 6)
            y = torch.addmm(bias, windows.reshape(-1, 25), weight)
            y = y.view(len(xs), 2, 2, 14, 14, 6 * k).permute(0, 5, 1, 2, 3, 4)
            stages.append(cls._stage1(y))
        return torch.cat(stages)

    @classmethod
    def first_own(cls, p: Stacked, x: Tensor) -> Tensor:
        """First-stage outputs (b, 6k, 14, 14) of each model on its own images (k, b, 28, 28):
        block by block, one grouped convolution in channels-last layout."""
        k = x.shape[0]
        w = p["conv1.weight"].reshape(k * 6, 1, 5, 5)
        bias = p["conv1.bias"].reshape(-1)
        stages = []
        for xs in cls._blocks(x, 6 * k, 1):
            xs = xs.transpose(0, 1).contiguous(memory_format=torch.channels_last)
            y = F.conv2d(xs, w, bias, padding=2, groups=k)
            stages.append(cls._stage1(_split_windows(y)))
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


_NETS: dict[str, type[_BatchedMLP] | type[_BatchedLeNet]] = {
    "mlp": _BatchedMLP,
    "lenet": _BatchedLeNet,
}


class BatchedEngine:
    """Train and evaluate the k local models of a round together.

    Parameters
    ----------
    model
        ``"mlp"`` or ``"lenet"`` (see :func:`fedlib.fl.models.make_model`).
    device
        ``"auto"``, ``"cpu"``, ``"cuda"`` or a :class:`torch.device`
        (see :func:`fedlib.fl.device.resolve_device`).
    dtype
        Floating-point type of parameters and images: float32, or float64 for exact checks.
    eval_chunk
        Validation samples evaluated at once; ``None`` sizes chunks by
        :data:`EVAL_CHUNK_BYTES`.

    Notes
    -----
    On a GPU the engine turns TF32 off for matrix products and convolutions (process-wide:
    ``torch.backends.cuda.matmul.allow_tf32`` and ``torch.backends.cudnn.allow_tf32``): with
    TF32 a product rounds its inputs to 10-bit mantissas, and the results would drift from the
    CPU's far beyond the cross-machine tolerance that stored results are verified with.

    Raises
    ------
    ValueError
        On an unknown model or device, a non-float dtype or a chunk below 1.

    Examples
    --------
    >>> engine = BatchedEngine("mlp", device="cpu")
    >>> gen = torch.Generator().manual_seed(0)
    >>> theta = engine.init_params(gen)
    >>> images, labels = torch.randn(3, 256, 28, 28), torch.randint(0, 10, (3, 256))
    >>> local = engine.train_local(theta, images, labels, batch_orders(3, 256, 1, gen))
    >>> local["fc1.weight"].shape
    torch.Size([3, 200, 784])
    >>> probs, l, l_minus = engine.probs_and_loo_losses(local, images[0], labels[0])
    >>> probs.shape, l_minus.shape
    (torch.Size([3, 256]), torch.Size([3]))
    """

    def __init__(
        self,
        model: str,
        device: str | torch.device = "auto",
        dtype: torch.dtype = torch.float32,
        eval_chunk: int | None = None,
    ) -> None:
        self._shapes = {key: tuple(v.shape) for key, v in make_model(model).state_dict().items()}
        if not dtype.is_floating_point:
            raise ValueError(f"dtype must be a floating-point type, got {dtype}")
        if eval_chunk is not None and eval_chunk < 1:
            raise ValueError(f"eval_chunk must be at least 1, got {eval_chunk}")
        self.model = model
        self.device = resolve_device(device)
        if self.device.type == "cuda":
            torch.backends.cuda.matmul.allow_tf32 = False
            torch.backends.cudnn.allow_tf32 = False
        self.dtype = dtype
        self.eval_chunk = eval_chunk
        self._net = _NETS[model]

    # ------------------------------------------------------------------ public API

    def init_params(self, generator: torch.Generator) -> Params:
        """Fresh parameters drawn like PyTorch's default initialisation of the model.

        The model is built by :func:`~fedlib.fl.models.make_model` under a forked global
        random state seeded from one draw of ``generator``, so the weights follow PyTorch's
        default distributions exactly and the same generator state gives the same weights.

        Parameters
        ----------
        generator
            A CPU ``torch.Generator``.

        Returns
        -------
        Params
            One model's parameters on the engine's device, in its dtype.
        """
        if generator.device.type != "cpu":
            raise ValueError(f"generator must be a CPU generator, got {generator.device}")
        seed = int(torch.randint(0, 2**62, (), generator=generator))
        with torch.random.fork_rng(devices=[]):
            torch.manual_seed(seed)
            module = make_model(self.model)
        return {
            key: value.detach().to(device=self.device, dtype=self.dtype)
            for key, value in module.state_dict().items()
        }

    def train_local(
        self,
        global_params: Params,
        images: Tensor | Sequence[Tensor],
        labels: Tensor | Sequence[Tensor],
        orders: Tensor,
        *,
        lr: float = 0.05,
        batch_size: int = 128,
    ) -> Stacked:
        """Train k local models from the same global model, each on its own data.

        Every worker runs plain SGD (no momentum or weight decay) on the mean cross-entropy of
        each mini-batch, visiting its samples in the order ``orders[i, epoch]`` cut into
        consecutive batches of ``batch_size`` (the last one may be smaller). All workers step
        together: one batched forward and backward pass per step.

        Parameters
        ----------
        global_params
            The starting model.
        images
            Preprocessed images (k, n, 28, 28) in the engine's dtype, or k tensors (n, 28, 28).
        labels
            int64 labels (k, n), or k tensors (n,).
        orders
            int64 (k, epochs, n), e.g. from :func:`batch_orders`; ``epochs = orders.shape[1]``.
        lr, batch_size
            SGD learning rate and mini-batch size.

        Returns
        -------
        Stacked
            The k trained local models.

        Raises
        ------
        ValueError
            On k = 0, workers with different n, mismatched shapes, a wrong dtype, labels
            outside 0-9, or a non-positive ``lr`` or ``batch_size``.
        """
        theta, _ = self._params(global_params, "global_params", stacked=False)
        images, labels = self._stack_workers(images, labels)
        k, n = images.shape[:2]
        images, labels = self._data(images, labels, (k,))
        if (
            orders.dtype != torch.int64
            or orders.dim() != 3
            or orders.shape[1] < 1
            or (orders.shape[0], orders.shape[2]) != (k, n)
        ):
            raise ValueError(
                f"orders must be int64 with shape (k={k}, epochs >= 1, n={n}), "
                f"got {orders.dtype} {tuple(orders.shape)}"
            )
        if lr <= 0 or batch_size < 1:
            raise ValueError(f"lr and batch_size must be positive, got {lr} and {batch_size}")
        orders = orders.to(self.device)
        rows = torch.arange(k, device=self.device).unsqueeze(1)
        params = {
            key: value.expand(k, *value.shape).clone().requires_grad_(True)
            for key, value in theta.items()
        }
        for epoch in range(orders.shape[1]):
            for index in orders[:, epoch].split(batch_size, dim=1):
                logits = self._net.rest(params, self._net.first_own(params, images[rows, index]))
                loss = _nll(logits, labels[rows, index]).sum() / index.shape[1]
                grads = torch.autograd.grad(loss, list(params.values()))
                with torch.no_grad():
                    for value, grad in zip(params.values(), grads, strict=True):
                        value.add_(grad, alpha=-lr)
        return {key: value.detach() for key, value in params.items()}

    def true_class_probs(self, stacked: Stacked, images: Tensor, labels: Tensor) -> Tensor:
        """Each local model's softmax probability of the true label on each sample.

        Parameters
        ----------
        stacked
            The k local models.
        images, labels
            Validation images (m, 28, 28) and int64 labels (m,).

        Returns
        -------
        Tensor
            P with shape (k, m) on the engine's device (the input of Eqs. (2)-(3)).
        """
        probs, _, _ = self._evaluate(stacked, images, labels, probs=True, loo=False)
        return probs

    def loo_losses(self, stacked: Stacked, images: Tensor, labels: Tensor) -> tuple[float, Tensor]:
        """Validation losses of the plain average of all k models and of each leave-one-out one.

        Parameters
        ----------
        stacked
            The k local models.
        images, labels
            Validation images (m, 28, 28) and int64 labels (m,).

        Returns
        -------
        l : float
            Mean cross-entropy of the average of all k models.
        l_minus : Tensor
            (k,) mean cross-entropy of the average without model i, on the engine's device;
            for k = 1 that average does not exist and ``l_minus`` is ``tensor([nan])``.
        """
        _, full, loo = self._evaluate(stacked, images, labels, probs=False, loo=True)
        return full, loo

    def probs_and_loo_losses(
        self, stacked: Stacked, images: Tensor, labels: Tensor
    ) -> tuple[Tensor, float, Tensor]:
        """:meth:`true_class_probs` and :meth:`loo_losses` in one pass over the images.

        Cheaper than the two calls (the local models' first layer serves both). Returns
        ``(probs, l, l_minus)``.
        """
        return self._evaluate(stacked, images, labels, probs=True, loo=True)

    def aggregate(self, stacked: Stacked, weights: Tensor) -> Params:
        """The weighted sum ``sum_i weights[i] * theta_i`` of the k local models.

        Parameters
        ----------
        stacked
            The k local models.
        weights
            (k,) aggregation weights (e.g. omega), any float dtype; not renormalised.

        Returns
        -------
        Params
            The aggregated model.
        """
        stacked, k = self._params(stacked, "stacked", stacked=True)
        weights = torch.as_tensor(weights)
        if tuple(weights.shape) != (k,) or not weights.dtype.is_floating_point:
            raise ValueError(
                f"weights must be a float tensor of shape ({k},), got "
                f"{weights.dtype} {tuple(weights.shape)}"
            )
        weights = weights.to(device=self.device, dtype=self.dtype)
        return {key: torch.tensordot(weights, value, dims=1) for key, value in stacked.items()}

    def evaluate(self, params: Params, images: Tensor, labels: Tensor) -> tuple[float, float]:
        """Mean cross-entropy and accuracy of one model on images (m, 28, 28), labels (m,)."""
        theta, _ = self._params(params, "params", stacked=False)
        losses, accuracies = self.evaluate_each(
            {key: value.unsqueeze(0) for key, value in theta.items()}, images, labels
        )
        return float(losses[0]), float(accuracies[0])

    @torch.no_grad()
    def evaluate_each(
        self, stacked: Stacked, images: Tensor, labels: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Mean cross-entropy and accuracy of each of k models, evaluated together.

        Parameters
        ----------
        stacked
            The k models.
        images, labels
            Images (m, 28, 28) and int64 labels (m,).

        Returns
        -------
        losses, accuracies : Tensor
            Two (k,) tensors on the engine's device; accuracies in float64.
        """
        stacked, k = self._params(stacked, "stacked", stacked=True)
        images, labels = self._data(images, labels, ())
        chunk = self._chunk(k)
        stages = (self._net.first_shared(stacked, x) for x in images.split(chunk))
        return self._score(stacked, k, stages, labels.split(chunk))

    @torch.no_grad()
    def evaluate_averages(
        self, stacked: Stacked, weights: Tensor, images: Tensor, labels: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Mean cross-entropy and accuracy of m weighted averages of the k models.

        Row r of ``weights`` defines the model ``sum_i weights[r, i] * theta_i``; e.g. the
        plain average of a coalition S has ``1/|S|`` on its members and 0 elsewhere. The
        averages are evaluated in blocks of rows (sized by :data:`EVAL_CHUNK_BYTES`). For the
        MLP the first layer is linear, so the averages' pre-activations are the same
        combinations of the k local models' ``W1_i x + b1_i``, computed once for all images:
        the images are read once, however many averages there are. For LeNet-5 each block's
        averaged parameters are evaluated like :meth:`evaluate_each`.

        Parameters
        ----------
        stacked
            The k models.
        weights
            (m, k) float weights, each row summing to 1 (to 1e-6).
        images, labels
            Images (n, 28, 28) and int64 labels (n,).

        Returns
        -------
        losses, accuracies : Tensor
            Two (m,) tensors on the engine's device; accuracies in float64.

        Raises
        ------
        ValueError
            On bad models or data (as :meth:`evaluate_each`), or weights that are not a finite
            float (m >= 1, k) array with rows summing to 1.
        """
        stacked, k = self._params(stacked, "stacked", stacked=True)
        images, labels = self._data(images, labels, ())
        weights = torch.as_tensor(weights)
        if weights.dim() != 2 or weights.shape[0] < 1 or weights.shape[1] != k or not (
            weights.dtype.is_floating_point
        ):
            raise ValueError(f"weights must be a float tensor of shape (m >= 1, {k}), got "
                             f"{weights.dtype} {tuple(weights.shape)}")
        weights = weights.to(device=self.device, dtype=self.dtype)
        if not torch.isfinite(weights).all() or (weights.sum(1) - 1).abs().max() > 1e-6:
            raise ValueError("weights must be finite and every row must sum to 1")
        combine = self._net.combine_first_stage
        keys = [key for key in stacked if not (combine and key in self._net.first_keys)]
        per_model = sum(stacked[key][0].numel() for key in keys) * self.dtype.itemsize
        budget = EVAL_CHUNK_BYTES.get(self.device.type, EVAL_CHUNK_BYTES["cuda"])
        if combine:
            shared = torch.cat([self._net.first_shared(stacked, x)
                                for x in images.split(self._chunk(k))])
        losses, accuracies = [], []
        for rows in weights.split(max(1, budget // per_model)):
            models = {key: torch.tensordot(rows, stacked[key], dims=1) for key in keys}
            if combine:
                chunk = self._chunk(len(rows))
                stages = (torch.matmul(rows, z) for z in shared.split(chunk))
                loss, accuracy = self._score(models, len(rows), stages, labels.split(chunk))
            else:
                loss, accuracy = self.evaluate_each(models, images, labels)
            losses.append(loss)
            accuracies.append(accuracy)
        return torch.cat(losses), torch.cat(accuracies)

    # ------------------------------------------------------------------ internals

    @torch.no_grad()
    def _evaluate(
        self, stacked: Stacked, images: Tensor, labels: Tensor, *, probs: bool, loo: bool
    ) -> tuple[Tensor, float, Tensor]:
        """The pass behind :meth:`true_class_probs` and :meth:`loo_losses`: the local models
        (for ``probs``) followed by the k + 1 aggregates (for ``loo``) as one stack."""
        stacked, k = self._params(stacked, "stacked", stacked=True)
        images, labels = self._data(images, labels, ())
        if loo:
            models = {key: _with_averages(value, 0, probs) for key, value in stacked.items()}
        else:
            models = stacked
        combine = loo and self._net.combine_first_stage
        p = torch.empty(k if probs else 0, len(labels), dtype=self.dtype, device=self.device)
        losses = torch.zeros(k + 1 if loo else 0, dtype=self.dtype, device=self.device)
        chunk = self._chunk(probs * k + loo * (k + 1))
        for start in range(0, len(labels), chunk):
            x, y = images[start : start + chunk], labels[start : start + chunk]
            if combine:
                z = _with_averages(self._net.first_shared(stacked, x), 1, probs)
            else:
                z = self._net.first_shared(models, x)
            nll = _nll(self._net.rest(models, z), y)
            if probs:
                p[:, start : start + len(y)] = torch.exp(-nll[:k])
            if loo:
                losses += nll[-(k + 1) :].sum(1)
        losses /= len(labels)
        return p, float(losses[-1]) if loo else float("nan"), losses[:k]

    def _score(self, models: Stacked, k: int, stages: Iterable[Tensor],
               labels: Sequence[Tensor]) -> tuple[Tensor, Tensor]:
        """Mean cross-entropy and accuracy (float64) of k models from their first-stage
        outputs, one chunk of samples at a time (``stages`` and ``labels`` chunk by chunk)."""
        losses = torch.zeros(k, dtype=self.dtype, device=self.device)
        correct = torch.zeros(k, dtype=torch.int64, device=self.device)
        total = 0
        for z, y in zip(stages, labels, strict=True):
            logits = self._net.rest(models, z)
            losses += _nll(logits, y).sum(1)
            correct += (logits.argmax(-1) == y).sum(1)
            total += len(y)
        return losses / total, correct.to(torch.float64) / total

    def _chunk(self, models: int) -> int:
        """Validation samples per chunk when evaluating ``models`` models at once."""
        if self.eval_chunk is not None:
            return self.eval_chunk
        budget = EVAL_CHUNK_BYTES.get(self.device.type, EVAL_CHUNK_BYTES["cuda"])
        per_sample = models * self._net.eval_features * self.dtype.itemsize
        return max(1, budget // per_sample)

    def _stack_workers(
        self, images: Tensor | Sequence[Tensor], labels: Tensor | Sequence[Tensor]
    ) -> tuple[Tensor, Tensor]:
        """Stack per-worker sequences of images and labels, which must have equal sizes."""
        if isinstance(images, Tensor) and isinstance(labels, Tensor):
            if images.dim() == 0 or len(images) == 0:
                raise ValueError("images must hold at least one worker (k >= 1), got k = 0")
            return images, labels
        images, labels = list(images), list(labels)
        if not images:
            raise ValueError("images must hold at least one worker (k >= 1), got k = 0")
        sizes = {len(x) for x in images} | {len(y) for y in labels}
        if len(sizes) != 1 or len(images) != len(labels):
            raise ValueError(
                "images and labels must hold the same number n of samples for every worker, "
                f"got {[len(x) for x in images]} images and {[len(y) for y in labels]} labels"
            )
        return torch.stack(images), torch.stack(labels)

    def _params(self, params: Params, name: str, stacked: bool) -> tuple[Params, int]:
        """Check keys, shapes and dtype; return the parameters on the device, and k."""
        if set(params) != set(self._shapes):
            raise ValueError(
                f"{name} must have the keys of the {self.model!r} model "
                f"{sorted(self._shapes)}, got {sorted(params)}"
            )
        first = params[next(iter(self._shapes))]
        k = (first.shape[0] if first.dim() else 0) if stacked else 1
        if k < 1:
            raise ValueError(f"{name} must hold at least one model (k >= 1), got k = 0")
        for key, shape in self._shapes.items():
            value = params[key]
            expected = (k, *shape) if stacked else shape
            if tuple(value.shape) != expected:
                raise ValueError(
                    f"{name}[{key!r}] must have shape {expected}, got {tuple(value.shape)}"
                )
            if value.dtype != self.dtype:
                raise ValueError(f"{name}[{key!r}] must have dtype {self.dtype}, got {value.dtype}")
        return {key: value.to(self.device) for key, value in params.items()}, k

    def _data(self, images: Tensor, labels: Tensor, lead: tuple[int, ...]) -> tuple[Tensor, Tensor]:
        """Check images (*lead, n, 28, 28) and labels (*lead, n); move them to the device."""
        dims = len(lead) + 1
        expected = "(k, n, 28, 28)" if lead else "(m, 28, 28)"
        if images.dim() != dims + 2 or tuple(images.shape[-2:]) != IMAGE_SHAPE:
            raise ValueError(f"images must have shape {expected}, got {tuple(images.shape)}")
        if tuple(images.shape[: len(lead)]) != lead:
            raise ValueError(
                f"images must have shape {expected} with k = {lead[0]}, got {tuple(images.shape)}"
            )
        if images.shape[dims - 1] == 0:
            raise ValueError("images must hold at least one sample")
        if images.dtype != self.dtype:
            raise ValueError(
                f"images must be preprocessed to dtype {self.dtype}, got {images.dtype}"
            )
        if labels.dtype != torch.int64:
            raise ValueError(f"labels must have dtype torch.int64, got {labels.dtype}")
        if tuple(labels.shape) != tuple(images.shape[:dims]):
            raise ValueError(
                f"labels must have shape {tuple(images.shape[:dims])} to match "
                f"images, got {tuple(labels.shape)}"
            )
        low, high = int(labels.min()), int(labels.max())
        if low < 0 or high >= NUM_CLASSES:
            raise ValueError(f"labels must lie in [0, {NUM_CLASSES}), got [{low}, {high}]")
        return images.to(self.device), labels.to(self.device)
