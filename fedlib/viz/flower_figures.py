"""Figures and a table of a run in a Flower federation (:mod:`fedlib.flower`) beside the
batched engine's run of the same configuration.

:func:`message_flow_figure` draws one task's messages from its record; :func:`agreement_rows`
and :func:`agreement_html` compare two runs task by task; :func:`loss_figure` overlays their
global models' test loss.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import numpy as np
from matplotlib.figure import Figure

from fedlib.table import html_table
from fedlib.viz.style import NEUTRAL, OKABE_ITO, styled

Record = Mapping[str, Any]


@styled
def message_flow_figure(record: Record, n_workers: int, budget: float) -> Figure:
    """The messages of one task between the publisher (left) and the workers (right), top to
    bottom, labelled with the task's own numbers (bids, winners, checks, payments)."""
    winners, rounds = len(record["winners"]), len(record["rounds"]["passed"])
    passed = [int(np.sum(row)) for row in record["rounds"]["passed"]]
    bids = sum(bid is not None for bid in record["bids"])
    steps = [
        ("right", f"query.bid: send me your bid (to all {n_workers} workers)"),
        ("left", f"{bids} bids (each worker's private cost)"),
        ("note", f"auction: {winners} winners within the budget {budget:g}"),
        ("right", f"train, round 1: the global model and a batch order (to the {winners})"),
        ("left", "local models (1 epoch of SGD on each worker's data)"),
        ("note", f"score round 1: contributions, leave-one-out check ({passed[0]} of "
                 f"{winners} pass), omega, aggregate"),
        ("dots", f"... rounds 2 to {rounds} alike ..."),
        ("note", "task ends: re = contribution x trust, Re updated (Eq. 13)"),
        ("right", f"query.payment: your ex-post payment (paid {sum(record['payments']):.2f} "
                  "in all)"),
        ("left", "utility: payment - cost"),
    ]
    fig = Figure(figsize=(8.5, 0.6 * len(steps) + 1.2), layout="constrained")
    ax = fig.subplots()
    left, right, top = 0.12, 0.88, len(steps) + 0.3
    for x, name in ((left, "publisher\n(ServerApp + MechanismStrategy)"),
                    (right, f"{n_workers} workers\n(ClientApps)")):
        ax.plot([x, x], [0.2, top], color=NEUTRAL, lw=1.5)
        ax.text(x, top + 0.15, name, ha="center", va="bottom")
    for i, (kind, text) in enumerate(steps):
        y = len(steps) - i - 0.3
        if kind in ("left", "right"):
            start, end = (left, right) if kind == "right" else (right, left)
            color = OKABE_ITO[0] if kind == "right" else OKABE_ITO[1]
            ax.annotate("", (end, y), (start, y),
                        arrowprops={"arrowstyle": "-|>", "color": color, "lw": 1.6})
            ax.text(0.5, y + 0.08, text, ha="center", va="bottom", color=color,
                    fontsize="small")
        else:
            ax.text(left + 0.02 if kind == "note" else 0.5, y, text,
                    ha="left" if kind == "note" else "center", va="center", fontsize="small",
                    style="italic" if kind == "dots" else "normal",
                    bbox=None if kind == "dots" else {"boxstyle": "round", "fc": "#f2f2f2",
                                                      "ec": NEUTRAL})
    ax.set(xlim=(0, 1), ylim=(0, top + 0.9))
    ax.axis("off")
    return fig


def _largest(first: Sequence[Any], second: Sequence[Any]) -> float:
    """The largest absolute difference between two equally shaped nested lists (0 if empty)."""
    a, b = np.asarray(first, dtype=float), np.asarray(second, dtype=float)
    return float(np.max(np.abs(a - b))) if a.size else 0.0


def agreement_rows(batched: Sequence[Record], flower: Sequence[Record]) -> list[dict[str, Any]]:
    """Per task: whether the winners and every pass/fail decision are the same, and the
    largest difference of payments, reputations ``Re`` and the global model's test loss."""
    rows = []
    for ours, theirs in zip(batched, flower, strict=True):
        same = ours["winners"] == theirs["winners"]
        rows.append({
            "task": ours["task"], "winners": len(ours["winners"]), "same winners": same,
            "same decisions": same and ours["rounds"]["passed"] == theirs["rounds"]["passed"],
            "payments": _largest(ours["payments"], theirs["payments"]) if same else np.nan,
            "Re": _largest(ours["Re"], theirs["Re"]),
            "test loss": (_largest(ours["rounds"]["test_loss"], theirs["rounds"]["test_loss"])
                          if same else np.nan),
        })
    return rows


def agreement_html(rows: Sequence[Mapping[str, Any]]) -> str:
    """:func:`agreement_rows` as a table, the differences under a common header."""
    head = list(rows[0])
    body = [["yes" if value is True else "no" if value is False else value
             for value in row.values()] for row in rows]
    return html_table(head, body, digits=2,
                      column_groups=[("", 4), ("largest difference, Flower - batched", 3)])


@styled
def loss_figure(batched: Sequence[Record], flower: Sequence[Record]) -> Figure:
    """The global model's test loss in every round of every task, batched engine (thick) and
    Flower (dots), and their absolute difference on a log scale."""
    fig = Figure(figsize=(9, 3.8), layout="constrained")
    loss_ax, diff_ax = fig.subplots(1, 2)
    for ours, theirs in zip(batched, flower, strict=True):
        a, b = (np.asarray(r["rounds"]["test_loss"], dtype=float) for r in (ours, theirs))
        x = ours["task"] + np.arange(1, a.size + 1) / (a.size + 1)
        loss_ax.plot(x, a, color=OKABE_ITO[0], lw=3, alpha=0.6,
                     label="batched engine" if ours["task"] == 0 else None)
        loss_ax.plot(x, b, "o", color=OKABE_ITO[1], ms=3,
                     label="Flower federation" if ours["task"] == 0 else None)
        if a.size == b.size:
            diff_ax.semilogy(x, np.maximum(np.abs(a - b), 1e-12), "o-", color=NEUTRAL, ms=3)
    loss_ax.set_ylabel("test loss of the global model")
    loss_ax.legend(frameon=False)
    diff_ax.set_ylabel("|Flower - batched|\n(1e-12: equal)")
    for ax in (loss_ax, diff_ax):
        ax.set_xlabel("task (rounds within it)")
    return fig
