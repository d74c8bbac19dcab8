"""Ground truth for contribution measurement: exact Shapley values of each round's game.

Every global round of a federated task defines a cooperative game among the k workers. The
utility of a coalition S is the validation accuracy (or, as an option, the negative validation
loss) of the plain average of S's local models; all workers hold equally many samples, so the
plain average is the sample-weighted one of FedAvg. The empty coalition's utility is that of
the global model the round started from. A worker's exact Shapley value of the round needs the
utilities of all ``2**k`` coalitions (1024 for ten workers), evaluated in batches by
:meth:`~fedlib.fl.engine.BatchedEngine.evaluate_averages`.

The task's Shapley value is the mean of the round values, the way our mechanism averages round
contributions into the task contribution. Against it we compare every contribution measure,
each also averaged over the rounds:

* ``ours``: the weighted contribution of Eqs. (2)-(3), max-normalised per round;
* ``equal``: the same with equal sample weights (the paper's benchmark);
* ``local``: the utility of the worker's own model, ``v({i})`` (its validation accuracy);
* ``loo``: leave-one-out, ``v(N) - v(N minus i)``;
* ``monte_carlo``: permutation-sampling Shapley estimate with a small budget of orders.

Each measure's cost is counted in models evaluated on the validation set per round and in
seconds. The tasks are those of :mod:`fedlib.experiments.contribution` (same seeds, workers,
data and training), observed through ``run_task``'s ``submit`` hook without changing them.

The experiment is registered as ``shapley`` (``python -m fedlib reproduce shapley``); the book
reads its paper-scale run from ``results/shapley_mnist.json``, which CI verifies by recomputing
the game of the first round of its first task (:func:`first_rounds`,
:mod:`fedlib.storage.verification`).
"""

from __future__ import annotations

import os
import time
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, fields, replace
from typing import Any, ClassVar

import numpy as np
import torch
from numpy.typing import ArrayLike

from fedlib.analysis.contribution_checks import kendall_tau, rank_correlation
from fedlib.checks import integer
from fedlib.experiments.contribution import (
    _TRAIN,
    CASES,
    ContributionConfig,
    _setup,
    _units,
)
from fedlib.experiments.registry import Records, register
from fedlib.fl.batched import Params, Stacked
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.models import preprocess
from fedlib.fl.seeding import seed_sequence, torch_threads
from fedlib.fl.task import run_task
from fedlib.mechanism.contribution import round_contributions
from fedlib.mechanism.shapley import coalition_members, exact_shapley, monte_carlo_shapley
from fedlib.runtime import parallel_map

#: The contribution measures compared with the exact Shapley value, in display order.
MEASURES = ("ours", "equal", "local", "loo", "monte_carlo")
UTILITIES = ("accuracy", "neg_loss")
#: Purpose of the Monte-Carlo random stream (after contribution's publisher, workers, training).
_MONTE_CARLO = 3


class ShapleyResult(Records):
    """Records of a run, one per (seed, case) in that order (see :func:`_unit`'s keys), with
    the run's configuration and compute time; rebuilt from a stored file by
    :meth:`~fedlib.experiments.registry.Records.from_stored`."""

    def case(self, case: int) -> list[dict[str, Any]]:
        """The records of one case."""
        chosen = [r for r in self.records if r["case"] == case]
        if not chosen:
            raise ValueError(f"case must be one of {CASES}, got {case!r}")
        return chosen

    def cost_table(self) -> dict[str, dict[str, float]]:
        """Per measure (and ``shapley``): mean models evaluated and seconds per round."""
        rounds = sum(len(r["v_empty"]) for r in self.records)
        return {name: {key: sum(r[key][name] for r in self.records) / rounds
                       for key in ("evaluations", "seconds")}
                for name in ("shapley", *MEASURES)}


@register
@dataclass(frozen=True)
class ShapleyConfig:
    """Everything that determines a Shapley ground-truth run.

    Attributes
    ----------
    contribution : ContributionConfig
        Dataset, seeds, sizes, task options, device and threads (default: the paper's scale,
        the book's seeds 0, 1 and 2, on the CPU).
    workers : int, default 10
        The first ``workers`` of each case's ten (2 to 16; 10 gives 1024 coalitions).
    utility : {"accuracy", "neg_loss"}, default "accuracy"
        Utility of a coalition: validation accuracy or negative validation cross-entropy.
    mc_permutations : int, default 10
        Orders sampled per round by the ``monte_carlo`` measure.
    curve_permutations : int, default 200
        Orders of the error-versus-evaluations curve (at least ``mc_permutations``; the
        measure is this run's estimate after its first ``mc_permutations`` orders).
    """

    contribution: ContributionConfig = field(
        default_factory=lambda: ContributionConfig(seeds=(0, 1, 2), device="cpu"))
    workers: int = 10
    utility: str = "accuracy"
    mc_permutations: int = 10
    curve_permutations: int = 200

    kind: ClassVar[str] = "shapley"
    result_type: ClassVar[type] = ShapleyResult

    def __post_init__(self) -> None:
        integer(self.workers, "workers", minimum=2, maximum=16)
        if self.utility not in UTILITIES:
            raise ValueError(f"utility must be one of {UTILITIES}, got {self.utility!r}")
        if not 1 <= self.mc_permutations <= self.curve_permutations:
            raise ValueError("need 1 <= mc_permutations <= curve_permutations, got "
                             f"{self.mc_permutations!r} and {self.curve_permutations!r}")

    @property
    def device(self) -> str:
        """The contribution run's device."""
        return self.contribution.device

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready configuration, tagged ``"experiment": "shapley"``: the contribution
        run's fields (dataset, seeds, sizes, task, device, threads) beside this one's."""
        own = {f.name: getattr(self, f.name) for f in fields(self) if f.name != "contribution"}
        return {**self.contribution.to_dict(), "experiment": self.kind, **own}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> ShapleyConfig:
        """Rebuild a configuration from :meth:`to_dict` output (a field it lacks reads as its
        default)."""
        own = {f.name for f in fields(cls)} - {"contribution"}
        return cls(ContributionConfig.from_dict({k: v for k, v in state.items() if k not in own}),
                   **{k: v for k, v in state.items() if k in own})

    def fast(self) -> ShapleyConfig:
        """A smoke-sized version: the contribution run's fast sizes (one seed, 2 rounds, 200
        samples, 500-sample sets), all of this configuration's workers."""
        return replace(self, contribution=self.contribution.fast())

    def result_name(self) -> str:
        """``shapley_<dataset>``, with ``_fast`` for the smoke-sized configuration."""
        return f"shapley_{self.contribution.dataset}" + ("_fast" if self == self.fast() else "")

    def run(self, *, jobs: int = 1, checkpoint_dir: str | os.PathLike[str] | None = None,
            task_store: str | os.PathLike[str] | None = None) -> ShapleyResult:
        """:func:`run_shapley_truth` in ``jobs`` processes (no checkpoints or task store)."""
        return run_shapley_truth(self, jobs=jobs)

    def recompute(self, n_tasks: int,
                  task_store: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
        """The first ``n_tasks`` records (tasks), on the CPU."""
        cpu = replace(self, contribution=replace(self.contribution, device="cpu"))
        return [_threaded_unit(cpu, case, seed)
                for seed, case in _units(cpu.contribution)[:n_tasks]]


#: Rank correlations by name.
CORRELATIONS: dict[str, Callable[[ArrayLike, ArrayLike], float]] = {
    "spearman": rank_correlation, "kendall": kendall_tau}


@dataclass(frozen=True, eq=False)
class RoundGame:
    """One round's game: the utility of every coalition and the cost of evaluating them.

    Attributes
    ----------
    table : numpy.ndarray
        (2**k,) utilities indexed by bitmask; ``table[0]`` is the round's starting global model.
    seconds : float
        Wall time of the evaluation (all coalitions, the empty one included).
    """

    table: np.ndarray
    seconds: float


def _utility(losses: torch.Tensor, accuracies: torch.Tensor, utility: str) -> np.ndarray:
    """Validation accuracy, or negative loss, as a float64 numpy array."""
    value = accuracies if utility == "accuracy" else -losses
    return value.double().cpu().numpy()


def _plain_averages(members: np.ndarray, engine: BatchedEngine) -> torch.Tensor:
    """Rows of 1/|S| on each coalition's members (non-empty coalitions)."""
    return torch.from_numpy(members / members.sum(1, keepdims=True)).to(engine.dtype)


def round_game(engine: BatchedEngine, global_params: Params, stacked: Stacked,
               images: torch.Tensor, labels: torch.Tensor,
               utility: str = "accuracy") -> RoundGame:
    """Utilities of all ``2**k`` coalitions of one round, evaluated in batches.

    Parameters
    ----------
    engine : BatchedEngine
    global_params : Params
        The global model the round started from (the empty coalition).
    stacked : Stacked
        The k local models of the round.
    images, labels
        Preprocessed validation images (m, 28, 28) and labels (m,).
    utility : {"accuracy", "neg_loss"}

    Returns
    -------
    RoundGame
    """
    if utility not in UTILITIES:
        raise ValueError(f"utility must be one of {UTILITIES}, got {utility!r}")
    k = len(next(iter(stacked.values())))
    began = time.perf_counter()
    loss, accuracy = engine.evaluate(global_params, images, labels)
    losses, accuracies = engine.evaluate_averages(
        stacked, _plain_averages(coalition_members(k)[1:], engine), images, labels)
    empty = accuracy if utility == "accuracy" else -loss
    table = np.concatenate([[empty], _utility(losses, accuracies, utility)])
    return RoundGame(table, time.perf_counter() - began)


def _timed(compute: Callable[[], np.ndarray]) -> tuple[np.ndarray, float]:
    began = time.perf_counter()
    value = compute()
    return value, time.perf_counter() - began


def round_measures(engine: BatchedEngine, global_params: Params, stacked: Stacked,
                   images: torch.Tensor, labels: torch.Tensor, config: ShapleyConfig,
                   rng: np.random.Generator) -> dict[str, Any]:
    """Exact Shapley values of one round and every measure, with their costs.

    Returns a dict with ``shapley`` and each of :data:`MEASURES` (k values each), ``v_empty``
    and ``v_full``, ``evaluations`` and ``seconds`` per measure (models evaluated on the
    validation set; wall time), and the Monte-Carlo curve ``mc_error`` (largest absolute error
    after each order) and ``mc_evaluations`` (distinct coalitions needed so far).
    ``monte_carlo`` reads its utilities from the exact table; its seconds are its evaluations
    times the exact computation's seconds per coalition.
    """
    k = len(next(iter(stacked.values())))
    game = round_game(engine, global_params, stacked, images, labels, config.utility)
    shapley, seconds = _timed(lambda: exact_shapley(game.table, k))
    probs, p_seconds = _timed(
        lambda: engine.true_class_probs(stacked, images, labels).double().cpu().numpy())
    full = (1 << k) - 1
    loo_masks = np.append(full ^ (1 << np.arange(k)), full)
    loo_rows = _plain_averages(coalition_members(k)[loo_masks], engine)

    def leave_one_out() -> np.ndarray:
        v = _utility(*engine.evaluate_averages(stacked, loo_rows, images, labels),
                     config.utility)
        return v[-1] - v[:-1]

    values, costs = {}, {}
    for name, compute in (
            ("ours", lambda: round_contributions(probs, weighted=True)),
            ("equal", lambda: round_contributions(probs, weighted=False)),
            ("local", lambda: _utility(*engine.evaluate_each(stacked, images, labels),
                                       config.utility)),
            ("loo", leave_one_out)):
        values[name], costs[name] = _timed(compute)
    costs["ours"] += p_seconds
    costs["equal"] += p_seconds
    mc = monte_carlo_shapley(game.table, k, config.curve_permutations, rng)
    budget = config.mc_permutations - 1
    values["monte_carlo"] = mc.running[budget]
    per_coalition = game.seconds / 2**k
    evaluations = {"shapley": 2**k, "ours": k, "equal": k, "local": k, "loo": k + 1,
                   "monte_carlo": int(mc.running_evaluations[budget])}
    costs["shapley"] = game.seconds + seconds
    costs["monte_carlo"] = evaluations["monte_carlo"] * per_coalition
    return {"shapley": shapley, **values, "v_empty": float(game.table[0]),
            "v_full": float(game.table[full]), "evaluations": evaluations, "seconds": costs,
            "mc_error": np.abs(mc.running - shapley).max(1),
            "mc_evaluations": mc.running_evaluations}


def _unit(config: ShapleyConfig, case: int, seed: int) -> dict[str, Any]:
    """One (case, seed) task of the contribution experiment, with every round's game solved."""
    engine, pool, publisher = _setup(config.contribution, case, seed)
    pool = pool.subset(np.arange(config.workers))
    val_x = preprocess(publisher.val_images, engine.device, engine.dtype)
    val_y = publisher.val_labels.to(engine.device)
    rounds: list[dict[str, Any]] = []

    def observe(stacked: Stacked, global_params: Params, t: int) -> Stacked:
        rng = np.random.default_rng(seed_sequence(seed, case, _MONTE_CARLO, t))
        rounds.append(round_measures(engine, global_params, stacked, val_x, val_y, config, rng))
        return stacked

    result = run_task(engine, pool, publisher, seed=seed_sequence(seed, case, _TRAIN),
                      options=config.contribution.task, submit=observe)
    per_round = {name: np.array([r[name] for r in rounds]) for name in ("shapley", *MEASURES)}
    return {
        "case": case, "seed": seed, "dacc": pool.dacc.tolist(), "utility": config.utility,
        "task": {name: values.mean(axis=0).tolist() for name, values in per_round.items()},
        "rounds": {name: values.tolist() for name, values in per_round.items()},
        "task_contribution": result.contribution.tolist(),
        "v_empty": [r["v_empty"] for r in rounds], "v_full": [r["v_full"] for r in rounds],
        "evaluations": {name: int(sum(r["evaluations"][name] for r in rounds))
                        for name in ("shapley", *MEASURES)},
        "seconds": {name: float(sum(r["seconds"][name] for r in rounds))
                    for name in ("shapley", *MEASURES)},
        "mc_error": [r["mc_error"].tolist() for r in rounds],
        "mc_evaluations": [r["mc_evaluations"].tolist() for r in rounds],
    }


#: Fields of a record that say which task it is.
TASK_FIELDS = ("case", "seed", "dacc", "utility")
#: Fields of a record with one entry per round (``rounds``: per measure); the others sum the
#: task up (means, evaluations, seconds, the task contribution).
ROUND_FIELDS = ("rounds", "v_empty", "v_full", "mc_error", "mc_evaluations")


def first_rounds(record: Mapping[str, Any], rounds: int) -> dict[str, Any]:
    """A record of :func:`_unit` cut to its task and its first ``rounds`` rounds: what a task of
    only ``rounds`` rounds records alike (a round's training, game and Monte-Carlo stream do
    not depend on the rounds after it), without the task's sums and means or wall times."""
    kept: dict[str, Any] = {key: record[key] for key in TASK_FIELDS}
    kept["rounds"] = {name: values[:rounds] for name, values in record["rounds"].items()}
    return {**kept, **{key: record[key][:rounds] for key in ROUND_FIELDS[1:]}}


def game_values(records: Iterable[Mapping[str, Any]],
                round_index: int | None = None) -> list[dict[str, np.ndarray]]:
    """Per record, the Shapley values and every measure of the task or of one round.

    Parameters
    ----------
    records : iterable of mapping
        Records of :func:`run_shapley_truth`.
    round_index : int, optional
        None: the task values (means over rounds); else that round's game.

    Returns
    -------
    list of dict
        Name (``"shapley"`` and :data:`MEASURES`) -> (workers,) array, one dict per record.
    """
    out = []
    for r in records:
        rounds = len(r["v_empty"])
        if round_index is not None and not 0 <= round_index < rounds:
            raise ValueError(f"round_index must lie in [0, {rounds}), got {round_index}")
        source = r["task"] if round_index is None else {
            name: r["rounds"][name][round_index] for name in ("shapley", *MEASURES)}
        out.append({name: np.asarray(source[name]) for name in ("shapley", *MEASURES)})
    return out


def correlations(records: Iterable[Mapping[str, Any]], method: str = "spearman",
                 level: str = "task") -> dict[str, np.ndarray]:
    """Rank correlation of every measure with the exact Shapley values.

    Parameters
    ----------
    records : iterable of mapping
        Records of :func:`run_shapley_truth` (e.g. of one case).
    method : {"spearman", "kendall"}
    level : {"task", "round"}
        Task values (one correlation per record) or round values (one per record and round).

    Returns
    -------
    dict
        Measure name -> 1-D array of correlations.
    """
    if level not in ("task", "round"):
        raise ValueError(f"level must be 'task' or 'round', got {level!r}")
    records = list(records)
    if level == "task":
        games = game_values(records)
    else:
        games = [g for r in records for t in range(len(r["v_empty"]))
                 for g in game_values([r], t)]
    return agreement(games, method)


def agreement(games: Iterable[Mapping[str, ArrayLike]],
              method: str = "spearman") -> dict[str, np.ndarray]:
    """Measure name -> rank correlation with ``"shapley"``, one per game of
    :func:`game_values`."""
    if method not in CORRELATIONS:
        raise ValueError(f"method must be one of {sorted(CORRELATIONS)}, got {method!r}")
    corr, games = CORRELATIONS[method], list(games)
    return {m: np.array([corr(g[m], g["shapley"]) for g in games]) for m in MEASURES}


def _threaded_unit(config: ShapleyConfig, case: int, seed: int) -> dict[str, Any]:
    """:func:`_unit` under ``config.contribution.threads`` torch threads (for a worker process)."""
    with torch_threads(config.contribution.threads):
        return _unit(config, case, seed)


def run_shapley_truth(config: ShapleyConfig | None = None, *, jobs: int = 1) -> ShapleyResult:
    """Run Cases 1 and 2 for every seed, solving every round's game exactly.

    Each (seed, case) unit runs under ``config.contribution.threads`` torch threads; every
    random stream derives from the seed, the case (and the round), so on a CPU a run is
    reproducible, and its records (but the ``seconds``) do not depend on ``jobs``.

    Parameters
    ----------
    config : ShapleyConfig, optional
        Default: the paper's Cases 1 and 2 at paper scale, the book's three seeds.
    jobs : int, default 1
        Units run in this many spawned processes.
    """
    config = config or ShapleyConfig()
    began = time.perf_counter()
    units = [(config, case, seed) for seed, case in _units(config.contribution)]
    records = tuple(parallel_map(_threaded_unit, units, jobs, desc="shapley"))
    return ShapleyResult(config, records, time.perf_counter() - began)
