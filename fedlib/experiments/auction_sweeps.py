"""Figures 4-5: the mechanisms compared on synthetic workers, without any training.

The paper draws ``n`` workers (:func:`fedlib.mechanism.synthetic_instance`, true cost = bid),
runs every mechanism on them and plots the publisher's *ex-post utility of unit payments*:
Figure 4 against the budget ``B`` at ``n = 100``, Figure 5 against ``n`` at ``B = 125``.

Two readings of the metric (``per``):

* ``"payment"`` (default): ``sum_{i in S} re_i / sum_i p_i``, utility per unit actually paid;
* ``"budget"``: ``sum_{i in S} re_i / B``, utility per unit of budget.

Every trial plays all mechanisms on the same workers (common random numbers). In the budget
sweep one pool of ``n_workers`` workers per trial serves every budget; in the worker sweep each
trial draws ``max(n_workers_list)`` workers and the point ``n`` uses the first ``n`` of them.
Vanilla FL's random order comes from the instance's own seed, so it too is shared.

Approximate Optimal "has full knowledge about all workers' information".
``fedlib.mechanism.ApproximateOptimal`` maximises the sum of whatever values it is handed in
place of ``Re``: by default (``optimal_values="re"``, see :data:`fedlib.paper.readings.READINGS`)
the sweeps hand it the realised ``re``, so it maximises ``sum re`` subject to ``sum c <= B``;
``optimal_values="Re"`` hands it the accumulated reputations, as the multi-task runs do.

Stored form (``python -m fedlib reproduce mechanisms``): :class:`SweepSummary`;
:meth:`SweepConfig.recompute` reruns the whole sweep, since trials are seeded one by one and
summaries need them all.
"""

from __future__ import annotations

import inspect
import os
import time
from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from typing import Any, ClassVar, Literal

import numpy as np

from fedlib.analysis.sweep_results import Per, SweepResult
from fedlib.checks import integer
from fedlib.experiments.registry import Records, register
from fedlib.mechanism import MECHANISMS, synthetic_instance
from fedlib.paper.settings import FIG4_WORKERS, FIG5_BUDGET, PAPER_BUDGETS, PAPER_WORKERS

OptimalValues = Literal["re", "Re"]

#: The paper's seven mechanisms, in the order of its benchmark list.
SEVEN: tuple[str, ...] = ("ours", "rrafl", "vanilla", "proportional_share", "bid_greedy",
                          "reputation_greedy", "approx_optimal")
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
    """What a sweep stores: one record per (mechanism, x) with the medians, quartiles and means
    of :meth:`~fedlib.analysis.sweep_results.SweepResult.summary_records` (the trials themselves
    are not kept; :mod:`fedlib.analysis.sweep_results` analyses a whole run)."""


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
        What the full-information benchmark maximises (a reading of "full knowledge"; see the
        module docstring).
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

    def __post_init__(self) -> None:
        if self.sweep not in _SWEEP_IDS:
            raise ValueError(f"sweep must be 'budget' or 'workers', got {self.sweep!r}")
        xs = tuple(float(x) for x in self.xs)
        if not xs or not all(np.isfinite(x) and x > 0 for x in xs):
            raise ValueError(f"xs must be positive and finite, got {self.xs!r}")
        object.__setattr__(self, "xs", xs)
        object.__setattr__(self, "mechanisms", _check_mechanisms(self.mechanisms))
        integer(self.trials, "trials")
        integer(self.seed, "seed", minimum=0)
        if self.per not in ("payment", "budget"):
            raise ValueError(f"per must be 'payment' or 'budget', got {self.per!r}")
        if self.optimal_values not in ("re", "Re"):
            raise ValueError(f"optimal_values must be 're' or 'Re', got {self.optimal_values!r}")
        if self.sweep == "budget":
            integer(self.n_workers, "n_workers")
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
        "cpu"``: the sweeps are numpy only), for :mod:`fedlib.storage.results`."""
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


def _check_mechanisms(mechanisms: Sequence[str]) -> tuple[str, ...]:
    names = tuple(mechanisms)
    unknown = [m for m in names if m not in MECHANISMS]
    if unknown or not names or len(set(names)) != len(names):
        raise ValueError(f"mechanisms must be distinct keys of MECHANISMS {tuple(MECHANISMS)}, "
                         f"got {names!r}")
    return names


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
    ``budgets`` (each ``B > 0``) are the :class:`SweepConfig`'s ``xs``; the other parameters
    are its fields of the same names (``distribution`` default: the paper's).

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
        integer(n, "n_workers_list entries")
    return run_sweep(SweepConfig(
        sweep="workers", xs=tuple(float(n) for n in n_workers_list), n_workers=None,
        budget=budget, trials=trials, seed=seed, per=per, mechanisms=tuple(mechanisms),
        optimal_values=optimal_values, distribution=distribution or WorkerDistribution()))


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
