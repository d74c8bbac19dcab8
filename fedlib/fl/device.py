"""Choosing the compute device: "auto" (CUDA when present, else CPU), "cpu" or "cuda"; and
what the machine's CPU is."""

from __future__ import annotations

import functools
from pathlib import Path

import torch


def resolve_device(device: str | torch.device = "auto") -> torch.device:
    """Turn a device request into a :class:`torch.device`.

    Parameters
    ----------
    device
        ``"auto"`` picks ``cuda`` when a GPU is available and ``cpu`` otherwise; any other
        string or :class:`torch.device` that torch understands (``"cpu"``, ``"cuda"``,
        ``"cuda:1"``) is taken as it is.

    Returns
    -------
    torch.device
        The device to compute on.

    Examples
    --------
    >>> resolve_device("cpu")
    device(type='cpu')
    """
    if isinstance(device, str) and device == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    try:
        resolved = torch.device(device)
    except (RuntimeError, TypeError) as error:
        raise ValueError(
            f"device must be 'auto', 'cpu', 'cuda' or a torch.device, got {device!r}"
        ) from error
    if resolved.type == "cuda" and not torch.cuda.is_available():
        raise ValueError(
            f"device={device!r} asks for a GPU, but torch sees no CUDA device on this machine "
            "(use device='auto' or 'cpu')"
        )
    return resolved


def exact_float32(device: torch.device) -> None:
    """On a GPU, turn TF32 off for matrix products and convolutions (process-wide:
    ``torch.backends.cuda.matmul.allow_tf32`` and ``torch.backends.cudnn.allow_tf32``); on a CPU
    nothing. With TF32 a product rounds its inputs to 10-bit mantissas, and results would drift
    from the CPU's far beyond the cross-machine tolerance of the stored-results check. Every
    engine on a GPU calls it, and so does the fingerprint of a GPU environment, which then
    reports the switches the runs use."""
    if device.type == "cuda":
        torch.backends.cuda.matmul.allow_tf32 = False
        torch.backends.cudnn.allow_tf32 = False


@functools.cache
def cpu_field(field: str) -> str | None:
    """A field of ``/proc/cpuinfo`` for the first CPU (``"model name"``, ``"vendor_id"``), or
    None where there is no such file or field."""
    cpuinfo = Path("/proc/cpuinfo")
    if not cpuinfo.exists():
        return None
    for line in cpuinfo.read_text().splitlines():
        if line.split(":", 1)[0].strip() == field:
            return line.split(":", 1)[1].strip()
    return None
