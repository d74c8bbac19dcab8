"""Our mechanism and the paper's six benchmarks behind one interface, and the registry.

Every mechanism selects with ``select(bids, Re, budget, *, costs=None, rng=None)`` and pays
with ``pay(allocation, re)``. ``claims`` lists the properties that hold for it (and that the
tests and :mod:`fedlib.mechanism.properties` check), names of
:data:`fedlib.mechanism.property_rules.PROPERTIES` (defined there):

* ``"budget_feasible"``: total payment <= B;
* ``"truthful"``: bidding the true cost maximises every worker's utility, ``re`` held fixed;
* ``"truthful_honest"``: the same, for honest workers (``re >= Re``) only;
* ``"ir"``: every winner that bids its true cost gets utility >= 0;
* ``"ir_honest"``: the same, for honest winners only.

The paper claims Theorem 4 (truthfulness) for our mechanism; it holds for honest workers only,
so ``ours`` claims ``"truthful_honest"``.
"""

from __future__ import annotations

from dataclasses import dataclass
from types import MappingProxyType
from typing import ClassVar, Literal, Protocol

import numpy as np
from numpy.typing import ArrayLike

from fedlib import checks
from fedlib.mechanism import _knapsack
from fedlib.mechanism.auction import Auction, _ex_post, _select, bid_breakpoints, readonly

Knowledge = Literal["bids", "costs"]


@dataclass(frozen=True, eq=False)
class Allocation:
    """Whom a mechanism selected and the most it can pay each worker. Arrays are read-only.

    Attributes
    ----------
    mechanism : str
        Name of the mechanism that produced it (``pay`` checks it).
    selected : numpy.ndarray of bool, shape (n,)
        Membership mask of the winners.
    winners : numpy.ndarray of int
        Indices of the winners in selection order.
    upper : numpy.ndarray, shape (n,)
        The most the mechanism can pay each worker, 0 for losers.
    auction : Auction or None
        The Algorithm 1 state for ``ours``, ``rrafl`` and ``proportional_share``, else None.
    """

    mechanism: str
    selected: np.ndarray
    winners: np.ndarray
    upper: np.ndarray
    auction: Auction | None


class Mechanism(Protocol):
    """The interface shared by all mechanisms of :data:`MECHANISMS`."""

    @property
    def name(self) -> str:
        """Registry key, e.g. ``"rrafl"``."""

    @property
    def label(self) -> str:
        """Display name for plots and tables, e.g. ``"RRAFL"``."""

    @property
    def knows(self) -> Knowledge:
        """``"bids"``, or ``"costs"`` for the full-information benchmark."""

    @property
    def claims(self) -> frozenset[str]:
        """The properties (names of
        :data:`~fedlib.mechanism.property_rules.CLAIMABLE`) that hold for the mechanism."""

    def select(self, bids: ArrayLike, Re: ArrayLike, budget: float, *,
               costs: ArrayLike | None = None,
               rng: np.random.Generator | None = None) -> Allocation:
        """Choose the winners before the task."""

    def pay(self, allocation: Allocation, re: ArrayLike) -> np.ndarray:
        """Final payments, shape (n,), 0 for losers, given the internal reputations ``re``."""


class MechanismBase:
    """The base of every mechanism here, the built-ins and one's own (subclassing it is
    optional: any object of the :class:`Mechanism` protocol fits).

    A subclass sets ``name`` (and ``label``, default ``name``, and ``claims``, default none) and
    defines ``select``, or ``_select`` on the inputs :meth:`select` has checked. :meth:`pay`
    checks that the allocation is this mechanism's and that ``re`` has one non-negative entry
    per worker, then pays ``_pay``: by default the allocation's upper payments whatever ``re``
    (an ex-ante rule, as ``p_up`` of Eq. (15)). :meth:`allocation` builds what ``select``
    returns; the built-ins build theirs with it too.

    Examples
    --------
    Pay the auction's price ``rho*`` per unit of delivered reputation, at most what was
    promised (``rho* min(re_i, Re_i)``), after Algorithm 1's selection:

    >>> import numpy as np
    >>> from fedlib.mechanism import select
    >>> class PricePerUnit(MechanismBase):
    ...     name, label = "price_per_unit", "Price per unit"
    ...     claims = frozenset({"budget_feasible", "ir_honest", "truthful_honest"})
    ...
    ...     def select(self, bids, Re, budget, *, costs=None, rng=None):
    ...         auction = select(bids, Re, budget)
    ...         return self.allocation(auction.winners, len(auction.bids), auction.upper,
    ...                                auction=auction)
    ...
    ...     def pay(self, allocation, re):
    ...         a = allocation.auction
    ...         return np.where(a.selected, a.rho_star * np.minimum(re, a.Re), 0.0)
    >>> m = PricePerUnit()
    >>> m.pay(m.select([4, 4.5, 100], [1, 1, 1], 10), [0.5, 1, 1]).tolist()
    [2.5, 5.0, 0.0]
    """

    name: ClassVar[str]
    knows: ClassVar[Knowledge] = "bids"
    claims: ClassVar[frozenset[str]] = frozenset()

    @property
    def label(self) -> str:
        """The name shown in figures (default: :attr:`name`)."""
        return self.name

    def select(self, bids: ArrayLike, Re: ArrayLike, budget: float, *,
               costs: ArrayLike | None = None,
               rng: np.random.Generator | None = None) -> Allocation:
        """Choose the winners; see the class docstring."""
        b, r, B = checks.auction_inputs(bids, Re, budget)
        return self._select(b, r, B, costs, rng)

    def pay(self, allocation: Allocation, re: ArrayLike) -> np.ndarray:
        """Final payments, 0 for losers; see the class docstring."""
        if allocation.mechanism != self.name:
            raise ValueError(f"allocation was made by {allocation.mechanism!r}, not {self.name!r}")
        return self._pay(allocation, checks.per_worker(re, "re", allocation.selected.size))

    def allocation(self, winners: ArrayLike, n: int, upper: ArrayLike | None = None, *,
                   auction: Auction | None = None) -> Allocation:
        """A read-only :class:`Allocation` of this mechanism hiring ``winners`` (in selection
        order) out of ``n`` workers.

        Parameters
        ----------
        winners : array_like of int
            The winners' indices.
        n : int
            Number of workers.
        upper : array_like, shape (n,), optional
            The most it may pay each worker, kept for the winners only (default 0); the
            default :meth:`pay` pays it.
        auction : optional
            Anything ``pay`` needs later (e.g. the :class:`~fedlib.mechanism.Auction`).
        """
        index = np.array(winners, dtype=np.int64).reshape(-1)
        selected = np.zeros(n, dtype=bool)
        selected[index] = True
        top = np.zeros(n) if upper is None else np.where(selected, np.asarray(upper, float), 0)
        return Allocation(mechanism=self.name, selected=readonly(selected),
                          winners=readonly(index), upper=readonly(top), auction=auction)

    def _select(self, bids: np.ndarray, Re: np.ndarray, budget: float,
                costs: ArrayLike | None, rng: np.random.Generator | None) -> Allocation:
        raise NotImplementedError(f"{type(self).__name__} defines neither select nor _select")

    def _pay(self, allocation: Allocation, re: np.ndarray) -> np.ndarray:
        return np.array(allocation.upper, dtype=float)

    def __repr__(self) -> str:
        return f"{type(self).__name__}()"


class _Algorithm1(MechanismBase):
    """Selection by Algorithm 1 on ``Re`` (or on unit values); pays ``p_up`` unless overridden."""

    unit_values: ClassVar[bool] = False

    def _select(self, bids: np.ndarray, Re: np.ndarray, budget: float,
                costs: ArrayLike | None, rng: np.random.Generator | None) -> Allocation:
        auction = _select(bids, np.ones_like(Re) if self.unit_values else Re, budget)
        return self.allocation(auction.winners, bids.size, auction.upper, auction=auction)

    def bid_breakpoints(self, bids: ArrayLike, Re: ArrayLike, budget: float,
                        worker: int) -> np.ndarray:
        """The bids of ``worker`` at which its outcome can change
        (:func:`~fedlib.mechanism.auction.bid_breakpoints` on the values this mechanism
        selects by): its utility is constant between two of them."""
        values = np.ones(np.shape(Re)) if self.unit_values else Re
        return bid_breakpoints(bids, values, budget, worker)


@dataclass(frozen=True)
class OurMechanism(_Algorithm1):
    """The paper's mechanism: Algorithm 1 with ex-post payments.

    Knows the bids. Selects by Algorithm 1 (cost density ``b / Re``, proportional-share
    stopping rule). Pays ``min(p_up, max(B re_i / sum_S re_j, rho* re_i))`` after the task
    (Eq. (16)). Claims budget feasibility (Theorem 2), IR of honest winners (Theorem 1) and
    truthfulness for honest workers (Theorem 4 as corrected: dishonest workers may gain by
    overbidding and losing).

    Parameters
    ----------
    temp_denominator : {"re", "Re"}, default "re"
        The sum in ``p'`` (the reading "Denominator of p'_i" of
        :data:`fedlib.paper.readings.READINGS`); see :func:`~fedlib.mechanism.ex_post_payments`.
    """

    name: ClassVar[str] = "ours"
    label: ClassVar[str] = "Our mechanism"
    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir_honest",
                                                  "truthful_honest"})
    temp_denominator: Literal["re", "Re"] = "re"

    def __post_init__(self) -> None:
        checks.choice(self.temp_denominator, "temp_denominator", ("re", "Re"))

    def _pay(self, allocation: Allocation, re: np.ndarray) -> np.ndarray:
        return _ex_post(allocation.auction, re, self.temp_denominator)


@dataclass(frozen=True)
class RRAFL(_Algorithm1):
    """RRAFL: the same reputation-weighted selection as ours, paid ex ante.

    Knows the bids. Selects by Algorithm 1. Pays ``p_up = Re_i rho*`` whatever the worker then
    does. Claims budget feasibility, IR and truthfulness (``p_up`` is the critical value).
    """

    name: ClassVar[str] = "rrafl"
    label: ClassVar[str] = "RRAFL"
    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir", "truthful"})


@dataclass(frozen=True)
class ProportionalShare(_Algorithm1):
    """Singer's proportional-share mechanism with unit values (reputation ignored).

    Knows the bids. Selects by Algorithm 1 with every ``Re`` replaced by 1, i.e. by ascending
    bid while ``b_i <= B / i``. Pays the threshold ``rho*`` ex ante. Claims budget
    feasibility, IR and truthfulness. ``allocation.auction.Re`` holds the unit values.
    """

    name: ClassVar[str] = "proportional_share"
    label: ClassVar[str] = "Proportional Share"
    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir", "truthful"})
    unit_values: ClassVar[bool] = True


class _PayAsBid(MechanismBase):
    """Walk the workers in a mechanism-specific order, pay each its bid, and stop at the first
    bid that no longer fits in the remaining budget."""

    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir"})

    def _order(self, bids: np.ndarray, Re: np.ndarray,
               rng: np.random.Generator | None) -> np.ndarray:
        raise NotImplementedError

    def _select(self, bids: np.ndarray, Re: np.ndarray, budget: float,
                costs: ArrayLike | None, rng: np.random.Generator | None) -> Allocation:
        order = self._order(bids, Re, rng)
        winners = order[: np.searchsorted(np.cumsum(bids[order]), budget, side="right")]
        return self.allocation(winners, bids.size, bids)


@dataclass(frozen=True)
class VanillaFL(_PayAsBid):
    """Vanilla FL: random selection until the budget is exhausted.

    Knows the bids. Selects in a uniformly random order (``rng`` is required) until the first
    bid that no longer fits in the remaining budget. Pays each winner its bid. Claims budget
    feasibility and IR (at truthful bids); not truthful (overbidding pays).
    """

    name: ClassVar[str] = "vanilla"
    label: ClassVar[str] = "Vanilla FL"

    def _order(self, bids: np.ndarray, Re: np.ndarray,
               rng: np.random.Generator | None) -> np.ndarray:
        if not isinstance(rng, np.random.Generator):
            raise ValueError("rng must be a numpy.random.Generator: vanilla selects at random")
        return rng.permutation(bids.size)


@dataclass(frozen=True)
class BidGreedy(_PayAsBid):
    """Bid Greedy: cheapest bids first.

    Knows the bids. Selects by ascending bid (ties by index) until the first bid that no
    longer fits in the remaining budget. Pays each winner its bid. Claims budget feasibility and
    IR (at truthful bids); not truthful.
    """

    name: ClassVar[str] = "bid_greedy"
    label: ClassVar[str] = "Bid Greedy"

    def _order(self, bids: np.ndarray, Re: np.ndarray,
               rng: np.random.Generator | None) -> np.ndarray:
        return np.argsort(bids, kind="stable")


@dataclass(frozen=True)
class ReputationGreedy(_PayAsBid):
    """Reputation Greedy: highest accumulated reputation first.

    Knows the bids. Selects by descending ``Re`` (ties by index) until the first bid that no
    longer fits in the remaining budget. Pays each winner its bid. Claims budget feasibility and
    IR (at truthful bids); not truthful.
    """

    name: ClassVar[str] = "reputation_greedy"
    label: ClassVar[str] = "Reputation Greedy"

    def _order(self, bids: np.ndarray, Re: np.ndarray,
               rng: np.random.Generator | None) -> np.ndarray:
        return np.argsort(-Re, kind="stable")


@dataclass(frozen=True)
class ApproximateOptimal(MechanismBase):
    """Approximate Optimal: the full-information knapsack benchmark.

    Knows the true costs (``costs`` is required; the bids are ignored). Maximises the sum of
    the values it is handed in place of ``Re`` subject to the sum of true costs <= B: the
    Figures 4-5 sweeps hand it the realised ``re`` by default (``optimal_values="re"``,
    ``"Re"`` on request), the multi-task runs the accumulated ``Re`` (``re`` is only measured
    after training); both read "full knowledge" (``fedlib.paper.readings.READINGS``).
    Selects, in the greedy variant, among the workers whose cost fits in B, by decreasing
    value / ``c`` until the first one that no longer fits, or the best single worker if that
    is worth more (a 1/2-approximation); in the exact variant (``exact=True``) an optimal set
    by branch and bound. Pays the true cost.
    Claims budget feasibility and IR (utility 0 for every winner).

    Parameters
    ----------
    exact : bool, default False
        Solve the 0/1 knapsack exactly instead of greedily (the reading "Approximate Optimal"
        of :data:`fedlib.paper.readings.READINGS`: the paper does not say which).
    """

    knows: ClassVar[Knowledge] = "costs"
    claims: ClassVar[frozenset[str]] = frozenset({"budget_feasible", "ir"})
    exact: bool = False

    @property
    def name(self) -> str:  # type: ignore[override]
        """``"approx_optimal"`` or ``"approx_optimal_exact"``."""
        return "approx_optimal_exact" if self.exact else "approx_optimal"

    @property
    def label(self) -> str:  # type: ignore[override]
        """``"Approx. Optimal"`` or ``"Optimal (exact)"``."""
        return "Optimal (exact)" if self.exact else "Approx. Optimal"

    def _select(self, bids: np.ndarray, Re: np.ndarray, budget: float,
                costs: ArrayLike | None, rng: np.random.Generator | None) -> Allocation:
        if costs is None:
            raise ValueError("costs is required: Approximate Optimal knows the true costs")
        c = checks.per_worker(costs, "costs", bids.size)
        solve = _knapsack.exact if self.exact else _knapsack.greedy
        winners = solve(Re, c, budget)
        return self.allocation(winners, bids.size, c)


_REGISTRY: dict[str, Mechanism] = {m.name: m for m in (
    OurMechanism(), RRAFL(), VanillaFL(), ProportionalShare(), BidGreedy(), ReputationGreedy(),
    ApproximateOptimal(), ApproximateOptimal(exact=True))}
#: name -> mechanism, in the order of the paper's figures (read-only; see :func:`registered`).
MECHANISMS: MappingProxyType[str, Mechanism] = MappingProxyType(_REGISTRY)


class Registration:
    """:data:`MECHANISMS` holding a mechanism from :meth:`__enter__` to :meth:`__exit__` (see
    :func:`registered`). Only :meth:`__exit__` ends it, never the garbage collector, so that a
    process (a Flower or Ray worker) may enter it for the rest of its life."""

    def __init__(self, mechanism: Mechanism) -> None:
        self.mechanism = mechanism
        self.added = False

    def __enter__(self) -> Mechanism:
        name = self.mechanism.name
        present = _REGISTRY.get(name)
        if present is not None and present != self.mechanism:
            raise ValueError(f"the name {name!r} is taken by {present!r}: give the mechanism "
                             "another name")
        if present is None:
            _REGISTRY[name] = self.mechanism
            self.added = True
        return self.mechanism

    def __exit__(self, *exc: object) -> None:
        if self.added:
            del _REGISTRY[self.mechanism.name]
            self.added = False


def registered(mechanism: Mechanism) -> Registration:
    """Within a ``with`` block, :data:`MECHANISMS` also holds ``mechanism`` under its name.

    Everything that looks a mechanism up by name (the Figures 4-5 sweeps, multi-task runs,
    their figures) then accepts a mechanism defined outside fedlib. The registration is
    this process's only: runs in spawned processes (``jobs > 1``) do not see it.

    Raises
    ------
    ValueError
        On entering, if another mechanism is registered under the same name (re-registering
        an equal mechanism, e.g. ``RRAFL()``, changes nothing).
    """
    return Registration(mechanism)
