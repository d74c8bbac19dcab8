"""Shapley values of cooperative games: exact, leave-one-out, and Monte-Carlo estimates.

A game on n players is a utility ``v(S)`` for every coalition ``S`` of them, with coalitions
encoded as bitmasks: player i belongs to the coalition ``s`` when bit i of ``s`` is set, so a
*utility table* is an array of length ``2**n`` indexed by bitmask (``table[0]`` is the empty
coalition, ``table[2**n - 1]`` the grand coalition N). Wherever a table is accepted, so is a
callable that maps an int64 array of bitmasks to their utilities (it is called once, with
distinct bitmasks).

The Shapley value (Shapley, 1953) of player i is its marginal contribution averaged
over all orders in which the players could join:

    phi_i = sum over S not containing i of |S|! (n - |S| - 1)! / n! * (v(S + i) - v(S)).

It is the only value that is efficient (``sum_i phi_i = v(N) - v(empty)``), symmetric, gives a
null player 0 and is additive over games. Computing it exactly needs all ``2**n`` utilities;
:func:`monte_carlo_shapley` samples random orders instead, and :func:`leave_one_out` uses only
the n + 1 coalitions N and N minus i.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from math import factorial

import numpy as np
from numpy.typing import ArrayLike

from fedlib.checks import integer

#: Utility table (length ``2**n``) or callable from bitmasks to utilities.
Utility = ArrayLike | Callable[[np.ndarray], ArrayLike]
#: Largest number of players of an exact computation (``2**20`` coalitions).
MAX_PLAYERS = 20


def _values(utility: Utility, masks: np.ndarray, n: int) -> np.ndarray:
    """Utilities of the coalitions ``masks`` (distinct bitmasks), checked to be finite."""
    if callable(utility):
        values = np.asarray(utility(masks), dtype=float)
        if values.shape != masks.shape:
            raise ValueError(f"utility must return one value per coalition, {masks.shape}, got "
                             f"shape {values.shape}")
    else:
        table = np.asarray(utility, dtype=float)
        if table.shape != (2**n,):
            raise ValueError(f"utility table must have length 2**n = {2**n}, got shape "
                             f"{table.shape}")
        values = table[masks]
    if not np.all(np.isfinite(values)):
        raise ValueError("utility values must be finite (no NaN or inf)")
    return values


def coalition_members(n: int) -> np.ndarray:
    """Membership matrix of all ``2**n`` coalitions: ``members[s, i]`` is bit i of ``s``.

    Examples
    --------
    >>> coalition_members(2).astype(int).tolist()
    [[0, 0], [1, 0], [0, 1], [1, 1]]
    """
    n = integer(n, "n", maximum=MAX_PLAYERS)
    return (np.arange(2**n)[:, None] >> np.arange(n)) & 1 == 1


def exact_shapley(utility: Utility, n: int) -> np.ndarray:
    """Exact Shapley values from the utilities of all ``2**n`` coalitions.

    Vectorised over coalitions: for each player, one pass over the ``2**(n-1)`` coalitions
    without it, weighting its marginal contributions by ``|S|! (n - |S| - 1)! / n!``.

    Parameters
    ----------
    utility : array_like of length ``2**n``, or callable
        The game (see the module docstring).
    n : int
        Players, 1 to :data:`MAX_PLAYERS`.

    Returns
    -------
    numpy.ndarray
        (n,) Shapley values; they sum to ``v(N) - v(empty)``.

    Examples
    --------
    Two players: v({0}) = 1, v({1}) = 2, v({0, 1}) = 5, so the surplus 2 is split evenly.

    >>> exact_shapley([0, 1, 2, 5], 2).tolist()
    [2.0, 3.0]
    """
    n = integer(n, "n", maximum=MAX_PLAYERS)
    masks = np.arange(2**n)
    v = _values(utility, masks, n)
    size = coalition_members(n).sum(1)
    weight = np.array([factorial(s) * factorial(n - s - 1) / factorial(n) for s in range(n)])
    phi = np.empty(n)
    for i in range(n):
        without = masks[(masks >> i) & 1 == 0]
        phi[i] = weight[size[without]] @ (v[without | (1 << i)] - v[without])
    return phi


def leave_one_out(utility: ArrayLike) -> np.ndarray:
    """Leave-one-out values ``v(N) - v(N minus i)`` from a utility table of length ``2**n``.

    Examples
    --------
    >>> leave_one_out([0, 1, 2, 5]).tolist()
    [3.0, 4.0]
    """
    table = np.asarray(utility, dtype=float)
    n = int(table.size).bit_length() - 1
    if table.ndim != 1 or n < 1 or table.size != 2**n:
        raise ValueError(f"utility table must have length 2**n with n >= 1, got shape "
                         f"{table.shape}")
    full = 2**n - 1
    return _values(table, np.array([full]), n)[0] - _values(
        table, full ^ (1 << np.arange(n)), n)


@dataclass(frozen=True, eq=False)
class MonteCarloShapley:
    """A permutation-sampling estimate of the Shapley values.

    Attributes
    ----------
    estimates : numpy.ndarray
        (n,) the mean marginal contribution over all sampled orders.
    evaluations : int
        Distinct coalitions whose utility the estimate needed (the empty one included).
    running : numpy.ndarray
        (permutations, n): row p is the estimate after the first p + 1 orders.
    running_evaluations : numpy.ndarray of int
        (permutations,) distinct coalitions needed by the first p + 1 orders.
    """

    estimates: np.ndarray
    evaluations: int
    running: np.ndarray
    running_evaluations: np.ndarray


def monte_carlo_shapley(utility: Utility, n: int, permutations: int,
                        rng: np.random.Generator) -> MonteCarloShapley:
    """Estimate Shapley values by sampling orders of the players uniformly at random.

    Each order ``pi`` gives every player its marginal contribution ``v(P + i) - v(P)``, P the
    players before it; their mean over orders is unbiased for the Shapley value. An order
    visits n + 1 coalitions (from empty to N); orders share coalitions, so the distinct ones
    (the utilities actually needed) grow more slowly than ``permutations * (n + 1)``.

    Parameters
    ----------
    utility : array_like of length ``2**n``, or callable
        The game (see the module docstring); a callable is called once with the distinct
        visited bitmasks.
    n : int
        Players, 1 to :data:`MAX_PLAYERS`.
    permutations : int
        Orders to sample, at least 1.
    rng : numpy.random.Generator
        The source of the orders.

    Returns
    -------
    MonteCarloShapley

    Examples
    --------
    In an additive game every order gives each player its own weight:

    >>> mc = monte_carlo_shapley([0, 1, 2, 3], 2, 5, np.random.default_rng(0))
    >>> mc.estimates.tolist(), mc.evaluations
    ([1.0, 2.0], 4)
    """
    n = integer(n, "n", maximum=MAX_PLAYERS)
    permutations = integer(permutations, "permutations")
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    orders = np.argsort(rng.random((permutations, n)), axis=1)
    prefixes = np.zeros((permutations, n + 1), dtype=np.int64)
    np.cumsum(1 << orders, axis=1, out=prefixes[:, 1:])
    distinct, first, inverse = np.unique(prefixes, return_index=True, return_inverse=True)
    values = _values(utility, distinct, n)[inverse.reshape(prefixes.shape)]
    marginal = np.empty((permutations, n))
    np.put_along_axis(marginal, orders, np.diff(values, axis=1), axis=1)
    running = np.cumsum(marginal, axis=0) / np.arange(1, permutations + 1)[:, None]
    new = np.bincount(first // (n + 1), minlength=permutations)
    return MonteCarloShapley(running[-1].copy(), int(distinct.size), running, np.cumsum(new))
