"""The theorems' properties and the critical-value lemma, checked on many instances.

:func:`critical_value_check` tests the lemma behind Theorem 4 (a worker wins below
``rho* Re_i`` with the same winners and threshold, and loses above it) bid by bid;
:func:`property_table` shows the reports of :mod:`fedlib.mechanism.properties` (Theorems 1, 2
and 4) as a table.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

import numpy as np

from fedlib.mechanism import Instance, PropertyReport, deviation_grid, select
from fedlib.table import Table

#: The book's random instances of the theorems (chapter 5, and the reproducibility report's
#: counts, which are therefore chapter 5's): the generator's seed, how many instances
#: Theorems 1 and 2 are checked on, and how many of the first of them are swept bid by bid for
#: Theorem 4.
THEOREM_SEED = 2022
THEOREM_INSTANCES = 5000
TRUTH_INSTANCES = 2000


@dataclass(frozen=True)
class LemmaReport:
    """Outcome of :func:`critical_value_check`.

    Attributes
    ----------
    instances, workers, checks : int
        Instances played, (instance, worker) pairs swept, (worker, bid) cases checked.
    violations : int
        Cases where the worker won above its critical bid, lost below it, or won with a
        winning set or ``rho*`` different from those at bid 0.
    """

    instances: int
    workers: int
    checks: int
    violations: int


def critical_value_check(instances: Iterable[Instance], *, rtol: float = 1e-12) -> LemmaReport:
    """Check the lemma on every worker of every instance, over its :func:`deviation_grid`.

    For worker ``i`` (others' bids fixed) with ``Re_i > 0``: at bid 0 it wins, with winners
    ``S_0`` and threshold ``rho*_0``. The lemma says that for every bid ``b < rho*_0 Re_i`` it
    wins with exactly ``S_0`` and ``rho*_0``, and for every ``b > rho*_0 Re_i`` it loses. Bids
    within ``rtol`` (relative) of the critical bid are skipped (the tie-break decides there).
    A worker with ``Re_i = 0`` must lose at every bid.
    """
    n_inst = n_work = checks = violations = 0
    for inst in instances:
        n_inst += 1
        for i in range(inst.n):
            n_work += 1
            bids = inst.bids.copy()
            bids[i] = 0.0
            base = select(bids, inst.Re, inst.budget)
            if inst.Re[i] <= 0:
                crit, S0, rho0 = -math.inf, None, None
            else:
                crit = base.rho_star * inst.Re[i]
                S0, rho0 = base.selected.copy(), base.rho_star
                if not base.selected[i]:
                    violations += 1
            for b in deviation_grid(inst, i):
                if math.isfinite(crit) and abs(b - crit) <= rtol * max(abs(crit), 1e-300):
                    continue
                bids[i] = b
                a = select(bids, inst.Re, inst.budget)
                checks += 1
                if b < crit:
                    ok = (a.selected[i] and np.array_equal(a.selected, S0)
                          and math.isclose(a.rho_star, rho0, rel_tol=1e-9))
                else:
                    ok = not a.selected[i]
                violations += not ok
    return LemmaReport(n_inst, n_work, checks, violations)


def property_table(rows: Sequence[tuple[str, PropertyReport]], title: str = "") -> Table:
    """A table of property checks: one row per ``(label, report)``.

    Columns: what is checked, mechanism, instances tried, cases checked, violations found and
    the worst margin relative to the instance's money scale (positive above the tolerance:
    violated; <= 0: the property holds with room).
    """
    out = []
    for label, rep in rows:
        worst = rep.worst.relative_margin if rep.worst is not None else math.nan
        out.append((label, rep.mechanism, rep.instances, rep.checks, rep.violations, worst))
    return Table(("claim", "mechanism", "instances tried", "cases checked", "violations found",
                  "worst margin"), tuple(out), title=title, digits=3)
