"""Misreports replayed in a live federation: the plays of a counterexample of the conformance
kit (:mod:`fedlib.conformance.search`), each one ``flwr run`` of the one-auction federation of
:mod:`fedlib.flower.replay`, measured and compared with the kit's prediction.

:func:`replay_counterexample` runs every play of a counterexample (for truthfulness: the
truthful play and the misreport) against one :class:`~fedlib.flower.launch.LocalFederation`, on
Flower's Simulation Runtime or its Deployment Runtime over the loopback: the worker the
counterexample concerns bids (and delivers) as the play says, the others truthfully. A
:class:`Replay` holds what the ServerApp measured (bids received, winners, payments) and what
the workers reported (their utilities, Eq. (1)) beside the kit's numbers, and whether they
agree (the same bids and winners, payments and utilities within :data:`TOLERANCE`). A
misreport that pays in the kit, such as Theorem 4's counterexample, then pays the same in a
running federation.
"""

from __future__ import annotations

import tempfile
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fedlib.conformance.protocol import Play, conform
from fedlib.conformance.search import Counterexample
from fedlib.flower.launch import LocalFederation, stage_app
from fedlib.flower.replay import RESULT, ReplayPlan
from fedlib.flower.simulation import (
    Runtime,
    check_runtime,
    pickle_mechanisms,
    read_saved,
    start_nodes,
)
from fedlib.mechanism import MECHANISMS
from fedlib.table import Table

#: The largest difference between a measured and a predicted payment or utility that agrees.
TOLERANCE = 1e-9


@dataclass(frozen=True, eq=False)
class PlayReplay:
    """One play measured in the federation beside the kit's prediction.

    Attributes
    ----------
    name : str
        What the play is (``"truthful"``, ``"misreport"``, ``"lower bid"``...).
    predicted : Play
        The kit's play.
    predicted_utilities : numpy.ndarray
        Every worker's utility in it (Eq. (1)).
    bids, re, payments, utilities : numpy.ndarray
        Measured: the bids the ServerApp received, the ``re`` the winners delivered (0 for
        losers), the payments, the utilities the workers reported.
    winners : tuple of int
        Measured.
    """

    name: str
    predicted: Play
    predicted_utilities: np.ndarray
    bids: np.ndarray
    re: np.ndarray
    winners: tuple[int, ...]
    payments: np.ndarray
    utilities: np.ndarray

    @property
    def predicted_winners(self) -> tuple[int, ...]:
        assert self.predicted.selected is not None
        return tuple(np.flatnonzero(self.predicted.selected).tolist())

    @property
    def payment_error(self) -> float:
        """The largest difference between a measured and a predicted payment."""
        assert self.predicted.payments is not None
        return float(np.max(np.abs(self.payments - self.predicted.payments)))

    @property
    def utility_error(self) -> float:
        """The largest difference between a measured and a predicted utility."""
        return float(np.max(np.abs(self.utilities - self.predicted_utilities)))

    @property
    def agrees(self) -> bool:
        """Same bids and winners, payments and utilities within :data:`TOLERANCE`."""
        return (np.array_equal(self.bids, self.predicted.bids)
                and self.winners == self.predicted_winners
                and self.payment_error <= TOLERANCE and self.utility_error <= TOLERANCE)


@dataclass(frozen=True, eq=False)
class Replay:
    """A counterexample's plays replayed in a federation on one runtime
    (:func:`replay_counterexample`)."""

    counterexample: Counterexample
    runtime: str
    plays: tuple[PlayReplay, ...]

    @property
    def max_payment_error(self) -> float:
        return max(play.payment_error for play in self.plays)

    @property
    def max_utility_error(self) -> float:
        return max(play.utility_error for play in self.plays)

    @property
    def agrees(self) -> bool:
        """Every play agrees with the kit's prediction."""
        return all(play.agrees for play in self.plays)

    @property
    def gain(self) -> tuple[float, float]:
        """The worker's utility in the last play minus its utility in the first (a
        truthfulness counterexample's misreport against the truth: its margin), measured and
        predicted."""
        w, first, last = self.counterexample.worker, self.plays[0], self.plays[-1]
        return (float(last.utilities[w] - first.utilities[w]),
                float(last.predicted_utilities[w] - first.predicted_utilities[w]))

    def table(self) -> Table:
        """Two rows per play, the kit's prediction then the federation's measurement: the
        worker's bid and delivered ``re``, whether it won, its payment and its utility (seven
        narrow columns, so that the table fits a printed page)."""
        w = self.counterexample.worker
        rows = tuple(row for p in self.plays if p.predicted.selected is not None
                     and p.predicted.payments is not None
                     for row in ((p.name, "kit", float(p.predicted.bids[w]),
                                  float(p.predicted.re[w]), bool(p.predicted.selected[w]),
                                  float(p.predicted.payments[w]),
                                  float(p.predicted_utilities[w])),
                                 (p.name, "Flower", float(p.bids[w]), float(p.re[w]),
                                  w in p.winners, float(p.payments[w]),
                                  float(p.utilities[w]))))
        return Table(("play", "by", "bid", "re", "wins", "payment", "utility"),
                     rows, title=f"{self.counterexample.property}: worker {w + 1} on Flower's "
                                 f"{self.runtime} runtime; largest payment error "
                                 f"{self.max_payment_error:.2g}, "
                                 + ("agrees with the kit" if self.agrees
                                    else "DISAGREES with the kit"))

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready: the property, worker, runtime, agreement and each play's measurements."""
        return {"property": self.counterexample.property, "worker": self.counterexample.worker,
                "runtime": self.runtime, "agrees": self.agrees,
                "max_payment_error": self.max_payment_error,
                "max_utility_error": self.max_utility_error,
                "plays": [{"name": p.name, "bids": p.bids.tolist(), "winners": list(p.winners),
                           "re": p.re.tolist(), "payments": p.payments.tolist(),
                           "utilities": p.utilities.tolist(), "agrees": p.agrees}
                          for p in self.plays]}


def replayable(counterexample: Counterexample) -> str:
    """Why ``counterexample`` cannot be replayed ('' when it can): it needs one misreporting
    worker and plays with payments."""
    if counterexample.worker is None or not counterexample.deviations:
        return "no worker misreports in it"
    if counterexample.partner is not None:
        return "a joint misreport of two workers"
    if not counterexample.plays:
        return "it has no plays"
    if any(play.payments is None for play in counterexample.plays):
        return "the mechanism faults in it"
    return ""


def replay_counterexample(counterexample: Counterexample, mechanism: Any, *,
                          runtime: Runtime = "simulation", timeout: float = 120.0,
                          cpus: int | None = None) -> Replay:
    """Replay every play of ``counterexample`` in a Flower federation, one ``flwr run`` each
    against one :class:`~fedlib.flower.launch.LocalFederation`.

    Parameters
    ----------
    counterexample : Counterexample
        With a misreporting worker and its plays (:func:`replayable`), e.g. a truthfulness
        counterexample: the truthful play and the misreport.
    mechanism : object
        The mechanism the counterexample is of (:func:`~fedlib.conformance.protocol.conform`);
        one that is not the built-in of its name is pickled into the apps' processes
        (:func:`~fedlib.flower.simulation.pickle_mechanisms`).
    runtime : {"simulation", "deployment"}
        Flower's Simulation Runtime (one node per worker on a Ray head, or ``RAY_ADDRESS``'s)
        or its Deployment Runtime (one SuperNode per worker, partition-id = its index, over
        the loopback).
    timeout : float, default 120
        Seconds the ServerApp waits for the nodes and for each round of replies.
    cpus : int, optional
        The Ray head's CPUs (simulation).

    Returns
    -------
    Replay

    Raises
    ------
    ValueError
        When the counterexample cannot be replayed (:func:`replayable` says why), its worker
        is out of range, or ``runtime`` is unknown.
    """
    check_runtime(runtime)
    mech = conform(mechanism)
    why = replayable(counterexample)
    if why:
        raise ValueError(f"cannot replay this {counterexample.property} counterexample: {why}")
    inst, worker = counterexample.instance, int(counterexample.worker)  # type: ignore[arg-type]
    if not 0 <= worker < inst.n:
        raise ValueError(f"the counterexample's worker {worker} is out of range: the instance "
                         f"has {inst.n} workers")
    plays = []
    with tempfile.TemporaryDirectory(prefix="fedlib-replay-") as temporary:
        folder = Path(temporary)
        settings: dict[str, Any] = {"timeout": float(timeout)}
        if MECHANISMS.get(mech.name) is not mech:
            settings["mechanisms"] = pickle_mechanisms([mech], folder / "mechanisms.pkl")
        with LocalFederation(folder, simulation=runtime == "simulation",
                             cpus=cpus) as federation:
            federation_config = start_nodes(federation, inst.n)
            app = stage_app(folder / "app")
            for index, (name, play) in enumerate(zip(counterexample.play_names,
                                                               counterexample.plays, strict=True)):
                out = folder / f"out_{index}"
                plan = ReplayPlan(mech.name, inst, play.bids, play.re)
                ran = federation.run(app, {**settings, "out": str(out),
                                           "replay": plan.to_json()}, federation_config)
                measured = read_saved(out / RESULT, ran.stdout)
                predicted = np.array([play.utility(w, float(inst.costs[w]))
                                      for w in range(inst.n)])
                plays.append(PlayReplay(
                    name, play, predicted, np.array(measured["bids"]), np.array(measured["re"]),
                    tuple(measured["winners"]), np.array(measured["payments"]),
                    np.array(measured["utilities"], dtype=float)))
    return Replay(counterexample, runtime, tuple(plays))


__all__ = ["TOLERANCE", "PlayReplay", "Replay", "replay_counterexample", "replayable"]
