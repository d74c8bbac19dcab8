"""Contribution measurement on a difficulty-weighted validation set (Eqs. (2)-(3)).

``P[i, j]`` is the probability that worker ``i``'s local model gives validation sample ``j`` its
true label. Rows are the workers that submitted a model this round (the set U of Eq. (2)).
"""

from __future__ import annotations

import numpy as np
from numpy.typing import ArrayLike

from fedlib import checks

#: Probabilities are clipped to ``[P_FLOOR, 1]`` before the logarithm of Eq. (2).
P_FLOOR = 1e-12


def _probabilities(P: ArrayLike) -> np.ndarray:
    p = checks.array(P, "P", ndim=2)
    if np.any(p > 1):
        raise ValueError("P must hold probabilities in [0, 1]")
    return p


def _weights(p: np.ndarray) -> np.ndarray:
    surprise = 0.0 - np.log(np.clip(p, P_FLOOR, 1.0)).sum(axis=0)  # 0.0 - x: no -0.0
    total = surprise.sum()
    if total == 0:
        return np.full(p.shape[1], 1.0 / p.shape[1])
    return surprise / total


def _contributions(p: np.ndarray, weighted: bool, own: np.ndarray | None = None) -> np.ndarray:
    w = _weights(p) if weighted else np.full(p.shape[1], 1.0 / p.shape[1])
    if own is None:
        return p @ w
    mass = own @ w  # each worker's share of the weight; uniform on its samples where it is 0
    w_own = np.where(mass[:, None] > 0, own * w, own)
    return (p * w_own).sum(axis=1) / w_own.sum(axis=1)


def _own_samples(own: ArrayLike, shape: tuple[int, ...]) -> np.ndarray:
    mask = np.asarray(own)
    if mask.dtype != bool or mask.shape != shape:
        raise ValueError(f"own must be a boolean array of the shape of P, {shape}, got "
                         f"{mask.dtype} {mask.shape}")
    if not mask.any(axis=1).all():
        raise ValueError("own must give every worker at least one validation sample; rows "
                         f"{np.flatnonzero(~mask.any(axis=1)).tolist()} have none")
    return mask


def sample_weights(P: ArrayLike) -> np.ndarray:
    """Difficulty weight of each validation sample, Eq. (2).

    ``w_j = sum_i -ln P_ij / sum_i sum_j -ln P_ij``: samples the workers predict badly weigh more.

    Parameters
    ----------
    P : array_like, shape (workers, samples)
        True-label probabilities in [0, 1]; clipped to ``[1e-12, 1]`` before the logarithm.

    Returns
    -------
    numpy.ndarray, shape (samples,)
        Non-negative weights summing to 1. If every ``P_ij = 1`` (no sample is hard) the
        denominator of Eq. (2) is 0 and the weights are uniform.

    Examples
    --------
    >>> sample_weights([[1.0, np.exp(-1)], [1.0, np.exp(-1)]]).tolist()
    [0.0, 1.0]
    """
    return _weights(_probabilities(P))


def contributions(P: ArrayLike, weighted: bool = True) -> np.ndarray:
    """Contribution of each worker in one round, Eq. (3): ``contrib_i = sum_j P_ij w_j``.

    Parameters
    ----------
    P : array_like, shape (workers, samples)
        True-label probabilities in [0, 1].
    weighted : bool, default True
        ``True``: the weights of Eq. (2). ``False``: equal weights ``1 / samples``, the paper's
        "equal-weighted sample-based" benchmark (the mean true-class probability, not accuracy).

    Returns
    -------
    numpy.ndarray, shape (workers,)
        Contributions in [0, 1].
    """
    return _contributions(_probabilities(P), weighted)


def own_label_contributions(P: ArrayLike, own: ArrayLike, weighted: bool = True) -> np.ndarray:
    """Eq. (3) measured on each worker's own samples (a variant beyond the paper, for label-skewed
    workers): ``contrib_i = sum_j own_ij P_ij w_j / sum_j own_ij w_j``.

    The weights ``w`` are Eq. (2)'s over every worker and sample, as in :func:`contributions`;
    each worker is then scored by their weighted mean over the validation samples marked in its
    row of ``own`` (for :mod:`fedlib.fl.task`: the samples whose label it holds), so that a
    worker is not measured on classes it never trained on. Where a row's weights sum to 0 the
    mean is unweighted over its samples. With every sample marked for every worker this is
    :func:`contributions`.

    Parameters
    ----------
    P : array_like, shape (workers, samples)
        True-label probabilities in [0, 1].
    own : array_like of bool, shape (workers, samples)
        The samples each worker is measured on, at least one per worker.
    weighted : bool, default True
        As in :func:`contributions`.

    Returns
    -------
    numpy.ndarray, shape (workers,)
        Contributions in [0, 1].

    Examples
    --------
    Sample weights ``(1/6, 1/3, 1/2)`` (``-ln P`` summed over the workers is ``ln 2``,
    ``2 ln 2`` and ``3 ln 2``); the second worker is scored on its last two samples alone:
    ``(1/4 * 1/3 + 1/8 * 1/2) / (1/3 + 1/2) = 0.175``.

    >>> P = [[1.0, 1.0, 1.0], [0.5, 0.25, 0.125]]
    >>> own = [[True, True, True], [False, True, True]]
    >>> np.round(own_label_contributions(P, own, weighted=True), 6).tolist()
    [1.0, 0.175]
    """
    p = _probabilities(P)
    return _contributions(p, weighted, _own_samples(own, p.shape))


def round_contributions(P: ArrayLike, weighted: bool = True,
                        own: ArrayLike | None = None) -> np.ndarray:
    """Eq. (3) divided by the round's maximum over the submitting workers.

    The paper clips contributions at 0 first (``contrib_score = max(0, contrib)``); Eq. (3) is a
    weighted mean of probabilities and so is never negative, which makes that clip the identity.

    Parameters
    ----------
    P : array_like, shape (workers, samples)
        True-label probabilities of the workers that submitted a model this round.
    weighted : bool, default True
        As in :func:`contributions`.
    own : array_like of bool, shape (workers, samples), optional
        Score each worker on its own samples (:func:`own_label_contributions`); default all.

    Returns
    -------
    numpy.ndarray, shape (workers,)
        Contributions in [0, 1], the best worker at 1; all zeros when every contribution is 0.
    """
    p = _probabilities(P)
    c = _contributions(p, weighted, None if own is None else _own_samples(own, p.shape))
    top = c.max()
    return c / top if top > 0 else np.zeros_like(c)


def task_contributions(per_round: ArrayLike, mask: ArrayLike | None = None) -> np.ndarray:
    """Task contribution: mean of the round contributions over the rounds the worker took part in.

    Parameters
    ----------
    per_round : array_like, shape (rounds, workers)
        Row ``t`` holds the round-``t`` contributions (e.g. from :func:`round_contributions`).
        Without ``mask``, NaN marks a round in which the worker submitted no model.
    mask : array_like of bool, shape (rounds, workers), optional
        ``True`` where the worker took part; entries outside the mask are ignored (may be NaN).

    Returns
    -------
    numpy.ndarray, shape (workers,)
        ``sum_{t in T_i} contrib_i^t / |T_i|``, with ``T_i`` the rounds worker ``i`` took part
        in; 0 for a worker that took part in no round (it contributed nothing).
    """
    raw = checks.array(per_round, "per_round", ndim=2, allow_nan=True, nonnegative=False)
    took_part = ~np.isnan(raw) if mask is None else np.asarray(mask)
    if took_part.dtype != bool or took_part.shape != raw.shape:
        raise ValueError(f"mask must be a boolean array of shape {raw.shape}")
    values = checks.array(np.where(took_part, raw, 0.0), "per_round")
    rounds = took_part.sum(axis=0)
    return np.divide(values.sum(axis=0), rounds, out=np.zeros(values.shape[1]), where=rounds > 0)
