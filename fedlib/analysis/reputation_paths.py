"""Reputation trajectories of scripted workers and the asymmetry of the update (Eqs. (7)-(13)).

A *path* follows one worker who wins every task: given the internal reputations
``re^1, ..., re^T`` it applies the counters (Eqs. (7)-(8)), alpha (Eq. (12)) and the update
(Eq. (13)) task after task, starting from ``Re^0``. The helpers below script the four workers of
the reputation chapter, measure how much one bad task costs against what good tasks earn back,
and check Eq. (9) numerically. Everything here is deterministic numpy built on
:mod:`fedlib.mechanism.reputation`.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from fedlib.checks import integer
from fedlib.mechanism.reputation import (
    BETA1,
    BETA2,
    INITIAL_REPUTATION,
    attenuation,
    h,
    update_reputation,
)

#: The scripted workers of the chapter, in plotting order.
SCRIPTS = ("always good", "turns bad once", "alternating", "free-rider")


@dataclass(frozen=True, eq=False)
class ReputationPath:
    """One worker's reputation over ``T`` consecutive won tasks.

    Attributes
    ----------
    re : numpy.ndarray, shape (T,)
        Internal reputation of each task (the input).
    Re : numpy.ndarray, shape (T + 1,)
        Accumulated reputation; ``Re[0]`` is ``Re^0`` and ``Re[t]`` the value after task ``t``.
    alpha : numpy.ndarray, shape (T,)
        Weight of the newest internal reputation in each update, Eq. (12).
    n_plus, n_minus : numpy.ndarray of int, shape (T,)
        Streak counters after each task, Eqs. (7)-(8).
    honest : numpy.ndarray of bool, shape (T,)
        ``re^t >= Re^{t-1}`` (the paper's honest worker).
    """

    re: np.ndarray
    Re: np.ndarray
    alpha: np.ndarray
    n_plus: np.ndarray
    n_minus: np.ndarray
    honest: np.ndarray

    def __len__(self) -> int:
        return int(self.re.size)

    @property
    def change(self) -> np.ndarray:
        """``Re^t - Re^{t-1}`` for each task, shape (T,)."""
        return np.diff(self.Re)


def reputation_path(re: ArrayLike, initial: float = INITIAL_REPUTATION, n_plus: int = 0,
                    n_minus: int = 0, beta1: float = BETA1,
                    beta2: float = BETA2) -> ReputationPath:
    """Apply Eq. (13) task after task to a sequence of internal reputations.

    Parameters
    ----------
    re : array_like, shape (T,)
        Internal reputations ``re^1..re^T``, each in [0, 1].
    initial : float, default 0.5
        ``Re^0`` (the paper does not give it; fedlib's default).
    n_plus, n_minus : int, default 0
        Streak counters before the first task.
    beta1, beta2 : float
        Parameters of g (Eq. (11)).

    Returns
    -------
    ReputationPath

    Examples
    --------
    >>> path = reputation_path([0.9, 0.9])
    >>> path.n_plus.tolist(), bool(path.Re[2] > path.Re[1] > path.Re[0])
    ([1, 2], True)
    """
    r = np.array(re, dtype=float)
    if r.ndim != 1 or r.size == 0:
        raise ValueError(f"re must be a non-empty 1-D sequence, got shape {r.shape}")
    if not np.all(np.isfinite(r)) or r.min() < 0 or r.max() > 1:
        raise ValueError("re must hold finite values in [0, 1]")
    if not 0.0 <= float(initial) <= 1.0:
        raise ValueError(f"initial must lie in [0, 1], got {initial!r}")
    Re = np.empty(r.size + 1)
    Re[0] = float(initial)
    alpha = np.empty(r.size)
    plus = np.empty(r.size, dtype=np.int64)
    minus = np.empty(r.size, dtype=np.int64)
    p, m = np.int64(n_plus), np.int64(n_minus)
    for t, value in enumerate(r):
        new, p, m = update_reputation(Re[t], value, p, m, beta1, beta2)
        Re[t + 1] = float(new)
        alpha[t] = float(attenuation(value, p, m, beta1, beta2))
        plus[t], minus[t] = int(p), int(m)
    return ReputationPath(r, Re, alpha, plus, minus, r >= Re[:-1])


def scripted_re(kind: str, n_tasks: int = 30, good: float = 0.9, bad: float = 0.2,
                bad_task: int | None = None, free: float = 0.05) -> np.ndarray:
    """Internal reputations of one of the chapter's scripted workers.

    Parameters
    ----------
    kind : {"always good", "turns bad once", "alternating", "free-rider"}
        ``"always good"``: ``good`` every task. ``"turns bad once"``: ``good`` except task
        ``bad_task`` (0-based), which gives ``bad``. ``"alternating"``: ``good``, ``bad``, ``good``,
        ... ``"free-rider"``: ``free`` every task (it submits models that help almost nobody).
    n_tasks : int, default 30
    good, bad, free : float
        Internal reputations of a good task, a bad task and a free-rider's task.
    bad_task : int, optional
        The bad task of ``"turns bad once"`` (0-based); default ``n_tasks // 2``.

    Returns
    -------
    numpy.ndarray, shape (n_tasks,)
    """
    if kind not in SCRIPTS:
        raise ValueError(f"kind must be one of {SCRIPTS}, got {kind!r}")
    n_tasks = integer(n_tasks, "n_tasks")
    if kind == "always good":
        return np.full(n_tasks, float(good))
    if kind == "turns bad once":
        bad_task = n_tasks // 2 if bad_task is None else bad_task
        if not 0 <= bad_task < n_tasks:
            raise ValueError(f"bad_task must lie in 0..{n_tasks - 1}, got {bad_task}")
        out = np.full(n_tasks, float(good))
        out[bad_task] = bad
        return out
    if kind == "alternating":
        return np.where(np.arange(n_tasks) % 2 == 0, float(good), float(bad))
    return np.full(n_tasks, float(free))


def scripted_paths(n_tasks: int = 30, initial: float = INITIAL_REPUTATION, good: float = 0.9,
                   bad: float = 0.2, bad_task: int | None = None,
                   free: float = 0.05) -> dict[str, ReputationPath]:
    """The :func:`reputation_path` of every worker in :data:`SCRIPTS` (same arguments)."""
    return {kind: reputation_path(scripted_re(kind, n_tasks, good, bad, bad_task, free), initial)
            for kind in SCRIPTS}


@dataclass(frozen=True)
class Recovery:
    """What one bad task costs a good worker, and how long good tasks take to earn it back.

    Attributes
    ----------
    peak : float
        ``Re`` after the good tasks before the bad one.
    after_bad : float
        ``Re`` right after the bad task.
    loss : float
        ``peak - after_bad``.
    gains : numpy.ndarray
        ``Re`` gained by each good task after the bad one.
    tasks_to_recover : int
        Good tasks needed to climb back to within ``tol`` of ``peak`` (``-1``: not within the
        simulated horizon).
    path : ReputationPath
        The whole simulated path (warm-up, the bad task, the recovery).
    """

    peak: float
    after_bad: float
    loss: float
    gains: np.ndarray
    tasks_to_recover: int
    path: ReputationPath


def _first(mask: np.ndarray) -> int:
    hits = np.flatnonzero(mask)
    return int(hits[0]) + 1 if hits.size else -1


def one_bad_task(good: float = 0.9, bad: float = 0.2, warmup: int = 15, horizon: int = 40,
                 initial: float = INITIAL_REPUTATION, tol: float = 0.01) -> Recovery:
    """A worker does ``warmup`` good tasks, one bad task, then good tasks again.

    Parameters
    ----------
    good, bad : float
        Internal reputation of a good and of the bad task.
    warmup : int, default 15
        Good tasks before the bad one.
    horizon : int, default 40
        Good tasks simulated after the bad one.
    initial : float, default 0.5
        ``Re^0``.
    tol : float, default 0.01
        How close to the peak counts as recovered.

    Returns
    -------
    Recovery
    """
    if warmup < 1 or horizon < 1:
        raise ValueError("warmup and horizon must be at least 1")
    re = np.concatenate([np.full(warmup, good), [bad], np.full(horizon, good)])
    path = reputation_path(re, initial)
    peak, after_bad = float(path.Re[warmup]), float(path.Re[warmup + 1])
    loss = peak - after_bad
    recovery = path.Re[warmup + 2:]
    return Recovery(peak, after_bad, loss, np.diff(path.Re[warmup + 1:]),
                    _first(recovery >= peak - tol), path)


def symmetric_changes(Re_prev: ArrayLike, d: ArrayLike, n_plus: int = 0, n_minus: int = 0,
                      beta1: float = BETA1,
                      beta2: float = BETA2) -> tuple[np.ndarray, np.ndarray]:
    """Gain from ``re = Re_prev + d`` and loss from ``re = Re_prev - d``, same starting state.

    Parameters
    ----------
    Re_prev, d : array_like (broadcast together)
        Accumulated reputation before the task and the size of the deviation, with
        ``0 <= Re_prev - d`` and ``Re_prev + d <= 1``.
    n_plus, n_minus : int, default 0
        Streak counters before the task.

    Returns
    -------
    (gain, loss) : tuple of numpy.ndarray
        ``Re^tau - Re_prev`` for the good task and ``Re_prev - Re^tau`` for the bad one; both
        non-negative.
    """
    prev, dev = np.broadcast_arrays(np.asarray(Re_prev, float), np.asarray(d, float))
    if np.any(dev < 0) or np.any(prev - dev < 0) or np.any(prev + dev > 1):
        raise ValueError("need d >= 0 and Re_prev - d >= 0 and Re_prev + d <= 1")
    plus = np.full(prev.shape, n_plus, dtype=np.int64)
    minus = np.full(prev.shape, n_minus, dtype=np.int64)
    up, _, _ = update_reputation(prev, prev + dev, plus, minus, beta1, beta2)
    down, _, _ = update_reputation(prev, prev - dev, plus, minus, beta1, beta2)
    return np.asarray(up - prev), np.asarray(prev - down)


@dataclass(frozen=True)
class Eq9Check:
    """Eq. (9) evaluated three ways for two workers with the same ``Re^{tau-1}`` and ``f = 1``.

    Attributes
    ----------
    direct : float
        ``Re_i^tau - Re_j^tau`` computed with Eq. (13) and ``alpha = h(re)``.
    with_previous : float
        The right-hand side of Eq. (9) ending with ``Re^{tau-1}`` (the corrected reading).
    as_printed : float
        The right-hand side ending with ``Re^tau``, here taken as ``Re_i^tau`` (printed reading).
    """

    direct: float
    with_previous: float
    as_printed: float


def eq9_check(Re_prev: float, re_i: float, re_j: float) -> Eq9Check:
    """Check Eq. (9) numerically (its derivation ignores the counters: ``f = 1``, ``alpha = h``).

    Examples
    --------
    >>> c = eq9_check(0.5, 0.8, 0.3)
    >>> abs(c.direct - c.with_previous) < 1e-12, abs(c.direct - c.as_printed) > 1e-3
    (True, True)
    """
    hi, hj = float(h(re_i)), float(h(re_j))
    Re_i = hi * re_i + (1 - hi) * Re_prev
    Re_j = hj * re_j + (1 - hj) * Re_prev
    q_diff = hi * re_i - hj * re_j
    return Eq9Check(Re_i - Re_j, q_diff - (hi - hj) * Re_prev, q_diff - (hi - hj) * Re_i)


def streak_where_gain_wins(Re_prev: float, d: float, max_streak: int = 100) -> int:
    """The shortest good streak ``n+`` (before the task) at which a rise of ``d`` gains at least
    as much as a fall of ``d`` loses; ``-1`` if none up to ``max_streak``.

    A fall resets ``n+`` and sets ``n- = 1``, so its size does not depend on the streak; a rise
    extends the streak, and a longer streak makes ``g(n+)`` smaller and alpha larger.
    """
    streaks = np.arange(max_streak + 1)
    gains = np.array([symmetric_changes(Re_prev, d, n_plus=int(n))[0] for n in streaks])
    loss = float(symmetric_changes(Re_prev, d)[1])
    return _first(gains >= loss) - 1 if np.any(gains >= loss) else -1
