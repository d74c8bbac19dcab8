"""The environment a result is computed in, as far as it decides the float rounding.

float32 training gives slightly different numbers on another CPU model, another instruction set
that torch dispatches to, another torch or numpy build, another thread count or a GPU, and the
differences grow through training. A stored result therefore records the :func:`fingerprint`
of the environment that made it, and verification compares the recomputing environment's
fingerprint with it (:mod:`fedlib.storage.verification`): the same fingerprint must
reproduce every number to 1e-6, another one only to the measured cross-machine drift.

The fingerprint holds the device (and GPU name, with the TF32 switches), the CPU's vendor and
model, the instruction set level torch's CPU kernels dispatch to
(``torch.backends.cpu.get_cpu_capability()``), the variables that lower the level of the
math libraries (:data:`ISA_VARIABLES`), the torch and numpy versions, the torch threads of the
run, and the SHA-256 of the checkout's lock file (:data:`LOCK_NAME`) where its pins of the
packages that compute (:data:`NUMERIC_PACKAGES`) are the versions installed (None otherwise: a
machine that installed other versions, or ran outside a checkout, did not compute with the
lock's environment). Two environments are the
same when everything but the lock's hash agrees (:func:`same_environment`): the hash records
which lock was installed, and adding a package that computes nothing (scipy for the seed
statistics) must not turn every stored result into another environment's.
"""

from __future__ import annotations

import hashlib
import os
import platform
import re
from importlib import metadata
from pathlib import Path
from typing import Any

import numpy as np
import torch

from fedlib.fl.device import cpu_field, exact_float32, resolve_device
from fedlib.storage.locations import book_root

#: Every package of the environment that made the stored results, pinned with hashes: this
#: file of the book's checkout (:func:`~fedlib.storage.locations.book_root`).
LOCK_NAME = "requirements.lock"
#: Environment variables that change which CPU kernels torch, MKL and oneDNN run.
ISA_VARIABLES = ("ATEN_CPU_CAPABILITY", "MKL_ENABLE_INSTRUCTIONS", "ONEDNN_MAX_CPU_ISA")
#: The packages whose versions decide a run's numbers (torchvision decodes the datasets).
NUMERIC_PACKAGES = ("torch", "torchvision", "numpy")


def lock_pins(text: str) -> dict[str, str]:
    r"""The ``name==version`` pins of a lock file's ``text``, names lower-cased.

    Examples
    --------
    >>> lock_pins("numpy==2.4.6 \\\n    --hash=sha256:ab\nTorch==2.14.1+cu130")
    {'numpy': '2.4.6', 'torch': '2.14.1+cu130'}
    """
    return {name.lower(): version
            for name, version in re.findall(r"^([A-Za-z0-9_.-]+)==(\S+)", text, re.MULTILINE)}


def lock_hash(path: str | os.PathLike[str] | None = None) -> str | None:
    """SHA-256 of the lock file ``path`` (default: the checkout's, :data:`LOCK_NAME`) where the
    installed :data:`NUMERIC_PACKAGES` are the versions it pins; None where there is no lock
    (outside a checkout) or they are not."""
    if path is None:
        root = book_root()
        if root is None:
            return None
        path = root / LOCK_NAME
    path = Path(path)
    if not path.exists():
        return None
    pins = lock_pins(path.read_text())
    if any(pins.get(name) != metadata.version(name) for name in NUMERIC_PACKAGES):
        return None
    return hashlib.sha256(path.read_bytes()).hexdigest()


def fingerprint(device: str | torch.device = "cpu", threads: int = 1) -> dict[str, Any]:
    """What decides the float rounding of a run on ``device`` with ``threads`` torch threads.

    Returns
    -------
    dict
        ``device``, ``device_name``, ``tf32`` (GPU only: whether matrix products and
        convolutions may use TF32), ``cpu_vendor``, ``cpu_model``, ``isa``, ``isa_overrides``
        (the :data:`ISA_VARIABLES` that are set), ``torch``, ``numpy``, ``threads`` and
        ``lock_sha256``.
    """
    resolved = resolve_device(device)
    cpu_model = cpu_field("model name") or platform.processor() or platform.machine()
    out: dict[str, Any] = {
        "device": resolved.type,
        "device_name": (torch.cuda.get_device_name(resolved) if resolved.type == "cuda"
                        else cpu_model),
        "cpu_vendor": cpu_field("vendor_id") or platform.machine(),
        "cpu_model": cpu_model,
        "isa": torch.backends.cpu.get_cpu_capability(),
        "isa_overrides": {name: os.environ[name] for name in ISA_VARIABLES
                          if os.environ.get(name)},
        "torch": torch.__version__, "numpy": np.__version__, "threads": int(threads),
        "lock_sha256": lock_hash(),
    }
    if resolved.type == "cuda":
        exact_float32(resolved)  # as every engine on the GPU sets it before computing
        out["tf32"] = {"matmul": torch.backends.cuda.matmul.allow_tf32,
                       "cudnn": torch.backends.cudnn.allow_tf32}
    return out


def describe(environment: dict[str, Any]) -> str:
    """One line for a person: ``"AMD EPYC (AuthenticAMD, AVX2), torch ..., numpy ..., ..."``."""
    where = f"{environment['cpu_model']} ({environment['cpu_vendor']}, {environment['isa']}"
    where += "".join(f", {k}={v}" for k, v in environment["isa_overrides"].items()) + ")"
    if environment["device"] != "cpu":
        where = f"{environment['device_name']} on {where}"
    lock = environment["lock_sha256"]
    return (f"{where}, torch {environment['torch']}, numpy {environment['numpy']}, "
            f"{environment['threads']} thread(s), lock {lock[:12] if lock else 'none'}")


def same_environment(stored: dict[str, Any], current: dict[str, Any]) -> bool:
    """True when a stored result's environment is ``current`` in everything but the lock's
    hash."""
    def rounding(environment: dict[str, Any]) -> dict[str, Any]:
        return {k: v for k, v in environment.items() if k != "lock_sha256"}

    return rounding(stored) == rounding(current)
