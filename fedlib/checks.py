"""The argument checks every layer shares (numpy only, so that the mechanism layer, which lies
just above, can use them, and importing them never brings in torch).

A public entry point converts its arguments here, once, and then calls unchecked kernels (the
mechanism's "validation lives at these entry points, once"). Each check returns the argument
in the form the kernel wants (a Python ``int``, a ``float``, a fresh numpy array) and raises
:class:`ValueError` whose message starts with the argument's name.

* A count, a seed or a size: :func:`integer`; a number: :func:`scalar`; an option:
  :func:`choice`.
* Arrays: :func:`array` (any shape), :func:`vector` (1-D), :func:`counts` (the pass and fail
  counters), :func:`mask` (the quality check's pass flags), :func:`indices` (the winners),
  :func:`per_worker` (one entry per worker), :func:`same_shape` (arrays that go together).
* The inputs of an auction (Algorithm 1): :func:`auction_inputs`.

Examples
--------
>>> integer(3, "rounds")
3
>>> integer(True, "rounds")
Traceback (most recent call last):
...
ValueError: rounds must be a positive integer, got True
>>> vector([2, 1.5], "bids")
array([2. , 1.5])
>>> vector([2, -1], "bids")
Traceback (most recent call last):
...
ValueError: bids must be non-negative
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

# ------------------------------------------------------------------------------ single values


def integer(value: Any, name: str, minimum: int = 1, maximum: int | None = None) -> int:
    """``value`` as a Python ``int``, if it is an integer in ``[minimum, maximum]``.

    A Python or numpy integer is accepted; a bool, a float (even ``3.0``) or anything else is
    not, so that a count or a seed never arrives silently converted.

    Parameters
    ----------
    value
        The argument to check.
    name
        Its name in the error message.
    minimum, maximum : int, default 1 and None (no upper bound)
        The accepted range, both ends included.

    Returns
    -------
    int
    """
    if (isinstance(value, bool) or not isinstance(value, int | np.integer) or value < minimum
            or (maximum is not None and value > maximum)):
        wanted = (f"an integer in [{minimum}, {maximum}]" if maximum is not None else
                  "a positive integer" if minimum == 1 else
                  "a non-negative integer" if minimum == 0 else f"an integer >= {minimum}")
        raise ValueError(f"{name} must be {wanted}, got {value!r}")
    return int(value)


def scalar(x: Any, name: str, *, positive: bool = False, nonnegative: bool = False,
           low: float | None = None, high: float | None = None) -> float:
    """``x`` as a finite float; ``positive``/``nonnegative`` or in an open interval (low, high).

    For the mechanism's parameters: a budget and s0 (positive), the quality check's threshold
    delta, theta of Eq. (4) and beta2 of Eq. (11) (in (0, 1)), beta1, a tolerance (non-negative).
    """
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


def choice(value: str, name: str, options: Sequence[str]) -> str:
    """``value`` if it is one of ``options`` (a reading the paper leaves open, such as the
    denominator of omega or of the temporary payment, or a group of workers)."""
    if value not in options:
        raise ValueError(f"{name} must be one of {tuple(options)}, got {value!r}")
    return value


# ------------------------------------------------------------------------------------ arrays


def array(x: ArrayLike, name: str, *, nonnegative: bool = True, ndim: int | None = None,
          allow_empty: bool = False, allow_nan: bool = False) -> np.ndarray:
    """``x`` as a finite float array (a fresh copy), optionally non-negative and of given ``ndim``.

    The base of the array checks (a performance matrix P of Eq. (2), reputations, per-round
    contributions). With ``allow_nan`` NaN entries pass (and are exempt from the sign check),
    for the rounds a worker took no part in; inf never does.
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
    """``x`` as a non-empty, finite, 1-D float array (non-negative unless told otherwise): bids,
    reputations, the loss changes delta_l of the quality check."""
    return array(x, name, nonnegative=nonnegative, ndim=1)


def counts(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a non-negative integer array of any shape (integer-valued floats accepted): the
    pass and fail counters of Eq. (4) and n+ / n- of Eqs. (10)-(13)."""
    a = array(x, name, allow_empty=True)
    if np.any(a != np.floor(a)):
        raise ValueError(f"{name} must hold whole numbers")
    return a.astype(np.int64)


def mask(x: ArrayLike, name: str) -> np.ndarray:
    """``x`` as a 1-D boolean array; only booleans or 0/1 values are accepted (which workers
    passed the quality check)."""
    a = np.asarray(x)
    if a.ndim != 1:
        raise ValueError(f"{name} must be 1-dimensional, got shape {a.shape}")
    if a.dtype != bool and not np.all(np.isin(a, (0, 1))):
        raise ValueError(f"{name} must be boolean (True/False or 0/1)")
    return a.astype(bool)


def indices(x: ArrayLike, name: str, n: int) -> np.ndarray:
    """``x`` as distinct integer indices into ``range(n)`` (may be empty): the winners of a task
    among ``n`` workers."""
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


def per_worker(x: ArrayLike, name: str, n: int) -> np.ndarray:
    """A non-negative finite vector with one entry per worker (length ``n``): the internal
    reputations ``re`` of Algorithm 1's payments, the true costs, the payments."""
    a = vector(x, name)
    if a.size != n:
        raise ValueError(f"{name} must have one entry per worker ({n}), got {a.size}")
    return a


def same_shape(**arrays: np.ndarray) -> None:
    """Raise if the arrays' shapes differ; 0-d arrays (scalars) broadcast against any shape.

    For arguments that describe the same workers (bids and Re; re, n+ and n-)."""
    shaped = {k: a.shape for k, a in arrays.items() if a.ndim > 0}
    if len(set(shaped.values())) > 1:
        listing = ", ".join(f"{k} {s}" for k, s in shaped.items())
        raise ValueError(f"{' and '.join(shaped)} must have the same length, got {listing}")


# ------------------------------------------------------------------------- the auction's inputs


def auction_inputs(bids: ArrayLike, Re: ArrayLike,
                   budget: Any) -> tuple[np.ndarray, np.ndarray, float]:
    """The inputs of an auction (Algorithm 1, and every mechanism's ``select``): non-empty
    equal-length bids and accumulated reputations Re, and a positive budget."""
    b, r = vector(bids, "bids"), vector(Re, "Re")
    same_shape(bids=b, Re=r)
    return b, r, scalar(budget, "budget", positive=True)
