"""The small auctions that the chapters, the reproducibility report and the tests share.

Each example is an :class:`AuctionExample`, plain numbers in the order of the parameters of
:class:`fedlib.mechanism.Instance`, so that ``Instance(*example)`` builds it. Workers are
0-based here; the chapters call worker 0 "worker 1", as the paper numbers its workers from 1.
"""

from __future__ import annotations

from typing import NamedTuple


class AuctionExample(NamedTuple):
    """One auction: bids (= true costs), reputations ``Re`` before the task, the budget ``B``
    and the internal reputations ``re`` the workers realise in the task."""

    bids: tuple[float, ...]
    Re: tuple[float, ...]
    budget: float
    re: tuple[float, ...]


#: The counterexample to Theorem 4 (truthfulness). Bidding its cost 4, worker 0 wins with
#: ``rho* = 5`` and, realising only ``re = 0.5 < Re = 1`` (a dishonest worker, Definition 1),
#: is paid ``p = min(5, 0.5 max(10/1.5, 5)) = 10/3`` (Eq. (16)): its utility (Eq. (1)) is
#: ``-2/3``. Bidding :data:`THEOREM4_LIE` it loses and gets 0.
THEOREM4 = AuctionExample(bids=(4.0, 4.5, 100.0), Re=(1.0, 1.0, 1.0), budget=10.0,
                          re=(0.5, 1.0, 1.0))
#: Worker 0's profitable misreport in :data:`THEOREM4`.
THEOREM4_LIE = 6.0
#: :data:`THEOREM4` with worker 0 honest (``re = Re``): then its true cost is its best bid.
THEOREM4_HONEST = THEOREM4._replace(re=(1.0, 1.0, 1.0))
#: The counterexample to Case 3 of the proof of Theorem 4 (``k' <= k``): at its true cost 8
#: worker 0 loses and only the other worker wins (``k = 1``); bidding :data:`CASE3_LIE` both
#: win (``k' = 2``).
CASE3 = AuctionExample(bids=(8.0, 1.0), Re=(1.0, 1.0), budget=10.0, re=(1.0, 1.0))
#: Worker 0's underbid in :data:`CASE3`.
CASE3_LIE = 2.0
#: The six workers of the chapter "Selecting and paying workers": Algorithm 1 selects three of
#: them, and two of the winners realise less than their reputation (dishonest).
BOOK_AUCTION = AuctionExample(bids=(3.0, 5.0, 2.5, 6.0, 4.0, 7.0),
                              Re=(0.9, 0.6, 0.5, 0.8, 0.95, 0.4), budget=15.0,
                              re=(0.95, 0.6, 0.3, 0.8, 0.8, 0.4))
