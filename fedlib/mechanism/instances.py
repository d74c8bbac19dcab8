"""Auction instances (bids, reputations, budget, true costs, realised re) and random generators.

An :class:`Instance` is everything needed to play a mechanism and score the outcome: the
reported bids, the public accumulated reputations ``Re``, the budget, the workers' private
true costs and the internal reputations ``re`` they would realise in the task.
"""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass

import numpy as np

from fedlib import checks
from fedlib.mechanism.auction import readonly


@dataclass(frozen=True, eq=False)
class Instance:
    """One auction scenario (validated on construction; arrays read-only).

    Parameters
    ----------
    bids : array_like, shape (n,)
        Reported bids.
    Re : array_like, shape (n,)
        Accumulated reputations before the task.
    budget : float
        The budget B > 0.
    re : array_like, shape (n,)
        Internal reputations each worker realises if it wins (held fixed whatever it bids).
    costs : array_like, shape (n,), optional
        True costs; default: the bids (truthful reporting).
    seed : int, default 0
        Seed of the generator handed to randomised mechanisms (Vanilla FL), so that every
        replay of the instance draws the same random order.
    """

    bids: np.ndarray
    Re: np.ndarray
    budget: float
    re: np.ndarray
    costs: np.ndarray | None = None
    seed: int = 0

    def __post_init__(self) -> None:
        bids, Re, budget = checks.auction_inputs(self.bids, self.Re, self.budget)
        re = checks.per_worker(self.re, "re", bids.size)
        costs = bids.copy() if self.costs is None else checks.per_worker(self.costs, "costs",
                                                                           bids.size)
        fields = {"bids": readonly(bids), "Re": readonly(Re), "budget": budget,
                  "re": readonly(re), "costs": readonly(costs),
                  "seed": checks.integer(self.seed, "seed", minimum=0)}
        for name, value in fields.items():
            object.__setattr__(self, name, value)

    @property
    def n(self) -> int:
        """Number of workers."""
        return self.bids.size

    @property
    def honest(self) -> np.ndarray:
        """Who would be honest if it won: ``re >= Re`` (Definition 1)."""
        return self.re >= self.Re

    @property
    def scale(self) -> float:
        """The instance's money scale, ``max(B, max bid, max cost)``, for relative tolerances."""
        return float(max(self.budget, self.bids.max(), self.costs.max()))

    def rng(self) -> np.random.Generator:
        """A fresh generator seeded with :attr:`seed`."""
        return np.random.default_rng(self.seed)

    def with_bid(self, worker: int, bid: float) -> Instance:
        """The same instance with one worker's reported bid replaced."""
        bids = self.bids.copy()
        bids[worker] = bid
        return Instance(bids, self.Re, self.budget, self.re, self.costs, self.seed)


def random_instance(rng: np.random.Generator, n_workers: int, *, cost_scale: float = 1.0,
                    reputation_scale: float = 1.0, ties: bool = False) -> Instance:
    """A random truthful instance (bids = costs) for property checks.

    ``Re ~ U[0, 1]``, costs ``~ U[0, 1]`` and ``re = clip(Re + U[-0.3, 0.3], 0, 1)``, the
    reputations then multiplied by ``reputation_scale`` and the costs by ``cost_scale``; the
    budget is ``cost_scale * U[0.1, n]``, so that anything from nobody to everyone can win.
    With ``ties`` values are drawn from a few levels (``Re`` may be 0, ``re`` may equal ``Re``),
    so that equal densities and boundary cases are frequent.
    """
    if ties:
        Re = rng.choice([0.0, 0.25, 0.5, 1.0], n_workers)
        costs = rng.choice([0.0, 0.25, 0.5, 1.0], n_workers)
        re = np.where(rng.random(n_workers) < 0.5, Re, rng.choice([0.0, 0.25, 0.5, 1.0],
                                                                  n_workers))
    else:
        Re = rng.uniform(0.0, 1.0, n_workers)
        costs = rng.uniform(0.0, 1.0, n_workers)
        re = np.clip(Re + rng.uniform(-0.3, 0.3, n_workers), 0.0, 1.0)
    budget = cost_scale * rng.uniform(0.1, n_workers)
    return Instance(costs * cost_scale, Re * reputation_scale, budget, re * reputation_scale,
                    seed=int(rng.integers(2**31)))


def random_instances(rng: np.random.Generator, count: int, *,
                     n_workers: tuple[int, int] = (1, 8),
                     magnitudes: tuple[float, float] = (1e-6, 1e6),
                     tie_probability: float = 0.3) -> Iterator[Instance]:
    """``count`` random instances from :func:`random_instance`.

    Each has ``n_workers`` drawn uniformly from the inclusive range, cost and reputation
    scales drawn log-uniformly from ``magnitudes``, and ties with ``tie_probability``.
    """
    low, high = np.log10(magnitudes[0]), np.log10(magnitudes[1])
    for _ in range(count):
        yield random_instance(rng, int(rng.integers(n_workers[0], n_workers[1] + 1)),
                              cost_scale=10 ** rng.uniform(low, high),
                              reputation_scale=10 ** rng.uniform(low, high),
                              ties=bool(rng.random() < tie_probability))

