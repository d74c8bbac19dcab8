"""Input validation shared by the public entry points of :mod:`fedlib.mechanism`.

Every public function converts its array-like arguments here, once, and then calls unchecked
kernels. Each check raises :class:`ValueError` whose message starts with the argument's name.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike


def array(x: ArrayLike, name: str, *, nonnegative: bool = True, ndim: int | None = None,
          allow_empty: bool = False, allow_nan: bool = False) -> np.ndarray:
    """``x`` as a finite float array (a fresh copy), optionally non-negative and of given ``ndim``.

    With ``allow_nan`` NaN entries pass (and are exempt from the sign check); inf never does.
    """
    try:
        a = np.array(x, dtype=float)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be numeric: {err}") from None
    if ndim is not None and a.ndim != ndim:
        raise ValueError(f"{name} must be {ndim}-dimensional, got shape {a.shape}")
    if a.size == 0 and not allow_empty:
        raise ValueError(f"{name} must not be empty")
    if not np.all(np.isfinite(a) | (allow_nan & np.isnan(a))):
        raise ValueError(f"{name} must be finite (no NaN or inf)")
    if nonnegative and np.any(a < 0):
        raise ValueError(f"{name} must be non-negative")
    return a


def vector(x: ArrayLike, name: str, *, nonnegative: bool = True) -> np.ndarray:
    """``x`` as a non-empty, finite, 1-D float array (non-negative unless told otherwise)."""
    return array(x, name, nonnegative=nonnegative, ndim=1)


def scalar(x: Any, name: str, *, positive: bool = False, nonnegative: bool = False,
           low: float | None = None, high: float | None = None) -> float:
    """``x`` as a finite float; ``positive``/``nonnegative`` or an open interval (low, high)."""
    try:
        v = float(x)
    except (TypeError, ValueError) as err:
        raise ValueError(f"{name} must be a number: {err}") from None
    if not np.isfinite(v):
        raise ValueError(f"{name} must be finite, got {v}")
    if positive and v <= 0:
        raise ValueError(f"{name} must be positive, got {v}")
    if nonnegative and v < 0:
        raise ValueError(f"{name} must be non-negative, got {v}")
    if (low is not None and v <= low) or (high is not None and v >= high):
        raise ValueError(f"{name} must lie in the open interval ({low}, {high}), got {v}")
    return v


def counts(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a non-negative integer array of any shape (integer-valued floats accepted)."""
    a = array(x, name, allow_empty=True)
    if np.any(a != np.floor(a)):
        raise ValueError(f"{name} must hold whole numbers")
    return a.astype(np.int64)


def mask(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a 1-D boolean array; only booleans or 0/1 values are accepted."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {a.shape}")
    if a.dtype != bool and not np.all(np.isin(a, (0, 1))):
        raise ValueError(f"{name} must be boolean (True/False or 0/1)")
    return a.astype(bool)


def indices(x: ArrayLike, name: str, n: int) -> np.ndarray:
    """``x`` as distinct integer indices into ``range(n)`` (may be empty)."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {a.shape}")
    if a.size and not np.issubdtype(a.dtype, np.integer):
        raise ValueError(f"{name} must hold integer indices")
    a = a.astype(np.int64)
    if np.any((a < 0) | (a >= n)):
        raise ValueError(f"{name} must index workers 0..{n - 1}")
    if np.unique(a).size != a.size:
        raise ValueError(f"{name} must not repeat a worker")
    return a


def same_shape(**arrays: np.ndarray) -> None:
    """Raise if the arrays' shapes differ; 0-d arrays (scalars) broadcast against any shape."""
    shaped = {k: a.shape for k, a in arrays.items() if a.ndim > 0}
    if len(set(shaped.values())) > 1:
        listing = ", ".join(f"{k} {s}" for k, s in shaped.items())
        raise ValueError(f"{' and '.join(shaped)} must have the same length, got {listing}")


def choice(value: str, name: str, options: Sequence[str]) -> str:
    """``value`` if it is one of ``options``."""
    if value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")
    return value


def instance(bids: ArrayLike, Re: ArrayLike, budget: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """The auction inputs: non-empty equal-length bids and Re, and a positive budget."""
    b, r = vector(bids, "bids"), vector(Re, "Re")
    same_shape(bids=b, Re=r)
    return b, r, scalar(budget, "budget", positive=True)


def per_worker(x: ArrayLike, name: str, n: int) -> np.ndarray:
    """A non-negative finite vector with one entry per worker (length ``n``)."""
    a = vector(x, name)
    if a.size != n:
        raise ValueError(f"{name} must have one entry per worker ({n}), got {a.size}")
    return a
