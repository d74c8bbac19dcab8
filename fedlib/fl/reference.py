"""The plain per-worker loop: one ``nn.Module`` and one ``torch.optim.SGD`` per worker.

It computes what :class:`fedlib.fl.engine.BatchedEngine` computes, in the most obvious way, with
the same arguments (plus the model name first). It is the ground truth of the equivalence test
and the baseline of ``benchmarks/round_speed.py``; experiments use the engine.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

from fedlib.fl.batched import Params, Stacked
from fedlib.fl.models import make_model


def _module(model: str, params: Params) -> nn.Module:
    """A model holding ``params`` (on their device and in their dtype)."""
    first = next(iter(params.values()))
    module = make_model(model).to(device=first.device, dtype=first.dtype)
    module.load_state_dict(params)
    return module


def _stack(models: list[Params]) -> Stacked:
    return {key: torch.stack([p[key] for p in models]) for key in models[0]}


def _unstack(stacked: Stacked) -> list[Params]:
    k = len(next(iter(stacked.values())))
    return [{key: value[i] for key, value in stacked.items()} for i in range(k)]


def train_local(
    model: str,
    global_params: Params,
    images: Tensor,
    labels: Tensor,
    orders: Tensor,
    *,
    lr: float = 0.05,
    batch_size: int = 128,
    momentum: float = 0.0,
) -> Stacked:
    """Train each worker's copy of the global model in turn (see ``BatchedEngine.train_local``)."""
    trained = []
    for x, y, order in zip(images, labels, orders, strict=True):
        module = _module(model, global_params)
        optimizer = torch.optim.SGD(module.parameters(), lr=lr, momentum=momentum)
        for epoch_order in order:
            for index in epoch_order.split(batch_size):
                optimizer.zero_grad()
                F.cross_entropy(module(x[index]), y[index]).backward()
                optimizer.step()
        trained.append({key: value.detach() for key, value in module.state_dict().items()})
    return _stack(trained)


@torch.no_grad()
def _logits(model: str, params: Params, images: Tensor) -> Tensor:
    return _module(model, params)(images)


def true_class_probs(model: str, stacked: Stacked, images: Tensor, labels: Tensor) -> Tensor:
    """P (k, m): softmax probability of the true label, one model at a time."""
    rows = [
        torch.softmax(_logits(model, params, images), dim=1)[
            torch.arange(len(labels), device=labels.device), labels
        ]
        for params in _unstack(stacked)
    ]
    return torch.stack(rows)


def _loss(model: str, params: Params, images: Tensor, labels: Tensor) -> float:
    return float(F.cross_entropy(_logits(model, params, images), labels))


def loo_losses(
    model: str, stacked: Stacked, images: Tensor, labels: Tensor
) -> tuple[float, Tensor]:
    """Loss of the average of all models and (k,) losses of each explicit leave-one-out average."""
    models = _unstack(stacked)
    average = {key: value.mean(0) for key, value in stacked.items()}
    l_minus = []
    for i in range(len(models)):
        rest = [params for j, params in enumerate(models) if j != i]
        if rest:
            mean = {key: value.mean(0) for key, value in _stack(rest).items()}
            l_minus.append(_loss(model, mean, images, labels))
        else:
            l_minus.append(float("nan"))
    first = next(iter(stacked.values()))
    return _loss(model, average, images, labels), torch.tensor(l_minus, dtype=first.dtype)
