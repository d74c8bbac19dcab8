"""The settings of the paper's experiments (Section 6) that several fedlib modules share.

Figures 4-5 play the auction on synthetic workers (no training): Figure 4 varies the budget at
:data:`FIG4_WORKERS` workers, Figure 5 the number of workers at the budget
:data:`FIG5_BUDGET`. Tables 1-3 train with the thirty workers of :data:`PAPER_GROUPS`.
"""

from __future__ import annotations

#: Figure 4's number of workers.
FIG4_WORKERS = 100
#: Figure 5's budget.
FIG5_BUDGET = 125.0
#: Budgets of our Figure 4 (the paper does not print its axis; B = 125 is its Figure 5 value).
PAPER_BUDGETS: tuple[float, ...] = tuple(float(b) for b in range(25, 251, 25))
#: Numbers of workers of our Figure 5 (the paper's Figure 4 uses 100).
PAPER_WORKERS: tuple[int, ...] = tuple(range(20, 201, 20))
#: Workers of Tables 1-3 as (data accuracy, count): 15 x 1.0, 5 x 0.7, 5 x 0.4, 5 x 0.1.
PAPER_GROUPS: tuple[tuple[float, int], ...] = ((1.0, 15), (0.7, 5), (0.4, 5), (0.1, 5))
