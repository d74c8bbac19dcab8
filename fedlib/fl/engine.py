"""The batched engine: the k local models of a round trained and evaluated in one pass.

:class:`BatchedEngine` is what a federated task (:mod:`fedlib.fl.task`) calls in every global
round: it draws initial weights, trains the k local models from the global one (one batched
SGD step for all workers at a time, on mini-batches cut from the random orders of
:func:`batch_orders`), measures each local model's probability ``P[i, j]`` of the true label of
validation sample ``j`` (the input of the paper's Eqs. (2)-(3)), runs the leave-one-out check's
validation losses ``l`` and ``l_{-i}`` (Section 4.2), and aggregates. How the k models are
represented and run layer by layer is in :mod:`fedlib.fl.batched`; what the engine accepts is
checked by :mod:`fedlib.fl.inputs`; :mod:`fedlib.fl.reference` computes the same with one
``nn.Module`` per worker.

Evaluation runs the local models and the k + 1 plain-average aggregates of the leave-one-out
check as one stack of 2k + 1 models: the average without model i is ``(S - theta_i) / (k - 1)``
with ``S`` the sum of all k, the full average ``S / k``. For the MLP the aggregates'
first-layer pre-activations follow from the local models' ``a_i = W1_i x + b1_i`` by the same
formula, without touching the images again (for LeNet-5 computing them directly is cheaper).

Randomness enters only through explicit ``torch.Generator`` objects (initial weights, batch
orders); on a CPU a run is reproducible bit for bit (same machine and number of threads).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence

import torch
from torch import Tensor

from fedlib.fl.batched import BATCHED_NETS, Params, Stacked, sample_losses, with_loo_averages
from fedlib.fl.device import exact_float32, resolve_device
from fedlib.fl.inputs import EngineInputs, sgd_settings
from fedlib.fl.models import NUM_CLASSES, make_model

#: Bytes of the widest activation of all evaluated models per evaluation chunk, by device
#: type (any other device uses the ``"cuda"`` value). On a CPU this keeps every intermediate
#: tensor below glibc's 32 MiB ``mmap`` threshold, so that its memory is reused instead of
#: being mapped afresh (and page-faulted) for every chunk.
EVAL_CHUNK_BYTES = {"cpu": 24 << 20, "cuda": 256 << 20}


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
    In the methods, ``stacked`` holds k models (every parameter with a leading axis of length
    k), ``images`` are preprocessed images (m, 28, 28) in the engine's dtype and ``labels``
    their int64 labels (m,). On a GPU the engine turns TF32 off for matrix products and
    convolutions, process-wide (:func:`~fedlib.fl.device.exact_float32`).

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
        shapes = {key: tuple(v.shape) for key, v in make_model(model).state_dict().items()}
        if not dtype.is_floating_point:
            raise ValueError(f"dtype must be a floating-point type, got {dtype}")
        if eval_chunk is not None and eval_chunk < 1:
            raise ValueError(f"eval_chunk must be at least 1, got {eval_chunk}")
        self.model = model
        self.device = resolve_device(device)
        exact_float32(self.device)
        self.dtype = dtype
        self.eval_chunk = eval_chunk
        self._net = BATCHED_NETS[model]
        self._inputs = EngineInputs(model, shapes, dtype, self.device)

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
        momentum: float = 0.0,
    ) -> Stacked:
        """Train k local models from the same global model, each on its own data.

        Every worker runs SGD (no weight decay; heavy-ball momentum as ``torch.optim.SGD``
        applies it, its buffer starting at zero every call) on the mean cross-entropy of
        each mini-batch, visiting its samples in the order ``orders[i, epoch]`` cut into
        consecutive batches of ``batch_size`` (the last one may be smaller). All workers step
        together: one batched forward and backward pass per step.

        Parameters
        ----------
        global_params
            The starting model, shared by the k workers.
        images
            Preprocessed images (k, n, 28, 28) in the engine's dtype, or k tensors (n, 28, 28).
        labels
            int64 labels (k, n), or k tensors (n,).
        orders
            int64 (k, epochs, n), e.g. from :func:`batch_orders`;
            ``epochs = orders.shape[1]``.
        lr, batch_size
            SGD learning rate and mini-batch size.
        momentum
            SGD momentum in [0, 1) (0: plain SGD, the paper's reading).

        Returns
        -------
        Stacked
            The k trained local models.
        """
        images, labels = self._inputs.workers(images, labels)
        k, n = images.shape[:2]
        theta, _ = self._inputs.params(global_params, "global_params", stacked=False)
        images, labels = self._inputs.data(images, labels, (k,))
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
        sgd_settings(lr, batch_size, momentum)
        orders = orders.to(self.device)
        rows = torch.arange(k, device=self.device).unsqueeze(1)
        params = {key: value.expand(k, *value.shape).clone().requires_grad_(True)
                  for key, value in theta.items()}
        velocity = [torch.zeros_like(value) for value in params.values()] if momentum else None
        for epoch in range(orders.shape[1]):
            for index in orders[:, epoch].split(batch_size, dim=1):
                logits = self._net.rest(params, self._net.first_own(params, images[rows, index]))
                loss = sample_losses(logits, labels[rows, index]).sum() / index.shape[1]
                grads = torch.autograd.grad(loss, list(params.values()))
                with torch.no_grad():
                    if velocity is not None:
                        for buffer, grad in zip(velocity, grads, strict=True):
                            buffer.mul_(momentum).add_(grad)
                        grads = velocity
                    for value, grad in zip(params.values(), grads, strict=True):
                        value.add_(grad, alpha=-lr)
        return {key: value.detach() for key, value in params.items()}

    def true_class_probs(self, stacked: Stacked, images: Tensor, labels: Tensor) -> Tensor:
        """Each local model's softmax probability of the true label on each sample.

        Returns
        -------
        Tensor
            P with shape (k, m) on the engine's device (the input of Eqs. (2)-(3)).
        """
        return self._evaluate(stacked, images, labels, loo=False)[0]

    def probs_and_loo_losses(
        self, stacked: Stacked, images: Tensor, labels: Tensor
    ) -> tuple[Tensor, float, Tensor]:
        """:meth:`true_class_probs` and the leave-one-out check's validation losses (Section
        4.2), in one pass over the images (the local models' first layer serves both).

        Returns
        -------
        probs : Tensor
            P with shape (k, m), as :meth:`true_class_probs`.
        l : float
            Mean cross-entropy of the plain average of all k models.
        l_minus : Tensor
            (k,) mean cross-entropy of the average without model i, on the engine's device;
            for k = 1 that average does not exist and ``l_minus`` is ``tensor([nan])``.
        """
        probs, sums = self._evaluate(stacked, images, labels, loo=True)
        losses = sums / len(labels)
        return probs, float(losses[-1]), losses[:-1]

    def probs_and_label_losses(
        self, stacked: Stacked, images: Tensor, labels: Tensor
    ) -> tuple[Tensor, Tensor]:
        """:meth:`probs_and_loo_losses` with the leave-one-out losses summed by true label, so
        that the check can be made on any worker's own labels (the own-label variant of
        :func:`fedlib.fl.task.score_round`).

        Returns
        -------
        probs : Tensor
            P with shape (k, m), as :meth:`true_class_probs`.
        sums : Tensor
            (k + 1, 10) summed cross-entropy on the samples of each label: row i of the
            plain average without model i, row k of the average of all k models (rows of NaN
            for k = 1, whose leave-one-out average does not exist).
        """
        return self._evaluate(stacked, images, labels, loo=True, by_label=True)

    def aggregate(self, stacked: Stacked, weights: Tensor) -> Params:
        """The weighted sum ``sum_i weights[i] * theta_i`` of the k local models.

        Parameters
        ----------
        weights
            (k,) aggregation weights (e.g. omega, Section 4.2), any float dtype; not renormalised.

        Returns
        -------
        Params
            The aggregated model.
        """
        stacked, k = self._inputs.params(stacked, "stacked", stacked=True)
        weights = self._inputs.weights(weights, k, rows=False)
        return {key: torch.tensordot(weights, value, dims=1) for key, value in stacked.items()}

    def evaluate(self, params: Params, images: Tensor, labels: Tensor) -> tuple[float, float]:
        """Mean cross-entropy and accuracy of one model on images (m, 28, 28), labels (m,)."""
        theta, _ = self._inputs.params(params, "params", stacked=False)
        losses, accuracies = self.evaluate_each(
            {key: value.unsqueeze(0) for key, value in theta.items()}, images, labels
        )
        return float(losses[0]), float(accuracies[0])

    @torch.no_grad()
    def evaluate_each(
        self, stacked: Stacked, images: Tensor, labels: Tensor
    ) -> tuple[Tensor, Tensor]:
        """Mean cross-entropy and accuracy of each of k models, evaluated together.

        Returns
        -------
        losses, accuracies : Tensor
            Two (k,) tensors on the engine's device; accuracies in float64.
        """
        stacked, k = self._inputs.params(stacked, "stacked", stacked=True)
        images, labels = self._inputs.data(images, labels, ())
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
        weights
            (m, k) float weights, each row summing to 1 (to 1e-6).
        images, labels
            Images (n, 28, 28) and int64 labels (n,).

        Returns
        -------
        losses, accuracies : Tensor
            Two (m,) tensors on the engine's device; accuracies in float64.
        """
        stacked, k = self._inputs.params(stacked, "stacked", stacked=True)
        images, labels = self._inputs.data(images, labels, ())
        weights = self._inputs.weights(weights, k, rows=True)
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
        self, stacked: Stacked, images: Tensor, labels: Tensor, *, loo: bool,
        by_label: bool = False
    ) -> tuple[Tensor, Tensor]:
        """The pass behind :meth:`true_class_probs`, :meth:`probs_and_loo_losses` and
        :meth:`probs_and_label_losses`: the local models followed (for ``loo``) by the k + 1
        aggregates as one stack. Returns P and the aggregates' summed losses: (k + 1,), or
        (k + 1, 10) by true label with ``by_label``; empty without ``loo``."""
        stacked, k = self._inputs.params(stacked, "stacked", stacked=True)
        images, labels = self._inputs.data(images, labels, ())
        if loo:
            models = {key: with_loo_averages(value, 0) for key, value in stacked.items()}
        else:
            models = stacked
        combine = loo and self._net.combine_first_stage
        p = torch.empty(k, len(labels), dtype=self.dtype, device=self.device)
        shape = (k + 1 if loo else 0, NUM_CLASSES) if by_label else (k + 1 if loo else 0,)
        losses = torch.zeros(shape, dtype=self.dtype, device=self.device)
        chunk = self._chunk(k + loo * (k + 1))
        for start in range(0, len(labels), chunk):
            x, y = images[start : start + chunk], labels[start : start + chunk]
            if combine:
                z = with_loo_averages(self._net.first_shared(stacked, x), 1)
            else:
                z = self._net.first_shared(models, x)
            nll = sample_losses(self._net.rest(models, z), y)
            p[:, start : start + len(y)] = torch.exp(-nll[:k])
            if loo and by_label:
                losses.index_add_(1, y, nll[-(k + 1) :])
            elif loo:
                losses += nll[-(k + 1) :].sum(1)
        return p, losses

    def _score(self, models: Stacked, k: int, stages: Iterable[Tensor],
               labels: Sequence[Tensor]) -> tuple[Tensor, Tensor]:
        """Mean cross-entropy and accuracy (float64) of k models from their first-stage
        outputs, one chunk of samples at a time (``stages`` and ``labels`` chunk by chunk)."""
        losses = torch.zeros(k, dtype=self.dtype, device=self.device)
        correct = torch.zeros(k, dtype=torch.int64, device=self.device)
        total = 0
        for z, y in zip(stages, labels, strict=True):
            logits = self._net.rest(models, z)
            losses += sample_losses(logits, y).sum(1)
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
