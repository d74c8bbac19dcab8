"""A winner's machine lost in the middle of a task, on Flower's Deployment Runtime.

:func:`stop_a_winner` runs a configuration on the batched engine (the reference) and through
``flwr run`` on the Deployment Runtime (a SuperLink and one SuperNode per worker, each a process
of its own: :func:`~fedlib.flower.simulation.federate`), and stops the SuperNode of the
reference's first winner of task ``task`` as soon as that worker has answered the task's first
training request (counted from the ServerApp's record, :mod:`fedlib.flower.answers`). While the
run lasts it records every process of the federation and every process they start (the
ClientApps).

What such a run should show, and what chapter 9 and ``tests/flower`` check on it: the run
completes; exactly that SuperNode was stopped; its worker fails the check of every round of
the task from the stop on (no model arrives: :mod:`fedlib.flower.strategy`) and answers no
request after it; and no process of the federation, nor any process one of them started,
outlives the run.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from fedlib.experiments.multitask import MultiTaskConfig, run_multitask
from fedlib.flower.launch import LocalFederation, descendants, process_alive
from fedlib.flower.publisher import FederationRun
from fedlib.flower.simulation import federate
from fedlib.storage.results import json_values


@dataclass(frozen=True, eq=False)
class StoppedWinner:
    """The outcome of :func:`stop_a_winner`.

    Attributes
    ----------
    reference : list of dict
        The batched engine's records of the same configuration (plain JSON values).
    run : FederationRun
        The Deployment Runtime's run (its ``answered`` and ``logs`` included).
    victim, task : int
        The worker whose SuperNode was stopped, in task ``task`` (0-based).
    pids : dict of str to int
        The federation's processes by name (``superlink``, ``supernode-<worker>``).
    children : frozenset of int
        The processes they were seen to start during the run.
    stopped : frozenset of str
        The SuperNodes stopped during the run.
    """

    reference: list[dict[str, Any]]
    run: FederationRun
    victim: int
    task: int
    pids: dict[str, int]
    children: frozenset[int]
    stopped: frozenset[str]

    @property
    def records(self) -> list[dict[str, Any]]:
        """The Deployment Runtime's records (plain JSON values)."""
        return json_values(list(self.run.result.records))

    def missed_rounds(self) -> list[int]:
        """The rounds (0-based) of task ``task`` from which no model of the victim arrived."""
        return [r for r, w in self.records[self.task].get("no_reply", []) if w == self.victim]

    def survivors(self) -> list[int]:
        """The recorded processes still running (none, after a clean run)."""
        return sorted(pid for pid in {*self.pids.values(), *self.children} if process_alive(pid))


def stop_a_winner(config: MultiTaskConfig, task: int = 1, **options: Any) -> StoppedWinner:
    """Run ``config`` on the Deployment Runtime and stop a winner's SuperNode in task ``task``.

    Parameters
    ----------
    config : MultiTaskConfig
    task : int, default 1
        The task (0-based) in which the reference's first winner is stopped.
    **options
        Passed to :func:`~fedlib.flower.simulation.federate` (``timeout``, ``outages``...).

    Raises
    ------
    ValueError
        If ``task`` is not a task of ``config``, or the reference hires nobody in it.
    """
    if not 0 <= task < config.n_tasks:
        raise ValueError(f"task must be in 0..{config.n_tasks - 1} (the configuration's "
                         f"tasks), got {task}")
    reference = json_values(list(run_multitask(config).records))
    if not reference[task]["winners"]:
        raise ValueError(f"the batched engine hires nobody in task {task}: there is no winner "
                         f"to stop (raise the budget)")
    victim = reference[task]["winners"][0]
    trained = config.task.rounds * sum(victim in record["winners"] for record in reference[:task])
    pids: dict[str, int] = {}
    children: set[int] = set()
    stopped: set[str] = set()

    def stop_once_it_trained(federation: LocalFederation) -> None:
        pids.update(federation.pids)
        children.update(child for pid in pids.values() for child in descendants(pid))
        if not federation.stopped and federation.answered(victim).get("train", 0) > trained:
            federation.stop_node(victim)
        stopped.update(federation.stopped)

    run = federate(config, runtime="deployment", on_poll=stop_once_it_trained, **options)
    return StoppedWinner(reference, run, victim, task, pids, frozenset(children),
                         frozenset(stopped))


__all__ = ["StoppedWinner", "stop_a_winner"]
