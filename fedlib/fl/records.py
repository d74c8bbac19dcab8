"""What a federated task records: one :class:`RoundRecord` per global round and the task's
:class:`TaskResult`, and their JSON-ready form (:meth:`TaskResult.to_dict`)."""

from __future__ import annotations

from dataclasses import dataclass, field, fields
from typing import Any

import numpy as np

from fedlib.fl.batched import Params

#: The per-worker fields of :class:`TaskResult` that :meth:`TaskResult.to_dict` writes.
WORKER_FIELDS = ("contribution", "n_pass", "n_fail", "trust", "re", "local_acc")


@dataclass(frozen=True, eq=False)
class RoundRecord:
    """What happened in one global round; arrays have one entry per submitting worker.

    Attributes
    ----------
    loss_all : float
        Validation loss ``l`` of the plain average of all local models.
    delta_l : numpy.ndarray
        ``l_{-i} - l`` (0 when a single model was submitted).
    passed : numpy.ndarray of bool
        Outcome of the leave-one-out check.
    margin : numpy.ndarray
        ``delta_l - delta``: how far each decision lies from the threshold (pass iff >= 0; a
        single submitted model passes whatever its margin). Verification on another machine
        reads it to tell a decision that float noise can flip from one it cannot
        (:mod:`fedlib.storage.comparison`).
    contrib : numpy.ndarray
        Round contributions, Eq. (3) max-normalised.
    mean_prob : numpy.ndarray
        Mean true-class probability of each local model on the validation set (the paper's
        equal-weighted benchmark before normalisation).
    omega : numpy.ndarray
        Aggregation weights (all 0 when nobody passed).
    test_loss, test_acc : float
        The global model after this round, on the publisher's test set.
    local_acc : numpy.ndarray or None
        Test accuracy of each local model, when requested.
    """

    loss_all: float
    delta_l: np.ndarray
    passed: np.ndarray
    margin: np.ndarray
    contrib: np.ndarray
    mean_prob: np.ndarray
    omega: np.ndarray
    test_loss: float
    test_acc: float
    local_acc: np.ndarray | None


@dataclass(frozen=True, eq=False)
class TaskResult:
    """A finished task: its rounds and, per worker (in the order given), the task's outcome.

    Attributes
    ----------
    rounds : tuple of RoundRecord
    contribution : numpy.ndarray
        Task contribution, the mean of the round contributions.
    n_pass, n_fail : numpy.ndarray of int
        Rounds in which the worker passed / failed the leave-one-out check.
    trust : numpy.ndarray
        Gompertz trust from Eq. (4).
    re : numpy.ndarray
        Internal reputation, Eq. (5).
    local_acc : numpy.ndarray or None
        Mean test accuracy of the worker's local models over the rounds, when requested.
    final_params : Params
        The global model at the end of the task (not serialised).
    """

    rounds: tuple[RoundRecord, ...]
    contribution: np.ndarray
    n_pass: np.ndarray
    n_fail: np.ndarray
    trust: np.ndarray
    re: np.ndarray
    local_acc: np.ndarray | None
    final_params: Params = field(repr=False)

    def round_values(self, name: str) -> np.ndarray:
        """One round field stacked over the rounds: shape (rounds,) or (rounds, workers)."""
        return np.array([getattr(record, name) for record in self.rounds])

    def to_dict(self, round_fields: tuple[str, ...] | None = None) -> dict[str, Any]:
        """JSON-ready plain lists: per-worker fields and the round fields column by column.

        Parameters
        ----------
        round_fields : tuple of str, optional
            The :class:`RoundRecord` fields to keep (default: all).
        """
        names = round_fields or tuple(f.name for f in fields(RoundRecord))
        out = {name: _plain(getattr(self, name)) for name in WORKER_FIELDS}
        out["rounds"] = {name: _plain(self.round_values(name)) for name in names
                         if getattr(self.rounds[0], name) is not None}
        return out


def _plain(value: Any) -> Any:
    """numpy arrays and scalars as plain Python lists and numbers."""
    return value.tolist() if isinstance(value, np.ndarray | np.generic) else value
