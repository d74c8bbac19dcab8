"""What the non-iid grid is checked for, seed by seed (beyond the paper).

Each statement below was fixed before the seeds it is judged on were run, and is checked in
every seed's merged grid (:func:`~fedlib.experiments.noniid.merge`), so that its verdict rests
on a count of seeds (:meth:`~fedlib.analysis.claims.Claim.over_seeds`: "indicative" while the
seeds are too few for the sign test to be significant):

* :func:`grid_claims`: at the most skewed alpha of the grid, ours and Reputation Greedy hire
  none of the clean skewed workers in the run's last :data:`~fedlib.experiments.noniid.
  EXCLUDED_TAIL` tasks (:func:`still_hired`), while Vanilla, which selects at random and
  ignores reputation, still hires some of them; and at every skewed alpha ours pays a clean
  skewed worker less per task than a clean balanced one (:func:`payment_per_worker`), although
  both hold correct labels.
* :func:`variant_claims`: the own-label variant (the contribution of Eq. (3) measured on the
  validation samples of the labels each worker holds, ``TaskOptions(own_labels=True)``) still
  hires more of the clean skewed workers than ours at the most skewed alpha, and pays them
  more per task.

:func:`seed_summary` gives, per alpha and mechanism, the mean and range over the seeds of every
column of :func:`~fedlib.experiments.noniid.summary_rows`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import numpy as np

from fedlib.analysis.claims import Claim
from fedlib.analysis.seed_statistics import SeedStatistic
from fedlib.analysis.skew import record_matrices
from fedlib.checks import integer
from fedlib.experiments.multitask import MultiTaskResult
from fedlib.experiments.noniid import (
    EXCLUDED_TAIL,
    NoniidResult,
    alpha_label,
    kinds_of,
    summary_rows,
)
from fedlib.mechanism import MECHANISMS

#: The mechanisms that select by reputation, whose shutting out :func:`grid_claims` checks.
REPUTATION_MECHANISMS = ("ours", "reputation_greedy")
CLEAN_SKEWED, CLEAN_BALANCED = "clean skewed", "clean balanced"


def still_hired(run: MultiTaskResult, tail: int = EXCLUDED_TAIL) -> dict[str, float]:
    """Per kind of worker, the share of its workers that win at least one of the run's last
    ``tail`` tasks: those the mechanism has not shut out (or not yet)."""
    kinds = kinds_of(run.config)
    tail = integer(tail, "tail (at most the run's tasks)", maximum=len(run.records))
    won = record_matrices(run.records[-tail:], kinds.size)["won"].any(axis=0)
    return {str(kind): float(won[kinds == kind].mean()) for kind in dict.fromkeys(kinds)}


def payment_per_worker(run: MultiTaskResult) -> dict[str, float]:
    """Per kind, the mean payment (Eq. (16)) one of its workers received per evaluated task,
    its losses counted as 0."""
    kinds = kinds_of(run.config)
    payment = record_matrices(run.evaluated, kinds.size)["payment"]
    return {str(kind): float(payment[:, kinds == kind].mean()) for kind in dict.fromkeys(kinds)}


def _seeds(grids: Sequence[NoniidResult]) -> list[int]:
    if not grids:
        raise ValueError("the claims need the grid of at least one seed")
    seeds = [grid.config.base.seed for grid in grids]
    if len(set(seeds)) < len(seeds):
        raise ValueError(f"one grid per seed, got seeds {seeds}")
    return seeds


def _most_skewed(grid: NoniidResult) -> float:
    skewed = [a for a in grid.config.alphas if a is not None]
    if not skewed:
        raise ValueError("the grid has no skewed alpha (only iid runs)")
    return min(skewed)


def _label(mechanism: str) -> str:
    return MECHANISMS[mechanism].label


def _hired_claim(grids: Sequence[NoniidResult], mechanism: str, statement: str,
                 check: Callable[[float], bool], tail: int) -> Claim:
    """A statement on the share of clean skewed workers ``mechanism`` still hires at the most
    skewed alpha (:func:`still_hired`), checked per seed by ``check``."""
    alpha = _most_skewed(grids[0])
    shares = SeedStatistic.of(_seeds(grids), [
        still_hired(g.run_of(alpha, mechanism), tail)[CLEAN_SKEWED] for g in grids])
    return Claim.over_seeds(f"{_label(mechanism)}, {alpha_label(alpha)}", statement,
                            f"share of the clean skewed workers winning in the last {tail} "
                            f"tasks {shares.describe(3)}", shares,
                            [check(v) for v in shares.values])


def grid_claims(grids: Sequence[NoniidResult], tail: int = EXCLUDED_TAIL) -> list[Claim]:
    """The statements of the module's docstring on the merged grids of several seeds (one per
    seed, each with ours, Reputation Greedy and Vanilla and at least one skewed alpha), a
    worker shut out when it wins none of the last ``tail`` tasks."""
    seeds = _seeds(grids)
    claims = [_hired_claim(grids, m, f"{_label(m)} shuts out every clean skewed worker: none "
                           f"wins any of the last {tail} tasks", lambda v: v == 0, tail)
              for m in REPUTATION_MECHANISMS]
    claims.append(_hired_claim(grids, "vanilla", "Vanilla (random selection, no reputation) "
                               f"still hires clean skewed workers in the last {tail} tasks",
                               lambda v: v > 0, tail))
    skewed_alphas = [a for a in grids[0].config.alphas if a is not None]
    gaps = []
    for grid in grids:
        paid = [payment_per_worker(grid.run_of(a, "ours")) for a in skewed_alphas]
        gaps.append(min(p[CLEAN_BALANCED] - p[CLEAN_SKEWED] for p in paid))
    gap = SeedStatistic.of(seeds, gaps)
    claims.append(Claim.over_seeds(
        f"{_label('ours')}, {', '.join(alpha_label(a) for a in skewed_alphas)}",
        "at every skewed alpha ours pays a clean skewed worker less per task than a clean "
        "balanced one", f"smallest gap over the alphas (balanced minus skewed, per worker and "
        f"task) {gap.describe(3)}", gap, [g > 0 for g in gap.values]))
    return claims


def variant_claims(grids: Sequence[NoniidResult], variants: Sequence[NoniidResult],
                   tail: int = EXCLUDED_TAIL) -> list[Claim]:
    """The own-label variant against ours at the most skewed alpha, seed by seed: ``variants``
    are the variant's grids of ours (``own_labels``), one per seed of ``grids``, same order;
    ``tail`` as in :func:`grid_claims`."""
    seeds = _seeds(grids)
    if [v.config.base.seed for v in variants] != seeds:
        raise ValueError(f"one variant grid per seed of the grids ({seeds}), got seeds "
                         f"{[v.config.base.seed for v in variants]}")
    if not all(v.config.base.task.own_labels for v in variants):
        raise ValueError("the variant grids must measure contributions on own labels "
                         "(TaskOptions(own_labels=True))")
    alpha = _most_skewed(grids[0])
    pairs = [(g.run_of(alpha, "ours"), v.run_of(alpha, "ours")) for g, v in zip(grids, variants,
                                                                                  strict=True)]
    fewer = SeedStatistic.of(seeds, [still_hired(own, tail)[CLEAN_SKEWED]
                                     - still_hired(ours, tail)[CLEAN_SKEWED]
                                     for ours, own in pairs])
    more = SeedStatistic.of(seeds, [payment_per_worker(own)[CLEAN_SKEWED]
                                    - payment_per_worker(ours)[CLEAN_SKEWED]
                                    for ours, own in pairs])
    where = f"Own-label variant, {alpha_label(alpha)}"
    return [Claim.over_seeds(where, "the own-label variant still hires a larger share of the "
                             f"clean skewed workers in the last {tail} tasks than "
                             "ours", "share winning in the last tasks, the variant minus ours, "
                             f"{fewer.describe(3)}", fewer, [v > 0 for v in fewer.values]),
            Claim.over_seeds(where, "the own-label variant pays a clean skewed worker more per "
                             "task than ours", f"payment per worker and task, the variant "
                             f"minus ours, {more.describe(3)}", more,
                             [v > 0 for v in more.values])]


def seed_summary(grids: Sequence[NoniidResult],
                 tail: int = EXCLUDED_TAIL) -> list[dict[str, Any]]:
    """Per alpha and mechanism (the rows of :func:`~fedlib.experiments.noniid.summary_rows`,
    same order), every numeric column over the seeds' grids as a
    :class:`~fedlib.analysis.seed_statistics.SeedStatistic`; None where a seed has no value
    (NaN, such as the iid runs' share of clean skewed workers excluded); ``tail`` as in
    :func:`~fedlib.experiments.noniid.summary_rows`."""
    seeds = _seeds(grids)
    per_seed = [summary_rows(grid, tail) for grid in grids]
    out = []
    for i, first in enumerate(per_seed[0]):
        row: dict[str, Any] = {"alpha": first["alpha"], "mechanism": first["mechanism"]}
        for key, value in first.items():
            if key not in row and isinstance(value, float):
                values = [rows[i][key] for rows in per_seed]
                row[key] = (SeedStatistic.of(seeds, values) if np.isfinite(values).all()
                            else None)
        out.append(row)
    return out
