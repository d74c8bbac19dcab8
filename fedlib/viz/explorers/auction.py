"""Explorers of Algorithm 1: the auction itself, and one worker's utility curve.

Both are :class:`~fedlib.viz.explorers.Explorer` objects and draw their default on creation.
"""

from __future__ import annotations

import html
from dataclasses import dataclass

import ipywidgets as widgets
import numpy as np
from matplotlib.figure import Figure
from numpy.typing import ArrayLike

from fedlib.analysis.auction_steps import PaymentBreakdown, payment_breakdown, worker_label
from fedlib.analysis.misreporting import UtilityCurve, utility_curve
from fedlib.mechanism import Instance, select
from fedlib.viz.auction import payments_figure, selection_figure, utility_figure
from fedlib.viz.explorers.base import Explorer
from fedlib.viz.explorers.controls import LONG_LABEL, WIDE, control_style, parse_numbers

_CONTROL = {**control_style(WIDE, LONG_LABEL), "continuous_update": False}


def _fmt(values: ArrayLike) -> str:
    return ", ".join(f"{v:.4g}" for v in np.asarray(values, dtype=float))


# --------------------------------------------------------------------------------------------
# The auction explorer
# --------------------------------------------------------------------------------------------

class AuctionExplorer(Explorer[PaymentBreakdown]):
    """Run Algorithm 1 on editable workers and show whom it selects and what it pays.

    Controls: ``budget`` (slider), ``bids``, ``Re`` (accumulated reputations before the task)
    and ``re`` (internal reputations realised in the task) as comma-separated lists, one number
    per worker. Every change redraws the selection figure and the payments figure, and the
    summary reports the budget used ex ante and ex post, every winner's utility and whether it
    was honest (``re >= Re``). Bids are taken as true costs, so utilities are ``p - b``; the
    result is the :class:`~fedlib.analysis.auction_steps.PaymentBreakdown` of the auction.

    Parameters
    ----------
    bids, Re, re : array_like
        Initial values, one per worker.
    budget : float
        Initial budget.
    budget_max : float, optional
        Right end of the budget slider; default ``1.5 * sum(bids)``.
    """

    def __init__(self, bids: ArrayLike, Re: ArrayLike, re: ArrayLike, budget: float,
                 budget_max: float | None = None) -> None:
        super().__init__()
        bids = np.asarray(bids, dtype=float)
        top = float(budget_max if budget_max is not None else 1.5 * bids.sum())
        top = max(top, float(budget))
        self.budget = widgets.FloatSlider(value=float(budget), min=top / 200, max=top,
                                          step=top / 200, description="budget B",
                                          readout_format=".3g", **_CONTROL)
        self.bids = widgets.Text(value=_fmt(bids), description="bids b (= true costs)",
                                 **_CONTROL)
        self.Re = widgets.Text(value=_fmt(Re), description="Re (before the task)", **_CONTROL)
        self.re = widgets.Text(value=_fmt(re), description="re (realised in the task)",
                               **_CONTROL)
        self.watch(self.budget, self.bids, self.Re, self.re)
        self.start(self.budget, self.bids, self.Re, self.re)

    def compute(self) -> PaymentBreakdown:
        """The auction and its payments for the controls' current values."""
        bids = parse_numbers(self.bids.value, "bids")
        Re = parse_numbers(self.Re.value, "Re")
        re = parse_numbers(self.re.value, "re")
        if not bids.size == Re.size == re.size:
            raise ValueError(f"bids, Re and re need one number per worker: got {bids.size}, "
                             f"{Re.size} and {re.size}")
        return payment_breakdown(select(bids, Re, self.budget.value), re)

    def draw(self, result: PaymentBreakdown) -> list[Figure]:
        return [selection_figure(result.auction), payments_figure(result)]

    def describe(self, result: PaymentBreakdown) -> str:
        a = result.auction

        def names(mask: np.ndarray) -> str:
            return ", ".join(worker_label(i) for i in a.winners if mask[i]) or "-"

        head = (f"<p><b>{a.k}</b> selected: {names(a.selected)}; &rho;* = {a.rho_star:.4g}. "
                f"Budget used: <b>{result.budget_used_ex_post:.4g}</b> of {a.budget:.4g} ex "
                f"post ({result.budget_used_ex_ante:.4g} if paid ex ante). Honest winners: "
                f"{names(result.honest)}; dishonest: {names(result.dishonest)}.</p>")
        return head + result.table()._repr_html_()


# --------------------------------------------------------------------------------------------
# The utility-against-bid explorer
# --------------------------------------------------------------------------------------------

@dataclass(frozen=True, eq=False)
class UtilityView:
    """What :class:`UtilityExplorer` shows: one worker's utility curves, ex post and ex ante."""

    ex_post: UtilityCurve
    ex_ante: UtilityCurve

    @property
    def honest(self) -> bool:
        """``re >= Re`` for the worker."""
        return self.ex_post.honest

    @property
    def gain(self) -> float:
        """What the worker gains by its best misreport under ex-post payment (>= 0)."""
        return self.ex_post.gain

    @property
    def ex_ante_gain(self) -> float:
        """The same under ex-ante payment (0: truthful)."""
        return self.ex_ante.gain


class UtilityExplorer(Explorer[UtilityView]):
    """Plot one worker's utility against its bid, the others' bids and ``re`` held fixed.

    Controls: ``worker`` (which worker bids), its true ``cost`` and its realised ``re`` (set
    ``re`` below ``Re`` to make it dishonest), and the ``budget``. The plot shows the utility
    under the paper's ex-post payment and under the ex-ante variant, with the true cost and the
    critical bid marked; the caption says whether a lie pays.

    Parameters
    ----------
    instance : Instance
        Workers (their costs are their truthful bids), ``Re``, ``re`` and the budget.
    worker : int
        The initially selected worker (0-based).
    """

    def __init__(self, instance: Instance, worker: int = 0) -> None:
        super().__init__()
        self.instance = instance
        n = instance.n
        self.worker = widgets.Dropdown(options=[(f"worker {worker_label(i)}", i)
                                                for i in range(n)], value=int(worker),
                                       description="worker",
                                       **control_style(WIDE, LONG_LABEL))
        cost_top = float(2 * max(instance.budget, np.median(instance.costs)))
        re_top = float(max(1.0, 1.5 * instance.Re.max(), instance.re.max()))
        self.cost = widgets.FloatSlider(min=0.0, max=cost_top, step=cost_top / 400,
                                        description="its true cost c", readout_format=".3g",
                                        **_CONTROL)
        self.re = widgets.FloatSlider(min=0.0, max=re_top, step=re_top / 200,
                                      description="its realised re", readout_format=".3g",
                                      **_CONTROL)
        b_top = float(max(2 * instance.budget, instance.costs.sum()))
        self.budget = widgets.FloatSlider(value=instance.budget, min=b_top / 200, max=b_top,
                                          step=b_top / 200, description="budget B",
                                          readout_format=".3g", **_CONTROL)
        self._load_worker(self.worker.value)
        self.watch(self.worker, effect=self._load_worker)
        self.watch(self.cost, self.re, self.budget)
        self.start(self.worker, self.cost, self.re, self.budget)

    def _load_worker(self, i: int) -> None:
        """Set the cost and ``re`` controls to worker ``i``'s."""
        cost = float(self.instance.costs[i])
        if cost > self.cost.max:  # widen the slider rather than clip this worker's cost
            self.cost.max = 1.5 * cost
            self.cost.step = self.cost.max / 400
        self.cost.value = cost
        self.re.value = float(self.instance.re[i])

    def current_instance(self) -> Instance:
        """The instance with the controls' cost, ``re`` and budget (truthful bids)."""
        i = self.worker.value
        costs = self.instance.costs.copy()
        costs[i] = self.cost.value
        re = self.instance.re.copy()
        re[i] = self.re.value
        return Instance(costs, self.instance.Re, self.budget.value, re, costs,
                        self.instance.seed)

    def compute(self) -> UtilityView:
        """Both utility curves for the current controls."""
        inst = self.current_instance()
        i = self.worker.value
        post = utility_curve(inst, i, "ours")
        ante = utility_curve(inst, i, "rrafl", bids=post.bids)
        return UtilityView(post, ante)

    def draw(self, result: UtilityView) -> list[Figure]:
        return [utility_figure([result.ex_post], ex_ante=[result.ex_ante])]

    def describe(self, result: UtilityView) -> str:
        c = result.ex_post
        Re_i = float(c.instance.Re[c.worker])
        verdict = (f"a lie pays: bidding above {c.critical_bid:.4g} to lose gains "
                   f"{result.gain:.4g}" if result.gain > 0 else "no lie pays: the true cost is "
                   "a best bid")
        return (f"<p>Worker {worker_label(c.worker)} is <b>{'honest' if c.honest else 'dishonest'}"
                f"</b> (re = {c.instance.re[c.worker]:.4g}, Re = {Re_i:.4g}). Truthful utility "
                f"{c.truthful_utility:.4g} ex post, {result.ex_ante.truthful_utility:.4g} ex "
                f"ante; ex post, {html.escape(verdict)}; ex ante, the best lie gains "
                f"{result.ex_ante_gain:.4g}.</p>")
