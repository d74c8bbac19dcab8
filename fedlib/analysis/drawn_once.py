"""Tables 1 and 2 of the paper when the bids are drawn once: the closed form at Table 1's
threshold, and the claim it decides.

The argument that the paper's Tables 1 and 2 cannot both hold (:mod:`fedlib.analysis.steady_state`)
has two premises the paper does not state:

1. Table 1's "Reputation" is the accumulated ``Re`` of each group, so that the groups that
   stop winning keep, as losers, the reputations Table 1 reports, frozen through the
   evaluated tasks;
2. the bids are redrawn before every task (``MultiTaskConfig.redraw_bids``, fedlib's default
   reading "Bids in Tables 1-3" of :data:`fedlib.paper.readings.READINGS`), so that the
   ``n`` evaluated tasks are ``n`` independent auctions, all clean (every winner of data
   accuracy 1.0) with probability ``P(one clean task) ** n``.

With the bids drawn once, the noisy workers' bids and frozen reputations, and so their cost
densities ``b_j / Re_j``, are the same in every evaluated task: whether one of them undercuts
the threshold ``rho*`` (Eq. (14)) is one event, and all ``n`` tasks are clean with the
probability of one, ``P(one clean task)``. :func:`table1_undercut` computes that probability
in closed form (:func:`~fedlib.analysis.steady_state.undercut`) at the lower bound
``rho* >= p / Re`` that Table 1's payment ``p`` of a clean winner implies (Eq. (15)), and
:func:`drawn_once_claim` turns it into a claim.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace

from fedlib.analysis.claims import Claim
from fedlib.analysis.steady_state import Undercut, undercut
from fedlib.paper import numbers as paper_numbers
from fedlib.paper.settings import PAPER_GROUPS

__all__ = ["STATEMENT", "table1_undercut", "clean_tasks_probability", "drawn_once_claim"]

#: What the claim of :func:`drawn_once_claim` asserts.
STATEMENT = ("Tables 1 and 2 describe one run: Table 1's payment of a clean winner and "
             "Table 2's share 1.000 of ours together")

_LABELS = {"mnist": "MNIST", "fashion": "Fashion-MNIST"}


def table1_undercut(dataset: str,
                    table1: Mapping[str, Mapping[str, Mapping[float, float]]] | None = None
                    ) -> Undercut:
    """The closed form at the threshold Table 1 implies: every worker at its group's Table 1
    reputation, read as accumulated ``Re``, and ``rho* = p / Re`` of the clean workers.

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
    table1 : mapping, optional
        ``table1[dataset]["reputation"][dacc]`` and ``table1[dataset]["payment"][1.0]``;
        default the paper's (:data:`fedlib.paper.numbers.TABLE1`).

    Returns
    -------
    Undercut
        ``clean`` is the probability that no worker of data accuracy below 1 undercuts the
        threshold in one task.

    Examples
    --------
    Reputations 0.9 (clean) and 0.5 (dacc 0.1, 0.4, 0.7), a clean winner paid 2.7: the
    threshold is 2.7 / 0.9 = 3, a noisy worker undercuts it when it bids below 0.5 * 3 = 1.5,
    which only a dacc 0.1 worker can (bids in [1, 3]): with probability (1.5 - 1) / 2 = 0.25
    each, so one task is clean with probability 0.75 ** 5.

    >>> table = {"x": {"reputation": {1.0: 0.9, 0.7: 0.5, 0.4: 0.5, 0.1: 0.5},
    ...                "payment": {1.0: 2.7}}}
    >>> u = table1_undercut("x", table)
    >>> round(u.rho, 12), u.per_worker[0.1], u.per_worker[0.4], round(u.clean, 10)
    (3.0, 0.25, 0.0, 0.2373046875)
    """
    table = (table1 or paper_numbers.TABLE1)[dataset]
    reputations = {float(d): float(r) for d, r in table["reputation"].items()}
    rho = float(table["payment"][1.0]) / reputations[1.0]
    return undercut(reputations, rho, groups=PAPER_GROUPS)


def clean_tasks_probability(closed: Undercut, n_evaluated: int, *, redraw_bids: bool) -> float:
    """Probability that all ``n_evaluated`` tasks are clean: ``clean ** n`` with the bids
    redrawn before every task, ``clean`` with the bids drawn once.

    >>> u = Undercut(3.0, {0.1: 0.5}, 0.5)
    >>> clean_tasks_probability(u, 3, redraw_bids=True), clean_tasks_probability(
    ...     u, 3, redraw_bids=False)
    (0.125, 0.5)
    """
    if n_evaluated < 1:
        raise ValueError(f"n_evaluated must be at least 1, got {n_evaluated}")
    return closed.clean ** n_evaluated if redraw_bids else closed.clean


def drawn_once_claim(dataset: str, *, n_evaluated: int = 45, plausible: float = 0.05,
                     table1: Mapping[str, Mapping[str, Mapping[float, float]]] | None = None
                     ) -> Claim:
    """Whether Tables 1 and 2 can describe one run when Table 1 reports the accumulated
    ``Re`` and the bids are drawn once: the claim holds when all ``n_evaluated`` tasks are
    clean with probability at least ``plausible`` (closed form of :func:`table1_undercut`).

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
    n_evaluated : int, default 45
        The tasks Table 2 counts, all of which must be clean for its share 1.000.
    plausible : float, default 0.05
        Less likely than this: implausible.
    table1 : mapping, optional
        As in :func:`table1_undercut`.

    Returns
    -------
    Claim
        ``"reproduced"`` when plausible, else ``"not reproduced"``; the finding gives the
        probability with the bids drawn once and, beside it, redrawn.
    """
    closed = table1_undercut(dataset, table1)
    once = clean_tasks_probability(closed, n_evaluated, redraw_bids=False)
    redrawn = clean_tasks_probability(closed, n_evaluated, redraw_bids=True)
    label = _LABELS.get(dataset, dataset)
    finding = (f"closed form at Table 1's threshold rho* = {closed.rho:.3f}: "
               f"P({n_evaluated} clean tasks) = {once:.3g} with the bids drawn once "
               f"(bids redrawn: {redrawn:.3g}); plausible from {plausible:g}")
    claim = Claim.from_checks(
        f"Tables 1-2, {label}, Table 1 read as accumulated Re, bids drawn once", STATEMENT,
        finding, [once >= plausible])
    return replace(claim, kind="reading")  # the book's question, counted apart
