"""Empirical checks of the economic properties of a mechanism, as structured reports.

Each check plays a mechanism on :class:`~fedlib.mechanism.instances.Instance` objects and
records, for every case it checks, a :class:`Witness` with the *margin* by which the property
fails there (positive: violated; zero or negative: holds). A case counts as a violation when
its margin exceeds ``rtol * instance.scale`` (floating-point rounding, relative to the money
scale of the instance). The margins are those of the properties of
:data:`fedlib.mechanism.property_rules.PROPERTIES`. The utility of a worker is ``payment - true
cost`` if it wins, else 0 (Eq. (1), :func:`~fedlib.mechanism.property_rules.utility`); its
realised ``re`` is held fixed whatever it bids.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from dataclasses import dataclass
from typing import Literal

import numpy as np
from numpy.typing import ArrayLike

from fedlib import checks
from fedlib.mechanism.auction import bid_breakpoints
from fedlib.mechanism.instances import Instance, random_instances
from fedlib.mechanism.mechanisms import Allocation, Mechanism
from fedlib.mechanism.property_rules import PROPERTIES, Played, utility

#: Default relative tolerance of every check.
RTOL = 1e-9

Group = Literal["all", "honest", "dishonest"]


@dataclass(frozen=True, eq=False)
class Witness:
    """One checked case.

    Attributes
    ----------
    instance : Instance
        The instance (for truthfulness: with the swept worker bidding its true cost).
    margin : float
        By how much the property fails in this case (<= 0: it holds): total payment minus B
        (budget), true cost minus payment (IR), best deviation's utility minus truthful utility
        (truthfulness).
    worker : int or None
        The worker concerned; None for budget feasibility (a whole-instance property).
    bid : float or None
        Truthfulness: the most profitable bid on the grid.
    utility, deviant_utility : float or None
        The worker's utility at its true cost, and at ``bid``.
    """

    instance: Instance
    margin: float
    worker: int | None = None
    bid: float | None = None
    utility: float | None = None
    deviant_utility: float | None = None

    @property
    def relative_margin(self) -> float:
        """``margin / instance.scale``, comparable across instances of any magnitude."""
        return self.margin / self.instance.scale


@dataclass(frozen=True, eq=False)
class PropertyReport:
    """The outcome of one property check over many instances.

    Attributes
    ----------
    property : str
        ``"budget_feasible"``, ``"ir_honest"``, ``"ir_dishonest"`` or ``"truthful"`` (with the
        worker group, e.g. ``"truthful_honest"``).
    mechanism : str
        The mechanism's name.
    instances, checks, violations : int
        Instances played, cases checked, cases violating the property.
    worst : Witness or None
        The case with the largest relative margin (None if nothing was checked).
    """

    property: str
    mechanism: str
    instances: int
    checks: int
    violations: int
    worst: Witness | None

    @property
    def holds(self) -> bool:
        """No violation was found."""
        return self.violations == 0

    @property
    def counterexample(self) -> Witness | None:
        """The worst case if it is a violation, else None."""
        return None if self.holds else self.worst


@dataclass(frozen=True, eq=False)
class IRReport:
    """Individual rationality of winners bidding their true costs, split by honesty."""

    honest: PropertyReport
    dishonest: PropertyReport


def _rtol(rtol: float) -> float:
    return checks.scalar(rtol, "rtol", nonnegative=True)


def _violates(w: Witness, rtol: float) -> bool:
    return w.margin > rtol * w.instance.scale


def _summarise(prop: str, mechanism: str, per_instance: Iterable[list[Witness]],
               rtol: float) -> PropertyReport:
    per_instance = list(per_instance)
    witnesses = [w for ws in per_instance for w in ws]
    worst = max(witnesses, key=lambda w: w.relative_margin, default=None)  # the first of ties
    return PropertyReport(prop, mechanism, len(per_instance), len(witnesses),
                          sum(_violates(w, rtol) for w in witnesses), worst)


def outcome(mechanism: Mechanism, instance: Instance,
            bids: np.ndarray | None = None) -> tuple[Allocation, np.ndarray]:
    """Play ``mechanism`` on ``instance`` (or with other ``bids``): its allocation and payments."""
    allocation = mechanism.select(instance.bids if bids is None else bids, instance.Re,
                                  instance.budget, costs=instance.costs, rng=instance.rng())
    return allocation, mechanism.pay(allocation, instance.re)


def _played(mechanism: Mechanism, instance: Instance, bids: np.ndarray | None = None) -> Played:
    """The outcome of :func:`outcome` as a :class:`~fedlib.mechanism.property_rules.Played`."""
    allocation, payments = outcome(mechanism, instance, bids)
    return Played(instance.bids if bids is None else bids, allocation.selected, payments)


def _budget_witnesses(mechanism: Mechanism, instance: Instance) -> list[Witness]:
    played = _played(mechanism, instance)
    return [Witness(instance, PROPERTIES["budget_feasible"].margin([played],
                                                                   budget=instance.budget))]


def budget_feasibility(mechanism: Mechanism, instances: Iterable[Instance], *,
                       rtol: float = RTOL) -> PropertyReport:
    """Check ``sum of payments <= B`` (Theorem 2) on every instance, at its reported bids."""
    return _summarise("budget_feasible", mechanism.name,
                      (_budget_witnesses(mechanism, i) for i in instances), _rtol(rtol))


def _ir_witnesses(mechanism: Mechanism, instance: Instance) -> list[Witness]:
    truthful = Instance(instance.costs, instance.Re, instance.budget, instance.re,
                        instance.costs, instance.seed)
    allocation, payments = outcome(mechanism, truthful)
    played = Played(truthful.bids, allocation.selected, payments)
    return [Witness(truthful, PROPERTIES["ir"].margin([played], int(i), truthful.costs[i]),
                    worker=int(i), utility=utility(played, i, truthful.costs[i]))
            for i in allocation.winners]


def individual_rationality(mechanism: Mechanism, instances: Iterable[Instance], *,
                           rtol: float = RTOL) -> IRReport:
    """Check that winners bidding their true costs get utility >= 0 (Theorem 1).

    The reported bids of the instances are replaced by the true costs. Winners are split into
    honest (``re >= Re``) and dishonest ones; our mechanism guarantees IR for the former only.
    """
    rtol = _rtol(rtol)
    per = [_ir_witnesses(mechanism, i) for i in instances]
    split = {group: [[w for w in ws if w.instance.honest[w.worker] == (group == "honest")]
                     for ws in per] for group in ("honest", "dishonest")}
    return IRReport(*(_summarise(f"ir_{g}", mechanism.name, split[g], rtol)
                      for g in ("honest", "dishonest")))


def deviation_grid(instance: Instance, worker: int) -> np.ndarray:
    """Bids to try for ``worker``: around every point where its rank or the share test can flip.

    Multiples of its true cost; each other worker's bid and each of Algorithm 1's
    :func:`~fedlib.mechanism.auction.bid_breakpoints` (its density passing another's, the
    share test flipping), each just below and just above; and a bid above the budget, which
    always loses.
    """
    if not 0 <= worker < instance.n:
        raise ValueError(f"worker must index workers 0..{instance.n - 1}, got {worker}")
    others = np.delete(np.arange(instance.n), worker)
    cost = instance.costs[worker]
    points = np.concatenate((instance.bids[others],
                             bid_breakpoints(instance.bids, instance.Re, instance.budget,
                                             worker)))
    points = np.concatenate((points * (1 - 1e-9), points * (1 + 1e-9)))
    near_cost = cost * np.array([0.0, 0.5, 0.9, 0.99, 1.01, 1.1, 1.5, 2.0, 4.0])
    return np.unique(np.concatenate((points, near_cost, [2 * instance.budget + cost])))


def _group(instance: Instance, workers: Group) -> np.ndarray:
    honest = instance.honest
    chosen = {"all": np.ones_like(honest), "honest": honest, "dishonest": ~honest}[workers]
    return np.flatnonzero(chosen)


def _truthfulness_witnesses(mechanism: Mechanism, instance: Instance, workers: Group,
                            grid: np.ndarray | None) -> Iterator[Witness]:
    for i in _group(instance, workers):
        cost, bids = instance.costs[i], instance.bids.copy()
        bids[i] = cost
        truth = _played(mechanism, instance, bids.copy())
        truthful = utility(truth, i, cost)
        best, deviant = truth, truthful
        for b in deviation_grid(instance, i) if grid is None else grid:
            bids[i] = b
            play = _played(mechanism, instance, bids.copy())
            u = utility(play, i, cost)
            if u > deviant:
                best, deviant = play, u
        yield Witness(instance.with_bid(i, cost), PROPERTIES["truthful"].margin([truth, best], i,
                                                                                cost),
                      worker=int(i), bid=float(best.bids[i]), utility=truthful,
                      deviant_utility=deviant)


def truthfulness(mechanism: Mechanism, instances: Iterable[Instance], *,
                 workers: Group = "all", grid: ArrayLike | None = None,
                 rtol: float = RTOL) -> PropertyReport:
    """Check that no worker gains by misreporting its cost (Theorem 4).

    For every instance and every worker of the group, the others bid as in the instance; the
    worker's utility at its true cost is compared with its utility at every bid of ``grid``
    (default: :func:`deviation_grid`), its ``re`` held fixed.

    Parameters
    ----------
    mechanism : Mechanism
    instances : iterable of Instance
    workers : {"all", "honest", "dishonest"}
        Which workers to sweep (honest: ``re >= Re``).
    grid : array_like, optional
        Absolute bids to try for every swept worker.
    rtol : float
        Relative tolerance.
    """
    group = checks.choice(workers, "workers", ("all", "honest", "dishonest"))
    bids = None if grid is None else checks.vector(grid, "grid")
    suffix = "" if group == "all" else f"_{group}"
    return _summarise(f"truthful{suffix}", mechanism.name,
                      (list(_truthfulness_witnesses(mechanism, i, group, bids))
                       for i in instances), _rtol(rtol))


def find_truthfulness_counterexample(mechanism: Mechanism, rng: np.random.Generator, *,
                                     tries: int = 500, n_workers: tuple[int, int] = (2, 5),
                                     workers: Group = "all",
                                     rtol: float = RTOL) -> Witness | None:
    """Search random instances for a profitable misreport; the first one found, or None.

    Instances come from :func:`~fedlib.mechanism.instances.random_instances` (ties and
    magnitudes 1e-6..1e6 included). For our mechanism and ``workers="all"`` the search finds a
    dishonest worker who gains by overbidding and losing (Theorem 4 is false as stated).
    """
    group = checks.choice(workers, "workers", ("all", "honest", "dishonest"))
    rtol = _rtol(rtol)
    if not isinstance(rng, np.random.Generator):
        raise ValueError("rng must be a numpy.random.Generator")
    for instance in random_instances(rng, tries, n_workers=n_workers):
        for w in _truthfulness_witnesses(mechanism, instance, group, None):
            if _violates(w, rtol):
                return w
    return None
