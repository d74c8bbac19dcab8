"""What :class:`fedlib.fl.engine.BatchedEngine` accepts: the checks at its public entry points.

Every method of the engine validates its arguments before any computation, so that a wrong
shape, dtype or label range fails with a message naming the argument instead of deep inside a
batched product. :class:`EngineInputs` holds what the checks compare against (the model's
parameter shapes, the engine's dtype and device); each of its methods checks one kind of
argument and returns it on the engine's device.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass

import torch
from torch import Tensor

from fedlib.checks import integer
from fedlib.fl.batched import Params
from fedlib.fl.models import IMAGE_SHAPE, NUM_CLASSES


@dataclass(frozen=True)
class EngineInputs:
    """The checks of one engine's arguments.

    Attributes
    ----------
    model : str
        ``"mlp"`` or ``"lenet"``.
    shapes : dict of str to tuple of int
        The shape of each parameter of one model, keyed by its ``state_dict`` name.
    dtype : torch.dtype
        The engine's floating-point type (of parameters, images and weights).
    device : torch.device
        Where the checked arguments are moved.
    """

    model: str
    shapes: dict[str, tuple[int, ...]]
    dtype: torch.dtype
    device: torch.device

    @staticmethod
    def workers(
        images: Tensor | Sequence[Tensor], labels: Tensor | Sequence[Tensor]
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

    def params(self, params: Params, name: str, stacked: bool) -> tuple[Params, int]:
        """Check keys, shapes and dtype; return the parameters on the device, and k."""
        if set(params) != set(self.shapes):
            raise ValueError(
                f"{name} must have the keys of the {self.model!r} model "
                f"{sorted(self.shapes)}, got {sorted(params)}"
            )
        first = params[next(iter(self.shapes))]
        k = (first.shape[0] if first.dim() else 0) if stacked else 1
        if k < 1:
            raise ValueError(f"{name} must hold at least one model (k >= 1), got k = 0")
        for key, shape in self.shapes.items():
            value = params[key]
            expected = (k, *shape) if stacked else shape
            if tuple(value.shape) != expected:
                raise ValueError(
                    f"{name}[{key!r}] must have shape {expected}, got {tuple(value.shape)}"
                )
            if value.dtype != self.dtype:
                raise ValueError(f"{name}[{key!r}] must have dtype {self.dtype}, got {value.dtype}")
        return {key: value.to(self.device) for key, value in params.items()}, k

    def data(self, images: Tensor, labels: Tensor, lead: tuple[int, ...]) -> tuple[Tensor, Tensor]:
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

    def weights(self, weights: Tensor, k: int, *, rows: bool) -> Tensor:
        """Check float weights over k models; return them on the device, in the engine's dtype.

        Without ``rows`` the weights are one vector (k,) of aggregation weights, taken as they
        are; with ``rows`` they are (m >= 1, k), one weighted average a row, and every row must
        be finite and sum to 1 (to 1e-6).
        """
        weights = torch.as_tensor(weights)
        shape = tuple(weights.shape)
        fits = (len(shape) == 2 and shape[0] >= 1 and shape[1] == k) if rows else shape == (k,)
        if not fits or not weights.dtype.is_floating_point:
            expected = f"(m >= 1, {k})" if rows else f"({k},)"
            raise ValueError(
                f"weights must be a float tensor of shape {expected}, got {weights.dtype} {shape}"
            )
        weights = weights.to(device=self.device, dtype=self.dtype)
        if rows and (not torch.isfinite(weights).all() or (weights.sum(1) - 1).abs().max() > 1e-6):
            raise ValueError("weights must be finite and every row must sum to 1")
        return weights


def sgd_settings(lr: float, batch_size: int, momentum: float) -> None:
    """Check the settings of local SGD: ``lr > 0``, ``batch_size`` a positive integer and
    ``momentum`` in [0, 1) (the checks of :meth:`~fedlib.fl.engine.BatchedEngine.train_local`
    and of :class:`~fedlib.fl.task.TaskOptions`, which checks them before a run starts)."""
    integer(batch_size, "batch_size")
    if not lr > 0:
        raise ValueError(f"lr must be positive, got {lr!r}")
    if not 0 <= momentum < 1:
        raise ValueError(f"momentum must lie in [0, 1), got {momentum!r}")
