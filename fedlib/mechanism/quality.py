"""The leave-one-out quality check and the aggregation weights omega (Mechanism Design, 4.2).

``delta_l[i] = l_{-i} - l``: the validation loss of the plain average of the submitted local
models without worker ``i``, minus the loss with everyone. Removing a useful model raises the
loss, so a large ``delta_l`` means a good model.
"""

from __future__ import annotations

from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib import checks

#: The paper's threshold delta of the leave-one-out check.
DELTA = -0.005


def _check(delta_l: ArrayLike, passed: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    d = checks.vector(delta_l, "delta_l", nonnegative=False)
    ok = checks.mask(passed, "passed")
    checks.same_shape(delta_l=d, passed=ok)
    return d, ok


def _detection(d: np.ndarray, ok: np.ndarray) -> np.ndarray:
    s = np.zeros_like(d)
    if ok.any():
        gap = d[ok] - d[ok].min()
        total = gap.sum()
        s[ok] = gap / total if total > 0 else 0.0
    return s


def _quality(d: np.ndarray, ok: np.ndarray, s0: float) -> np.ndarray:
    raw = np.where(ok, s0 + _detection(d, ok), 0.0)
    total = raw.sum()
    return raw / total if total > 0 else raw


def leave_one_out_pass(delta_l: ArrayLike, delta: float = DELTA) -> np.ndarray:
    """The quality check: worker ``i`` passes iff ``delta_l[i] >= delta``.

    Parameters
    ----------
    delta_l : array_like, shape (workers,)
        ``l_{-i} - l`` for each submitted model.
    delta : float, default -0.005
        The paper's threshold.

    Returns
    -------
    numpy.ndarray of bool, shape (workers,)
        Who passes. A single submitted model always passes: with one model the leave-one-out
        aggregate does not exist, so its ``delta_l`` (pass 0) carries no information.
    """
    d = checks.vector(delta_l, "delta_l", nonnegative=False)
    threshold = checks.scalar(delta, "delta")
    return np.ones(1, dtype=bool) if d.size == 1 else d >= threshold


def detection_scores(delta_l: ArrayLike, passed: ArrayLike) -> np.ndarray:
    """``s_i = (dl_i - min_j dl_j) / sum_k (dl_k - min_j dl_j)`` over the passing workers.

    Returns
    -------
    numpy.ndarray, shape (workers,)
        ``s_i`` for passing workers (summing to 1), 0 for failing ones; all zeros when the
        denominator is 0 (every passing ``delta_l`` equal, or nobody passes).
    """
    return _detection(*_check(delta_l, passed))


def quality_scores(delta_l: ArrayLike, passed: ArrayLike, s0: float = 1.0) -> np.ndarray:
    """``quality_score_i = (s0 + s_i) / sum_k (s0 + s_k)`` over the passing workers.

    Parameters
    ----------
    delta_l : array_like, shape (workers,)
        ``l_{-i} - l`` for each submitted model.
    passed : array_like of bool, shape (workers,)
        The outcome of :func:`leave_one_out_pass`.
    s0 : float, default 1.0
        The paper's smoothing constant; must be positive.

    Returns
    -------
    numpy.ndarray, shape (workers,)
        Scores summing to 1 over the passing workers, 0 for failing ones (all 0 if nobody passes).
        ``s_i`` is :func:`detection_scores`.
    """
    d, ok = _check(delta_l, passed)
    return _quality(d, ok, checks.scalar(s0, "s0", positive=True))


def aggregation_weights(contrib_t: ArrayLike, delta_l: ArrayLike, passed: ArrayLike,
                        s0: float = 1.0,
                        denominator: Literal["corrected", "printed"] = "corrected") -> np.ndarray:
    """Aggregation weights omega of the local models of one round.

    ``contrib_score_i = max(0, contrib_i^t)`` and ``quality_score_i`` (:func:`quality_scores`)
    are combined over the passing workers:

    * ``"corrected"`` (default): ``omega_i = cs_i q_i / sum_j cs_j q_j``.
    * ``"printed"``: the formula as printed, ``omega_i = cs_i q_i / sum_j cs_j q_i``, in which
      ``q_i`` cancels and ``omega_i = cs_i / sum_j cs_j`` (the quality score has no effect).

    Parameters
    ----------
    contrib_t : array_like, shape (workers,)
        Round contributions (:func:`~fedlib.mechanism.round_contributions`); negative values
        are clipped to 0.
    delta_l, passed, s0
        As in :func:`quality_scores`.
    denominator : {"corrected", "printed"}
        Which reading of the denominator to use.

    Returns
    -------
    numpy.ndarray, shape (workers,)
        Weights summing to 1, 0 for failing workers. If every passing worker has contribution
        score 0, the contributions carry no information and are treated as equal: ``"corrected"``
        then returns the quality scores and ``"printed"`` uniform weights over the passing
        workers. If nobody passes, all zeros: the caller keeps the previous global model.
    """
    cs = np.maximum(checks.vector(contrib_t, "contrib_t", nonnegative=False), 0.0)
    d, ok = _check(delta_l, passed)
    checks.same_shape(contrib_t=cs, delta_l=d)
    form = checks.choice(denominator, "denominator", ("corrected", "printed"))
    q = _quality(d, ok, checks.scalar(s0, "s0", positive=True))
    cs = np.where(ok, cs, 0.0)
    if not cs.any():
        cs = ok.astype(float)
    numerator = cs * q
    if ok.any() and not numerator.any():
        # Subnormal contributions underflowed in the product; omega does not change when every
        # cs is scaled by one factor, so scale the largest to 1.
        cs = cs / cs.max()
        numerator = cs * q
    if form == "corrected":
        total = numerator.sum()
        return numerator / total if total > 0 else numerator
    return np.divide(numerator, q * cs.sum(), out=np.zeros_like(q), where=numerator > 0)
