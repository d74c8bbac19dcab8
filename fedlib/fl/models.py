"""The paper's two models as ordinary ``torch.nn.Module``s, and the image preprocessing.

MNIST uses a fully connected network (784-200-200-10, ReLU); Fashion-MNIST uses LeNet-5 (conv
6@5x5 with padding 2, 2x2 max-pool, conv 16@5x5, 2x2 max-pool, 400-120-84-10, ReLU). Both take
preprocessed images of shape (batch, 28, 28) (or (batch, 1, 28, 28)) and return logits
(batch, 10). Their ``state_dict`` names (``fc1.weight``, ``conv1.bias``, ...) are the keys of
the parameter dictionaries used by :mod:`fedlib.fl.engine`.
"""

from __future__ import annotations

import torch
from torch import Tensor, nn
from torch.nn import functional as F

#: The model the paper trains on each dataset.
MODEL_FOR_DATASET = {"mnist": "mlp", "fashion": "lenet"}

#: Mean and standard deviation of MNIST's training pixels (after scaling to [0, 1]). The
#: paper does not say how it normalises; these widely used constants are applied to both
#: datasets so that one affine map serves everywhere (the first layer could absorb any other).
PIXEL_MEAN = 0.1307
PIXEL_STD = 0.3081

IMAGE_SHAPE = (28, 28)
NUM_CLASSES = 10


class MLP(nn.Module):
    """The fully connected MNIST model: 784-200-200-10 with ReLU."""

    def __init__(self) -> None:
        super().__init__()
        self.fc1 = nn.Linear(784, 200)
        self.fc2 = nn.Linear(200, 200)
        self.fc3 = nn.Linear(200, NUM_CLASSES)

    def forward(self, x: Tensor) -> Tensor:
        """Logits (batch, 10) of images (batch, 28, 28)."""
        x = F.relu(self.fc1(x.flatten(1)))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


class LeNet5(nn.Module):
    """LeNet-5 for Fashion-MNIST: two convolution/max-pool stages, then 400-120-84-10."""

    def __init__(self) -> None:
        super().__init__()
        self.conv1 = nn.Conv2d(1, 6, kernel_size=5, padding=2)
        self.conv2 = nn.Conv2d(6, 16, kernel_size=5)
        self.fc1 = nn.Linear(16 * 5 * 5, 120)
        self.fc2 = nn.Linear(120, 84)
        self.fc3 = nn.Linear(84, NUM_CLASSES)

    def forward(self, x: Tensor) -> Tensor:
        """Logits (batch, 10) of images (batch, 28, 28) or (batch, 1, 28, 28)."""
        x = x.reshape(-1, 1, *IMAGE_SHAPE)
        x = F.max_pool2d(F.relu(self.conv1(x)), 2)
        x = F.max_pool2d(F.relu(self.conv2(x)), 2)
        x = F.relu(self.fc1(x.flatten(1)))
        x = F.relu(self.fc2(x))
        return self.fc3(x)


_MODELS: dict[str, type[nn.Module]] = {"mlp": MLP, "lenet": LeNet5}


def make_model(name: str) -> nn.Module:
    """A freshly initialised model, with PyTorch's default initialisation.

    Parameters
    ----------
    name
        ``"mlp"`` (MNIST) or ``"lenet"`` (Fashion-MNIST); see :data:`MODEL_FOR_DATASET`.

    Returns
    -------
    torch.nn.Module
        The model in float32 on the CPU, drawn from torch's global random generator.
    """
    if name not in _MODELS:
        raise ValueError(f"model must be one of {sorted(_MODELS)}, got {name!r}")
    return _MODELS[name]()


def preprocess(
    images_uint8: Tensor,
    device: str | torch.device = "cpu",
    dtype: torch.dtype = torch.float32,
) -> Tensor:
    """Scale uint8 images to [0, 1] and standardise them with :data:`PIXEL_MEAN`/:data:`PIXEL_STD`.

    Parameters
    ----------
    images_uint8
        Images of any leading shape ``(..., 28, 28)``, dtype ``torch.uint8``.
    device, dtype
        Where and in which floating-point type to put the result.

    Returns
    -------
    Tensor
        ``(images / 255 - PIXEL_MEAN) / PIXEL_STD``, same shape as the input.
    """
    if images_uint8.dtype != torch.uint8:
        raise ValueError(f"images_uint8 must have dtype torch.uint8, got {images_uint8.dtype}")
    if tuple(images_uint8.shape[-2:]) != IMAGE_SHAPE:
        raise ValueError(
            f"images_uint8 must have shape (..., 28, 28), got {tuple(images_uint8.shape)}"
        )
    if not dtype.is_floating_point:
        raise ValueError(f"dtype must be a floating-point type, got {dtype}")
    x = images_uint8.to(device=device, dtype=dtype)
    return x.div_(255.0).sub_(PIXEL_MEAN).div_(PIXEL_STD)
