"""Adversarial and strategic workers (beyond the paper): does the mechanism notice them?

The paper's workers are honest: they train on the data they have, and their only flaw is label
noise. Here some of the 15 clean (dacc 1.0) bidders of the multi-task experiment of Tables 1-3
misbehave (:data:`SCENARIO`, :mod:`fedlib.fl.attacks`: :data:`FREE_RIDERS`,
:data:`NOISE_WORKERS`, :data:`LABEL_FLIPPERS`, and :data:`QUALITY_DROPPERS` whose data falls to
accuracy :data:`DROP_TO` at half-time) while bidding as clean workers; the other workers are
the paper's. :class:`AdversarialConfig` runs this scenario for :data:`ADVERSARIAL_MECHANISMS`
with the paper's other settings (``python -m fedlib reproduce adversarial`` stores it as
``results/adversarial_<dataset>.json``); :func:`single_task` plays one reduced task with one
attacker among clean workers.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from functools import lru_cache
from typing import Any, ClassVar

import numpy as np

from fedlib.analysis.claims import Claim
from fedlib.experiments.grid import Grid, GridResult, distinct_mechanisms
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.experiments.registry import register
from fedlib.fl.attacks import Attack, attacked_pool, model_submitter
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.models import MODEL_FOR_DATASET
from fedlib.fl.seeding import seed_sequence, torch_threads
from fedlib.fl.task import TaskOptions, run_task
from fedlib.fl.workers import PublisherSets, WorkerPool, iid_workers, publisher_sets

#: Tasks of the stored run (the first ``eval_from = 5`` are not evaluated).
ADVERSARIAL_TASKS = 30
#: The mechanisms compared: ours and the two benchmarks that select by reputation.
ADVERSARIAL_MECHANISMS = ("ours", "rrafl", "reputation_greedy")
#: Attackers among the dacc 1.0 workers 0-14 of the paper's groups (two of each kind).
FREE_RIDERS, NOISE_WORKERS, LABEL_FLIPPERS, QUALITY_DROPPERS = (0, 1), (2, 3), (4, 5), (6, 7)
#: dacc 1.0 workers that stay honest (8-14).
HONEST_CLEAN = tuple(range(8, 15))
#: A free-rider's disguise: std of the noise on its copy of the global model (0: exact copy).
FREE_RIDER_STD = 0.0
#: Std of the noise workers' random parameters, about the size of the MLP's first-layer weights
#: at initialisation (uniform on +-1/sqrt(784), std 0.021).
NOISE_STD = 0.02
#: Share of a label-flipper's labels that are shifted.
FLIP_SHARE = 1.0
#: A quality-dropper's data accuracy after the drop, and the task of the drop (half-time).
DROP_TO, DROP_FROM = 0.1, ADVERSARIAL_TASKS // 2
#: The scenario's attacks.
SCENARIO: tuple[Attack, ...] = (
    Attack("free_rider", FREE_RIDERS, FREE_RIDER_STD),
    Attack("noise", NOISE_WORKERS, NOISE_STD),
    Attack("label_flip", LABEL_FLIPPERS, FLIP_SHARE),
    Attack("quality_drop", QUALITY_DROPPERS, DROP_TO, from_task=DROP_FROM),
)
#: Display names of the behaviour groups (:func:`behaviour_groups`).
BEHAVIOUR_LABELS = {"free_rider": "free-rider", "noise": "noise", "label_flip": "label flip",
                    "quality_drop": "quality drop"}


def scenario_base(dataset: str = "mnist", **fields: Any) -> MultiTaskConfig:
    """The scenario's multi-task configuration: :data:`SCENARIO` with
    :data:`ADVERSARIAL_TASKS` tasks unless ``fields`` say otherwise (the mechanism is set per
    run by :class:`AdversarialConfig`)."""
    return MultiTaskConfig(**{"dataset": dataset, "n_tasks": ADVERSARIAL_TASKS,
                              "attacks": SCENARIO, **fields})


class AdversarialResult(GridResult):
    """The scenario under each mechanism: one
    :class:`~fedlib.experiments.multitask.MultiTaskResult` per mechanism."""

    @property
    def by_mechanism(self) -> dict[str, MultiTaskResult]:
        return dict(zip(self.config.mechanisms, self.runs, strict=True))


@register
@dataclass(frozen=True)
class AdversarialConfig(Grid):
    """The multi-task experiment ``base`` (with its attacks) run once per mechanism (a
    :class:`~fedlib.experiments.grid.Grid`, ``python -m fedlib reproduce adversarial``, stored
    as ``adversarial_<dataset>.json``).

    Attributes
    ----------
    mechanisms : tuple of str
        Keys of :data:`~fedlib.mechanism.MECHANISMS`, distinct; ``base.mechanism`` is ignored.
    base : MultiTaskConfig
        Everything else: dataset, tasks, workers, attacks, seed, device.
    """

    mechanisms: tuple[str, ...] = ADVERSARIAL_MECHANISMS
    base: MultiTaskConfig = field(default_factory=scenario_base)

    kind: ClassVar[str] = "adversarial"
    result_type: ClassVar[type] = AdversarialResult
    axis: ClassVar[str] = "mechanisms"
    pinned: ClassVar[tuple[str, ...]] = ("mechanism",)

    def __post_init__(self) -> None:
        object.__setattr__(self, "mechanisms", distinct_mechanisms(self.mechanisms))
        object.__setattr__(self, "base", replace(self.base, mechanism="ours"))

    def run_configs(self) -> list[MultiTaskConfig]:
        return [replace(self.base, mechanism=m) for m in self.mechanisms]

    def run_labels(self) -> list[str]:
        return list(self.mechanisms)

    def fast(self) -> AdversarialConfig:
        """Every mechanism at smoke size, with every attack active from the fast run's
        half-time at the latest (so the smoke run meets them)."""
        base = self.base.fast()
        half = base.n_tasks // 2
        attacks = tuple(replace(a, from_task=min(a.from_task, half)) for a in base.attacks)
        return replace(self, base=replace(base, attacks=attacks))



# ---------------------------------------------------------------------- summaries


def behaviour_groups(config: MultiTaskConfig) -> dict[str, np.ndarray]:
    """Worker indices of every behaviour group: one per attack kind (in the order of
    ``config.attacks``), then the honest workers of each data accuracy (``"dacc 1.0"``...)."""
    out: dict[str, list[int]] = {}
    for attack in config.attacks:
        out.setdefault(attack.kind, []).extend(attack.workers)
    attackers = {w for workers in out.values() for w in workers}
    for dacc, _ in config.groups:
        honest = [int(w) for w in np.flatnonzero(config.daccs == dacc) if w not in attackers]
        if honest:
            out[f"dacc {dacc:.1f}"] = honest
    return {name: np.array(sorted(workers)) for name, workers in out.items()}


def group_label(name: str) -> str:
    """Display name of a behaviour group (``"honest dacc 1.0"`` for an honest group)."""
    return BEHAVIOUR_LABELS.get(name, f"honest {name}")


def selection_shares(result: MultiTaskResult) -> dict[str, np.ndarray]:
    """Per behaviour group, the share of its workers that won each task (all tasks)."""
    won = np.zeros((len(result.records), result.config.daccs.size), dtype=bool)
    for t, record in enumerate(result.records):
        won[t, record["winners"]] = True
    return {name: won[:, workers].mean(axis=1)
            for name, workers in behaviour_groups(result.config).items()}


def group_summary(result: MultiTaskResult,
                  tasks: Sequence[int] | None = None) -> dict[str, dict[str, float]]:
    """Per behaviour group, over ``tasks`` (default: the evaluated ones):

    * ``win_share``: share of the (worker, task) pairs won;
    * ``pass_rate``: share of the rounds played in which the worker passed the leave-one-out
      check (NaN if the group never won);
    * ``contribution``: mean task contribution over the pairs won;
    * ``re``: mean internal reputation (Eq. (5)) over the pairs won;
    * ``payment``: mean payment over the pairs won;
    * ``payment_per_task``: total paid to the group per task and worker (0 when losing);
    * ``reputation``: the group's mean ``Re`` after the last of ``tasks``.
    """
    config = result.config
    chosen = [result.records[t] for t in
              (tasks if tasks is not None else range(config.eval_from, len(result.records)))]
    out = {}
    for name, workers in behaviour_groups(config).items():
        members = set(workers.tolist())
        rows = [(record["n_pass"][i], record["n_fail"][i], record["contribution"][i],
                 record["re"][i], record["payments"][i])
                for record in chosen for i, w in enumerate(record["winners"]) if w in members]
        wins = np.array(rows, dtype=float).reshape(-1, 5)
        rounds = wins[:, 0].sum() + wins[:, 1].sum()
        out[name] = {
            "win_share": len(rows) / (len(chosen) * workers.size) if chosen else float("nan"),
            "pass_rate": float(wins[:, 0].sum() / rounds) if rounds else float("nan"),
            "contribution": _mean(wins[:, 2]),
            "re": _mean(wins[:, 3]),
            "payment": _mean(wins[:, 4]),
            "payment_per_task": (float(wins[:, 4].sum() / (len(chosen) * workers.size))
                                 if chosen else float("nan")),
            "reputation": (float(np.mean(np.array(chosen[-1]["Re"])[workers])) if chosen
                           else float("nan")),
        }
    return out


def _mean(values: np.ndarray) -> float:
    return float(values.mean()) if values.size else float("nan")


# ---------------------------------------------------------------------- one task


@dataclass(frozen=True, eq=False)
class SingleTaskOutcome:
    """One reduced task with one attacker (worker 0) among clean workers (:func:`single_task`).

    Attributes
    ----------
    attack : Attack
    n_pass : numpy.ndarray
        Rounds in which each worker passed the leave-one-out check.
    rounds : int
    contribution : numpy.ndarray
        Task contribution of each worker (mean of the round contributions, Eq. (3)).
    omega : numpy.ndarray
        Each worker's aggregation weight, averaged over the rounds.
    re : numpy.ndarray
        Internal reputation, Eq. (5).
    acc_with, acc_without : numpy.ndarray
        Test accuracy of the global model after every round, with all workers and with the
        attacker left out.
    """

    attack: Attack
    n_pass: np.ndarray
    rounds: int
    contribution: np.ndarray
    omega: np.ndarray
    re: np.ndarray
    acc_with: np.ndarray
    acc_without: np.ndarray

    @property
    def passed(self) -> np.ndarray:
        """Whether each worker passed the check in every round."""
        return self.n_pass == self.rounds


@lru_cache(maxsize=4)
def _single_setting(dataset: str, n_workers: int, n_samples: int, n_val: int, n_test: int,
                    seed: int) -> tuple[BatchedEngine, WorkerPool, PublisherSets]:
    pool = iid_workers(dataset, [1.0] * n_workers, np.random.default_rng(seed_sequence(seed, 0)),
                       n=n_samples)
    publisher = publisher_sets(dataset, np.random.default_rng(seed_sequence(seed, 1)),
                               n_val=n_val, n_test=n_test)
    return BatchedEngine(MODEL_FOR_DATASET[dataset], device="cpu"), pool, publisher


def single_task(kind: str, strength: float, *, dataset: str = "mnist", n_workers: int = 10,
                rounds: int = 3, n_samples: int = 500, n_val: int = 1000, n_test: int = 1000,
                seed: int = 0) -> SingleTaskOutcome:
    """One task of ``n_workers`` clean workers of which worker 0 attacks, on the CPU.

    Parameters
    ----------
    kind : str
        An attack kind of :mod:`fedlib.fl.attacks`.
    strength : float
        The attack's strength (its meaning depends on the kind).
    dataset : {"mnist", "fashion"}, default "mnist"
    n_workers, rounds, n_samples, n_val, n_test : int
        A reduced version of the paper's task.
    seed : int, default 0

    Returns
    -------
    SingleTaskOutcome
    """
    attack = Attack(kind, (0,), strength)
    if n_workers < 2:
        raise ValueError(f"n_workers must be at least 2, got {n_workers}")
    engine, pool, publisher = _single_setting(dataset, n_workers, n_samples, n_val, n_test, seed)
    options = TaskOptions(rounds=rounds)
    attack_seed = seed_sequence(seed, 2)
    with torch_threads(1):
        attacked = run_task(engine, attacked_pool(pool, [attack], 0, attack_seed), publisher,
                            seed=seed, options=options,
                            submit=model_submitter([attack], range(n_workers), 0, attack_seed))
        without = run_task(engine, pool.subset(range(1, n_workers)), publisher, seed=seed,
                           options=options)
    return SingleTaskOutcome(attack, attacked.n_pass, rounds, attacked.contribution,
                             attacked.round_values("omega").mean(axis=0), attacked.re,
                             attacked.round_values("test_acc"), without.round_values("test_acc"))


# ---------------------------------------------------------------------- claims


#: The behaviour groups of attackers, in the scenario's order.
ATTACKER_GROUPS = ("free_rider", "noise", "label_flip", "quality_drop")


def _attackers(summary: Mapping[str, Mapping[str, float]], key: str) -> dict[str, float]:
    return {g: summary[g][key] for g in ATTACKER_GROUPS if g in summary}


def claims(runs: Mapping[str, MultiTaskResult]) -> list[Claim]:
    """What the scenario shows (beyond the paper), checked on ``runs`` (keyed by mechanism;
    needs ``"ours"``, ``"rrafl"`` and ``"reputation_greedy"``). Statistics over the evaluated
    tasks; each claim's ``where`` names the step it is about (Algorithm 1, the reputation
    update Eq. (13), the ex-post payment Eq. (16), the quality check, or a benchmark)."""
    from fedlib.experiments.table_summaries import same_runs

    ours, rrafl, greedy = (runs[m] for m in ADVERSARIAL_MECHANISMS)
    s_ours, s_rrafl, s_greedy = (group_summary(r) for r in (ours, rrafl, greedy))
    honest = s_ours["dacc 1.0"]
    passes = {g: v for g, v in _attackers(s_ours, "pass_rate").items() if np.isfinite(v)}
    paid_ours, paid_rrafl = (sum(_attackers(s, "payment_per_task").values())
                             for s in (s_ours, s_rrafl))
    won_ours, won_greedy = (sum(_attackers(s, "win_share").values()) for s in (s_ours, s_greedy))
    drop = min((a.from_task for a in ours.config.attacks if a.kind == "quality_drop"),
               default=None)

    def below_honest(where: str, statement: str, key: str, groups: Mapping[str, float],
                     share: float, digits: int) -> Claim:  # each group < share * honest's
        numbers = ", ".join(f"{group_label(g)} {v:.{digits}f}" for g, v in groups.items())
        return Claim.from_checks(where, statement, f"{numbers}; honest {honest[key]:.{digits}f}",
                                 [all(v < honest[key] * share for v in groups.values())])

    alike = same_runs(ours, rrafl)
    out = [Claim.from_checks("Algorithm 1", "ours and RRAFL select the same winners in every "
                             "task", "same winners, reputations and models" if alike else
                             "they differ", [alike]),
           below_honest("Reputation, Eq. (13)", "under ours every attacker group ends with "
                        "less than half the reputation of the honest dacc 1.0 workers",
                        "reputation", _attackers(s_ours, "reputation"), 0.5, 3),
           below_honest("Payment, Eq. (16)", "under ours every attacker group earns less per "
                        "task than the honest dacc 1.0 workers", "payment_per_task",
                        _attackers(s_ours, "payment_per_task"), 1.0, 2),
           below_honest("Quality check", "the honest dacc 1.0 workers pass the leave-one-out "
                        "check more often than every attacker group that won a task under "
                        "ours", "pass_rate", passes, 1.0, 3),
           Claim.from_checks("Payment, Eq. (16)", "ours pays the attackers less than RRAFL, "
                             "which pays ex ante", "per task and attacker summed over the "
                             f"groups: ours {paid_ours:.3f}, RRAFL {paid_rrafl:.3f}",
                             [paid_ours < paid_rrafl]),
           Claim.from_checks("Reputation Greedy", "Reputation Greedy selects attackers more "
                             "often than ours", "win shares summed over the attacker groups: "
                             f"ours {won_ours:.3f}, Reputation Greedy {won_greedy:.3f}",
                             [won_greedy > won_ours])]
    if drop is not None and ours.config.eval_from < drop < len(ours.records):
        before = group_summary(ours, range(ours.config.eval_from, drop))["quality_drop"]
        after = group_summary(ours, range(drop, len(ours.records)))["quality_drop"]
        out.append(Claim.from_checks(
            "Reputation, Eq. (13)", "under ours the quality-droppers win less after their "
            "drop than before it", f"win share before {before['win_share']:.3f}, after "
            f"{after['win_share']:.3f}", [after["win_share"] < before["win_share"]]))
    return out
