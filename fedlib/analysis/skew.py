"""Who gains and who is shut out when honest workers hold label-skewed data (beyond the paper).

The workers of the non-iid experiment (:mod:`fedlib.experiments.noniid`) are of four *kinds*:
clean (data accuracy 1.0) or noisy (below 1.0), each either skewed (labels drawn with Dirichlet
proportions) or balanced (iid). A skewed clean worker is honest and its labels are right, but
its local model knows few classes, so its measured contribution (Eqs. (2)-(3)) and hence its
internal reputation (Eq. (5)) and accumulated reputation (Eq. (13)) may fall with it: the
mechanism may pay it less than a balanced clean worker, or stop hiring it.

The helpers read the records of one multi-task run (``winners``, and per winner ``payments``,
``contribution`` and ``re``; ``Re`` of every worker after the task) through
:func:`record_matrices`, and a worker's kind from :func:`worker_kinds`:

* :func:`kind_shares`: the share of all payments, and of all winner places, that each kind
  received;
* :func:`exclusion`: per worker, the task after its last win, and per kind the share
  *excluded for good*: workers that won at least one task and none of the run's last
  ``tail`` tasks;
* :func:`kind_paths` and :func:`kind_means`: per kind, contribution, ``re`` and ``Re`` task by
  task, and their means over the run.

numpy only; records are JSON-ready dicts as stored.

Examples
--------
>>> worker_kinds([1.0, 1.0, 0.4], [True, False, True]).tolist()
['clean skewed', 'clean balanced', 'noisy skewed']
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from numpy.typing import ArrayLike

from fedlib.checks import integer

__all__ = ["CLEAN", "KINDS", "exclusion", "kind_means", "kind_paths", "kind_shares",
           "record_matrices", "worker_kinds"]

#: Data accuracy of a clean worker; every lower one is noisy.
CLEAN = 1.0
#: The four kinds of worker, in display order.
KINDS = ("clean skewed", "clean balanced", "noisy skewed", "noisy balanced")

Records = Sequence[Mapping[str, Any]]


def worker_kinds(daccs: ArrayLike, skewed: ArrayLike) -> np.ndarray:
    """The kind of every worker: ``"clean"`` (dacc :data:`CLEAN`) or ``"noisy"``, then
    ``"skewed"`` or ``"balanced"``.

    Parameters
    ----------
    daccs : array_like of float, shape (W,)
    skewed : array_like of bool, shape (W,)

    Returns
    -------
    numpy.ndarray of str, shape (W,)
    """
    d, s = np.asarray(daccs, dtype=float), np.asarray(skewed, dtype=bool)
    if d.shape != s.shape or d.ndim != 1:
        raise ValueError(f"daccs and skewed must be 1-D of one length, got {d.shape} and "
                         f"{s.shape}")
    return np.array([f"{'clean' if a >= CLEAN else 'noisy'} {'skewed' if k else 'balanced'}"
                     for a, k in zip(d, s, strict=True)])


def record_matrices(records: Records, n_workers: int) -> dict[str, np.ndarray]:
    """A run's records as arrays (tasks, workers).

    Returns
    -------
    dict
        ``won`` (bool); ``payment`` (0 where the worker lost); ``contribution`` and ``re``
        (NaN where it lost); ``Re`` (every worker after the task).
    """
    shape = (len(records), n_workers)
    won = np.zeros(shape, dtype=bool)
    payment = np.zeros(shape)
    contribution, re = np.full(shape, np.nan), np.full(shape, np.nan)
    for t, record in enumerate(records):
        winners = np.asarray(record["winners"], dtype=int)
        won[t, winners] = True
        payment[t, winners] = record["payments"]
        contribution[t, winners] = record["contribution"]
        re[t, winners] = record["re"]
    Re = np.array([record["Re"] for record in records], dtype=float).reshape(shape)
    return {"won": won, "payment": payment, "contribution": contribution, "re": re, "Re": Re}


def _by_kind(kinds: ArrayLike) -> dict[str, np.ndarray]:
    """The workers of every kind of :data:`KINDS` present, as a boolean mask."""
    k = np.asarray(kinds)
    return {kind: k == kind for kind in KINDS if (k == kind).any()}


def kind_shares(records: Records, kinds: ArrayLike) -> dict[str, dict[str, float]]:
    """Per kind, the share of all payments (``"payments"``) and of all winner places
    (``"winners"``) over ``records`` (NaN when nothing was paid, or nobody won).

    Examples
    --------
    >>> records = [{"winners": [0, 2], "payments": [3.0, 1.0], "contribution": [1.0, 0.2],
    ...             "re": [0.9, 0.1], "Re": [0.7, 0.5, 0.3]}]
    >>> shares = kind_shares(records, worker_kinds([1.0, 1.0, 0.1], [True, False, False]))
    >>> shares["clean skewed"], shares["noisy balanced"]
    ({'payments': 0.75, 'winners': 0.5}, {'payments': 0.25, 'winners': 0.5})
    """
    m = record_matrices(records, np.asarray(kinds).size)
    paid, places = m["payment"].sum(), m["won"].sum()
    return {kind: {"payments": float(m["payment"][:, cols].sum() / paid) if paid
                   else float("nan"),
                   "winners": float(m["won"][:, cols].sum() / places) if places
                   else float("nan")}
            for kind, cols in _by_kind(kinds).items()}


def exclusion(records: Records, kinds: ArrayLike,
              tail: int = 10) -> tuple[np.ndarray, dict[str, dict[str, float]]]:
    """When each worker was hired for the last time, and how often each kind was shut out.

    A worker is *excluded for good* when it won at least one task of the run and none of its
    last ``tail`` tasks: after its last win at task ``t`` it lost every task from ``t + 1``
    on, at least ``tail`` of them. Within one run this is all that can be seen (a longer run
    might hire it again). A worker that never won is counted apart (``never_won``): its bids
    kept it out before its data could count.

    Parameters
    ----------
    records : sequence of dict
        One run's records, task 0 first.
    kinds : array_like of str, shape (W,)
        :func:`worker_kinds`.
    tail : int, default 10
        Tasks without a win that count as excluded for good, 1 to the number of records.

    Returns
    -------
    excluded_from : numpy.ndarray of int, shape (W,)
        The task after each worker's last win (0 if it never won; the number of records if it
        won the last one).
    shares : dict
        Per kind, the share of its workers ``excluded`` for good and the share that
        ``never_won``.

    Examples
    --------
    >>> records = [{"winners": w, "payments": [1.0] * len(w), "contribution": [1.0] * len(w),
    ...             "re": [1.0] * len(w), "Re": [0.5] * 3} for w in ([0, 1], [1], [1])]
    >>> start, shares = exclusion(records, ["clean skewed"] * 2 + ["noisy balanced"], tail=2)
    >>> start.tolist(), shares["clean skewed"], shares["noisy balanced"]
    ([1, 3, 0], {'excluded': 0.5, 'never_won': 0.0}, {'excluded': 0.0, 'never_won': 1.0})
    """
    n_tasks = len(records)
    tail = integer(tail, "tail (at most the run's tasks)", maximum=n_tasks)
    won = record_matrices(records, np.asarray(kinds).size)["won"]
    ever = won.any(axis=0)
    excluded_from = np.where(ever, n_tasks - np.argmax(won[::-1], axis=0), 0)
    excluded = ever & (excluded_from <= n_tasks - tail)
    shares = {kind: {"excluded": float(excluded[cols].mean()),
                     "never_won": float((~ever[cols]).mean())}
              for kind, cols in _by_kind(kinds).items()}
    return excluded_from, shares


def kind_paths(records: Records, kinds: ArrayLike) -> dict[str, dict[str, np.ndarray]]:
    """Per kind and task: the mean ``contribution`` and ``re`` of the kind's winners (NaN
    when none of them won), the mean ``Re`` of all its workers after the task, and the share
    of its workers that ``won``; each an array of one entry per record."""
    m = record_matrices(records, np.asarray(kinds).size)
    out = {}
    for kind, cols in _by_kind(kinds).items():
        hired = m["won"][:, cols].sum(axis=1)
        out[kind] = {name: np.divide(np.nansum(m[name][:, cols], axis=1), hired,
                                     out=np.full(len(records), np.nan), where=hired > 0)
                     for name in ("contribution", "re")}
        out[kind]["Re"] = m["Re"][:, cols].mean(axis=1)
        out[kind]["won"] = m["won"][:, cols].mean(axis=1)
    return out


def kind_means(records: Records, kinds: ArrayLike) -> dict[str, dict[str, float]]:
    """Per kind, over ``records``: the mean ``contribution`` and ``re`` over the (worker,
    task) pairs it won (NaN if it never won), the mean ``Re`` over its workers and the tasks,
    and its ``final_Re``, the mean ``Re`` of its workers after the last record."""
    m = record_matrices(records, np.asarray(kinds).size)
    out = {}
    for kind, cols in _by_kind(kinds).items():
        won = m["won"][:, cols]
        out[kind] = {name: float(m[name][:, cols][won].mean()) if won.any() else float("nan")
                     for name in ("contribution", "re")}
        out[kind]["Re"] = float(m["Re"][:, cols].mean())
        out[kind]["final_Re"] = float(m["Re"][-1, cols].mean())
    return out
