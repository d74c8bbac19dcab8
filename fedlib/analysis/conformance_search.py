"""The search for counterexamples behind a mechanism's certificate.

**Cases.** Every case is a truthful instance (bids = true costs) with its origin: the
adversarial instances of :func:`adversarial_cases` (:data:`EDGE_CASES` and, with
``paper=True``, the paper's worked examples of :mod:`fedlib.paper.examples`), then random
instances of :func:`fedlib.mechanism.random_instances` (one to six workers, magnitudes
1e-6..1e6, ties in a third of them).

**Misreports.** For every worker of every case, the others report truthfully and deliver their
``re``; the worker bids its true cost, then every bid of
:func:`fedlib.mechanism.deviation_grid` (around each point where its rank or a share test can
flip, multiples of its cost, a bid above the budget), delivering its ``re``; and, at its true
cost and at its best bid, it delivers less than it can (half its ``re``, its promised ``Re``
when it could deliver more, nothing). Its utility is Eq. (1); its best misreport against the
truth is one case of truthfulness (honest workers, ``re >= Re``, also of ``truthful_honest``),
its wins along the bids one of monotonicity (Lemma 2). Every play is a case of budget
feasibility (Theorem 2) and of ``well_defined``; every winner at the truthful play one of
individual rationality (Theorem 1).

**Verdicts.** A case violates a property when its margin exceeds ``rtol`` times the instance's
money scale (:attr:`fedlib.mechanism.Instance.scale`), or, for monotonicity and faults, when
it occurs at all. Of the violations found, the one with the fewest workers (the first found
among equals) is then shrunk (:func:`shrink`). Running time (Theorem 3) is measured in CPU
time on synthetic workers of growing ``n`` (:func:`time_mechanism`) and fitted like
:mod:`fedlib.analysis.selection_timing`.
"""

from __future__ import annotations

import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedlib.analysis.auction_steps import worker_label
from fedlib.analysis.conformance import PROPERTIES, MechanismFault, Play, Player
from fedlib.analysis.selection_timing import ScalingResult
from fedlib.checks import integer
from fedlib.mechanism import Instance, deviation_grid, random_instances, synthetic_instance
from fedlib.mechanism.properties import RTOL
from fedlib.paper import examples
from fedlib.runtime import progress
from fedlib.table import Table

#: Sizes at which the running time is measured (the largest ones reached within the limit).
TIMING_SIZES = (100, 300, 1000, 3000, 10000, 30000)
#: The fitted exponent of time against n up to which a mechanism counts as efficient.
EFFICIENT_EXPONENT = 1.5
#: The edge cases of :func:`adversarial_cases`: (origin, bids = costs, Re, budget, re).
EDGE_CASES: tuple[tuple[str, tuple[float, ...], tuple[float, ...], float, tuple[float, ...]],
                  ...] = (
    ("a single worker", (1.0,), (1.0,), 2.0, (1.0,)),
    ("a single worker above the budget", (3.0,), (1.0,), 2.0, (0.5,)),
    ("equal bids and reputations (ties)", (2.0, 2.0, 2.0), (1.0, 1.0, 1.0), 4.0,
     (1.0, 0.5, 1.0)),
    ("equal densities (ties)", (1.0, 2.0, 4.0), (0.5, 1.0, 2.0), 6.0, (0.25, 1.0, 2.0)),
    ("a worker with Re = 0", (1.0, 1.0, 1.0), (0.0, 1.0, 1.0), 3.0, (1.0, 1.0, 0.5)),
    ("every worker with Re = 0", (1.0, 1.0), (0.0, 0.0), 5.0, (0.5, 0.5)),
    ("everyone affordable", (1.0, 1.0, 2.0, 3.0), (1.0, 0.5, 1.0, 0.8), 100.0,
     (1.0, 0.2, 1.0, 0.9)),
    ("nobody affordable", (10.0, 20.0), (1.0, 1.0), 1.0, (1.0, 1.0)),
    ("zero costs", (0.0, 0.0, 1.0), (1.0, 0.5, 1.0), 1.0, (1.0, 0.5, 0.0)),
    ("nothing delivered (re = 0)", (1.0, 2.0), (1.0, 1.0), 5.0, (0.0, 0.0)),
    ("over-delivery (re > Re)", (1.0, 1.0, 100.0), (0.5, 0.5, 1.0), 10.0, (1.0, 1.0, 1.0)),
    ("an over-deliverer just above its critical bid", (4.0, 5.2), (1.0, 1.0), 10.0,
     (1.0, 2.0)),
    ("magnitudes twelve orders apart", (1e-6, 1e6), (1e-6, 1e6), 1e6, (1e-6, 5e5)),
)
#: The paper's worked examples among the adversarial cases (``paper=True``).
PAPER_CASES = (("the paper's Theorem 4 counterexample", examples.THEOREM4),
               ("Theorem 4's example, honest", examples.THEOREM4_HONEST),
               ("the Case 3 example of Theorem 4's proof", examples.CASE3),
               ("the auction of the chapter 'Selecting and paying workers'",
                examples.BOOK_AUCTION))


@dataclass(frozen=True, eq=False)
class Case:
    """A truthful instance to search, and where it came from (``"random 17"``, an edge
    case's name, a paper example's)."""

    instance: Instance
    origin: str


def adversarial_cases(paper: bool = True) -> list[Case]:
    """The edge cases (:data:`EDGE_CASES`) and, with ``paper``, the paper's worked examples."""
    cases = [Case(Instance(bids, Re, budget, re), origin)
             for origin, bids, Re, budget, re in EDGE_CASES]
    return cases + [Case(Instance(*example), origin) for origin, example in PAPER_CASES
                    if paper]


def search_cases(rng: np.random.Generator, count: int, *, paper: bool = True) -> list[Case]:
    """:func:`adversarial_cases`, then ``count`` random instances (one to six workers)."""
    count = integer(count, "count", minimum=0)
    return adversarial_cases(paper) + [
        Case(instance, f"random {i}")
        for i, instance in enumerate(random_instances(rng, count, n_workers=(1, 6)))]


@dataclass(frozen=True)
class Deviation:
    """What one worker reports and delivers: its ``bid`` and the ``delivered`` internal
    reputation (at most the ``re`` it can deliver)."""

    bid: float
    delivered: float


@dataclass(frozen=True, eq=False)
class Counterexample:
    """A case that violates a property, and the plays that show it.

    Attributes
    ----------
    property : str
        One of :data:`~fedlib.analysis.conformance.PROPERTIES`.
    instance : Instance
        The truthful instance (bids = true costs, ``re`` what each worker can deliver).
    origin : str
        Where the search found it (before shrinking).
    worker : int or None
        The worker concerned (0-based); None for a play in which nobody misreports.
    deviations : tuple of Deviation
        The worker's misreports: one (truthfulness, budget, faults), none (individual
        rationality, or a truthful play), or a lower and a higher bid (monotonicity).
    plays : tuple of Play
        Truthfulness: the truthful play and the misreport; monotonicity: the lower and the
        higher bid; otherwise the one play that violates the property.
    margin : float
        By how much it is violated: the misreport's gain, the overspending, the shortfall
        below cost, the gap between the two bids, or 1 for a fault.
    """

    property: str
    instance: Instance
    origin: str
    worker: int | None
    deviations: tuple[Deviation, ...]
    plays: tuple[Play, ...]
    margin: float

    def _who(self) -> str:
        w, inst = self.worker, self.instance
        honesty = "honest" if inst.honest[w] else "dishonest"
        return (f"worker {worker_label(w)} (cost {inst.costs[w]:.4g}, Re {inst.Re[w]:.4g}, "
                f"re {inst.re[w]:.4g}: {honesty})")

    def _outcome(self, play: Play) -> str:
        w = self.worker
        return (f"wins and is paid {play.payments[w]:.4g}" if play.selected[w] else "loses")

    @property
    def text(self) -> str:
        """One sentence saying what happens."""
        p, inst = self.property, self.instance
        if p == "well_defined":
            return f"{self.plays[0].fault}, at bids {_fmt(self.plays[0].bids)}"
        if p == "budget_feasible":
            play = self.plays[0]
            return (f"at bids {_fmt(play.bids)} and delivered re {_fmt(play.re)} the payments "
                    f"add up to {play.payments.sum():.4g} > B = {inst.budget:.4g}")
        if p.startswith("ir"):
            return (f"{self._who()} bids its cost and {self._outcome(self.plays[0])}, below "
                    f"its cost")
        if p == "monotone":
            low, high = self.deviations
            return (f"{self._who()} wins bidding {high.bid:.4g} but loses bidding the lower "
                    f"{low.bid:.4g}")
        truth, lie = self.plays
        d = self.deviations[0]
        delivered = ("" if d.delivered == inst.re[self.worker]
                     else f" and delivering re = {d.delivered:.4g}")
        return (f"{self._who()} {self._outcome(truth)} bidding its cost (utility "
                f"{truth.utility(self.worker, inst.costs[self.worker]):.4g}); bidding "
                f"{d.bid:.4g}{delivered} it {self._outcome(lie)} (utility "
                f"{lie.utility(self.worker, inst.costs[self.worker]):.4g})")

    @property
    def play_names(self) -> tuple[str, ...]:
        """What each of :attr:`plays` is."""
        if self.property.startswith("truthful"):
            return ("truthful", "misreport")
        return ("lower bid", "higher bid") if self.property == "monotone" else ("played",)

    def table(self) -> Table:
        """One column per worker (the one concerned starred): its cost, ``Re`` and ``re``, and
        in each play its bid, delivered ``re`` and payment (``-`` when it loses)."""
        inst = self.instance
        rows: list[tuple[Any, ...]] = [("true cost", *inst.costs.tolist()),
                                       ("Re (promised)", *inst.Re.tolist()),
                                       ("re (can deliver)", *inst.re.tolist())]
        for name, play in zip(self.play_names, self.plays, strict=True):
            won = np.zeros(inst.n, bool) if play.selected is None else play.selected
            paid = play.payments if play.payments is not None else np.full(inst.n, np.nan)
            rows += [(f"{name}: bid", *play.bids.tolist()),
                     (f"{name}: re delivered", *play.re.tolist()),
                     (f"{name}: paid", *(float(p) if w else "-" for p, w in zip(paid, won,
                                                                                 strict=True)))]
        workers = tuple(f"worker {worker_label(i)}" + (" *" if i == self.worker else "")
                        for i in range(inst.n))
        return Table(("", *workers), tuple(rows),
                     title=f"{self.property}: budget B = {inst.budget:.4g} (found in: "
                           f"{self.origin})")

    def _worker_outcome(self, play: Play) -> dict[str, float | None]:
        """The worker's payment (0 when it loses) and utility (Eq. (1)) in ``play``; None
        without a worker or after a fault."""
        w = self.worker
        if w is None or play.payments is None:
            return {"worker_payment": None, "worker_utility": None}
        return {"worker_payment": float(play.payments[w]),
                "worker_utility": play.utility(w, float(self.instance.costs[w]))}

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the instance, worker (0-based) and its true cost, misreports, margin,
        text, and the plays by name (:attr:`play_names`), each with the worker's payment and
        utility (Eq. (1)) as numbers."""
        inst, w = self.instance, self.worker
        return {"property": self.property, "origin": self.origin, "text": self.text,
                "instance": {"costs": inst.costs.tolist(), "Re": inst.Re.tolist(),
                             "budget": inst.budget, "re": inst.re.tolist(), "seed": inst.seed},
                "worker": w, "worker_cost": None if w is None else float(inst.costs[w]),
                "margin": self.margin,
                "deviations": [{"bid": float(d.bid), "delivered": float(d.delivered)}
                               for d in self.deviations],
                "plays": [{"name": name, "bids": play.bids.tolist(), "re": play.re.tolist(),
                           "selected": None if play.selected is None else
                           np.flatnonzero(play.selected).tolist(),
                           "payments": None if play.payments is None else
                           play.payments.tolist(), "fault": play.fault,
                           **self._worker_outcome(play)}
                          for name, play in zip(self.play_names, self.plays, strict=True)]}


def _fmt(values: np.ndarray) -> str:
    return "(" + ", ".join(f"{v:.4g}" for v in values) + ")"


def _truth(instance: Instance, worker: int) -> Deviation:
    """What ``worker`` does when it does not misreport: bids its cost, delivers its ``re``."""
    return Deviation(float(instance.costs[worker]), float(instance.re[worker]))


def _with(instance: Instance, worker: int | None, deviation: Deviation | None
          ) -> tuple[np.ndarray, np.ndarray]:
    """The bids and delivered ``re`` when ``worker`` makes ``deviation`` (or nobody does)."""
    bids, re = instance.bids.copy(), instance.re.copy()
    if worker is not None and deviation is not None:
        bids[worker], re[worker] = deviation.bid, deviation.delivered
    return bids, re


def evaluate(player: Player, prop: str, instance: Instance, worker: int | None,
             deviations: Sequence[Deviation], origin: str = "",
             rtol: float = RTOL) -> Counterexample | None:
    """The counterexample that ``worker``'s ``deviations`` make of ``prop`` on ``instance``,
    or None if they do not violate it (the property's plays, recomputed)."""
    deviations = tuple(deviations)
    if worker is not None and any(d.delivered > instance.re[worker] for d in deviations):
        return None  # nobody delivers more than it can
    if prop == "monotone":
        plays = tuple(player.play(instance, *_with(instance, worker, d)) for d in deviations)
        low, high = plays
        ok = low.fault is None and high.fault is None and deviations[0].bid < deviations[1].bid
        margin = (deviations[1].bid - deviations[0].bid
                  if ok and high.selected[worker] and not low.selected[worker] else -1.0)
        return _counterexample(prop, instance, origin, worker, deviations, plays, margin, 0.0)
    play = player.play(instance, *_with(instance, worker, deviations[0] if deviations else None))
    if prop == "well_defined":
        return _counterexample(prop, instance, origin, worker, deviations, (play,),
                               1.0 if play.fault else -1.0, 0.0)
    if play.fault is not None:
        return None
    tolerance = rtol * instance.scale
    if prop == "budget_feasible":
        return _counterexample(prop, instance, origin, worker, deviations, (play,),
                               float(play.payments.sum() - instance.budget), tolerance)
    if worker is None or (prop.endswith("_honest") and not instance.honest[worker]):
        return None
    cost = float(instance.costs[worker])
    if prop.startswith("ir"):
        margin = cost - play.payments[worker] if play.selected[worker] else -1.0
        return _counterexample(prop, instance, origin, worker, (), (play,), float(margin),
                               tolerance)
    truth = player.play(instance)
    if truth.fault is not None:
        return None
    return _counterexample(prop, instance, origin, worker, deviations, (truth, play),
                           play.utility(worker, cost) - truth.utility(worker, cost), tolerance)


def _counterexample(prop: str, instance: Instance, origin: str, worker: int | None,
                    deviations: tuple[Deviation, ...], plays: tuple[Play, ...], margin: float,
                    tolerance: float) -> Counterexample | None:
    if margin <= tolerance:
        return None
    return Counterexample(prop, instance, origin, worker, deviations, plays, float(margin))


def _significant(values: np.ndarray, digits: int) -> np.ndarray:
    return np.array([float(f"{v:.{digits}g}") for v in np.atleast_1d(values)])


def _variants(cex: Counterexample) -> Iterator[tuple[Instance, int | None,
                                                     tuple[Deviation, ...]]]:
    """Smaller versions of a counterexample: other workers left out (half of them, then
    quarters, down to one at a time), money or reputations rescaled by a power of ten towards
    1, values rounded."""
    inst, w, deviations = cex.instance, cex.worker, cex.deviations
    others = np.array([j for j in range(inst.n) if j != w], dtype=int)
    size = max(others.size // 2, 1)
    while others.size and size >= 1:
        for start in range(0, others.size, size):
            keep = np.ones(inst.n, dtype=bool)
            keep[others[start:start + size]] = False
            if keep.any():
                yield (Instance(inst.costs[keep], inst.Re[keep], inst.budget, inst.re[keep],
                                seed=inst.seed), None if w is None else int(keep[:w].sum()),
                       deviations)
        size //= 2
    money = 10.0 ** -math.floor(math.log10(inst.scale))
    yield (Instance(inst.costs * money, inst.Re, inst.budget * money, inst.re, seed=inst.seed),
           w, tuple(Deviation(d.bid * money, d.delivered) for d in deviations))
    top = max(inst.Re.max(), inst.re.max())
    reputation = 10.0 ** -math.floor(math.log10(top)) if top > 0 else 1.0
    yield (Instance(inst.costs, inst.Re * reputation, inst.budget, inst.re * reputation,
                    seed=inst.seed), w,
           tuple(Deviation(d.bid, d.delivered * reputation) for d in deviations))
    for digits in (1, 2, 3):
        fields = {"costs": inst.costs, "Re": inst.Re, "re": inst.re,
                  "budget": np.array([inst.budget])}
        for name, values in fields.items():
            rounded = {**fields, name: _significant(values, digits)}
            if rounded["budget"][0] > 0:
                yield (Instance(rounded["costs"], rounded["Re"], float(rounded["budget"][0]),
                                rounded["re"], seed=inst.seed), w, deviations)
        yield inst, w, tuple(Deviation(*_significant([d.bid, d.delivered], digits))
                             for d in deviations)


def shrink(player: Player, cex: Counterexample, rtol: float = RTOL) -> Counterexample:
    """A smaller counterexample of the same property and misreport: other workers left out,
    values rescaled and rounded to 1-3 significant digits, while it stays one."""
    changed = True
    while changed:
        changed = False
        for instance, worker, deviations in _variants(cex):
            smaller = evaluate(player, cex.property, instance, worker, deviations, cex.origin,
                               rtol)
            if smaller is not None and _size(smaller) < _size(cex):
                cex, changed = smaller, True
                break
    return cex


def _size(cex: Counterexample) -> tuple[int, int]:
    """Workers, then the significant digits of the numbers shown and their orders of
    magnitude away from 1."""
    values = [*cex.instance.costs, *cex.instance.Re, *cex.instance.re, cex.instance.budget,
              *(x for d in cex.deviations for x in (d.bid, d.delivered))]
    digits = sum(len(f"{float(v):.15e}".split("e")[0].replace(".", "").rstrip("0"))
                 for v in values)
    magnitudes = sum(abs(math.floor(math.log10(abs(v)))) for v in values if v != 0)
    return cex.instance.n, digits + magnitudes


@dataclass
class _Tally:
    """Checks, violations, misreports tried and the first smallest violation of one
    property."""

    checks: int = 0
    violations: int = 0
    misreports: int = 0
    cases: set[int] = field(default_factory=set)
    found: tuple[int, Case, int | None, tuple[Deviation, ...]] | None = None

    def check(self, index: int, case: Case, violated: bool, worker: int | None = None,
              deviations: tuple[Deviation, ...] = (), misreports: int = 0) -> None:
        self.checks += 1
        self.misreports += misreports
        self.cases.add(index)
        if violated:
            self.violations += 1
            if self.found is None or case.instance.n < self.found[1].instance.n:
                self.found = (index, case, worker, deviations)


def _deliveries(full: float, promised: float) -> list[float]:
    """What a worker able to deliver ``full`` may deliver instead: less."""
    return sorted({full / 2, min(full, promised), 0.0} - {full})


class _Sweep:
    """The plays of one case (see the module docstring), tallied property by property."""

    def __init__(self, player: Player, tallies: dict[str, _Tally], rtol: float) -> None:
        self.player, self.tallies, self.rtol = player, tallies, rtol
        self.plays = 0

    def run(self, index: int, case: Case) -> None:
        inst = case.instance
        truth = self.player.play(inst)
        self.plays += 1
        self.tallies["well_defined"].check(index, case, truth.fault is not None)
        if truth.fault is not None:
            return
        tolerance = self.rtol * inst.scale
        self.tallies["budget_feasible"].check(
            index, case, truth.payments.sum() - inst.budget > tolerance)
        for w in np.flatnonzero(truth.selected):
            short = inst.costs[w] - truth.payments[w] > tolerance
            self.tallies["ir"].check(index, case, short, int(w))
            if inst.honest[w]:
                self.tallies["ir_honest"].check(index, case, short, int(w))
        for w in range(inst.n):
            self._worker(index, case, w, truth, tolerance)

    def _pay(self, index: int, case: Case, w: int, allocation: Any, selected: np.ndarray,
             deviation: Deviation, tolerance: float) -> float | None:
        """The utility of ``w`` making ``deviation`` (None after a fault), every play tallied."""
        inst = case.instance
        _, re = _with(inst, w, deviation)
        lie = int(deviation != _truth(inst, w))
        self.plays += 1
        try:
            payments = self.player.pay(inst, allocation, selected, re)
        except MechanismFault:
            self.tallies["well_defined"].check(index, case, True, w, (deviation,), lie)
            return None
        self.tallies["well_defined"].check(index, case, False, misreports=lie)
        self.tallies["budget_feasible"].check(index, case,
                                              payments.sum() - inst.budget > tolerance, w,
                                              (deviation,), lie)
        return float(payments[w] - inst.costs[w]) if selected[w] else 0.0

    def _worker(self, index: int, case: Case, w: int, truth: Play, tolerance: float) -> None:
        inst = case.instance
        cost, full = float(inst.costs[w]), float(inst.re[w])
        honest_utility = truth.utility(w, cost)
        best, best_deviation = honest_utility, _truth(inst, w)
        selections: dict[float, tuple[Any, np.ndarray]] = {}
        grid = np.union1d(deviation_grid(inst, w), [cost])
        lies = grid.size - 1  # every bid but its cost, then delivering less
        for bid in grid:
            deviation = Deviation(float(bid), full)
            bids, _ = _with(inst, w, deviation)
            try:
                selections[float(bid)] = self.player.select(inst, bids)
            except MechanismFault:
                self.plays += 1
                self.tallies["well_defined"].check(index, case, True, w, (deviation,),
                                                   int(bid != cost))
                continue
            u = self._pay(index, case, w, *selections[float(bid)], deviation, tolerance)
            if u is not None and u > best:
                best, best_deviation = u, deviation
        for bid in sorted({cost, best_deviation.bid} & selections.keys()):
            for delivered in _deliveries(full, float(inst.Re[w])):
                deviation = Deviation(bid, delivered)
                lies += 1
                u = self._pay(index, case, w, *selections[bid], deviation, tolerance)
                if u is not None and u > best:
                    best, best_deviation = u, deviation
        gain = best - honest_utility > tolerance
        self.tallies["truthful"].check(index, case, gain, w, (best_deviation,), lies)
        if inst.honest[w]:
            self.tallies["truthful_honest"].check(index, case, gain, w, (best_deviation,),
                                                  lies)
        wins = sorted((bid, bool(selected[w])) for bid, (_, selected) in selections.items())
        pair = next(((Deviation(low, full), Deviation(high, full))
                     for i, (low, won_low) in enumerate(wins) if not won_low
                     for high, won_high in wins[i + 1:] if won_high), ())
        self.tallies["monotone"].check(index, case, bool(pair), w, pair, grid.size - 1)


class TimingFault(MechanismFault):
    """A fault while timing the mechanism, with the case it happened on."""

    def __init__(self, message: str, case: Case) -> None:
        super().__init__(message)
        self.case = case


@dataclass(frozen=True, eq=False)
class Verdict:
    """What the search found about one property.

    Attributes
    ----------
    property : str
    holds : bool
        No violation was found.
    instances, checks, violations : int
        Cases in which the property was checked, cases checked (plays, workers or winners),
        violations found.
    counterexample : Counterexample or None
        The smallest violation, shrunk (None when it holds).
    measured : str
        For ``efficient``: the fitted exponent and the sizes (else empty).
    misreports : int
        The misreports (a bid other than the worker's cost, or less delivered than its
        ``re``) among the checks: for truthfulness and monotonicity those tried per worker.
    exponent : float or None
        For ``efficient``: the fitted exponent of time against ``n`` (None when it could not
        be fitted, or for another property).
    """

    property: str
    holds: bool
    instances: int
    checks: int
    violations: int
    counterexample: Counterexample | None = None
    measured: str = ""
    misreports: int = 0
    exponent: float | None = None

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the counterexample's :meth:`~Counterexample.to_dict`."""
        return {"property": self.property, "holds": self.holds, "instances": self.instances,
                "checks": self.checks, "misreports": self.misreports,
                "violations": self.violations,
                "counterexample": None if self.counterexample is None
                else self.counterexample.to_dict(), "measured": self.measured,
                "exponent": self.exponent}


@dataclass(frozen=True, eq=False)
class Search:
    """The outcome of :func:`search`: a verdict per property, the running time, and what was
    tried.

    Attributes
    ----------
    mechanism : str
        The mechanism's name.
    verdicts : tuple of Verdict
        In the order of :data:`~fedlib.analysis.conformance.PROPERTIES`.
    timing : ScalingResult or None
        CPU seconds of ``select`` then ``pay`` against ``n`` (None without timing).
    cases, random_cases, plays : int
        Cases searched (of them random), plays of the mechanism (each ``pay`` one).
    seed : int
        Seed of the random cases.
    seconds : float
        Wall time of the search.
    """

    mechanism: str
    verdicts: tuple[Verdict, ...]
    timing: ScalingResult | None
    cases: int
    random_cases: int
    plays: int
    seed: int
    seconds: float

    def verdict(self, prop: str) -> Verdict:
        """The verdict on ``prop``."""
        return next(v for v in self.verdicts if v.property == prop)

    @property
    def failed(self) -> tuple[str, ...]:
        """The properties with a counterexample."""
        return tuple(v.property for v in self.verdicts if not v.holds)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: what was tried, and the running time's sizes, medians and the exponent
        up to which it counts as efficient (:data:`EFFICIENT_EXPONENT`)."""
        timing = None if self.timing is None else {
            "sizes": self.timing.sizes.tolist(), "median_s": self.timing.median.tolist(),
            "exponent_limit": EFFICIENT_EXPONENT}
        return {"cases": self.cases, "random_cases": self.random_cases, "plays": self.plays,
                "seed": self.seed, "seconds": self.seconds, "timing": timing}


def time_mechanism(player: Player, rng: np.random.Generator,
                   sizes: Sequence[int] = TIMING_SIZES, repeats: int = 3,
                   limit_s: float = 1.0) -> ScalingResult:
    """CPU seconds of ``select`` then ``pay`` on synthetic workers (budget ``n``, as
    :func:`~fedlib.analysis.selection_timing.time_select`), for growing ``n``.

    The time is this process's CPU time (:func:`time.process_time`, all its threads; work
    handed to other processes is not counted): on a shared machine the wall time of a short
    call is mostly waiting for a core, which would flatten or steepen the fitted exponent at
    random.

    A size is skipped, with all larger ones, once the time extrapolated from the last two
    sizes (or the last time alone) exceeds ``limit_s``: an exponential mechanism stops early.

    Raises
    ------
    TimingFault
        If the mechanism fails on a synthetic instance.
    """
    kept: list[int] = []
    times: list[list[float]] = []
    for n in sizes:
        if len(kept) >= 2:
            slope = math.log(max(np.median(times[-1]), 1e-9) / max(np.median(times[-2]), 1e-9))
            slope /= math.log(kept[-1] / kept[-2])
            if np.median(times[-1]) * (n / kept[-1]) ** max(slope, 1.0) > limit_s:
                break
        elif times and np.median(times[-1]) * n / kept[-1] > limit_s:
            break
        instance = synthetic_instance(int(n), float(n), rng)
        row = []
        for _ in range(repeats + 1):  # the first call warms up
            start = time.process_time()
            play = player.play(instance)
            row.append(time.process_time() - start)
            if play.fault is not None:
                raise TimingFault(play.fault, Case(instance, f"timing, n = {n}"))
        kept.append(int(n))
        times.append(row[1:])
    return ScalingResult(np.array(kept), np.array(times))


def _efficiency(timing: ScalingResult) -> Verdict:
    if timing.sizes.size < 2:
        return Verdict("efficient", False, 1, 1, 1, measured=f"{timing.median[0]:.3g} s at "
                       f"n = {timing.sizes[0]}: too slow to time a larger n")
    large = timing.sizes >= 1000
    exponent = timing.slope(1000 if large.sum() >= 2 else 0)
    return Verdict("efficient", exponent <= EFFICIENT_EXPONENT, 1, timing.sizes.size,
                   int(exponent > EFFICIENT_EXPONENT),
                   measured=f"time ~ n^{exponent:.2f} for n = {timing.sizes[0]}.."
                            f"{timing.sizes[-1]}", exponent=exponent)


def search(mechanism: Any, instances: int, *, seed: int = 0, paper: bool = True,
           timing: bool = True, rtol: float = RTOL,
           cases: Iterable[Case] | None = None) -> Search:
    """Search for counterexamples to every property of
    :data:`~fedlib.analysis.conformance.PROPERTIES` (see the module docstring).

    Parameters
    ----------
    mechanism
        An object of the protocol (:func:`~fedlib.analysis.conformance.conform`).
    instances : int
        Random instances, after the adversarial ones.
    seed : int
        Seed of the random instances and of the timing's workers.
    paper : bool
        Include the paper's worked examples among the adversarial instances.
    timing : bool
        Measure the running time (``efficient``); without it that property is not judged.
    rtol : float
        Relative tolerance of the money comparisons.
    cases : iterable of Case, optional
        Search these instead (``instances`` and ``paper`` are then not used).
    """
    seed = integer(seed, "seed", minimum=0)
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    cases = list(search_cases(rng, instances, paper=paper) if cases is None else cases)
    player = Player(mechanism)
    tallies = {prop: _Tally() for prop in PROPERTIES if prop != "efficient"}
    sweep = _Sweep(player, tallies, rtol)
    for index, case in enumerate(progress(cases, desc=f"searching {mechanism.name}")):
        sweep.run(index, case)
    scaling = None
    if timing and tallies["well_defined"].violations == 0:
        try:
            scaling = time_mechanism(player, rng)
        except TimingFault as fault:
            cases.append(fault.case)
            tallies["well_defined"].check(len(cases) - 1, fault.case, True)
    verdicts = []
    for prop, tally in tallies.items():
        cex = None
        if tally.found is not None:
            _, case, worker, deviations = tally.found
            cex = evaluate(player, prop, case.instance, worker, deviations, case.origin, rtol)
            cex = None if cex is None else shrink(player, cex, rtol)
        verdicts.append(Verdict(prop, tally.violations == 0, len(tally.cases), tally.checks,
                                tally.violations, cex, misreports=tally.misreports))
    if scaling is not None:
        verdicts.append(_efficiency(scaling))
    return Search(mechanism.name, tuple(verdicts), scaling, len(cases),
                  sum(c.origin.startswith("random") for c in cases), sweep.plays, seed,
                  time.perf_counter() - start)

