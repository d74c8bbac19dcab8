"""Trust, internal reputation and the accumulated-reputation update (Eqs. (4)-(13)).

Elementwise functions accept scalars or arrays (equal shapes; scalars broadcast) and return
numpy arrays or numpy scalars of the broadcast shape.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from fedlib import checks

#: theta of Eq. (4): the paper asks for (0, 0.5) and sets 0.4 (Section 4.2).
THETA = 0.4
#: The paper's Gompertz-curve parameters: trust = a exp(b exp(c x)).
GOMPERTZ_A, GOMPERTZ_B, GOMPERTZ_C = 1.0, -1.0, -5.5
#: Parameters of g (Eq. (11)).
BETA1, BETA2 = 0.5, 0.25
#: Initial accumulated reputation Re^0: not given by the paper, our default.
INITIAL_REPUTATION = 0.5


def _trust_input(n_pass: np.ndarray, n_fail: np.ndarray, theta: float) -> np.ndarray:
    num = theta * n_pass - (1 - theta) * n_fail
    den = theta * n_pass + (1 - theta) * n_fail
    return np.divide(num, den, out=np.zeros(np.broadcast(num, den).shape), where=den > 0)[()]


def _h(re: np.ndarray) -> np.ndarray:
    return 1.0 - 19.0 / (10.0 * np.pi) * np.arctan(10.0 * re / np.pi)


def _g(n: np.ndarray, beta1: float, beta2: float) -> np.ndarray:
    decay = np.exp(-beta1 * n)  # 2(1-b2)/(1+e^{b1 n}) written without overflow for large n
    return 2.0 * (1.0 - beta2) * decay / (1.0 + decay) + beta2


def _alpha(re: np.ndarray, n_plus: np.ndarray, n_minus: np.ndarray, beta1: float,
           beta2: float) -> np.ndarray:
    hr = _h(re)
    f = _g(n_plus, beta1, beta2) * _g(n_minus, beta1, beta2)
    return hr / (hr + (1.0 - hr) * f)


def _counters(re: np.ndarray, Re_prev: np.ndarray, n_plus: np.ndarray,
              n_minus: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    honest = re >= Re_prev
    return np.where(honest, n_plus + 1, 0)[()], np.where(honest, 0, n_minus + 1)[()]


def _update(Re_prev: np.ndarray, re: np.ndarray, n_plus: np.ndarray, n_minus: np.ndarray,
            beta1: float, beta2: float) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    n_plus, n_minus = _counters(re, Re_prev, n_plus, n_minus)
    a = _alpha(re, n_plus, n_minus, beta1, beta2)
    return a * re + (1.0 - a) * Re_prev, n_plus, n_minus


def _betas(beta1: float, beta2: float) -> tuple[float, float]:
    return (checks.scalar(beta1, "beta1", positive=True),
            checks.scalar(beta2, "beta2", low=0.0, high=1.0))


def _pair(x: ArrayLike, x_name: str, y: ArrayLike, y_name: str) -> tuple[np.ndarray, np.ndarray]:
    a, b = checks.array(x, x_name), checks.array(y, y_name)
    checks.same_shape(**{x_name: a, y_name: b})
    return a, b


def _count_pair(x: ArrayLike, y: ArrayLike,
                names: tuple[str, str] = ("n_plus", "n_minus")) -> tuple[np.ndarray, np.ndarray]:
    a, b = checks.counts(x, names[0]), checks.counts(y, names[1])
    checks.same_shape(**{names[0]: a, names[1]: b})
    return a, b


def trust_input(n_pass: ArrayLike, n_fail: ArrayLike, theta: float = THETA) -> np.ndarray:
    """Input of the Gompertz curve, Eq. (4).

    ``x = (theta n_pass - (1 - theta) n_fail) / (theta n_pass + (1 - theta) n_fail)`` in
    [-1, 1]; a worker with no checks at all (0 passes, 0 failures) gets ``x = 0``.

    Parameters
    ----------
    n_pass, n_fail : array_like of int
        How often the worker passed / failed the quality check in the task.
    theta : float, default 0.4
        Weight of passes, in (0, 1); the paper requires (0, 0.5) so that failures weigh more.
    """
    p, f = _count_pair(n_pass, n_fail, ("n_pass", "n_fail"))
    return _trust_input(p, f, checks.scalar(theta, "theta", low=0.0, high=1.0))


def gompertz_trust(n_pass: ArrayLike, n_fail: ArrayLike, theta: float = THETA,
                   a: float = GOMPERTZ_A, b: float = GOMPERTZ_B,
                   c: float = GOMPERTZ_C) -> np.ndarray:
    """Trustworthiness ``trust = a exp(b exp(c x))`` with ``x`` from Eq. (4).

    With the paper's ``a = 1, b = -1, c = -5.5`` trust lies in ``(0, exp(-exp(-5.5))]``, so it
    never exceeds 0.99592 (ten passes and no failure give that maximum).

    Examples
    --------
    >>> round(float(gompertz_trust(6, 4)), 6)  # x = 0, trust = exp(-1)
    0.367879
    """
    p, f = _count_pair(n_pass, n_fail, ("n_pass", "n_fail"))
    x = _trust_input(p, f, checks.scalar(theta, "theta", low=0.0, high=1.0))
    a, b, c = (checks.scalar(v, k) for v, k in ((a, "a"), (b, "b"), (c, "c")))
    return a * np.exp(b * np.exp(c * x))


def internal_reputation(contrib: ArrayLike, trust: ArrayLike) -> np.ndarray:
    """Internal reputation of a task, Eq. (5): ``re = contrib * trust``."""
    c, t = _pair(contrib, "contrib", trust, "trust")
    return (c * t)[()]


def h(re: ArrayLike) -> np.ndarray:
    """Eq. (10): ``h(re) = 1 - 19 / (10 pi) arctan(10 re / pi)``; decreasing, ``h(0) = 1``.

    ``h(re) re`` is increasing on [0, 1], so a higher ``re`` always yields a higher ``Re``.
    """
    return _h(checks.array(re, "re"))


def g(n: ArrayLike, beta1: float = BETA1, beta2: float = BETA2) -> np.ndarray:
    """Eq. (11): ``g(n) = 2 (1 - beta2) / (1 + exp(beta1 n)) + beta2``.

    Decreasing from ``g(0) = 1`` towards ``beta2`` as the streak ``n`` grows.
    """
    return _g(checks.counts(n, "n"), *_betas(beta1, beta2))


def attenuation(re: ArrayLike, n_plus: ArrayLike, n_minus: ArrayLike, beta1: float = BETA1,
                beta2: float = BETA2) -> np.ndarray:
    """The weight alpha of the newest internal reputation, Eq. (12).

    ``alpha = h(re) / (h(re) + (1 - h(re)) f(n+, n-))`` with ``f(n+, n-) = g(n+) g(n-)``.
    ``alpha`` lies in (0, 1] and ``re = 0`` gives ``alpha = 1``. The counters are those *after*
    this task's update (:func:`update_counters`).
    """
    r = checks.array(re, "re")
    p, m = _count_pair(n_plus, n_minus)
    checks.same_shape(re=r, n_plus=p)
    return _alpha(r, p, m, *_betas(beta1, beta2))


def update_counters(re: ArrayLike, Re_prev: ArrayLike, n_plus: ArrayLike,
                    n_minus: ArrayLike) -> tuple[np.ndarray, np.ndarray]:
    """Streak counters after a task, Eqs. (7)-(8).

    Honest (``re >= Re_prev``): ``n+ <- n+ + 1`` and ``n- <- 0``; otherwise ``n+ <- 0`` and
    ``n- <- n- + 1``.

    Returns
    -------
    (n_plus, n_minus) : tuple of numpy.ndarray of int
    """
    r, prev = _pair(re, "re", Re_prev, "Re_prev")
    p, m = _count_pair(n_plus, n_minus)
    checks.same_shape(re=r, n_plus=p)
    return _counters(r, prev, p, m)


def update_reputation(Re_prev: ArrayLike, re: ArrayLike, n_plus: ArrayLike, n_minus: ArrayLike,
                      beta1: float = BETA1,
                      beta2: float = BETA2) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Accumulated reputation after a task, Eq. (13), for the task's winners.

    The counters are updated first (Eqs. (7)-(8)), then alpha (Eq. (12)) is computed with them,
    then ``Re = alpha re + (1 - alpha) Re_prev``. ``re = 0`` gives ``alpha = 1`` and ``Re = 0``,
    which is absorbing: such a worker is never selected again.

    Parameters
    ----------
    Re_prev : array_like
        Accumulated reputation before the task, ``Re^{tau-1}``.
    re : array_like
        Internal reputation in the task, Eq. (5).
    n_plus, n_minus : array_like of int
        Streak counters before the task.

    Returns
    -------
    (Re, n_plus, n_minus) : tuple of numpy.ndarray
        The new accumulated reputation and counters.
    """
    prev, r = _pair(Re_prev, "Re_prev", re, "re")
    p, m = _count_pair(n_plus, n_minus)
    checks.same_shape(re=r, n_plus=p)
    return _update(prev, r, p, m, *_betas(beta1, beta2))


class ReputationLedger:
    """Accumulated reputations ``Re`` and streak counters of a fixed worker pool across tasks.

    Parameters
    ----------
    n_workers : int
        Size of the pool.
    initial_reputation : float, default 0.5
        ``Re^0`` of every worker; the paper does not give it.
    beta1, beta2 : float
        Parameters of g (Eq. (11)).

    Examples
    --------
    >>> ledger = ReputationLedger(3)
    >>> ledger.update([0, 2], [0.9, 0.0, 0.0])
    >>> ledger.Re.tolist()[1:]  # worker 1 lost and keeps Re^0; worker 2 had re = 0
    [0.5, 0.0]
    """

    def __init__(self, n_workers: int, initial_reputation: float = INITIAL_REPUTATION,
                 beta1: float = BETA1, beta2: float = BETA2) -> None:
        n_workers = checks.integer(n_workers, "n_workers")
        self.initial_reputation = checks.scalar(initial_reputation, "initial_reputation",
                                                   nonnegative=True)
        self.beta1, self.beta2 = _betas(beta1, beta2)
        self._Re = np.full(int(n_workers), self.initial_reputation)
        self._n_plus = np.zeros(int(n_workers), dtype=np.int64)
        self._n_minus = np.zeros(int(n_workers), dtype=np.int64)

    def __len__(self) -> int:
        return self._Re.size

    @property
    def Re(self) -> np.ndarray:
        """Accumulated reputations (a copy)."""
        return self._Re.copy()

    @property
    def n_plus(self) -> np.ndarray:
        """Consecutive good tasks of each worker (a copy)."""
        return self._n_plus.copy()

    @property
    def n_minus(self) -> np.ndarray:
        """Consecutive bad tasks of each worker (a copy)."""
        return self._n_minus.copy()

    def update(self, winners: ArrayLike, re: ArrayLike) -> None:
        """Apply Eq. (13) to the winners of a task; losers keep their ``Re`` and counters.

        Parameters
        ----------
        winners : array_like of int
            Indices of the task's winners (e.g. ``Allocation.winners``).
        re : array_like, shape (n_workers,)
            Internal reputations of all workers; only the winners' entries are read.
        """
        w = checks.indices(winners, "winners", len(self))
        r = checks.per_worker(re, "re", len(self))[w]
        self._Re[w], self._n_plus[w], self._n_minus[w] = _update(
            self._Re[w], r, self._n_plus[w], self._n_minus[w], self.beta1, self.beta2)

    def copy(self) -> ReputationLedger:
        """An independent snapshot of the ledger."""
        return ReputationLedger.from_dict(self.to_dict())

    def to_dict(self) -> dict[str, Any]:
        """A JSON-serialisable checkpoint (plain lists and floats)."""
        return {"Re": self._Re.tolist(), "n_plus": self._n_plus.tolist(),
                "n_minus": self._n_minus.tolist(), "initial_reputation": self.initial_reputation,
                "beta1": self.beta1, "beta2": self.beta2}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> ReputationLedger:
        """Rebuild a ledger from :meth:`to_dict` output (validated)."""
        Re = checks.vector(state["Re"], "Re")
        n_plus, n_minus = _count_pair(state["n_plus"], state["n_minus"])
        checks.same_shape(Re=Re, n_plus=n_plus)
        ledger = cls(Re.size, state["initial_reputation"], state["beta1"], state["beta2"])
        ledger._Re, ledger._n_plus, ledger._n_minus = Re, n_plus, n_minus
        return ledger
