"""A counterexample of the conformance kit replayed in a Flower federation.

The kit predicts what a mechanism does on an instance by calling its ``select`` and ``pay``
(:class:`fedlib.conformance.protocol.Player`). A replay plays the same auction between
processes that hold only their own information: each worker's ClientApp knows its true cost,
the bid it reports and the ``re`` (Eq. (5)) it delivers, and the publisher's ServerApp knows
the instance's promised reputations ``Re``, the budget ``B`` and what the workers send it. One
:class:`Play` of a :class:`~fedlib.conformance.search.Counterexample` is one ``flwr run``, an
auction without training (:func:`serve`):

1. a ``query.bid`` to every node; each worker answers with the play's bid: the worker the
   counterexample concerns its misreport, the others their true cost;
2. the mechanism's ``select`` (Algorithm 1 for ours) on the bids received, with the
   instance's ``Re``, ``B``, true costs (for a mechanism that knows them) and seed;
3. a ``query.deliver`` to each winner, answered with the ``re`` it delivers in the play (a
   loser delivers nothing: its ``re`` is 0, which the paper's payments ignore);
4. ``pay`` on what was delivered (Alg. 1 lines 11-14), and a ``query.payment`` to every node,
   each answering with its utility computed on its side, Eq. (1): its payment minus its true
   cost if it won, else 0.

The ServerApp writes what it measured to ``<out>/replay.json``. The play travels to both apps
in the run configuration's ``replay`` key (:class:`ReplayPlan`, JSON with every float exact;
:mod:`fedlib.flower.settings`); the workers' side is in :mod:`fedlib.flower.client`.
:mod:`fedlib.flower.counterexample_replay` runs the plays of a counterexample and compares
them with the kit's prediction.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np
from flwr.app import ConfigRecord
from flwr.serverapp import Grid

from fedlib.conformance.protocol import Player
from fedlib.flower.messages import DELIVER, PAYMENT, request
from fedlib.flower.publisher import collect_bids, wait_for_nodes
from fedlib.mechanism import MECHANISMS, Instance

#: The file (in the run's ``out``) the ServerApp writes a replay's measurements to.
RESULT = "replay.json"


@dataclass(frozen=True, eq=False)
class ReplayPlan:
    """One play to replay: the mechanism's name (a key of
    :data:`~fedlib.mechanism.MECHANISMS`, or of the run's ``mechanisms``), the truthful
    instance (true costs, ``Re``, budget, what each worker can deliver, seed), and the bids
    the workers report and the ``re`` they deliver in the play."""

    mechanism: str
    instance: Instance
    bids: np.ndarray
    re: np.ndarray

    def __post_init__(self) -> None:
        n = self.instance.n
        for name in ("bids", "re"):
            values = np.asarray(getattr(self, name), dtype=float)
            if values.shape != (n,):
                raise ValueError(f"the play's {name} must have one entry per worker ({n}), "
                                 f"got shape {values.shape}")
            object.__setattr__(self, name, values)

    def to_json(self) -> str:
        """The plan as JSON (floats written exactly: ``json`` writes the shortest repr that
        reads back the same double)."""
        inst = self.instance
        return json.dumps({"mechanism": self.mechanism,
                           "instance": {"bids": inst.bids.tolist(), "Re": inst.Re.tolist(),
                                        "budget": inst.budget, "re": inst.re.tolist(),
                                        "costs": inst.costs.tolist(), "seed": inst.seed},
                           "bids": self.bids.tolist(), "re": self.re.tolist()})

    @classmethod
    def from_json(cls, text: str) -> ReplayPlan:
        """The plan :meth:`to_json` wrote."""
        data = json.loads(text)
        return cls(data["mechanism"], Instance(**data["instance"]), np.array(data["bids"]),
                   np.array(data["re"]))

    def worker(self, worker: int) -> int:
        """``worker`` (a node's partition-id), checked to be one of the play's."""
        if not 0 <= worker < self.instance.n:
            raise ValueError(f"partition-id {worker} names no worker: the replay has "
                             f"{self.instance.n} (give each node a partition-id in "
                             f"0..{self.instance.n - 1})")
        return worker


def _answers(replies: Any, key: str, workers: int) -> dict[int, float]:
    """``{worker: metrics[key]}`` of the replies; an error reply or a worker out of range
    raises RuntimeError (a replay has no use for a partial answer)."""
    found = {}
    for message in replies:
        if message.has_error():
            raise RuntimeError(f"node {message.metadata.src_node_id} failed: "
                               f"{message.error.reason}")
        metrics = message.content.metric_records["metrics"]
        worker = int(metrics["worker"])
        if not 0 <= worker < workers:
            raise RuntimeError(f"a reply names worker {worker}; the replay has {workers}")
        found[worker] = float(metrics[key])
    return found


def serve(grid: Grid, plan: ReplayPlan, out: str, timeout: float) -> Path:
    """The publisher's side of one replay (steps 1-4 of the module's description): writes what
    it measured (the bids received, the winners, the ``re`` delivered, the payments and the
    utilities the workers reported) to ``<out>/replay.json`` and returns its path. A
    mechanism's fault (:class:`~fedlib.conformance.protocol.MechanismFault`) is raised."""
    n = plan.instance.n
    player = Player(MECHANISMS[plan.mechanism])
    nodes = wait_for_nodes(grid, n, timeout)
    bids, node_of = collect_bids(grid, nodes, 0, n, timeout)
    if np.isnan(bids).any():
        raise RuntimeError(f"workers {np.flatnonzero(np.isnan(bids)).tolist()} sent no bid")
    allocation, selected = player.select(plan.instance, bids)
    winners = np.flatnonzero(selected)
    re = np.zeros(n)
    delivered = _answers(grid.send_and_receive(
        [request(DELIVER, node_of[int(w)], ConfigRecord({"task": 0})) for w in winners],
        timeout=timeout), "re", n)
    for worker, value in delivered.items():
        re[worker] = value
    payments = player.pay(plan.instance, allocation, selected, re)
    utilities = _answers(grid.send_and_receive(
        [request(PAYMENT, node_of[w], ConfigRecord({"task": 0, "payment": float(payments[w]),
                                                    "selected": bool(selected[w])}))
         for w in range(n)], timeout=timeout), "utility", n)
    path = Path(out) / RESULT
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(json.dumps({"bids": bids.tolist(), "winners": winners.tolist(),
                                "re": re.tolist(), "payments": payments.tolist(),
                                "utilities": [utilities[w] for w in range(n)]}))
    return path


__all__ = ["RESULT", "ReplayPlan", "serve"]
