"""Tables 1 and 2 with the bids drawn once (fedlib.analysis.drawn_once): the closed form at
Table 1's threshold, by hand and against the auction played many times."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given
from hypothesis import strategies as st

from fedlib.analysis.drawn_once import (
    STATEMENT,
    clean_tasks_probability,
    drawn_once_claim,
    table1_undercut,
)
from fedlib.analysis.steady_state import Undercut
from fedlib.paper import numbers as paper_numbers
from fedlib.paper.settings import PAPER_GROUPS


def _by_hand(dataset: str) -> float:
    """P(one clean task) from the paper's Table 1, written out: rho = p / Re of the clean
    workers; a worker of group d (bids U[10/3 d + 2/3, 10/3 d + 8/3]) undercuts with
    probability clip((Re_d rho - 10/3 d - 2/3) / 2, 0, 1); 15/5/5/5 workers."""
    table = paper_numbers.TABLE1[dataset]
    rho = table["payment"][1.0] / table["reputation"][1.0]
    clean = 1.0
    for dacc, count in ((0.7, 5), (0.4, 5), (0.1, 5)):
        low = 10 / 3 * dacc + 2 / 3
        q = min(max((table["reputation"][dacc] * rho - low) / 2, 0.0), 1.0)
        clean *= (1 - q) ** count
    return clean


@pytest.mark.parametrize("dataset", ["mnist", "fashion"])
def test_the_paper_tables_by_hand(dataset):
    u = table1_undercut(dataset)
    table = paper_numbers.TABLE1[dataset]
    assert u.rho == pytest.approx(table["payment"][1.0] / table["reputation"][1.0])
    assert u.clean == pytest.approx(_by_hand(dataset), rel=1e-12)


def test_mnist_is_plausible_drawn_once_and_not_redrawn():
    """MNIST: rho = 5.533 / 0.985; the dacc 0.7 (Re 0.556) and 0.4 (Re 0.421) workers
    undercut with probabilities about 0.06 and 0.18, dacc 0.1 (Re 0) never: one clean task
    with probability about 0.27, 45 redrawn ones about 1e-26."""
    u = table1_undercut("mnist")
    assert u.per_worker[0.1] == 0.0
    assert u.per_worker[0.7] == pytest.approx(0.0616, abs=1e-3)
    assert u.per_worker[0.4] == pytest.approx(0.1824, abs=1e-3)
    once = clean_tasks_probability(u, 45, redraw_bids=False)
    assert once == u.clean == pytest.approx(0.266, abs=1e-3)
    assert clean_tasks_probability(u, 45, redraw_bids=True) == pytest.approx(u.clean ** 45)
    claim = drawn_once_claim("mnist")
    assert claim.verdict == "reproduced" and claim.statement == STATEMENT
    assert "bids drawn once" in claim.where and "MNIST" in claim.where
    assert claim.kind == "reading"  # the book's question, counted apart from the paper's
    assert f"{once:.3g}" in claim.finding and f"{u.clean ** 45:.3g}" in claim.finding
    # a stricter plausibility turns it
    assert drawn_once_claim("mnist", plausible=0.3).verdict == "not reproduced"


def test_fashion_is_implausible_either_way():
    claim = drawn_once_claim("fashion")
    assert claim.verdict == "not reproduced" and "Fashion-MNIST" in claim.where
    assert table1_undercut("fashion").clean < 1e-4


def test_a_table_of_ones_own():
    table = {"x": {"reputation": {1.0: 1.0, 0.7: 0.1, 0.4: 0.1, 0.1: 0.1},
                   "payment": {1.0: 5.0}}}
    u = table1_undercut("x", table)  # rho 5, noisy workers undercut below 0.5: never
    assert u.clean == 1.0
    assert drawn_once_claim("x", table1=table).verdict == "reproduced"
    with pytest.raises(ValueError, match="n_evaluated"):
        clean_tasks_probability(u, 0, redraw_bids=True)


@given(st.floats(0.0, 1.0), st.integers(1, 60))
def test_drawn_once_is_never_less_likely(clean, n):
    u = Undercut(1.0, {}, clean)
    once = clean_tasks_probability(u, n, redraw_bids=False)
    redrawn = clean_tasks_probability(u, n, redraw_bids=True)
    assert 0.0 <= redrawn <= once <= 1.0
    assert math.isclose(redrawn, once ** n)


def test_the_closed_form_against_single_draws_of_the_bids():
    """Draw the bids once, many times over, every worker at its Table 1 reputation: the share
    of draws in which no noisy worker's density b / Re lies below Table 1's threshold (the
    event that makes every one of the repeated auctions clean) is the closed form's."""
    reputations = dict(paper_numbers.TABLE1["mnist"]["reputation"])
    daccs = np.repeat([d for d, _ in PAPER_GROUPS], [c for _, c in PAPER_GROUPS])
    noisy = daccs < 1.0
    Re = np.array([reputations[d] for d in daccs[noisy]])
    u = table1_undercut("mnist")
    rng = np.random.default_rng(0)
    bids = 10 / 3 * daccs[noisy] + 2 / 3 + 2 * rng.random((20000, noisy.sum()))
    clean = ~np.any(bids < Re * u.rho, axis=1)  # b / Re < rho, written without dividing by 0
    assert clean.mean() == pytest.approx(u.clean, abs=0.01)
