"""The models of the paper's experiments: a fully connected network on MNIST and LeNet-5 on
Fashion-MNIST (:mod:`fedlib.fl.models`)."""

from torch import nn

from fedlib.fl.models import MLP, MODEL_FOR_DATASET, LeNet5, make_model


def model_for(dataset: str) -> nn.Module:
    """A freshly initialised model of ``dataset``'s experiments (``"mnist"``: :class:`MLP`,
    ``"fashion"``: :class:`LeNet5`)."""
    if dataset not in MODEL_FOR_DATASET:
        raise ValueError(f"dataset must be one of {', '.join(MODEL_FOR_DATASET)}, "
                         f"got {dataset!r}")
    return make_model(MODEL_FOR_DATASET[dataset])


__all__ = ["MLP", "MODEL_FOR_DATASET", "LeNet5", "model_for"]
