"""The economic properties of a mechanism, each defined once: what it means, what it implies,
whom it concerns, and the margin by which one case of it fails.

A :class:`Property`'s :meth:`~Property.margin` reads the *plays* of a case, each an outcome
with ``bids``, ``selected`` (the winners' mask) and ``payments`` (None after a fault), such as
:class:`Played` or the conformance kit's ``Play``. The margin is positive when the case
violates the property, zero or negative when it holds; for a money property (``money``) it is
money, which the callers compare with a tolerance relative to the instance's scale, for the
others any positive margin is a violation. :mod:`fedlib.mechanism.properties` and the
conformance kit (:mod:`fedlib.conformance.search`) both call these checks.

>>> PROPERTIES["budget_feasible"].margin([Played([1.0, 2.0], [True, True], [4.0, 7.0])],
...                                      budget=10.0)
1.0
"""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from types import MappingProxyType
from typing import Any, Literal, NamedTuple

import numpy as np

#: The names of the plays a property's check compares: one play; the truthful play and a
#: misreport; a worker's lower and higher bid.
PLAYED = ("played",)
MISREPORT = ("truthful", "misreport")
TWO_BIDS = ("lower bid", "higher bid")


class Played(NamedTuple):
    """One play's outcome: the bids reported, the winners' mask, the payments (None after a
    fault)."""

    bids: Any
    selected: Any
    payments: Any


def utility(play: Any, worker: int, cost: float) -> float:
    """Eq. (1): the worker's ``payment - cost`` in ``play`` if it won, else 0.

    >>> utility(Played([4.0, 5.0], [True, False], [6.0, 0.0]), 0, 4.0)
    2.0
    """
    return float(play.payments[worker] - cost) if play.selected[worker] else 0.0


def _fault(plays: Sequence[Any], worker: int | None, cost: float, budget: float) -> float:
    """well_defined: 1 when a play has no payments (a fault), else 0."""
    return 1.0 if any(p.payments is None for p in plays) else 0.0


def _overrun(plays: Sequence[Any], worker: int | None, cost: float, budget: float) -> float:
    """Budget feasibility (Theorem 2): the total payment minus B."""
    return float(np.sum(plays[0].payments) - budget)


def _shortfall(plays: Sequence[Any], worker: int | None, cost: float, budget: float) -> float:
    """Individual rationality (Theorem 1): a winner bidding its cost, its cost minus its
    payment (minus its utility, Eq. (1)); 0 for a loser (utility 0)."""
    play = plays[0]
    return float(cost - play.payments[worker]) if play.selected[worker] else 0.0


def _gain(plays: Sequence[Any], worker: int | None, cost: float, budget: float) -> float:
    """Truthfulness (Theorem 4): the worker's utility (Eq. (1)) under the misreport minus
    its utility bidding its cost."""
    truthful, misreport = plays
    return utility(misreport, worker, cost) - utility(truthful, worker, cost)


def _gap(plays: Sequence[Any], worker: int | None, cost: float, budget: float) -> float:
    """Monotonicity (the book's critical-bid lemma, chapter 5): the higher bid minus the lower
    one when the worker wins with the higher and loses with the lower, else 0."""
    low, high = plays
    won = high.selected[worker] and not low.selected[worker]
    return float(high.bids[worker] - low.bids[worker]) if won else 0.0


Check = Callable[[Sequence[Any], int | None, float, float], float]


@dataclass(frozen=True)
class Property:
    """One economic property of a mechanism.

    Attributes
    ----------
    name : str
        Its key, e.g. ``"ir_honest"``.
    description : str
        What it means: the definition checked on each case (a finite search can refute it,
        not prove it), citing the paper.
    subject : {"play", "winner", "worker", "mechanism"}
        What one case is: a play (whoever misreports, one worker or a pair: ``joint``), a
        winner bidding its true cost, a worker's misreports, the mechanism's running time.
    plays : tuple of str
        The plays its check compares (:data:`PLAYED`, :data:`MISREPORT` or :data:`TWO_BIDS`;
        empty for the running time).
    check : callable or None
        ``check(plays, worker, cost, budget)``: the margin; None for the running time.
    implies : tuple of str
        The properties a claim of it implies.
    honest_only : bool
        It concerns honest workers (``re >= Re``) only.
    joint : bool
        A pair's joint misreport is a case of it (a property of every play).
    money : bool
        The margin is money (compared with a tolerance relative to the instance's scale).
    required : bool
        Required of every mechanism rather than claimed: that it runs at all. Its check reads
        the faults (plays without payments), on which the other checks are not defined.
    measure : (str, str) or None
        The field's measure of how far a mechanism is from it, and what its relative value
        divides by.
    """

    name: str
    description: str
    subject: Literal["play", "winner", "worker", "mechanism"]
    plays: tuple[str, ...]
    check: Check | None
    implies: tuple[str, ...] = ()
    honest_only: bool = False
    joint: bool = False
    money: bool = False
    required: bool = False
    measure: tuple[str, str] | None = None

    def margin(self, plays: Sequence[Any], worker: int | None = None, cost: float = 0.0,
               budget: float = 0.0) -> float:
        """By how much the case of ``plays`` (named by :attr:`plays`) violates the property:
        positive when it does. ``worker`` and its true ``cost`` are the worker concerned,
        ``budget`` the instance's B."""
        if self.check is None:
            raise ValueError(f"{self.name} has no per-play check")
        if len(plays) != len(self.plays):
            raise ValueError(f"{self.name} compares {len(self.plays)} plays {self.plays}, got "
                             f"{len(plays)}")
        return self.check(plays, worker, cost, budget)


_REGRET = ("regret", "true cost")
_VIOLATION = ("IR violation", "true cost")
#: Every property, by name, in the order of the kit's reports: ``well_defined`` (required of
#: every mechanism), budget feasibility (Theorem 2), individual rationality (Theorem 1),
#: truthfulness (Theorem 4), monotonicity (the book's critical-bid lemma), running time (Theorem 3).
PROPERTIES: Mapping[str, Property] = MappingProxyType({p.name: p for p in (
    Property("well_defined", "select and pay return a valid outcome (no exception, NaN, "
             "negative payment, payment to a loser or wrong shape)", "play", PLAYED,
             _fault, joint=True, required=True),
    Property("budget_feasible", "the payments add up to at most the budget B, at the bids "
             "and delivered re played (Theorem 2)", "play", PLAYED, _overrun, joint=True,
             money=True, measure=("budget overrun", "budget B")),
    Property("ir", "a winner bidding its true cost is paid at least its cost (Theorem 1, "
             "every worker)", "winner", PLAYED, _shortfall, implies=("ir_honest",),
             money=True, measure=_VIOLATION),
    Property("ir_honest", "an honest winner (re >= Re) bidding its true cost is paid at "
             "least its cost (Theorem 1)", "winner", PLAYED, _shortfall, honest_only=True,
             money=True, measure=_VIOLATION),
    Property("truthful", "a worker's utility (Eq. (1)) bidding its cost and delivering its "
             "re is at least its utility under a misreport of its bid or a smaller "
             "delivery, the others reporting truthfully (Theorem 4, every worker)",
             "worker", MISREPORT, _gain, implies=("truthful_honest",), money=True,
             measure=_REGRET),
    Property("truthful_honest", "the same for an honest worker (re >= Re): truthful "
             "reporting is a best response (Theorem 4 as corrected)", "worker", MISREPORT,
             _gain, honest_only=True, money=True, measure=_REGRET),
    Property("monotone", "a worker who wins with a bid also wins with a lower bid, the "
             "others' bids fixed (critical-bid lemma)", "worker", TWO_BIDS, _gap),
    Property("efficient", "the exponent of CPU time against n, fitted over the sizes "
             "timed, is at most 1.5 (Theorem 3 states n log n time)", "mechanism", (),
             None),
)})
#: The properties a mechanism may claim (all but the required ones).
CLAIMABLE: tuple[str, ...] = tuple(name for name, p in PROPERTIES.items() if not p.required)
