"""The search for counterexamples behind a mechanism's certificate, and the field's measures of
how far a mechanism is from each property.

**Cases.** Every case is a truthful instance (bids = true costs) with its origin: the
adversarial instances of :func:`adversarial_cases` (:data:`EDGE_CASES`, the same edges at the
paper's scale, :func:`scaled_edge_cases`, and, with ``paper=True``, the paper's worked
examples of :mod:`fedlib.paper.examples`), then random instances of
:func:`fedlib.mechanism.random_instances` whose sizes follow :data:`SIZES`: a share with one to
six workers (where counterexamples are read easily), a share at the paper's 30-100 workers
(Figures 4-5, Tables 1-3), a share up to 200; magnitudes 1e-6..1e6, budgets from nobody to
everyone affordable, ties in a third of them.

**Misreports.** At most :data:`DEVIANTS` workers of an instance misreport alone: all of them
in a small instance, in a larger one a sample drawn with the search's seed, half among the
truthful play's winners and half among its losers (the others are not examined, and the
effort reported counts only the examined ones). The others report truthfully and deliver
their ``re``; the worker bids its true cost, then the bids of
:func:`fedlib.mechanism.deviation_grid` (around each point where its rank or a share test can
flip; a sample of :data:`BIDS` of them when there are more) and the multiples :data:`ANCHORS`
of its cost, delivering its ``re``. A mechanism that says where its workers' outcomes can change
(``bid_breakpoints``: ours, RRAFL, proportional share) is instead played at
:func:`~fedlib.conformance.best_response.exact_bids`, one bid in every interval of a worker's
step-shaped utility and each breakpoint: all of them, which decides the worker's best bid
exactly, when there are at most :data:`EXACT_BIDS`, else a sample of :data:`BIDS`. Then, at
its true cost and at its best bid, it delivers less than it can (half its ``re``, its promised
``Re`` when it could deliver more, nothing): a worker decided exactly is decided over its
bids, not over every quality it could deliver.
Its utility is Eq. (1); its best misreport against the truth is one case of truthfulness
(honest workers, ``re >= Re``, also of ``truthful_honest``), its wins along the bids one of
monotonicity (the book's critical-bid lemma). Every play is a case of budget feasibility
(Theorem 2) and of ``well_defined``; every winner at the truthful play one of individual
rationality (Theorem 1).

**Joint misreports.** Budget feasibility and ``well_defined`` are properties of every play,
whoever misreports, so :data:`PAIRS` pairs of examined workers per instance also misreport
together (each its most profitable misreport, each the one that made the payments largest,
both twice their cost, both half of it). Truthfulness and individual rationality are
properties of one worker's report against the others' (Theorems 1 and 4 are dominant-strategy
statements for each worker, not for coalitions), so a pair's gain is no case of them.

**Measures.** Beside the verdicts, the measures of the literature on learned and approximate
auctions, each over the checks of its property: a worker's *ex-post regret*, its best gain
from misreporting over its truthful utility, ``max(0, best - truthful)`` (absolute, and
relative to its true cost where that is positive); the *IR violation* of a winner bidding its
cost, ``max(0, cost - payment)`` (and relative to its cost); the *budget overrun* of a play,
``max(0, sum of payments - B)`` (and relative to ``B``). :class:`Measure` holds their mean and
maximum, :class:`CaseMeasure` each instance's maxima.

**Verdicts.** A case violates a property when its margin (the property's check in
:data:`fedlib.mechanism.PROPERTIES`) exceeds ``rtol`` times the instance's money scale
(:attr:`fedlib.mechanism.Instance.scale`), or, for monotonicity and faults, when it occurs at
all. A property without a violation has *no counterexample in* what was
searched, which :attr:`Verdict.finding` states; a finite search proves nothing more. Of the
violations found, the one with the fewest workers (the first found among equals) is then
shrunk (:func:`shrink`). Running time (Theorem 3) is measured in CPU time on synthetic workers
of growing ``n`` (:func:`time_mechanism`) and fitted like
:mod:`fedlib.analysis.selection_timing`.
"""

from __future__ import annotations

import itertools
import math
import time
from collections.abc import Iterable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Any

import numpy as np

from fedlib.analysis.auction_steps import worker_label
from fedlib.analysis.selection_timing import ScalingResult
from fedlib.checks import integer
from fedlib.conformance.best_response import exact_bids, has_breakpoints
from fedlib.conformance.protocol import PROPERTIES, MechanismFault, Play, Player
from fedlib.mechanism import Instance, deviation_grid, random_instances, synthetic_instance
from fedlib.mechanism.properties import RTOL
from fedlib.mechanism.property_rules import MISREPORT, TWO_BIDS, Played, utility
from fedlib.paper import examples
from fedlib.runtime import progress
from fedlib.table import Table

#: Sizes at which the running time is measured (the largest ones reached within the limit).
TIMING_SIZES = (100, 300, 1000, 3000, 10000, 30000)
#: The fitted exponent of time against n up to which a mechanism counts as efficient.
EFFICIENT_EXPONENT = 1.5
#: The sizes of the random instances: (fewest, most workers, share of the instances). Small
#: ones, the paper's 30-100 workers, and larger ones.
SIZES: tuple[tuple[int, int, float], ...] = ((1, 6, 0.4), (30, 100, 0.4), (101, 200, 0.2))
#: The paper's numbers of workers (Figures 4-5, Tables 1-3), counted apart in the effort.
PAPER_SIZES = (30, 100)
#: At most this many workers of an instance misreport alone (a sample in larger instances).
DEVIANTS = 8
#: At most this many bids of :func:`~fedlib.mechanism.deviation_grid` per examined worker.
BIDS = 40
#: A worker whose best bid is decided by at most this many :func:`exact_bids` (about four per
#: worker of the instance: 250 reach about 60 workers) plays them all; more are sampled.
EXACT_BIDS = 250
#: Bids every examined worker tries besides the grid, as multiples of its cost.
ANCHORS = (0.0, 0.5, 0.9, 1.1, 1.5, 2.0, 4.0)
#: Pairs of examined workers per instance that misreport together (budget, well_defined).
PAIRS = 3
#: The properties of every play, of which a pair's joint misreport is a case.
JOINT = tuple(name for name, p in PROPERTIES.items() if p.joint)
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
#: The sizes of :func:`scaled_edge_cases`.
SCALED_SIZES = (40, 100, 200)
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


def scaled_edge_cases(sizes: Sequence[int] = SCALED_SIZES) -> list[Case]:
    """The edges of :data:`EDGE_CASES` at the paper's scale, for each ``n`` of ``sizes``:
    every bid and reputation equal (ties), everyone affordable (B = 10 n), nobody affordable
    (B below every cost), reputations from 0 to 1e6 (a fifth of them 0, over-delivery and
    shirking both present).

    >>> [(c.origin, c.instance.n) for c in scaled_edge_cases([40])][:2]
    [('40 workers, all tied', 40), ('40 workers, everyone affordable', 40)]
    """
    cases = []
    for n in sizes:
        n = integer(n, "n", minimum=2)
        i = np.arange(n, dtype=float)
        costs = 1.0 + (i % 7) / 7
        extreme = np.where(i % 5 == 0, 0.0, 10.0 ** (6 * i / (n - 1)))
        cases += [
            Case(Instance(np.ones(n), np.ones(n), n / 3, np.where(i % 2 == 0, 1.0, 0.5)),
                 f"{n} workers, all tied"),
            Case(Instance(costs, 0.5 + (i % 3) / 4, 10.0 * n, 0.75 + (i % 4) / 8),
                 f"{n} workers, everyone affordable"),
            Case(Instance(costs, 0.5 + (i % 3) / 4, 0.5, np.full(n, 0.9)),
                 f"{n} workers, nobody affordable"),
            Case(Instance(costs, extreme, n / 2, extreme * np.where(i % 2 == 0, 2.0, 0.5)),
                 f"{n} workers, reputations 0 to 1e6")]
    return cases


def adversarial_cases(paper: bool = True) -> list[Case]:
    """The edge cases (:data:`EDGE_CASES`, then :func:`scaled_edge_cases`) and, with
    ``paper``, the paper's worked examples."""
    cases = [Case(Instance(bids, Re, budget, re), origin)
             for origin, bids, Re, budget, re in EDGE_CASES]
    return cases + scaled_edge_cases() + [Case(Instance(*example), origin)
                                          for origin, example in PAPER_CASES if paper]


def _check_sizes(sizes: Sequence[tuple[int, int, float]]) -> tuple[np.ndarray, np.ndarray]:
    """The ranges of ``sizes`` and their shares (normalised); a ValueError names a bad one."""
    if not sizes:
        raise ValueError("sizes must name at least one (fewest, most, share) range")
    ranges, shares = [], []
    for low, high, share in sizes:
        low = integer(low, "sizes' fewest workers", minimum=1)
        high = integer(high, "sizes' most workers", minimum=low)
        if not share > 0:
            raise ValueError(f"sizes' shares must be positive, got {share} for {low}..{high}")
        ranges.append((low, high))
        shares.append(float(share))
    return np.array(ranges), np.array(shares) / sum(shares)


def search_cases(rng: np.random.Generator, count: int, *, paper: bool = True,
                 sizes: Sequence[tuple[int, int, float]] = SIZES) -> list[Case]:
    """:func:`adversarial_cases`, then :func:`random_cases`."""
    return adversarial_cases(paper) + random_cases(rng, count, sizes)


def random_cases(rng: np.random.Generator, count: int,
                 sizes: Sequence[tuple[int, int, float]] = SIZES) -> list[Case]:
    """``count`` random instances, each with a number of workers drawn uniformly from a range
    of ``sizes`` (``(smallest, largest, share)``) picked with its share.

    >>> cases = random_cases(np.random.default_rng(0), 20, sizes=[(30, 100, 1.0)])
    >>> [c.instance.n for c in cases][:4]
    [66, 95, 60, 30]
    """
    count = integer(count, "count", minimum=0)
    ranges, shares = _check_sizes(sizes)
    cases = []
    for i in range(count):
        low, high = ranges[rng.choice(len(ranges), p=shares)]
        instance, = random_instances(rng, 1, n_workers=(int(low), int(high)))
        cases.append(Case(instance, f"random {i}"))
    return cases


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
        One of :data:`~fedlib.conformance.protocol.PROPERTIES`.
    instance : Instance
        The truthful instance (bids = true costs, ``re`` what each worker can deliver).
    origin : str
        Where the search found it (before shrinking).
    worker : int or None
        The worker concerned (0-based); None for a play in which nobody misreports.
    deviations : tuple of Deviation
        The worker's misreports: one (truthfulness, budget, faults), none (individual
        rationality, or a truthful play), a lower and a higher bid (monotonicity), or the
        worker's then the partner's (a joint misreport).
    plays : tuple of Play
        Truthfulness: the truthful play and the misreport; monotonicity: the lower and the
        higher bid; otherwise the one play that violates the property.
    margin : float
        By how much it is violated: the misreport's gain, the overspending, the shortfall
        below cost, the gap between the two bids, or 1 for a fault.
    partner : int or None
        The second worker of a joint misreport (budget feasibility, faults), else None.
    """

    property: str
    instance: Instance
    origin: str
    worker: int | None
    deviations: tuple[Deviation, ...]
    plays: tuple[Play, ...]
    margin: float
    partner: int | None = None

    @property
    def moves(self) -> tuple[tuple[int, Deviation], ...]:
        """Who misreports what in the play shown: (worker, deviation) pairs (empty for a
        truthful play; monotonicity's two bids are two plays, not one)."""
        return _moves(self.worker, self.deviations, self.partner)

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
        if PROPERTIES[p].subject == "winner":
            return (f"{self._who()} bids its cost and {self._outcome(self.plays[0])}, below "
                    f"its cost")
        if PROPERTIES[p].plays == TWO_BIDS:
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
        """What each of :attr:`plays` is (the property's
        :attr:`~fedlib.mechanism.property_rules.Property.plays`)."""
        return PROPERTIES[self.property].plays

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
        workers = tuple(f"worker {worker_label(i)}" + (" *" if i in (self.worker, self.partner)
                                                       else "")
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
                "partner": self.partner,
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


def _moves(worker: int | None, deviations: Sequence[Deviation], partner: int | None
           ) -> tuple[tuple[int, Deviation], ...]:
    """The (worker, deviation) pairs of one play: none, the worker's first deviation, or the
    worker's and the partner's."""
    if worker is None or not deviations:
        return ()
    return ((worker, deviations[0]),) + (() if partner is None else ((partner, deviations[1]),))


def _with(instance: Instance, moves: Iterable[tuple[int, Deviation]]
          ) -> tuple[np.ndarray, np.ndarray]:
    """The bids and delivered ``re`` when each worker of ``moves`` makes its deviation."""
    bids, re = instance.bids.copy(), instance.re.copy()
    for worker, deviation in moves:
        bids[worker], re[worker] = deviation.bid, deviation.delivered
    return bids, re


def evaluate(player: Player, prop: str, instance: Instance, worker: int | None,
             deviations: Sequence[Deviation], origin: str = "",
             rtol: float = RTOL, partner: int | None = None) -> Counterexample | None:
    """The counterexample that ``worker``'s ``deviations`` (with ``partner``'s, the second,
    for a joint misreport) make of ``prop`` on ``instance``, or None if they do not violate it
    (the property's plays, recomputed)."""
    rule = PROPERTIES[prop]
    deviations = tuple(deviations)
    if partner is not None and not rule.joint:
        raise ValueError(f"a joint misreport is no case of {prop} (only of {JOINT})")
    who = [partner if partner is not None and k == 1 else worker
           for k in range(len(deviations))]
    if worker is not None and any(d.delivered > instance.re[w]
                                  for w, d in zip(who, deviations, strict=True)):
        return None  # nobody delivers more than it can
    if rule.subject != "play" and (worker is None
                                   or rule.honest_only and not instance.honest[worker]):
        return None
    if rule.plays == TWO_BIDS:
        plays = tuple(player.play(instance, *_with(instance, [(worker, d)])) for d in deviations)
    else:
        plays = (player.play(instance, *_with(instance, _moves(worker, deviations, partner))),)
        if plays[0].payments is not None and rule.plays == MISREPORT:
            plays = (player.play(instance), *plays)
    if any(p.payments is None for p in plays) and not rule.required:
        return None  # a fault is a case of well_defined only
    cost = 0.0 if worker is None else float(instance.costs[worker])
    margin = rule.margin(plays, worker, cost, instance.budget)
    if margin <= (rtol * instance.scale if rule.money else 0.0):
        return None
    return Counterexample(prop, instance, origin, worker, deviations, plays, float(margin),
                          partner)


def _significant(values: np.ndarray, digits: int) -> np.ndarray:
    return np.array([float(f"{v:.{digits}g}") for v in np.atleast_1d(values)])


def _variants(cex: Counterexample) -> Iterator[tuple[Instance, int | None,
                                                     tuple[Deviation, ...], int | None]]:
    """Smaller versions of a counterexample (instance, worker, deviations, partner): other
    workers left out (half of them, then quarters, down to one at a time), money or reputations
    rescaled by a power of ten (money towards 1, reputations into (0.1, 1]), values rounded."""
    inst, w, deviations, partner = cex.instance, cex.worker, cex.deviations, cex.partner
    others = np.array([j for j in range(inst.n) if j not in (w, partner)], dtype=int)
    size = max(others.size // 2, 1)
    while others.size and size >= 1:
        for start in range(0, others.size, size):
            keep = np.ones(inst.n, dtype=bool)
            keep[others[start:start + size]] = False
            if keep.any():
                yield (Instance(inst.costs[keep], inst.Re[keep], inst.budget, inst.re[keep],
                                seed=inst.seed), None if w is None else int(keep[:w].sum()),
                       deviations, None if partner is None else int(keep[:partner].sum()))
        size //= 2
    money = 10.0 ** -math.floor(math.log10(inst.scale))
    yield (Instance(inst.costs * money, inst.Re, inst.budget * money, inst.re, seed=inst.seed),
           w, tuple(Deviation(d.bid * money, d.delivered) for d in deviations), partner)
    top = max(inst.Re.max(), inst.re.max(), *(d.delivered for d in deviations))
    # the largest reputation brought into (0.1, 1]: the book's range of reputations
    reputation = 10.0 ** -math.ceil(math.log10(top)) if top > 0 else 1.0
    yield (Instance(inst.costs, inst.Re * reputation, inst.budget, inst.re * reputation,
                    seed=inst.seed), w,
           tuple(Deviation(d.bid, d.delivered * reputation) for d in deviations), partner)
    for digits in (1, 2, 3):
        fields = {"costs": inst.costs, "Re": inst.Re, "re": inst.re,
                  "budget": np.array([inst.budget])}
        for name, values in fields.items():
            rounded = {**fields, name: _significant(values, digits)}
            if rounded["budget"][0] > 0:
                yield (Instance(rounded["costs"], rounded["Re"], float(rounded["budget"][0]),
                                rounded["re"], seed=inst.seed), w, deviations, partner)
        yield inst, w, tuple(Deviation(*_significant([d.bid, d.delivered], digits))
                             for d in deviations), partner


def shrink(player: Player, cex: Counterexample, rtol: float = RTOL) -> Counterexample:
    """A smaller counterexample of the same property and misreport: other workers left out,
    values rescaled and rounded to 1-3 significant digits, while it stays one."""
    changed = True
    while changed:
        changed = False
        for instance, worker, deviations, partner in _variants(cex):
            smaller = evaluate(player, cex.property, instance, worker, deviations, cex.origin,
                               rtol, partner)
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


#: The measure of each property that has one: (its name, what its relative value divides by).
MEASURES: dict[str, tuple[str, str]] = {name: p.measure for name, p in PROPERTIES.items()
                                        if p.measure is not None}


@dataclass(frozen=True)
class Measure:
    """The mean and maximum of a property's measure over its checks (module docstring).

    Attributes
    ----------
    name : str
        ``"regret"`` (ex-post regret per examined worker, Eq. (1) utilities), ``"IR
        violation"`` (per winner bidding its cost, Theorem 1) or ``"budget overrun"`` (per
        play, Theorem 2).
    relative_to : str
        What the relative values divide by: the worker's true cost, or the budget.
    mean, max : float
        Over the checks (0 without any).
    relative_mean, relative_max : float
        The same divided by ``relative_to``, over the checks where it is positive (NaN
        without any).
    count, relative_count : int
        The checks averaged, and those with a positive ``relative_to``.
    """

    name: str
    relative_to: str
    mean: float
    max: float
    relative_mean: float
    relative_max: float
    count: int
    relative_count: int

    @classmethod
    def of(cls, prop: str, values: Sequence[float], relative: Sequence[float]) -> Measure:
        """The measure of ``prop`` (:data:`MEASURES`) from its ``values`` and ``relative``
        values.

        >>> m = Measure.of("truthful", [0.0, 1.0, 0.5], [0.0, 0.25])
        >>> m.mean, m.max, m.relative_max, m.text
        (0.5, 1.0, 0.25, 'regret: mean 0.5, max 1 (relative to the true cost: mean 12.5%, max 25%)')
        """
        name, relative_to = MEASURES[prop]
        v, r = np.asarray(values, float), np.asarray(relative, float)
        return cls(name, relative_to, float(v.mean()) if v.size else 0.0,
                   float(v.max()) if v.size else 0.0,
                   float(r.mean()) if r.size else math.nan,
                   float(r.max()) if r.size else math.nan, int(v.size), int(r.size))

    @property
    def text(self) -> str:
        """The measure in a few words."""
        relative = ("" if not self.relative_count else
                    f" (relative to the {self.relative_to}: mean {100 * self.relative_mean:.3g}%, "
                    f"max {100 * self.relative_max:.3g}%)")
        return f"{self.name}: mean {self.mean:.3g}, max {self.max:.3g}{relative}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every attribute."""
        return dict(self.__dict__)


@dataclass(frozen=True)
class CaseMeasure:
    """One instance's largest measures.

    Attributes
    ----------
    origin : str
        The case's origin.
    n, examined : int
        Its workers, and those that misreported (alone).
    regret : float
        The largest ex-post regret of an examined worker (0 after a fault).
    worker : int or None
        Whose (0-based; None when nobody regrets anything).
    relative_regret : float
        The largest regret relative to the worker's true cost (workers with a positive cost;
        0 without any).
    ir_violation, overrun : float
        The largest IR violation of a winner bidding its cost, and budget overrun of a play.
    """

    origin: str
    n: int
    examined: int
    regret: float
    worker: int | None
    relative_regret: float
    ir_violation: float
    overrun: float

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: every attribute."""
        return dict(self.__dict__)


@dataclass
class _Tally:
    """What one property's checks found: counts, the instances (with their sizes) and the
    workers concerned, the measure's values, and the first smallest violation."""

    checks: int = 0
    violations: int = 0
    misreports: int = 0
    joint: int = 0
    sizes: dict[int, int] = field(default_factory=dict)
    workers: set[tuple[int, int]] = field(default_factory=set)
    values: list[float] = field(default_factory=list)
    relative: list[float] = field(default_factory=list)
    found: tuple[Case, int | None, tuple[Deviation, ...], int | None] | None = None
    exact_workers: set[tuple[int, int]] = field(default_factory=set)

    inexact: set[int] = field(default_factory=set)

    def exact_instances(self) -> int:
        """The instances whose every worker was examined (at most :data:`DEVIANTS`), each
        decided exactly."""
        return sum(n <= DEVIANTS and index not in self.inexact
                   for index, n in self.sizes.items())

    def check(self, index: int, case: Case, violated: bool, worker: int | None = None,
              deviations: tuple[Deviation, ...] = (), misreports: int = 0, *,
              partner: int | None = None,
              measure: tuple[float, float | None] | None = None, exact: bool = False) -> None:
        """Count one check of case ``index``: ``misreports`` among its plays (joint ones with
        a ``partner``), ``measure``, the property's (value, relative value or None), and
        whether the check decided ``worker``'s every bid exactly."""
        self.checks += 1
        if exact:
            self.exact_workers.add((index, worker))
        else:
            self.inexact.add(index)
        self.misreports += misreports
        self.joint += misreports if partner is not None else 0
        self.sizes[index] = case.instance.n
        if worker is not None:
            self.workers.add((index, worker))
        if measure is not None:
            self.values.append(measure[0])
            if measure[1] is not None:
                self.relative.append(measure[1])
        if violated:
            self.violations += 1
            if self.found is None or case.instance.n < self.found[0].instance.n:
                self.found = (case, worker, deviations, partner)


def _share(value: float, of: float) -> float | None:
    """``value / of``, or None when ``of`` is not positive."""
    return value / of if of > 0 else None


def _deliveries(full: float, promised: float) -> list[float]:
    """What a worker able to deliver ``full`` may deliver instead: less."""
    return sorted({full / 2, min(full, promised), 0.0} - {full})


@dataclass
class _Best:
    """A worker's most profitable misreport (its play and utility) and the one that made the
    payments largest; the worker's regret once every misreport was offered."""

    play: Any
    utility: float
    deviation: Deviation
    spent: float
    spender: Deviation
    regret: float = 0.0

    def offer(self, deviation: Deviation, play: Played, utility: float) -> None:
        if utility > self.utility:
            self.play, self.utility, self.deviation = play, utility, deviation
        spent = float(play.payments.sum())
        if spent > self.spent:
            self.spent, self.spender = spent, deviation


def _concerning(subject: str, honest: bool, plays: tuple[str, ...] | None = None
                ) -> list[str]:
    """The properties whose cases concern ``subject`` (comparing ``plays``, when given), for
    an honest worker or not."""
    return [name for name, p in PROPERTIES.items() if p.subject == subject
            and (plays is None or p.plays == plays) and (honest or not p.honest_only)]


class _Sweep:
    """The plays of one case (see the module docstring), tallied property by property, and
    the case's :class:`CaseMeasure`."""

    def __init__(self, player: Player, tallies: dict[str, _Tally], rtol: float,
                 seed: int) -> None:
        self.player, self.tallies, self.rtol, self.seed = player, tallies, rtol, seed
        self.plays = 0
        self.records: list[CaseMeasure] = []

    def run(self, index: int, case: Case) -> None:
        inst = case.instance
        truth = self.player.play(inst)
        self.plays += 1
        self.tallies["well_defined"].check(index, case, truth.fault is not None)
        if truth.fault is not None:
            self.records.append(CaseMeasure(case.origin, inst.n, 0, 0.0, None, 0.0, 0.0, 0.0))
            return
        rng = np.random.default_rng([self.seed, index])
        tolerance = self.rtol * inst.scale
        self.overrun = self._budget(index, case, truth, tolerance)
        shortfall = 0.0
        for w in np.flatnonzero(truth.selected):
            cost = float(inst.costs[w])
            short = PROPERTIES["ir"].margin((truth,), int(w), cost)
            shortfall = max(shortfall, short)
            measure = (max(0.0, short), _share(max(0.0, short), cost))
            for prop in _concerning("winner", bool(inst.honest[w])):
                self.tallies[prop].check(index, case, short > tolerance, int(w),
                                         measure=measure)
        examined = self._examined(inst, truth.selected, rng)
        best, regrets = {}, []
        for w in examined:
            best[w] = self._worker(index, case, w, truth, tolerance, rng)
            regrets.append((best[w].regret, _share(best[w].regret, float(inst.costs[w])) or 0.0,
                            w))
        self._pairs(index, case, best, tolerance, rng)
        regret, relative, worker = max(regrets, default=(0.0, 0.0, None))
        self.records.append(CaseMeasure(
            case.origin, inst.n, len(examined), regret, worker if regret > 0 else None,
            max((r for _, r, _ in regrets), default=0.0), max(0.0, shortfall),
            max(0.0, self.overrun)))

    @staticmethod
    def _examined(inst: Instance, selected: np.ndarray, rng: np.random.Generator) -> list[int]:
        """Every worker of a small instance; of a larger one :data:`DEVIANTS`, half among the
        winners and half among the losers (more of one side when the other has too few)."""
        if inst.n <= DEVIANTS:
            return list(range(inst.n))
        winners, losers = np.flatnonzero(selected), np.flatnonzero(~selected)
        from_winners = min(winners.size, max(DEVIANTS // 2, DEVIANTS - losers.size))
        chosen = np.concatenate((rng.choice(winners, from_winners, replace=False),
                                 rng.choice(losers, DEVIANTS - from_winners, replace=False)))
        return sorted(int(w) for w in chosen)

    def _budget(self, index: int, case: Case, play: Any, tolerance: float,
                moves: tuple[tuple[int, Deviation], ...] = (), misreports: int = 0) -> float:
        """Tally a play for budget feasibility (Theorem 2); its overrun."""
        budget = case.instance.budget
        over = PROPERTIES["budget_feasible"].margin((play,), budget=budget)
        worker, partner = (moves[0][0], moves[1][0]) if len(moves) == 2 else (
            moves[0][0] if moves else None, None)
        self.tallies["budget_feasible"].check(
            index, case, over > tolerance, worker, tuple(d for _, d in moves), misreports,
            partner=partner, measure=(max(0.0, over), max(0.0, over) / budget))
        return over

    def _pay(self, index: int, case: Case, moves: tuple[tuple[int, Deviation], ...],
             allocation: Any, selected: np.ndarray, tolerance: float
             ) -> Played | None:
        """The play after ``moves`` (None after a fault), tallied for
        ``well_defined`` and the budget; a misreport unless every move is the truth."""
        inst = case.instance
        bids, re = _with(inst, moves)
        lie = int(any(d != _truth(inst, w) for w, d in moves))
        worker, deviations = moves[0][0], tuple(d for _, d in moves)
        partner = moves[1][0] if len(moves) == 2 else None
        self.plays += 1
        try:
            payments = self.player.pay(inst, allocation, selected, re)
        except MechanismFault:
            self.tallies["well_defined"].check(index, case, True, worker, deviations, lie,
                                               partner=partner)
            return None
        self.tallies["well_defined"].check(index, case, False, worker, deviations, lie,
                                           partner=partner)
        played = Played(bids, selected, payments)
        self.overrun = max(self.overrun, self._budget(index, case, played, tolerance, moves,
                                                      lie))
        return played

    def _select(self, index: int, case: Case, moves: tuple[tuple[int, Deviation], ...]
                ) -> tuple[Any, np.ndarray] | None:
        """The allocation after ``moves`` (None after a fault, tallied)."""
        bids, _ = _with(case.instance, moves)
        try:
            return self.player.select(case.instance, bids)
        except MechanismFault:
            self.plays += 1
            lie = int(any(d != _truth(case.instance, w) for w, d in moves))
            self.tallies["well_defined"].check(
                index, case, True, moves[0][0], tuple(d for _, d in moves), lie,
                partner=moves[1][0] if len(moves) == 2 else None)
            return None

    def _bids(self, index: int, case: Case, w: int, rng: np.random.Generator
              ) -> tuple[np.ndarray, bool]:
        """The bids ``w`` tries: its cost, the :data:`ANCHORS` and its grid, and whether they
        decide its best bid exactly. The grid is the mechanism's :func:`exact_bids` when it
        has breakpoints (all of them when there are at most :data:`EXACT_BIDS`), else
        :func:`~fedlib.mechanism.deviation_grid`; a sample of :data:`BIDS` of them when there
        are more. A fault of ``bid_breakpoints`` is one of ``well_defined``."""
        inst, exact = case.instance, False
        grid = None
        if has_breakpoints(self.player.mechanism):
            try:
                grid = exact_bids(self.player.mechanism, inst, w)
            except MechanismFault:
                self.tallies["well_defined"].check(index, case, True, w)
            else:
                exact = grid.size <= EXACT_BIDS
        if grid is None:
            grid = deviation_grid(inst, w)
        if grid.size > BIDS and not exact:
            grid = rng.choice(grid, BIDS, replace=False)
        cost = float(inst.costs[w])
        return np.union1d(grid, cost * np.array((1.0, *ANCHORS))), exact

    def _worker(self, index: int, case: Case, w: int, truth: Play, tolerance: float,
                rng: np.random.Generator) -> _Best:
        inst = case.instance
        cost, full = float(inst.costs[w]), float(inst.re[w])
        best = _Best(truth, truth.utility(w, cost), _truth(inst, w),
                     float(truth.payments.sum()), _truth(inst, w))
        selections: dict[float, tuple[Any, np.ndarray]] = {}
        grid, exact = self._bids(index, case, w, rng)
        lies = grid.size - 1  # every bid but its cost, then delivering less
        for bid in grid:
            deviation = Deviation(float(bid), full)
            selection = self._select(index, case, ((w, deviation),))
            if selection is None:
                continue
            selections[float(bid)] = selection
            play = self._pay(index, case, ((w, deviation),), *selection, tolerance)
            if play is not None:
                best.offer(deviation, play, utility(play, w, cost))
        for bid in sorted({cost, best.deviation.bid} & selections.keys()):
            for delivered in _deliveries(full, float(inst.Re[w])):
                deviation = Deviation(bid, delivered)
                lies += 1
                play = self._pay(index, case, ((w, deviation),), *selections[bid], tolerance)
                if play is not None:
                    best.offer(deviation, play, utility(play, w, cost))
        regret = best.regret = max(0.0, PROPERTIES["truthful"].margin((truth, best.play), w,
                                                                      cost))
        measure = (regret, _share(regret, cost))
        for prop in _concerning("worker", bool(inst.honest[w]), MISREPORT):
            self.tallies[prop].check(index, case, regret > tolerance, w, (best.deviation,),
                                     lies, measure=measure, exact=exact)
        wins = sorted((bid, bool(selected[w])) for bid, (_, selected) in selections.items())
        pair = next(((Deviation(low, full), Deviation(high, full))
                     for i, (low, won_low) in enumerate(wins) if not won_low
                     for high, won_high in wins[i + 1:] if won_high), ())
        self.tallies["monotone"].check(index, case, bool(pair), w, pair, grid.size - 1,
                                       exact=exact)
        return best

    def _pairs(self, index: int, case: Case, best: dict[int, _Best], tolerance: float,
               rng: np.random.Generator) -> None:
        """:data:`PAIRS` pairs of the examined workers misreport together (module
        docstring); only plays in which both misreport."""
        inst = case.instance
        pairs = list(itertools.combinations(best, 2))
        if len(pairs) > PAIRS:
            pairs = [pairs[k] for k in sorted(rng.choice(len(pairs), PAIRS, replace=False))]
        for i, j in pairs:
            def scaled(w: int, factor: float) -> Deviation:
                return Deviation(factor * float(inst.costs[w]), float(inst.re[w]))

            joint = [(best[i].deviation, best[j].deviation), (best[i].spender, best[j].spender),
                     (scaled(i, 2.0), scaled(j, 2.0)), (scaled(i, 0.5), scaled(j, 0.5))]
            for di, dj in dict.fromkeys(joint):
                if di == _truth(inst, i) or dj == _truth(inst, j):
                    continue
                moves = ((i, di), (j, dj))
                selection = self._select(index, case, moves)
                if selection is not None:
                    self._pay(index, case, moves, *selection, tolerance)


class TimingFault(MechanismFault):
    """A fault while timing the mechanism, with the case it happened on."""

    def __init__(self, message: str, case: Case) -> None:
        super().__init__(message)
        self.case = case


def _range(smallest: int, largest: int) -> str:
    return f"{smallest} worker{'s' * (largest > 1)}" if smallest == largest else \
        f"{smallest} to {largest} workers"


@dataclass(frozen=True, eq=False)
class Verdict:
    """What the search found about one property, and the search behind it.

    Attributes
    ----------
    property : str
    holds : bool
        No violation was found (which a finite search does not prove).
    instances, checks, violations : int
        Cases in which the property was checked, checks (plays, workers or winners),
        violations found.
    counterexample : Counterexample or None
        The smallest violation, shrunk (None when none was found).
    measured : str
        For ``efficient``: the fitted exponent and the sizes (else empty).
    misreports : int
        The misreports (a bid other than the worker's cost, or less delivered than its
        ``re``) among the checks: for truthfulness and monotonicity those tried per worker.
    exponent : float or None
        For ``efficient``: the fitted exponent of time against ``n`` (None when it could not
        be fitted, or for another property).
    smallest, largest, paper_sized : int
        The fewest and most workers of the instances checked, and how many had 30-100
        (:data:`PAPER_SIZES`).
    workers : int
        The workers concerned: examined (misreporting), or winners bidding their cost (IR).
    joint : int
        Misreports by pairs, among ``misreports``.
    measure : Measure or None
        The property's measure (:data:`MEASURES`; None for the others).
    exact_workers, exact : int
        For truthfulness and monotonicity, the examined workers whose every bid was decided
        exactly (:func:`exact_bids`), and the instances in which every worker was.
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
    smallest: int = 0
    largest: int = 0
    paper_sized: int = 0
    workers: int = 0
    joint: int = 0
    measure: Measure | None = None
    exact_workers: int = 0
    exact: int = 0

    @property
    def exactly(self) -> str:
        """How many of the examined workers' best bids were decided exactly, in words (empty
        when none was)."""
        if not self.exact_workers:
            return ""
        return (f"every bid decided exactly (by the mechanism's breakpoints) for "
                f"{self.exact_workers} of the {self.workers} workers, every worker of "
                f"{self.exact} instances")

    @property
    def searched(self) -> str:
        """What was searched for this property, in words (for ``efficient``, what was
        fitted)."""
        if self.property == "efficient":
            return self.measured
        low, high = PAPER_SIZES
        where = (f"{self.instances} instances of {_range(self.smallest, self.largest)} "
                 f"({self.paper_sized} of {low}-{high})")
        rule = PROPERTIES[self.property]
        if rule.subject == "winner":
            return f"{where}, {self.workers} winners bidding their cost"
        if rule.joint:
            return (f"{where}, {self.checks} plays, {self.misreports} of them misreports "
                    f"({self.joint} by pairs)")
        each = round(self.misreports / self.workers) if self.workers else 0
        exactly = f"; {self.exactly}" if self.exactly else ""
        return f"{where}, {self.workers} workers examined, {each} misreports each{exactly}"

    @property
    def finding(self) -> str:
        """``"no counterexample in ..."`` (:attr:`searched`) or how many checks failed."""
        if self.property == "efficient":
            return (f"{self.measured} (limit n^{EFFICIENT_EXPONENT:g})" if self.holds
                    else f"{self.measured}: above n^{EFFICIENT_EXPONENT:g}")
        if self.holds:
            return f"no counterexample in {self.searched}"
        return f"{self.violations} of {self.checks} checks violate it, in {self.searched}"

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready, with the counterexample's :meth:`~Counterexample.to_dict`, the
        search's effort and the measure."""
        return {"property": self.property, "holds": self.holds, "finding": self.finding,
                "instances": self.instances, "checks": self.checks,
                "misreports": self.misreports, "joint_misreports": self.joint,
                "workers": self.workers, "smallest": self.smallest, "largest": self.largest,
                "paper_sized": self.paper_sized, "violations": self.violations,
                "exact_workers": self.exact_workers, "exact_instances": self.exact,
                "measure": None if self.measure is None else self.measure.to_dict(),
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
        In the order of :data:`~fedlib.conformance.protocol.PROPERTIES`.
    timing : ScalingResult or None
        CPU seconds of ``select`` then ``pay`` against ``n`` (None without timing).
    cases, random_cases, plays : int
        Cases searched (of them random), plays of the mechanism (each ``pay`` one).
    seed : int
        Seed of the random cases.
    seconds : float
        Wall time of the search.
    records : tuple of CaseMeasure
        Each case's largest measures, in the order searched.
    sizes : tuple
        The size ranges of the random cases (:data:`SIZES`).
    """

    mechanism: str
    verdicts: tuple[Verdict, ...]
    timing: ScalingResult | None
    cases: int
    random_cases: int
    plays: int
    seed: int
    seconds: float
    records: tuple[CaseMeasure, ...] = ()
    sizes: tuple[tuple[int, int, float], ...] = SIZES

    def verdict(self, prop: str) -> Verdict:
        """The verdict on ``prop``."""
        return next(v for v in self.verdicts if v.property == prop)

    @property
    def failed(self) -> tuple[str, ...]:
        """The properties with a counterexample."""
        return tuple(v.property for v in self.verdicts if not v.holds)

    @property
    def measures(self) -> dict[str, Measure]:
        """The overall measures: regret over every examined worker (``truthful``), IR
        violation over every winner bidding its cost (``ir``), budget overrun over every play
        (``budget_feasible``)."""
        return {v.measure.name: v.measure for v in self.verdicts
                if not PROPERTIES[v.property].honest_only and v.measure is not None}

    def case(self, origin: str) -> CaseMeasure | None:
        """The measures of the case from ``origin`` (None if it was not searched).

        >>> from fedlib.mechanism import MECHANISMS
        >>> found = search(MECHANISMS["ours"], 0, timing=False)
        >>> round(found.case(PAPER_CASES[0][0]).regret, 4)  # Theorem 4: 4 - 10/3
        0.6667
        """
        return next((r for r in self.records if r.origin == origin), None)

    @property
    def largest(self) -> int:
        """The most workers of an instance searched (0 without any)."""
        return max((r.n for r in self.records), default=0)

    @property
    def paper_sized(self) -> int:
        """The instances searched with the paper's 30-100 workers (:data:`PAPER_SIZES`)."""
        low, high = PAPER_SIZES
        return sum(low <= r.n <= high for r in self.records)

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: what was tried (sizes, the workers examined and bids tried per
        instance, the overall measures, each case's), and the running time's sizes, medians
        and the exponent up to which it counts as efficient (:data:`EFFICIENT_EXPONENT`)."""
        timing = None if self.timing is None else {
            "sizes": self.timing.sizes.tolist(), "median_s": self.timing.median.tolist(),
            "exponent_limit": EFFICIENT_EXPONENT}
        return {"cases": self.cases, "random_cases": self.random_cases, "plays": self.plays,
                "seed": self.seed, "seconds": self.seconds, "timing": timing,
                "random_sizes": [list(s) for s in self.sizes], "largest": self.largest,
                "paper_sized": self.paper_sized,
                "deviants_per_instance": DEVIANTS, "grid_bids": BIDS, "anchors": list(ANCHORS),
                "pairs_per_instance": PAIRS,
                "measures": {name: m.to_dict() for name, m in self.measures.items()},
                "records": [r.to_dict() for r in self.records]}


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
    """Theorem 3's running time: the exponent of CPU time against ``n``, fitted over the sizes
    from 1000 on when at least two were timed, else over all."""
    if timing.sizes.size < 2:
        return Verdict("efficient", False, 1, 1, 1, measured=f"{timing.median[0]:.3g} s of CPU "
                       f"time at n = {timing.sizes[0]}: too slow to time a larger n")
    fitted = 1000 if (timing.sizes >= 1000).sum() >= 2 else 0
    exponent = timing.slope(fitted)
    sizes = timing.sizes[timing.sizes >= fitted]
    return Verdict("efficient", exponent <= EFFICIENT_EXPONENT, 1, timing.sizes.size,
                   int(exponent > EFFICIENT_EXPONENT),
                   measured=f"CPU time ~ n^{exponent:.2f} over n = {sizes[0]}..{sizes[-1]}",
                   exponent=exponent, smallest=int(sizes[0]), largest=int(sizes[-1]))


def search(mechanism: Any, instances: int, *, seed: int = 0, paper: bool = True,
           timing: bool = True, rtol: float = RTOL, cases: Iterable[Case] | None = None,
           sizes: Sequence[tuple[int, int, float]] = SIZES) -> Search:
    """Search for counterexamples to every property of
    :data:`~fedlib.conformance.protocol.PROPERTIES`, and measure regret, IR violation and
    budget overrun (see the module docstring).

    Parameters
    ----------
    mechanism
        An object of the protocol (:func:`~fedlib.conformance.protocol.conform`).
    instances : int
        Random instances, after the adversarial ones.
    seed : int
        Seed of the random instances, of the workers and bids sampled in large ones, and of
        the timing's workers: the same seed gives the same search.
    paper : bool
        Include the paper's worked examples among the adversarial instances.
    timing : bool
        Measure the running time (``efficient``); without it that property is not judged.
    rtol : float
        Relative tolerance of the money comparisons.
    cases : iterable of Case, optional
        Search these instead (``instances``, ``paper`` and ``sizes`` are then not used).
    sizes : sequence of (int, int, float)
        The random instances' size ranges and their shares (default :data:`SIZES`).
    """
    seed = integer(seed, "seed", minimum=0)
    start = time.perf_counter()
    rng = np.random.default_rng(seed)
    sizes = tuple((int(low), int(high), float(share)) for low, high, share in sizes)
    cases = list(search_cases(rng, instances, paper=paper, sizes=sizes) if cases is None
                 else cases)
    player = Player(mechanism)
    tallies = {name: _Tally() for name, p in PROPERTIES.items() if p.check is not None}
    sweep = _Sweep(player, tallies, rtol, seed)
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
            case, worker, deviations, partner = tally.found
            cex = evaluate(player, prop, case.instance, worker, deviations, case.origin, rtol,
                           partner)
            cex = None if cex is None else shrink(player, cex, rtol)
        n = list(tally.sizes.values())
        low, high = PAPER_SIZES
        verdicts.append(Verdict(
            prop, tally.violations == 0, len(n), tally.checks, tally.violations, cex,
            misreports=tally.misreports, smallest=min(n, default=0), largest=max(n, default=0),
            paper_sized=sum(low <= k <= high for k in n), workers=len(tally.workers),
            joint=tally.joint, exact_workers=len(tally.exact_workers),
            exact=tally.exact_instances(),
            measure=Measure.of(prop, tally.values, tally.relative) if prop in MEASURES
            else None))
    if scaling is not None:
        verdicts.append(_efficiency(scaling))
    return Search(mechanism.name, tuple(verdicts), scaling, len(cases),
                  sum(c.origin.startswith("random") for c in cases), sweep.plays, seed,
                  time.perf_counter() - start, tuple(sweep.records), sizes)
