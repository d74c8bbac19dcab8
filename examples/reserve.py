"""A mechanism of one's own, ready for ``python -m fedlib check-mechanism``.

Copy this file, change ``select`` or ``pay``, and check it::

    python -m fedlib check-mechanism examples/reserve.py:Reserve

The publisher keeps a share of its budget back (for a second task, say): it runs the paper's
selection, Algorithm 1, on the rest, and pays every winner its critical price ``p_up = Re_i
rho*`` (Eq. (15)) before the task, as RRAFL does. Its claims hold (Theorems 1, 2 and 4 for
RRAFL): the kit's search finds no counterexample to them and exits with status 0 (1 if it had
refuted one).

A mechanism needs ``name``, ``label``, ``claims``, ``knows``, ``select(bids, Re, budget, *,
costs=None, rng=None)`` returning an allocation (``self.allocation(...)``) and ``pay(allocation,
re)`` returning one payment per worker; ``MechanismBase`` supplies ``knows``, a default
``label``, no claims, and an ex-ante ``pay`` (the allocation's upper payments). Subclassing it
is optional: any class with these members fits.
"""

from dataclasses import dataclass

from fedlib.conformance import MechanismBase
from fedlib.mechanism import select


@dataclass(frozen=True)
class Reserve(MechanismBase):
    """Algorithm 1 on ``share`` of the budget, each winner paid ``p_up`` ex ante."""

    share: float = 0.8
    name = "reserve"
    claims = frozenset({"budget_feasible", "ir", "truthful", "monotone"})

    @property
    def label(self) -> str:
        return f"Reserve ({self.share:.0%} of B)"

    def select(self, bids, Re, budget, *, costs=None, rng=None):
        auction = select(bids, Re, self.share * budget)
        return self.allocation(auction.winners, len(bids), auction.upper)
