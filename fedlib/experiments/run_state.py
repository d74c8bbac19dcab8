"""A multi-task run between its tasks: records, the reputation ledger, the model, checkpoints.

After each task the run *settles* it (:meth:`RunState.settle`): the mechanism pays the winners
ex post given their internal reputations ``re``, Eq. (13) updates their accumulated reputations
``Re``, and the task's record is appended. The batched engine's loop
(:func:`~fedlib.experiments.multitask.run_multitask`) and the Flower strategy
(:mod:`fedlib.flower.strategy`) settle their tasks here, so both keep the same records. A
checkpoint (:meth:`RunState.save`) is this state, written atomically after a task; a run
resumes from it with the same configuration (:meth:`RunState.resume`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any, Protocol

import numpy as np
import torch

from fedlib.fl.batched import Params
from fedlib.fl.records import TaskResult
from fedlib.mechanism.mechanisms import MECHANISMS, Allocation
from fedlib.mechanism.reputation import ReputationLedger
from fedlib.runtime import write_atomic


class RunConfig(Protocol):
    """What the state reads from a run's configuration
    (:class:`~fedlib.experiments.multitask.MultiTaskConfig`; read-only, as its frozen fields
    are)."""

    @property
    def mechanism(self) -> str: ...

    @property
    def n_tasks(self) -> int: ...

    @property
    def initial_reputation(self) -> float: ...

    @property
    def beta1(self) -> float: ...

    @property
    def beta2(self) -> float: ...

    @property
    def daccs(self) -> np.ndarray: ...

    def to_dict(self) -> dict[str, Any]: ...


class RunState:
    """The state of a run between tasks: records, ledger and (without fresh models) the model."""

    def __init__(self, config: RunConfig) -> None:
        self.config = config
        self.records: list[dict[str, Any]] = []
        self.ledger = ReputationLedger(config.daccs.size, config.initial_reputation,
                                       config.beta1, config.beta2)
        self.params: Params | None = None
        self.seconds = 0.0

    def state(self) -> dict[str, Any]:
        return {"config": self.config.to_dict(), "records": self.records,
                "ledger": self.ledger.to_dict(), "params": self.params, "seconds": self.seconds}

    def restore(self, state: Mapping[str, Any]) -> None:
        stored = {k: v for k, v in state["config"].items() if k != "n_tasks"}
        wanted = {k: v for k, v in self.config.to_dict().items() if k != "n_tasks"}
        if stored != wanted:
            changed = sorted(k for k in wanted if stored.get(k) != wanted[k])
            raise ValueError(f"checkpoint was written for a different configuration (fields "
                             f"{changed} differ); use the same arguments or delete the "
                             "checkpoint to start over")
        if len(state["records"]) > self.config.n_tasks:
            raise ValueError(f"checkpoint holds {len(state['records'])} tasks, more than "
                             f"n_tasks = {self.config.n_tasks}")
        self.records = list(state["records"])
        self.ledger = ReputationLedger.from_dict(state["ledger"])
        self.params = state["params"]
        self.seconds = float(state["seconds"])

    def save(self, path: Path) -> None:
        """Write the state atomically: a temporary file beside ``path``, then ``os.replace``."""
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, lambda tmp: torch.save(self.state(), tmp))

    def resume(self, path: Path) -> None:
        """Continue from the checkpoint :meth:`save` wrote (see :meth:`restore`)."""
        self.restore(torch.load(path, map_location="cpu", weights_only=True))

    def settle(self, task: int, bids: np.ndarray, allocation: Allocation,
               result: TaskResult | None, round_fields: Sequence[str],
               bidders: np.ndarray | None = None) -> None:
        """After task ``task``: pay the winners ex post given their ``re`` (the mechanism's
        payment rule), apply Eq. (13) to their ``Re``, keep the model and append the task's
        record (``result`` is None when nobody won), keeping ``round_fields`` of the
        :class:`~fedlib.fl.records.RoundRecord` per round.

        ``bidders`` are the workers the auction saw, in the order ``allocation`` indexes them
        (default: all; in a federation a worker that does not answer the bid request is left
        out, and its bid is recorded as None).
        """
        bidders = np.arange(bids.size) if bidders is None else np.asarray(bidders)
        winners = bidders[allocation.winners]
        re = np.zeros(bids.size)
        rounds: dict[str, Any] = {name: [] for name in round_fields}
        outcome: dict[str, Any] = {name: [] for name in ("contribution", "n_pass", "n_fail")}
        if result is not None:
            re[winners] = result.re
            stored = result.to_dict(tuple(round_fields))
            rounds = stored["rounds"]
            outcome = {name: stored[name] for name in outcome}
            self.params = result.final_params
            self.ledger.update(winners, re)
        payments = np.zeros(bids.size)
        payments[bidders] = MECHANISMS[self.config.mechanism].pay(allocation, re[bidders])
        bid = np.zeros(bids.size, dtype=bool)
        bid[bidders] = True
        self.records.append({
            "task": task, "winners": winners.tolist(),
            "bids": [float(b) if seen else None for b, seen in zip(bids, bid, strict=True)],
            "payments": payments[winners].tolist(), **outcome, "re": re[winners].tolist(),
            "Re": self.ledger.Re.tolist(), "rounds": rounds,
        })
