"""The ServerApp's own record of the requests each worker's node answered.

:class:`AnsweringGrid` wraps the grid Flower hands the ServerApp (:mod:`fedlib.flower.app`):
every reply that comes back without an error through ``send_and_receive`` (the bid requests,
the rounds of Flower's ``Strategy.start``, the payment queries, a replay's deliveries) is
appended to ``<out>/answers.jsonl`` as one line ``{"worker": w, "type": "train"}`` (the worker
its reply names, the type of the request it answers) and flushed at once, so that the process
that launched the run can count them while the run lasts (:func:`count_answers`; a worker's
node stopped mid-task stops answering). The counts come from the server's records, not from a
node's log.
"""

from __future__ import annotations

import json
import os
from collections import Counter
from collections.abc import Iterable, Mapping
from pathlib import Path
from typing import Any

from flwr.app import Message
from flwr.serverapp import Grid

#: The file in the run's ``out`` folder.
ANSWERS = "answers.jsonl"


class AnsweringGrid:
    """``grid`` with every reply received through ``send_and_receive`` recorded in
    ``<out>/answers.jsonl`` (emptied when the grid is wrapped); everything else is ``grid``'s."""

    def __init__(self, grid: Grid, out: str | os.PathLike[str]) -> None:
        self._grid = grid
        self.path = Path(out) / ANSWERS
        self.path.parent.mkdir(parents=True, exist_ok=True)
        self.path.write_text("")

    def __getattr__(self, name: str) -> Any:
        return getattr(self._grid, name)

    def send_and_receive(self, messages: Iterable[Message], *, timeout: float | None = None
                         ) -> list[Message]:
        """``grid.send_and_receive``, recording each reply without an error."""
        replies = list(self._grid.send_and_receive(messages, timeout=timeout))
        with self.path.open("a") as record:
            for reply in replies:
                metrics: Mapping[str, Any] = ({} if reply.has_error() else
                                              reply.content.metric_records.get("metrics", {}))
                if "worker" in metrics:
                    record.write(json.dumps({"worker": int(metrics["worker"]),
                                             "type": reply.metadata.message_type}) + "\n")
        return replies


def count_answers(out: str | os.PathLike[str], worker: int) -> dict[str, int]:
    """How many requests of each type (``query.bid``, ``train``, ``query.payment``...) worker
    ``worker`` has answered so far in the run writing to ``out`` (none before it starts)."""
    path = Path(out) / ANSWERS
    lines = path.read_text().splitlines() if path.exists() else []
    answers = [json.loads(line) for line in lines if line.endswith("}")]
    return dict(Counter(answer["type"] for answer in answers if answer["worker"] == worker))


__all__ = ["ANSWERS", "AnsweringGrid", "count_answers"]
