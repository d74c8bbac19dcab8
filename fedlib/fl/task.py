"""One federated task: global rounds of training, contribution measurement, the quality check and
aggregation, then the task's contribution, trust and internal reputation.

Each global round ``t`` (Section 4 of the paper; the readings where it is silent are in
:data:`fedlib.paper.readings.READINGS`):

1. every submitting worker trains a local model from the global one (1 epoch of SGD);
2. ``P[i, j]``, worker ``i``'s probability of the true label of validation sample ``j``;
3. the leave-one-out check: ``delta_l = l_{-i} - l`` over plain-average aggregates, pass iff
   ``delta_l >= delta`` (a single submitted model passes);
4. round contributions (Eqs. (2)-(3), max-normalised) and the weights omega over the passing
   workers; the new global model is ``sum_i omega_i theta_i`` (the previous one if nobody
   passed);
5. the global model's loss and accuracy on the publisher's test set.

At the end of the task: contribution = mean of the round contributions, trust from the pass and
fail counts (Eq. (4) and the Gompertz curve), internal reputation ``re = contrib * trust``
(Eq. (5)). Payments and the reputation update (Eqs. (13), (16)) belong to the mechanism and the
multi-task experiment. Independent tasks of one publisher can run as one stack (:func:`run_tasks`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator, Sequence
from contextlib import contextmanager
from dataclasses import dataclass, field, fields
from typing import Any, Literal

import numpy as np
import torch

from fedlib.fl.batched import Params, Stacked
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.inputs import batch_orders
from fedlib.fl.models import preprocess
from fedlib.fl.workers import PublisherSets, WorkerPool
from fedlib.mechanism.contribution import contributions, round_contributions, task_contributions
from fedlib.mechanism.quality import DELTA, aggregation_weights, leave_one_out_pass
from fedlib.mechanism.reputation import THETA, gompertz_trust, internal_reputation

SeedLike = int | np.random.SeedSequence
#: The per-worker fields of :class:`TaskResult` that :meth:`TaskResult.to_dict` writes.
WORKER_FIELDS = ("contribution", "n_pass", "n_fail", "trust", "re", "local_acc")


def seed_sequence(seed: SeedLike, *key: int) -> np.random.SeedSequence:
    """The seed sequence of one purpose of an experiment, e.g. ``(TRAIN, task)``.

    ``SeedSequence(seed, spawn_key=key)`` depends only on the experiment seed and the key, not
    on what ran before, so a resumed run draws exactly what an uninterrupted one would.
    """
    if isinstance(seed, np.random.SeedSequence):
        return np.random.SeedSequence(seed.entropy, spawn_key=(*seed.spawn_key, *key))
    return np.random.SeedSequence(seed, spawn_key=key)


def torch_generator(seed: SeedLike) -> torch.Generator:
    """A CPU ``torch.Generator`` seeded from a seed (sequence) via 64 bits of its state."""
    state = seed_sequence(seed).generate_state(1, dtype=np.uint64)[0]
    return torch.Generator().manual_seed(int(state))


@contextmanager
def torch_threads(threads: int) -> Iterator[None]:
    """Run a block under ``torch.set_num_threads(threads)``, restoring the old count after.

    A fixed thread count makes CPU results reproducible bit for bit across machines and runs.
    """
    if isinstance(threads, bool) or not isinstance(threads, int) or threads < 1:
        raise ValueError(f"threads must be a positive integer, got {threads!r}")
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)


@dataclass(frozen=True)
class TaskOptions:
    """How a federated task is trained and scored (the paper's values are the defaults).

    Attributes
    ----------
    rounds : int, default 10
        Global rounds (iterations) of the task.
    epochs, lr, batch_size : default 1, 0.05, 128
        Local training: epochs of SGD per round, learning rate, mini-batch size (the paper's
        Section 6).
    momentum : float, default 0.0
        SGD momentum of local training, in [0, 1). The paper names no optimizer; our reading
        is plain SGD (0).
    delta : float, default -0.005
        Threshold of the leave-one-out check.
    s0 : float, default 1.0
        Smoothing constant of the quality score.
    weighted : bool, default True
        Contributions with the sample weights of Eq. (2) (False: equal weights).
    denominator : {"corrected", "printed"}, default "corrected"
        Reading of omega's denominator (see :func:`~fedlib.mechanism.aggregation_weights`).
    theta : float, default 0.4
        Weight of passes in the trust input, Eq. (4) (the paper asks for (0, 0.5) and sets
        0.4).
    """

    rounds: int = 10
    epochs: int = 1
    lr: float = 0.05
    batch_size: int = 128
    momentum: float = 0.0
    delta: float = DELTA
    s0: float = 1.0
    weighted: bool = True
    denominator: Literal["corrected", "printed"] = "corrected"
    theta: float = THETA

    def __post_init__(self) -> None:
        for name in ("rounds", "epochs", "batch_size"):
            value = getattr(self, name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 1:
                raise ValueError(f"{name} must be a positive integer, got {value!r}")
        if not self.lr > 0:
            raise ValueError(f"lr must be positive, got {self.lr!r}")
        if not 0 <= self.momentum < 1:
            raise ValueError(f"momentum must lie in [0, 1), got {self.momentum!r}")
        if self.denominator not in ("corrected", "printed"):
            raise ValueError(f"denominator must be 'corrected' or 'printed', got "
                             f"{self.denominator!r}")
        if not 0 < self.theta < 1:
            raise ValueError(f"theta must lie in (0, 1), got {self.theta!r}")
        if not np.isfinite(self.delta):
            raise ValueError(f"delta must be a finite number, got {self.delta!r}")


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


def local_accuracies(engine: BatchedEngine, stacked: Stacked, images: torch.Tensor,
                     labels: torch.Tensor) -> np.ndarray:
    """Accuracy of each of the k stacked local models on preprocessed images and labels."""
    k = len(next(iter(stacked.values())))
    return np.array([engine.evaluate({key: value[i] for key, value in stacked.items()},
                                     images, labels)[1] for i in range(k)])


Sample = tuple[torch.Tensor, torch.Tensor]


def publisher_tensors(engine: BatchedEngine, publisher: PublisherSets) -> tuple[Sample, Sample]:
    """The publisher's validation and test sets, preprocessed on the engine's device."""
    return ((preprocess(publisher.val_images, engine.device, engine.dtype),
             publisher.val_labels.to(engine.device)),
            (preprocess(publisher.test_images, engine.device, engine.dtype),
             publisher.test_labels.to(engine.device)))


def _together(stacks: Sequence[Stacked]) -> Stacked:
    """Stacked models of several tasks as one stack (the one stack itself, uncopied)."""
    if len(stacks) == 1:
        return stacks[0]
    return {key: torch.cat([models[key] for models in stacks]) for key in stacks[0]}


def score_rounds(engine: BatchedEngine, stacks: Sequence[Stacked], params: Sequence[Params],
                 validation: Sample, test: Sample, options: TaskOptions,
                 local_accuracy: bool = False) -> tuple[list[RoundRecord], list[Params]]:
    """Steps 2-5 of a global round of independent tasks, the submitted models of task g in
    ``stacks[g]`` and its global model in ``params[g]``, evaluated together.

    For each task: the true-label probabilities ``P`` and the leave-one-out losses on
    ``validation``, the check (pass iff ``l_{-i} - l >= delta``), the round contributions
    (Eq. (3), max-normalised), the weights omega and the aggregate ``sum_i omega_i theta_i``
    (its ``params`` kept when nobody passed), then the new global model's loss and accuracy on
    ``test``.

    Returns
    -------
    (list of RoundRecord, list of Params)
        Each task's round and new global model.
    """
    sizes = [len(next(iter(models.values()))) for models in stacks]
    evaluated = engine.probs_and_loo_losses_by_group(_together(stacks), sizes, *validation)
    decided, new_params = [], []
    for (probs, loss_all, loss_minus), models, old in zip(evaluated, stacks, params,
                                                          strict=True):
        P = probs.double().cpu().numpy()
        delta_l = (loss_minus.double().cpu().numpy() - loss_all) if len(P) > 1 else np.zeros(1)
        passed = leave_one_out_pass(delta_l, options.delta)
        contrib = round_contributions(P, options.weighted)
        omega = aggregation_weights(contrib, delta_l, passed, options.s0, options.denominator)
        new_params.append(engine.aggregate(models, torch.from_numpy(omega)) if passed.any()
                          else old)
        decided.append((loss_all, delta_l, passed, contrib, contributions(P, weighted=False),
                        omega))
    test_losses, test_accuracies = engine.evaluate_each(
        {key: torch.stack([model[key] for model in new_params]) for key in new_params[0]},
        *test)
    records = []
    for g, (loss_all, delta_l, passed, contrib, equal, omega) in enumerate(decided):
        local = local_accuracies(engine, stacks[g], *test) if local_accuracy else None
        records.append(RoundRecord(loss_all, delta_l, passed, delta_l - options.delta, contrib,
                                   equal, omega, float(test_losses[g]),
                                   float(test_accuracies[g]), local))
    return records, new_params


def score_round(engine: BatchedEngine, stacked: Stacked, params: Params, validation: Sample,
                test: Sample, options: TaskOptions,
                local_accuracy: bool = False) -> tuple[RoundRecord, Params]:
    """:func:`score_rounds` of one task: its round record and new global model."""
    records, new_params = score_rounds(engine, [stacked], [params], validation, test, options,
                                       local_accuracy)
    return records[0], new_params[0]


def finish_task(records: Sequence[RoundRecord], options: TaskOptions,
                final_params: Params) -> TaskResult:
    """A task's outcome from its rounds: contribution (the mean of the round contributions),
    the pass and fail counts, trust (Eq. (4) and the Gompertz curve) and ``re`` (Eq. (5))."""
    n_pass = np.sum([r.passed for r in records], axis=0)
    n_fail = len(records) - n_pass
    contribution = task_contributions(np.array([r.contrib for r in records]))
    trust = np.asarray(gompertz_trust(n_pass, n_fail, options.theta), dtype=float)
    re = np.asarray(internal_reputation(contribution, trust), dtype=float)
    local = [r.local_acc for r in records]
    local_mean = None if local[0] is None else np.mean(local, axis=0)
    return TaskResult(tuple(records), contribution, n_pass, n_fail, trust, re, local_mean,
                      final_params)


Submit = Callable[[Stacked, Params, int], Stacked]


@dataclass(frozen=True, eq=False)
class TaskInputs:
    """What one task of :func:`run_tasks` is run from (the arguments of :func:`run_task`)."""

    workers: WorkerPool
    seed: SeedLike
    initial_params: Params | None = None
    submit: Submit | None = None


def run_task(engine: BatchedEngine, workers: WorkerPool, publisher: PublisherSets, *,
             seed: SeedLike, options: TaskOptions | None = None,
             initial_params: Params | None = None, local_accuracy: bool = False,
             submit: Submit | None = None) -> TaskResult:
    """Run one federated task with the given (selected) workers.

    Parameters
    ----------
    engine : BatchedEngine
        Trains and evaluates the local models of a round together.
    workers : WorkerPool
        The workers that take part (the auction's winners), each submitting a model every round.
    publisher : PublisherSets
        Validation set (P, Eqs. (2)-(3), and the leave-one-out check) and test set.
    seed : int or numpy.random.SeedSequence
        Seeds the initial model (when ``initial_params`` is None) and every batch order.
    options : TaskOptions, optional
        Rounds, local training and the mechanism's constants (default: the paper's).
    initial_params : Params, optional
        The starting global model; None draws a fresh one from ``seed``.
    local_accuracy : bool, default False
        Also measure each local model's test accuracy every round (k extra evaluations).
    submit : callable, optional
        ``submit(local_models, global_params, round)`` returns the models the workers hand in
        (stacked like the input), e.g. with some rows replaced by attackers' models
        (:func:`fedlib.fl.attacks.model_submitter`); None: the trained local models.

    Returns
    -------
    TaskResult

    Raises
    ------
    ValueError
        If ``workers`` is empty (k = 0) or the datasets of workers and publisher differ.
    """
    return run_tasks(engine, [TaskInputs(workers, seed, initial_params, submit)], publisher,
                     options=options, local_accuracy=local_accuracy)[0]


def _joined(tensors: list[torch.Tensor]) -> torch.Tensor:
    """The tasks' tensors concatenated along the workers (one task's as it is, not copied)."""
    return tensors[0] if len(tensors) == 1 else torch.cat(tensors)


def run_tasks(engine: BatchedEngine, tasks: Sequence[TaskInputs], publisher: PublisherSets, *,
              options: TaskOptions | None = None,
              local_accuracy: bool = False) -> list[TaskResult]:
    """Run independent tasks of one publisher as one stack: each round trains all their
    workers in one engine call and evaluates all their models in another.

    Every task draws its initial model and batch orders from its own seed and is scored on its
    own models, so its result is that of :func:`run_task` with its inputs, up to the rounding
    of the larger kernels (a stack changes the blocking and the kernels the device picks; the
    same stack on the same machine gives the same numbers bit for bit). On a GPU, fewer and
    larger calls are faster; on a CPU they are about as fast (``benchmarks/stacked_tasks.py``).

    Parameters
    ----------
    engine, publisher, options, local_accuracy
        As for :func:`run_task`.
    tasks : sequence of TaskInputs
        Each task's workers, seed, initial model and submit hook; all workers hold the same
        number of samples.

    Returns
    -------
    list of TaskResult
        One per task, in order.

    Raises
    ------
    ValueError
        If there is no task, a task has no worker, its workers come from another dataset than
        the publisher's, or the tasks' workers hold different numbers of samples.
    """
    options = options or TaskOptions()
    if not tasks:
        raise ValueError("tasks must hold at least one task")
    sizes = [len(task.workers) for task in tasks]
    if min(sizes) == 0:
        raise ValueError("workers must hold at least one worker (k >= 1), got k = 0")
    for task in tasks:
        if task.workers.dataset != publisher.dataset:
            raise ValueError(f"workers ({task.workers.dataset!r}) and publisher "
                             f"({publisher.dataset!r}) must come from the same dataset")
    if len({task.workers.images.shape[1] for task in tasks}) > 1:
        raise ValueError("the workers of all tasks must hold the same number of samples")
    generators = [torch_generator(task.seed) for task in tasks]
    params = [engine.init_params(generator) if task.initial_params is None
              else task.initial_params for task, generator in zip(tasks, generators, strict=True)]
    x = preprocess(_joined([task.workers.images for task in tasks]), engine.device, engine.dtype)
    y = _joined([task.workers.labels for task in tasks]).to(engine.device)
    bounds = np.cumsum([0, *sizes])
    validation, test = publisher_tensors(engine, publisher)
    records: list[list[RoundRecord]] = [[] for _ in tasks]
    for t in range(options.rounds):
        orders = torch.cat([batch_orders(k, x.shape[1], options.epochs, generator)
                            for k, generator in zip(sizes, generators, strict=True)])
        starts = params[0] if len(tasks) == 1 else {
            key: torch.cat([model[key].expand(k, *model[key].shape)
                            for model, k in zip(params, sizes, strict=True)]) for key in params[0]}
        trained = engine.train_local(starts, x, y, orders, lr=options.lr,
                                     batch_size=options.batch_size, momentum=options.momentum)
        stacks = []
        for g, task in enumerate(tasks):
            models = {key: value[bounds[g]:bounds[g + 1]] for key, value in trained.items()}
            stacks.append(models if task.submit is None else task.submit(models, params[g], t))
        round_records, params = score_rounds(engine, stacks, params, validation, test, options,
                                             local_accuracy)
        for task_records, record in zip(records, round_records, strict=True):
            task_records.append(record)
    return [finish_task(task_records, options, final)
            for task_records, final in zip(records, params, strict=True)]
