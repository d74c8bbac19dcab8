"""0/1 knapsack kernels for the Approximate Optimal benchmark (unchecked; inputs validated).

Maximise ``sum values[S]`` subject to ``sum weights[S] <= capacity``. Both kernels return the
chosen items in decreasing order of ``value / weight`` (zero-weight items first, ties by index).
"""

from __future__ import annotations

import numpy as np


def _ratio_order(values: np.ndarray, weights: np.ndarray) -> np.ndarray:
    ratio = np.divide(values, weights, out=np.full(values.shape, np.inf), where=weights > 0)
    return np.argsort(-ratio, kind="stable")


def greedy(values: np.ndarray, weights: np.ndarray, capacity: float) -> np.ndarray:
    """The modified greedy 1/2-approximation.

    Among the items that fit on their own, take them by decreasing ``value / weight`` until the
    first one that no longer fits, then keep the better of that prefix and the most valuable
    single item (ties: the prefix).
    """
    fits = np.flatnonzero(weights <= capacity)
    order = fits[_ratio_order(values[fits], weights[fits])]
    prefix = order[: np.searchsorted(np.cumsum(weights[order]), capacity, side="right")]
    if fits.size:
        best = fits[np.argmax(values[fits])]
        if values[best] > values[prefix].sum():
            return np.array([best])
    return prefix


def _fractional_bound(i: int, value: float, room: float, v: np.ndarray, w: np.ndarray,
                      cum_v: np.ndarray, cum_w: np.ndarray) -> float:
    """Dantzig's bound: ``value`` plus the LP relaxation over items ``i, i+1, ...``."""
    j = int(np.searchsorted(cum_w, cum_w[i] + room, side="right")) - 1
    bound = value + cum_v[j] - cum_v[i]
    if j < v.size:
        bound += max(0.0, room - (cum_w[j] - cum_w[i])) * v[j] / w[j]
    return bound


def exact(values: np.ndarray, weights: np.ndarray, capacity: float) -> np.ndarray:
    """An optimal set by depth-first branch and bound (Horowitz-Sahni with Dantzig's bound).

    Exact up to floating-point rounding; zero-weight items are always taken. The worst case is
    exponential, but instances of a few hundred items with uniform random data solve in well
    under a second.
    """
    free = np.flatnonzero(weights == 0)
    items = np.flatnonzero((weights > 0) & (weights <= capacity) & (values > 0))
    items = items[_ratio_order(values[items], weights[items])]
    v, w = values[items], weights[items]
    cum_v, cum_w = np.concatenate(([0.0], np.cumsum(v))), np.concatenate(([0.0], np.cumsum(w)))
    best_value, best_chosen = 0.0, None
    stack: list[tuple[int, float, float, tuple | None]] = [(0, 0.0, capacity, None)]
    while stack:
        i, value, room, chosen = stack.pop()
        if value > best_value:
            best_value, best_chosen = value, chosen
        if i == v.size or _fractional_bound(i, value, room, v, w, cum_v, cum_w) <= best_value:
            continue
        stack.append((i + 1, value, room, chosen))
        if w[i] <= room:
            stack.append((i + 1, value + v[i], room - w[i], (i, chosen)))
    taken = []
    while best_chosen is not None:
        taken.append(best_chosen[0])
        best_chosen = best_chosen[1]
    return np.concatenate((free, items[np.sort(np.array(taken, dtype=np.int64))]))
