"""Figures 4-5: the mechanisms compared on synthetic workers, without any training.

The paper draws ``n`` workers with ``Re ~ U[0.1, 1]``, bids ``b ~ U[10/3 Re + 2/3,
10/3 Re + 8/3]`` (true cost = bid) and realised internal reputations ``re ~ U[max(0, Re - 0.1),
min(1, Re + 0.1)]`` (:func:`fedlib.mechanism.synthetic_instance`), runs every mechanism on them
and plots the publisher's *ex-post utility of unit payments*: Figure 4 against the budget ``B``
at ``n = 100``, Figure 5 against ``n`` at ``B = 125``.

Two readings of the metric (``per``):

* ``"payment"`` (default): ``sum_{i in S} re_i / sum_i p_i``, utility per unit actually paid;
* ``"budget"``: ``sum_{i in S} re_i / B``, utility per unit of budget.

Every trial plays all mechanisms on the same workers (common random numbers). In the budget
sweep one pool of ``n_workers`` workers per trial serves every budget; in the worker sweep each
trial draws ``max(n_workers_list)`` workers and the point ``n`` uses the first ``n`` of them.
Vanilla FL's random order comes from the instance's own seed, so it too is shared.

Approximate Optimal "has full knowledge about all workers' information". By default
(``optimal_values="re"``, see :data:`fedlib.paper.readings.READINGS`) it maximises the realised
``sum re`` subject to ``sum c <= B``; ``optimal_values="Re"`` uses the accumulated reputations,
the registry's own default (``fedlib.mechanism.ApproximateOptimal``).

Stored form (``python -m fedlib reproduce mechanisms``, :class:`SweepSummary`): one record per
(mechanism, x) with the medians, quartiles and means of :meth:`SweepResult.summary_records`,
written by :func:`fedlib.experiments.results.save_result`; :meth:`SweepConfig.recompute` reruns
the whole sweep (seconds), since trials are seeded one by one and summaries need them all.
"""

from __future__ import annotations

import inspect
import os
import time
import warnings
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar, Literal

import numpy as np

from fedlib.experiments.claims import Claim
from fedlib.experiments.registry import Options, Records, register
from fedlib.mechanism import MECHANISMS, synthetic_instance
from fedlib.mechanism.properties import RTOL
from fedlib.paper.settings import FIG4_WORKERS, FIG5_BUDGET, PAPER_BUDGETS, PAPER_WORKERS

Per = Literal["payment", "budget"]
Quantity = Literal["metric", "winners", "budget_used", "markup", "re_per_cost"]
#: What :func:`summarize` can summarise (see :meth:`SweepResult.quantity`).
QUANTITIES: tuple[str, ...] = ("metric", "winners", "budget_used", "markup", "re_per_cost")
OptimalValues = Literal["re", "Re"]

#: The paper's seven mechanisms, in the order of its benchmark list.
SEVEN: tuple[str, ...] = ("ours", "rrafl", "vanilla", "proportional_share", "bid_greedy",
                          "reputation_greedy", "approx_optimal")
#: Short column headings for text tables.
SHORT_LABELS: dict[str, str] = {
    "ours": "ours", "rrafl": "RRAFL", "vanilla": "Vanilla", "proportional_share": "PropShare",
    "bid_greedy": "BidGreedy", "reputation_greedy": "RepGreedy", "approx_optimal": "ApproxOpt",
    "approx_optimal_exact": "ExactOpt"}
#: Trials per point at full scale.
DEFAULT_TRIALS = 1000
_SWEEP_IDS = {"budget": 0, "workers": 1}


@dataclass(frozen=True)
class WorkerDistribution:
    """How synthetic workers are drawn (defaults: the paper's Figures 4-5).

    ``Re ~ U[Re_low, Re_high]``, ``b ~ U[bid_slope Re + bid_low, bid_slope Re + bid_high]``,
    ``re ~ U[max(0, Re - re_noise), min(1, Re + re_noise)]``; true costs equal the bids. With
    the defaults, :meth:`draw` is :func:`fedlib.mechanism.synthetic_instance` itself.
    """

    Re_low: float = 0.1
    Re_high: float = 1.0
    bid_slope: float = 10 / 3
    bid_low: float = 2 / 3
    bid_high: float = 8 / 3
    re_noise: float = 0.1

    def __post_init__(self) -> None:
        values = asdict(self)
        if not all(np.isfinite(v) for v in values.values()):
            raise ValueError(f"WorkerDistribution fields must be finite, got {values}")
        if not 0 <= self.Re_low <= self.Re_high:
            raise ValueError("need 0 <= Re_low <= Re_high, got "
                             f"{self.Re_low!r}, {self.Re_high!r}")
        if self.bid_high < self.bid_low:
            raise ValueError(f"need bid_low <= bid_high, got {self.bid_low!r}, {self.bid_high!r}")
        if min(self.bid_slope * self.Re_low, self.bid_slope * self.Re_high) + self.bid_low <= 0:
            raise ValueError("every bid must be positive: raise bid_low or Re_low")
        if self.re_noise < 0:
            raise ValueError(f"re_noise must be non-negative, got {self.re_noise!r}")

    @property
    def is_paper(self) -> bool:
        """True for the paper's distribution."""
        return self == WorkerDistribution()

    @property
    def bid_spread(self) -> float:
        """Width of the bid interval (the paper: 2)."""
        return self.bid_high - self.bid_low

    def with_bid_spread(self, spread: float) -> WorkerDistribution:
        """The same distribution with the bid interval widened or narrowed about its centre."""
        centre = (self.bid_low + self.bid_high) / 2
        return replace(self, bid_low=centre - spread / 2, bid_high=centre + spread / 2)

    def draw(self, n_workers: int, rng: np.random.Generator
             ) -> tuple[np.ndarray, np.ndarray, np.ndarray, int]:
        """``(bids, Re, re, seed)`` for ``n_workers`` workers; ``seed`` seeds Vanilla FL."""
        if self.is_paper:
            inst = synthetic_instance(n_workers, 1.0, rng)
            return inst.bids.copy(), inst.Re.copy(), inst.re.copy(), inst.seed
        Re = rng.uniform(self.Re_low, self.Re_high, n_workers)
        bids = rng.uniform(self.bid_slope * Re + self.bid_low, self.bid_slope * Re + self.bid_high)
        re = rng.uniform(np.maximum(0.0, Re - self.re_noise), np.minimum(1.0, Re + self.re_noise))
        return bids, Re, re, int(rng.integers(2**31))


class SweepSummary(Records):
    """What a sweep stores: one record per (mechanism, x) of
    :meth:`SweepResult.summary_records` (the trials themselves are not kept)."""


@register
@dataclass(frozen=True)
class SweepConfig:
    """Everything that determines a sweep's numbers.

    Attributes
    ----------
    sweep : {"budget", "workers"}
        What varies: the budget (Figure 4) or the number of workers (Figure 5).
    xs : tuple of float
        The budgets, or the numbers of workers (whole numbers).
    n_workers : int or None
        Workers per trial in a budget sweep (the paper: 100); None in a worker sweep.
    budget : float or None
        The budget of a worker sweep (the paper: 125); None in a budget sweep.
    trials : int
        Trials per point; trial ``t`` is seeded by ``(seed, sweep, t)`` alone, so the first
        trials of a long run equal a short run's.
    seed : int
        Experiment seed.
    per : {"payment", "budget"}
        Default reading of the metric (both readings come from the same numbers).
    mechanisms : tuple of str
        Keys of :data:`~fedlib.mechanism.MECHANISMS`.
    optimal_values : {"re", "Re"}
        What the full-information benchmark maximises (see the module docstring).
    distribution : WorkerDistribution
        How the workers are drawn.
    """

    sweep: Literal["budget", "workers"] = "budget"
    xs: tuple[float, ...] = PAPER_BUDGETS
    n_workers: int | None = FIG4_WORKERS
    budget: float | None = None
    trials: int = DEFAULT_TRIALS
    seed: int = 0
    per: Per = "payment"
    mechanisms: tuple[str, ...] = SEVEN
    optimal_values: OptimalValues = "re"
    distribution: WorkerDistribution = field(default_factory=WorkerDistribution)

    kind: ClassVar[str] = "mechanisms"
    result_type: ClassVar[type] = SweepSummary
    default_datasets: ClassVar[tuple[str, ...]] = ()
    accepts: ClassVar[tuple[str, ...]] = ("seed", "fast")

    def __post_init__(self) -> None:
        if self.sweep not in _SWEEP_IDS:
            raise ValueError(f"sweep must be 'budget' or 'workers', got {self.sweep!r}")
        xs = tuple(float(x) for x in self.xs)
        if not xs or not all(np.isfinite(x) and x > 0 for x in xs):
            raise ValueError(f"xs must be positive and finite, got {self.xs!r}")
        object.__setattr__(self, "xs", xs)
        object.__setattr__(self, "mechanisms", _check_mechanisms(self.mechanisms))
        _positive_int(self.trials, "trials")
        if isinstance(self.seed, bool) or not isinstance(self.seed, int | np.integer) \
                or self.seed < 0:
            raise ValueError(f"seed must be a non-negative integer, got {self.seed!r}")
        if self.per not in ("payment", "budget"):
            raise ValueError(f"per must be 'payment' or 'budget', got {self.per!r}")
        if self.optimal_values not in ("re", "Re"):
            raise ValueError(f"optimal_values must be 're' or 'Re', got {self.optimal_values!r}")
        if self.sweep == "budget":
            _positive_int(self.n_workers, "n_workers")
            if self.budget is not None:
                raise ValueError("a budget sweep varies the budget: leave budget=None")
        else:
            if self.n_workers is not None:
                raise ValueError("a worker sweep varies n: leave n_workers=None")
            if any(x != int(x) for x in xs):
                raise ValueError(f"numbers of workers must be whole, got {self.xs!r}")
            if self.budget is None or not (np.isfinite(self.budget) and self.budget > 0):
                raise ValueError(f"budget must be positive and finite, got {self.budget!r}")
            object.__setattr__(self, "budget", float(self.budget))

    @property
    def pool_size(self) -> int:
        """Workers drawn per trial."""
        return int(self.n_workers) if self.sweep == "budget" else int(max(self.xs))

    def point(self, x: float) -> tuple[int, float]:
        """``(n, B)`` at the sweep value ``x``."""
        if self.sweep == "budget":
            return int(self.n_workers), float(x)
        return int(x), float(self.budget)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready configuration, tagged ``"experiment": "mechanisms"`` (and ``"device":
        "cpu"``: the sweeps are numpy only), for :mod:`fedlib.experiments.results`."""
        out = asdict(self)
        out["xs"], out["mechanisms"] = list(self.xs), list(self.mechanisms)
        return {"experiment": "mechanisms", **out, "device": "cpu"}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> SweepConfig:
        """Rebuild a configuration from :meth:`to_dict` output."""
        values = {k: v for k, v in state.items() if k not in ("experiment", "device")}
        values["xs"] = tuple(values["xs"])
        values["mechanisms"] = tuple(values["mechanisms"])
        values["distribution"] = WorkerDistribution(**values["distribution"])
        return cls(**values)

    @property
    def device(self) -> str:
        """Always ``"cpu"``: the sweeps are numpy only."""
        return "cpu"

    def fast(self) -> SweepConfig:
        """A quick version: 20 trials and every third point."""
        return replace(self, trials=min(self.trials, 20), xs=self.xs[::3])

    def result_name(self) -> str:
        """``mechanisms_<sweep>``, with ``_s<seed>`` for a seed other than 0 and ``_fast``."""
        name = f"mechanisms_{self.sweep}"
        if self.seed != 0:
            name += f"_s{self.seed}"
        return name + ("_fast" if self == paper_config(self.sweep, seed=self.seed).fast()
                       else "")

    def run(self, *, jobs: int = 1, checkpoint_dir: str | os.PathLike[str] | None = None,
            task_store: str | os.PathLike[str] | None = None) -> SweepSummary:
        """:func:`run_sweep`, summarised as stored (seconds; one process)."""
        result = run_sweep(self)
        return SweepSummary(self, tuple(result.summary_records()), result.wall_time_s)

    def recompute(self, n_tasks: int,
                  task_store: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
        """The first ``n_tasks`` stored records, recomputed: the whole sweep is rerun."""
        return list(self.run().records[:n_tasks])

    def command_options(self) -> Options:
        return Options(seed=self.seed, device="cpu")

    @classmethod
    def command_configs(cls, options: Options) -> list[SweepConfig]:
        """Our Figure 4 and Figure 5 (:func:`paper_config`)."""
        configs = [paper_config(sweep, seed=options.seed) for sweep in ("budget", "workers")]
        return [config.fast() if options.fast else config for config in configs]


def paper_config(sweep: Literal["budget", "workers"], **changes: Any) -> SweepConfig:
    """Our full-scale Figure 4 (``"budget"``) or Figure 5 (``"workers"``), with ``changes``."""
    if sweep == "budget":
        base = SweepConfig()
    elif sweep == "workers":
        base = SweepConfig(sweep="workers", xs=tuple(float(n) for n in PAPER_WORKERS),
                           n_workers=None, budget=FIG5_BUDGET)
    else:
        raise ValueError(f"sweep must be 'budget' or 'workers', got {sweep!r}")
    return replace(base, **changes)


@dataclass(frozen=True, eq=False)
class SweepResult:
    """All mechanisms on all points of one sweep; arrays have shape (mechanisms, xs, trials).

    Attributes
    ----------
    config : SweepConfig
        What was run.
    payment : numpy.ndarray of float
        Total payment of the mechanism.
    winners : numpy.ndarray of int
        Number of selected workers.
    sum_re : numpy.ndarray of float
        Sum of the realised ``re`` over the selected workers.
    sum_cost : numpy.ndarray of float
        Sum of the selected workers' true costs (= bids).
    budget : numpy.ndarray of float, shape (xs,)
        The budget at each point.
    wall_time_s : float
        Seconds the sweep took.
    """

    config: SweepConfig
    payment: np.ndarray
    winners: np.ndarray
    sum_re: np.ndarray
    sum_cost: np.ndarray
    budget: np.ndarray
    wall_time_s: float = 0.0

    @property
    def sweep(self) -> str:
        """``"budget"`` or ``"workers"``."""
        return self.config.sweep

    @property
    def xs(self) -> tuple[float, ...]:
        """The values of the varied quantity."""
        return self.config.xs

    @property
    def mechanisms(self) -> tuple[str, ...]:
        """The mechanisms, in the order of the arrays' first axis."""
        return self.config.mechanisms

    @property
    def per(self) -> Per:
        """The default reading of the metric."""
        return self.config.per

    @property
    def trials(self) -> int:
        """Trials per point."""
        return self.config.trials

    @property
    def x_label(self) -> str:
        """Axis label of the varied quantity."""
        return "budget $B$" if self.sweep == "budget" else "number of workers $n$"

    def metric(self, per: Per | None = None) -> np.ndarray:
        """Ex-post utility of unit payments, shape (mechanisms, xs, trials).

        Same as :func:`fedlib.mechanism.utility_per_payment`: ``sum re / sum p`` (NaN for 0/0,
        inf for a positive ``sum re`` bought for nothing), or ``sum re / B``.
        """
        return metric(self.sum_re, self.payment, self.budget[None, :, None], per or self.per)

    def index(self, mechanism: str) -> int:
        """Row of ``mechanism`` in the arrays."""
        return self.mechanisms.index(mechanism)

    def quantity(self, quantity: Quantity = "metric", per: Per | None = None) -> np.ndarray:
        """One of :data:`QUANTITIES`, shape (mechanisms, xs, trials).

        ``metric`` (in reading ``per``); ``winners``; ``budget_used`` = total payment / B;
        ``markup`` = total payment / the winners' true costs; ``re_per_cost`` = sum re / the
        winners' true costs. Per unit paid, ``metric = re_per_cost / markup``. NaN where
        nobody was selected.
        """
        if quantity == "metric":
            return self.metric(per)
        if quantity == "winners":
            return self.winners.astype(float)
        if quantity == "budget_used":
            return self.payment / self.budget[None, :, None]
        if quantity not in ("markup", "re_per_cost"):
            raise ValueError(f"quantity must be one of {QUANTITIES}, got {quantity!r}")
        top = self.payment if quantity == "markup" else self.sum_re
        with np.errstate(divide="ignore", invalid="ignore"):
            return np.where(self.sum_cost > 0, top / self.sum_cost, np.nan)

    def records(self, per: Per | None = None) -> list[dict[str, Any]]:
        """One tidy record per (mechanism, x, trial): ``mechanism, x, trial, metric,
        total_payment, budget, budget_used, winners, sum_re, sum_cost``."""
        m = self.metric(per)
        return [{"mechanism": name, "x": x, "trial": t, "metric": float(m[a, j, t]),
                 "total_payment": float(self.payment[a, j, t]), "budget": float(self.budget[j]),
                 "budget_used": float(self.payment[a, j, t] / self.budget[j]),
                 "winners": int(self.winners[a, j, t]), "sum_re": float(self.sum_re[a, j, t]),
                 "sum_cost": float(self.sum_cost[a, j, t])}
                for a, name in enumerate(self.mechanisms) for j, x in enumerate(self.xs)
                for t in range(self.trials)]

    def summary_records(self) -> list[dict[str, Any]]:
        """One JSON-ready record per (mechanism, x): median, quartiles and mean of both
        readings of the metric and of every other :data:`QUANTITIES` entry, and the number of
        trials over budget. What :class:`SweepSummary` stores."""
        parts = {"metric_payment": summarize(self, "payment"),
                 "metric_budget": summarize(self, "budget"),
                 **{q: summarize(self, quantity=q) for q in QUANTITIES if q != "metric"}}
        over = self.payment > self.budget[None, :, None] * (1 + RTOL)
        return [{"mechanism": name, "x": x,
                 **{key: {stat: float(getattr(s, stat)[a, j])
                          for stat in ("median", "q25", "q75", "mean")}
                    for key, s in parts.items()},
                 "over_budget": int(over[a, j].sum())}
                for a, name in enumerate(self.mechanisms) for j, x in enumerate(self.xs)]


def metric(sum_re: np.ndarray, payment: np.ndarray, budget: np.ndarray | float,
           per: Per = "payment") -> np.ndarray:
    """Vectorised :func:`fedlib.mechanism.utility_per_payment` from the sums.

    Parameters
    ----------
    sum_re, payment : numpy.ndarray
        Sum of ``re`` over the winners and total payment (broadcastable).
    budget : numpy.ndarray or float
        The budget (used with ``per="budget"``).
    per : {"payment", "budget"}
        The denominator.
    """
    sum_re = np.asarray(sum_re, dtype=float)
    payment = np.asarray(payment, dtype=float)
    shape = np.broadcast_shapes(sum_re.shape, payment.shape, np.shape(budget))
    if per == "budget":
        return np.broadcast_to(sum_re / np.asarray(budget, dtype=float), shape).copy()
    if per != "payment":
        raise ValueError(f"per must be 'payment' or 'budget', got {per!r}")
    with np.errstate(divide="ignore", invalid="ignore"):
        out = sum_re / payment
    out = np.where(payment > 0, out, np.where(sum_re == 0, np.nan, np.inf))
    return np.broadcast_to(out, shape).copy()


def _check_mechanisms(mechanisms: Sequence[str]) -> tuple[str, ...]:
    names = tuple(mechanisms)
    unknown = [m for m in names if m not in MECHANISMS]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(f"mechanisms must be distinct keys of MECHANISMS {tuple(MECHANISMS)}, "
                         f"got {names!r}")
    return names


def _positive_int(value: Any, name: str) -> int:
    if isinstance(value, bool) or not isinstance(value, int | np.integer) or value < 1:
        raise ValueError(f"{name} must be a positive integer, got {value!r}")
    return int(value)


def play(mechanism: str, bids: np.ndarray, Re: np.ndarray, re: np.ndarray, budget: float,
         seed: int, optimal_values: OptimalValues = "re") -> tuple[float, int, float, float]:
    """One mechanism on one instance (truthful bids).

    Returns ``(total payment, number of winners, sum of their re, sum of their costs)``.

    Parameters
    ----------
    mechanism : str
        A key of :data:`~fedlib.mechanism.MECHANISMS`.
    bids, Re, re : numpy.ndarray
        Bids (= true costs), accumulated and realised internal reputations.
    budget : float
        The budget B.
    seed : int
        Seed of Vanilla FL's random order.
    optimal_values : {"re", "Re"}
        What the full-information benchmarks maximise: with ``"re"`` they are handed the
        realised ``re`` in place of ``Re`` (their only use of it is as the knapsack values).
    """
    mech = MECHANISMS[mechanism]
    values = re if (mech.knows == "costs" and optimal_values == "re") else Re
    allocation = mech.select(bids, values, budget, costs=bids, rng=np.random.default_rng(seed))
    payments = mech.pay(allocation, re)
    won = allocation.selected
    return (float(payments.sum()), int(allocation.winners.size), float(re[won].sum()),
            float(bids[won].sum()))


def run_sweep(config: SweepConfig) -> SweepResult:
    """Play every mechanism of ``config`` at every point of every trial.

    Trial ``t`` draws ``config.pool_size`` workers from ``config.distribution`` with the
    generator ``default_rng([seed, sweep, t])``; the point ``x`` uses the first ``n`` of them
    with budget ``B`` (:meth:`SweepConfig.point`).
    """
    start = time.perf_counter()
    names, xs = config.mechanisms, config.xs
    shape = (len(names), len(xs), config.trials)
    payment, sum_re, sum_cost = np.zeros(shape), np.zeros(shape), np.zeros(shape)
    winners = np.zeros(shape, dtype=np.int64)
    budgets = np.array([config.point(x)[1] for x in xs])
    for t in range(config.trials):
        rng = np.random.default_rng([config.seed, _SWEEP_IDS[config.sweep], t])
        bids, Re, re, inst_seed = config.distribution.draw(config.pool_size, rng)
        for j, x in enumerate(xs):
            n, B = config.point(x)
            for a, name in enumerate(names):
                (payment[a, j, t], winners[a, j, t], sum_re[a, j, t],
                 sum_cost[a, j, t]) = play(
                    name, bids[:n], Re[:n], re[:n], B, inst_seed, config.optimal_values)
    return SweepResult(config, payment, winners, sum_re, sum_cost, budgets,
                       wall_time_s=time.perf_counter() - start)


def budget_sweep(budgets: Sequence[float] = PAPER_BUDGETS, n_workers: int = FIG4_WORKERS, *,
                 trials: int = DEFAULT_TRIALS, seed: int = 0, per: Per = "payment",
                 mechanisms: Sequence[str] = SEVEN,
                 distribution: WorkerDistribution | None = None,
                 optimal_values: OptimalValues = "re") -> SweepResult:
    """Figure 4: every mechanism against the budget, ``n_workers`` workers (the paper: 100).

    Each trial draws one pool of workers and plays every mechanism at every budget on it.

    Parameters
    ----------
    budgets : sequence of float
        Budgets ``B > 0``.
    n_workers : int
        Workers per trial.
    trials : int
        Trials (worker pools) per point.
    seed : int
        Experiment seed; same seed, same numbers.
    per : {"payment", "budget"}
        Default reading of the metric (both can be computed from the result).
    mechanisms : sequence of str
        Keys of :data:`~fedlib.mechanism.MECHANISMS` (default: the paper's seven).
    distribution : WorkerDistribution, optional
        How workers are drawn (default: the paper's).
    optimal_values : {"re", "Re"}
        What Approximate Optimal maximises.

    Returns
    -------
    SweepResult

    Examples
    --------
    >>> r = budget_sweep([50, 100], trials=3)
    >>> r.metric().shape
    (7, 2, 3)
    """
    return run_sweep(SweepConfig(
        sweep="budget", xs=tuple(budgets), n_workers=n_workers, budget=None, trials=trials,
        seed=seed, per=per, mechanisms=tuple(mechanisms), optimal_values=optimal_values,
        distribution=distribution or WorkerDistribution()))


def worker_sweep(n_workers_list: Sequence[int] = PAPER_WORKERS, budget: float = FIG5_BUDGET, *,
                 trials: int = DEFAULT_TRIALS, seed: int = 0, per: Per = "payment",
                 mechanisms: Sequence[str] = SEVEN,
                 distribution: WorkerDistribution | None = None,
                 optimal_values: OptimalValues = "re") -> SweepResult:
    """Figure 5: every mechanism against the number of workers at budget ``budget`` (125).

    Each trial draws ``max(n_workers_list)`` workers; the point ``n`` uses the first ``n``.
    Parameters as :func:`budget_sweep`.

    Examples
    --------
    >>> r = worker_sweep([20, 40], trials=2)
    >>> r.xs, r.budget.tolist()
    ((20.0, 40.0), [125.0, 125.0])
    """
    for n in n_workers_list:
        _positive_int(n, "n_workers_list entries")
    return run_sweep(SweepConfig(
        sweep="workers", xs=tuple(float(n) for n in n_workers_list), n_workers=None,
        budget=budget, trials=trials, seed=seed, per=per, mechanisms=tuple(mechanisms),
        optimal_values=optimal_values, distribution=distribution or WorkerDistribution()))


@dataclass(frozen=True, eq=False)
class Summary:
    """Median, quartiles and mean over trials, shape (mechanisms, xs), of one quantity."""

    mechanisms: tuple[str, ...]
    xs: tuple[float, ...]
    quantity: str
    median: np.ndarray
    q25: np.ndarray
    q75: np.ndarray
    mean: np.ndarray

    def records(self) -> list[dict[str, Any]]:
        """One tidy record per (mechanism, x)."""
        return [{"mechanism": name, "x": x, "median": float(self.median[a, j]),
                 "q25": float(self.q25[a, j]), "q75": float(self.q75[a, j]),
                 "mean": float(self.mean[a, j])}
                for a, name in enumerate(self.mechanisms) for j, x in enumerate(self.xs)]

    def row(self, mechanism: str) -> np.ndarray:
        """Medians of ``mechanism`` across the xs."""
        return self.median[self.mechanisms.index(mechanism)]

    def text(self, digits: int = 3, x_name: str = "x") -> str:
        """The medians as a fixed-width table: a row per x, a column per mechanism."""
        width = max(digits + 4, *(len(SHORT_LABELS.get(m, m)) for m in self.mechanisms))
        head = f"{x_name:>6} " + " ".join(f"{SHORT_LABELS.get(m, m):>{width}}"
                                          for m in self.mechanisms)
        rows = [f"{x:>6g} " + " ".join(f"{v:>{width}.{digits}f}" for v in self.median[:, j])
                for j, x in enumerate(self.xs)]
        return "\n".join([head, *rows])


def summarize(result: SweepResult, per: Per | None = None,
              quantity: Quantity = "metric") -> Summary:
    """Median, quartiles and mean over the trials of each (mechanism, x).

    ``quantity``: one of :data:`QUANTITIES` (:meth:`SweepResult.quantity`); the metric in
    reading ``per``. Non-finite trials (nobody selected) are left out; where no trial is left
    the statistics are NaN.
    """
    values = result.quantity(quantity, per)
    label = f"metric_per_{per or result.per}" if quantity == "metric" else quantity
    finite = np.where(np.isfinite(values), values, np.nan)
    with warnings.catch_warnings():  # a point where nobody was ever selected gives NaN
        warnings.simplefilter("ignore", RuntimeWarning)
        q25, median, q75 = np.nanpercentile(finite, [25, 50, 75], axis=2)
        mean = np.nanmean(finite, axis=2)
    return Summary(result.mechanisms, result.xs, label, median, q25, q75, mean)


#: The paper's claims about Figures 4-5 as pairwise comparisons: (claim, better, worse).
PAPER_CLAIMS: tuple[tuple[str, str, str], ...] = (
    ("Approx. Optimal above ours", "approx_optimal", "ours"),
    ("Reputation Greedy above ours", "reputation_greedy", "ours"),
    ("ours above RRAFL", "ours", "rrafl"),
    ("ours above Vanilla FL", "ours", "vanilla"),
    ("ours above Proportional Share", "ours", "proportional_share"),
    ("ours above Bid Greedy", "ours", "bid_greedy"),
)
#: The paper's figure of each sweep.
FIGURES = {"budget": "Figure 4", "workers": "Figure 5"}


def medians_above(result: SweepResult, better: str, worse: str,
                  per: Per | None = None) -> np.ndarray:
    """Per x, whether the median over the trials of ``better`` is above that of ``worse`` in
    reading ``per`` (false where either median is NaN)."""
    median = summarize(result, per).median
    return median[result.index(better)] > median[result.index(worse)]


def check_claims(result: SweepResult, per: Per | None = None,
                 claims: Sequence[tuple[str, str, str]] = PAPER_CLAIMS) -> list[Claim]:
    """Check each pairwise claim ``(statement, better, worse)`` on ``result`` in reading
    ``per``: it holds when the median of ``better`` is above that of ``worse`` at every x.

    The finding gives the share of the xs where the medians agree with the claim, and the
    shares of the (x, trial) instances where ``better`` scores strictly higher and exactly the
    same; the verdict is by the share of the xs
    (:func:`~fedlib.experiments.claims.share_verdict`).
    """
    reading = per or result.per
    metric = result.metric(reading)
    out = []
    for statement, better, worse in claims:
        above = medians_above(result, better, worse, reading)
        a, b = result.index(better), result.index(worse)
        out.append(Claim.from_checks(
            f"{FIGURES[result.sweep]} (per {reading})", statement,
            f"medians agree at {np.mean(above):.0%} of the points; single trials agree "
            f"{np.mean(metric[a] > metric[b]):.1%}, ties {np.mean(metric[a] == metric[b]):.1%}",
            list(above)))
    return out


def gap_decomposition(result: SweepResult, mechanism: str = "ours",
                      reference: str = "approx_optimal") -> dict[str, np.ndarray]:
    """Split the per-unit-paid gap between ``reference`` and ``mechanism`` into selection and
    markup, per trial, on a log scale; arrays of shape (xs, trials).

    Since ``metric = re_per_cost / markup`` on every instance,
    ``total = ln(U_ref / U_m) = selection + markup`` with ``selection = ln(q_ref / q_m)`` (the
    reference's set holds more ``re`` per unit of cost) and ``markup = ln(k_m / k_ref)`` (the
    mechanism pays more per unit of cost).
    """
    m, r = result.index(mechanism), result.index(reference)
    U, q, k = result.metric("payment"), result.quantity("re_per_cost"), result.quantity("markup")
    with np.errstate(divide="ignore", invalid="ignore"):
        return {"total": np.log(U[r] / U[m]), "selection": np.log(q[r] / q[m]),
                "markup": np.log(k[m] / k[r])}


def budget_exceeded(result: SweepResult, rtol: float = RTOL) -> dict[str, int]:
    """Per mechanism, how many (x, trial) instances paid more than ``B (1 + rtol)``."""
    over = result.payment > result.budget[None, :, None] * (1 + rtol)
    return {name: int(over[a].sum()) for a, name in enumerate(result.mechanisms)}


def budget_feasible_mechanisms(result: SweepResult) -> tuple[str, ...]:
    """The mechanisms of ``result`` that claim budget feasibility in the registry."""
    return tuple(m for m in result.mechanisms if "budget_feasible" in MECHANISMS[m].claims)


def mechanism_table(mechanisms: Sequence[str] = SEVEN) -> list[dict[str, str]]:
    """One row per mechanism from the registry: ``name``, ``label``, what it ``knows``, what it
    ``claims``, and its docstring's first paragraph (``summary``) and second (``rule``: whom it
    selects and what it pays)."""
    rows = []
    for name in _check_mechanisms(mechanisms):
        mech = MECHANISMS[name]
        doc = inspect.getdoc(type(mech)) or ""
        paragraphs = [" ".join(p.split()) for p in doc.split("\n\n")]
        rows.append({"name": name, "label": mech.label,
                     "knows": "true costs" if mech.knows == "costs" else "bids",
                     "claims": ", ".join(sorted(mech.claims)),
                     "summary": paragraphs[0] if paragraphs else "",
                     "rule": paragraphs[1] if len(paragraphs) > 1 else ""})
    return rows
