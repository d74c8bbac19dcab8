"""Figures and explorers of the auction and proofs chapters (fedlib.viz.auction*)."""

from __future__ import annotations

import numpy as np
import pytest
from matplotlib.figure import Figure
from matplotlib.patches import Rectangle

from fedlib.analysis.auction_steps import payment_breakdown
from fedlib.analysis.misreporting import gain_sweep, utility_curve
from fedlib.analysis.payment_comparison import payment_ratios
from fedlib.analysis.selection_timing import time_select
from fedlib.mechanism import Instance, select, synthetic_instance
from fedlib.paper.examples import BOOK_AUCTION, THEOREM4, THEOREM4_HONEST
from fedlib.paper.settings import FIG5_BUDGET, PAPER_BUDGETS, PAPER_WORKERS
from fedlib.viz.auction import (
    gain_figure,
    payment_ratio_figure,
    payments_figure,
    scaling_figure,
    selection_figure,
    utility_figure,
)
from fedlib.viz.canvas import outside_canvas
from fedlib.viz.explorers import REFUSED
from fedlib.viz.explorers.auction import AuctionExplorer, UtilityExplorer

BIDS, RE, BUDGET, RE_REALISED = BOOK_AUCTION
COUNTER = Instance(*THEOREM4)


def _legend_texts(ax) -> list[str]:
    return [t.get_text() for t in ax.get_legend().get_texts()]


def _figure_legend(fig) -> list[str]:
    """The texts of the one legend below the panels."""
    assert len(fig.legends) == 1
    return [t.get_text() for t in fig.legends[0].get_texts()]


# --------------------------------------------------------------------------------------------
# Figures
# --------------------------------------------------------------------------------------------

def test_selection_figure_draws_bars_budget_curve_and_rho_star():
    a = select(BIDS, RE, BUDGET)
    fig = selection_figure(a)
    assert isinstance(fig, Figure) and len(fig.axes) == 1
    ax = fig.axes[0]
    bars = [p for p in ax.patches if isinstance(p, Rectangle) and p.get_hatch() is None]
    assert len(bars) == len(BIDS)
    texts = _legend_texts(ax)
    assert any("rho" in t for t in texts) and any("budget share" in t for t in texts)
    assert "selected (S)" in texts
    assert f"k = {a.k}" in ax.get_title()
    assert "density" in ax.get_ylabel()
    labels = {t.get_text() for t in ax.texts}
    assert {"1", "2", "3", "4", "5", "6"} <= labels
    assert outside_canvas(fig) == []


def test_selection_figure_edge_cases():
    zero = selection_figure(select([1, 2, 3], [1, 0, 1], 10))
    assert "never selected: 2" in zero.axes[0].get_title()
    nobody = selection_figure(select([5, 6], [1, 1], 1))
    assert not any(t.startswith("$\\rho^*$ =") for t in _legend_texts(nobody.axes[0]))
    assert any(t.startswith("$\\rho^*$ =") for t in _legend_texts(zero.axes[0]))
    huge = selection_figure(select(COUNTER.bids, COUNTER.Re, COUNTER.budget))
    assert any("cut" in t.get_text() for t in huge.axes[0].texts)
    for fig in (zero, nobody, huge):
        assert outside_canvas(fig) == []


def test_payments_figure_compares_ex_ante_and_ex_post():
    br = payment_breakdown(select(BIDS, RE, BUDGET), RE_REALISED)
    fig = payments_figure(br)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    left, right = fig.axes
    texts = _figure_legend(fig)
    assert any("ex ante" in t for t in texts) and any("ex post" in t for t in texts)
    assert any("true cost" in t for t in texts) and any("temporary" in t for t in texts)
    assert left.get_legend() is None and right.get_legend() is None
    ticks = [t.get_text() for t in left.get_xticklabels()]
    assert any("dishonest" in t for t in ticks) and any(t.endswith("\nhonest") for t in ticks)
    assert "Utility" in right.get_title()
    empty = payments_figure(payment_breakdown(select([5, 6], [1, 1], 1), [1, 1]))
    assert "nobody" in empty.axes[0].texts[0].get_text()
    assert outside_canvas(fig) == [] and outside_canvas(empty) == []


def test_utility_figure_marks_true_cost_and_critical_bid():
    honest = Instance(*THEOREM4_HONEST)
    curves = [utility_curve(honest, 0), utility_curve(COUNTER, 0)]
    ante = [utility_curve(honest, 0, "rrafl"), utility_curve(COUNTER, 0, "rrafl")]
    fig = utility_figure(curves, ex_ante=ante)
    assert isinstance(fig, Figure) and len(fig.axes) == 2
    texts = _figure_legend(fig)
    assert any(t.startswith("true cost") for t in texts)
    assert any(t.startswith("critical bid") for t in texts)
    assert any(t.startswith("ex ante") for t in texts) and "best lie" in texts
    for ax in fig.axes:
        written = [t.get_text() for t in ax.texts]
        assert "$c_i$ = 4" in " ".join(written) and "$\\bar b_i$ = 5" in " ".join(written)
        assert ax.get_xlabel() == "bid $b_i$"
        verticals = [ln.get_xdata() for ln in ax.get_lines()
                     if len(ln.get_xdata()) == 2 and ln.get_xdata()[0] == ln.get_xdata()[1]]
        assert any(v[0] == 4.0 for v in verticals)
    assert "honest" in fig.axes[0].get_title() and "dishonest" in fig.axes[1].get_title()
    def stars(ax):
        return [c for c in ax.collections if c.get_label() == "best lie"]

    assert stars(fig.axes[1]) and not stars(fig.axes[0])  # only the dishonest worker lies
    one = utility_figure(curves[1:])
    assert len(one.axes) == 1 and "best lie" in _figure_legend(one)
    assert outside_canvas(fig) == [] and outside_canvas(one) == []
    assert not any(t.startswith("ex ante") for t in _figure_legend(one))
    with pytest.raises(ValueError):
        utility_figure([])
    with pytest.raises(ValueError):
        utility_figure(curves, ex_ante=ante[:1])


def test_gain_ratio_and_scaling_figures():
    rng = np.random.default_rng(0)
    b = gain_sweep("budget", PAPER_BUDGETS[:3], 40, 5, rng)
    w = gain_sweep("n_workers", PAPER_WORKERS[:3], FIG5_BUDGET, 5, rng)
    fig = gain_figure(b, w)
    assert len(fig.axes) == 2 and fig.axes[0].get_xlabel() == "budget $B$"
    assert any("gain by lying" in t for t in _figure_legend(fig))
    assert outside_canvas(fig) == []
    r = payment_ratios([synthetic_instance(40, 50.0, rng) for _ in range(5)])
    fig = payment_ratio_figure(r)
    assert any("dishonest" in t for t in _legend_texts(fig.axes[0]))
    assert outside_canvas(fig) == []
    s = time_select([100, 1000, 3000], 2, rng)
    fig = scaling_figure(s)
    assert len(fig.axes) == 2 and fig.axes[0].get_xscale() == "log"
    assert any("n \\log n" in t for t in _figure_legend(fig))
    assert outside_canvas(fig) == []


# --------------------------------------------------------------------------------------------
# Explorers, driven headlessly
# --------------------------------------------------------------------------------------------

def test_auction_explorer_renders_and_reports():
    e = AuctionExplorer(BIDS, RE, RE_REALISED, BUDGET)
    r = e.result
    assert e.error is None and r.auction.winners.tolist() == [0, 4, 2]
    assert r.budget_used_ex_post <= BUDGET + 1e-9 and r.budget_used_ex_ante <= BUDGET + 1e-9
    assert r.honest[0] and r.dishonest[2] and r.dishonest[4]
    assert r.utility_ex_post[2] < 0  # the dishonest worker 3 is paid below its bid
    assert "dishonest" in e.summary.value and "Budget used" in e.summary.value
    assert e.widget.children[0] is e.budget
    assert outside_canvas(e.figure) == []
    assert len(e.output.outputs) == 2  # the selection and the payments


def test_auction_explorer_more_budget_selects_at_least_as_many_and_never_overspends():
    e = AuctionExplorer(BIDS, RE, RE_REALISED, 1.0, budget_max=80)
    counts = []
    for budget in np.linspace(1, 80, 25):
        e.budget.value = float(budget)
        r = e.result
        counts.append(r.auction.k)
        assert r.budget_used_ex_post <= e.budget.value * (1 + 1e-12)
        assert r.budget_used_ex_ante <= e.budget.value * (1 + 1e-12)
    assert counts == sorted(counts) and counts[0] < counts[-1] == len(BIDS)


def test_auction_explorer_edits_and_errors():
    e = AuctionExplorer(BIDS, RE, RE_REALISED, BUDGET)
    e.re.value = "1, 1, 1, 1, 1, 1"
    assert not e.result.dishonest.any()
    assert np.allclose(e.result.ex_post, e.result.auction.upper)
    e.bids.value = "1, 2, x"
    assert e.result is None and "not a list of numbers" in e.error
    assert e.output.outputs[0]["text"].startswith(REFUSED) and e.summary.value == ""
    e.bids.value = "1, 2"
    assert "one number per worker" in e.error
    e.bids.value = ", ".join(str(b) for b in BIDS)
    e.Re.value = "-1, 1, 1, 1, 1, 1"
    assert "non-negative" in e.error
    e.Re.value = ", ".join(str(x) for x in RE)
    assert e.error is None and e.result.auction.k >= 1
    assert not np.isnan(e.compute().budget_used_ex_post)
    e.bids.value = ""
    assert "at least one number" in e.error and e.result is None and e.figure is None


def test_utility_explorer_dishonest_worker_gains_only_ex_post():
    u = UtilityExplorer(COUNTER, worker=0)
    r = u.result
    assert not r.honest
    assert r.gain == pytest.approx(4 - 10 / 3)
    assert r.ex_ante_gain == 0.0
    assert r.ex_post.truthful_utility == pytest.approx(10 / 3 - 4)
    assert "a lie pays" in u.summary.value and outside_canvas(u.figure) == []
    # make it honest: no lie pays any more
    u.re.value = 1.0
    assert u.result.honest and u.result.gain == 0.0
    assert "no lie pays" in u.summary.value


def test_utility_explorer_controls():
    u = UtilityExplorer(COUNTER, worker=0)
    u.worker.value = 1
    assert u.cost.value == pytest.approx(4.5) and u.re.value == pytest.approx(1.0)
    assert u.result.ex_post.worker == 1 and u.result.gain == 0.0
    u.worker.value = 2  # cost 100, beyond the slider's initial range: the slider widens
    assert u.cost.value == pytest.approx(100.0) and u.cost.max >= 100.0
    assert not u.result.ex_post.won.any() or u.result.ex_post.truthful_utility <= 0
    u.worker.value = 0
    u.cost.value = 3.0  # cheap enough that even the dishonest payment covers it
    assert u.result.ex_post.truthful_utility > 0 and u.result.gain == 0.0
    u.cost.value = 4.0
    u.budget.value = 100.0  # everyone wins, rho* = B / sum Re, payments grow
    assert u.result.ex_post.critical_bid > 5 and u.result.gain == 0.0
    # the explorer never alters the instance it was given
    assert COUNTER.costs.tolist() == [4, 4.5, 100] and COUNTER.budget == 10
