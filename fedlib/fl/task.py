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
multi-task experiment. What a task records is in :mod:`fedlib.fl.records`; its random streams
come from :mod:`fedlib.fl.seeding`.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import asdict, dataclass
from typing import Literal

import numpy as np
import torch

from fedlib.checks import integer
from fedlib.fl.batched import Params, Stacked
from fedlib.fl.engine import BatchedEngine, batch_orders
from fedlib.fl.inputs import sgd_settings
from fedlib.fl.models import NUM_CLASSES, preprocess
from fedlib.fl.records import RoundRecord, TaskResult
from fedlib.fl.seeding import SeedLike, torch_generator
from fedlib.fl.workers import PublisherSets, WorkerPool
from fedlib.mechanism.contribution import contributions, round_contributions, task_contributions
from fedlib.mechanism.quality import DELTA, aggregation_weights, leave_one_out_pass
from fedlib.mechanism.reputation import THETA, gompertz_trust, internal_reputation

#: Default of :attr:`TaskOptions.label_share`: half a balanced worker's share of each of 10
#: labels.
LABEL_SHARE = 0.05


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
    own_labels : bool, default False
        A variant beyond the paper, for workers with label-skewed data: measure each worker on
        the validation samples of its own labels only, both its contribution
        (:func:`~fedlib.mechanism.own_label_contributions`, Eq. (3) with Eq. (2)'s weights)
        and its leave-one-out check (the losses of the aggregates with and without it on
        those samples). False: the paper's measurement on every sample.
    label_share : float, default 0.05
        With ``own_labels``: a label is a worker's own when at least this share of its
        training samples carry it (the labels it trains on, noisy ones included; a share,
        not a count, so that a Dirichlet draw's stray few samples of a class do not count).
        In (0, 0.1], so that every worker of 10 classes owns at least one label; the default
        is half a balanced worker's share of every label.
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
    own_labels: bool = False
    label_share: float = LABEL_SHARE

    def __post_init__(self) -> None:
        integer(self.rounds, "rounds")
        integer(self.epochs, "epochs")
        sgd_settings(self.lr, self.batch_size, self.momentum)
        if self.denominator not in ("corrected", "printed"):
            raise ValueError(f"denominator must be 'corrected' or 'printed', got "
                             f"{self.denominator!r}")
        if not 0 < self.theta < 1:
            raise ValueError(f"theta must lie in (0, 1), got {self.theta!r}")
        if not np.isfinite(self.delta):
            raise ValueError(f"delta must be a finite number, got {self.delta!r}")
        if not isinstance(self.own_labels, bool):
            raise ValueError(f"own_labels must be True or False, got {self.own_labels!r}")
        if (isinstance(self.label_share, bool) or not isinstance(self.label_share, int | float)
                or not 0 < self.label_share <= 1 / NUM_CLASSES):
            raise ValueError(f"label_share must lie in (0, {1 / NUM_CLASSES:g}] (every worker "
                             f"must own a label), got {self.label_share!r}")

    def to_dict(self) -> dict[str, object]:
        """JSON-ready options; ``own_labels`` and ``label_share`` only when they are not their
        defaults (so that a configuration of the paper's measurement reads as it did before
        the variant existed)."""
        out = asdict(self)
        if not self.own_labels:
            del out["own_labels"]
        if self.label_share == LABEL_SHARE:
            del out["label_share"]
        return out

    @property
    def name_suffix(self) -> str:
        """What a stored result's name adds for these options: ``_ownlabels`` (with the share
        when it is not the default's) for the own-label variant, else nothing."""
        if not self.own_labels:
            return ""
        return "_ownlabels" + ("" if self.label_share == LABEL_SHARE else f"{self.label_share:g}")


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


def _own_label_scores(engine: BatchedEngine, stacked: Stacked, validation: Sample,
                      owned: np.ndarray) -> tuple[np.ndarray, float, np.ndarray, np.ndarray]:
    """P, the aggregate's loss on every sample, the check's loss changes on each worker's own
    labels (``owned``, bool (k, 10)) and the samples each is measured on (bool (k, m))."""
    probs, sums = engine.probs_and_label_losses(stacked, *validation)
    labels = validation[1].cpu().numpy()
    counts = np.bincount(labels, minlength=NUM_CLASSES)
    sums = sums.double().cpu().numpy()
    own_counts = owned @ counts
    if (own_counts == 0).any():
        raise ValueError("a worker owns no label present in the validation set")
    own_loss = (owned * sums[-1]).sum(axis=1) / own_counts
    own_minus = (owned * sums[:-1]).sum(axis=1) / own_counts
    delta_l = own_minus - own_loss if len(owned) > 1 else np.zeros(1)
    return (probs.double().cpu().numpy(), float(sums[-1].sum() / len(labels)), delta_l,
            owned[:, labels])


def score_round(engine: BatchedEngine, stacked: Stacked, params: Params, validation: Sample,
                test: Sample, options: TaskOptions, local_accuracy: bool = False,
                owned: np.ndarray | None = None) -> tuple[RoundRecord, Params]:
    """Steps 2-5 of a global round on the k submitted models ``stacked``.

    The true-label probabilities ``P`` and the leave-one-out losses on ``validation``, the check
    (pass iff ``l_{-i} - l >= delta``), the round contributions (Eq. (3), max-normalised), the
    weights omega and the aggregate ``sum_i omega_i theta_i`` (``params`` kept when nobody
    passed), then the new global model's loss and accuracy on ``test``. With
    ``options.own_labels`` the check and the contribution of worker i are measured on the
    validation samples of the labels ``owned[i]`` marks (bool (k, 10), from
    :meth:`~fedlib.fl.workers.WorkerPool.owned_labels`); the record's ``loss_all`` stays the
    aggregate's loss on every sample.

    Returns
    -------
    (RoundRecord, Params)
        The round and the new global model.
    """
    k = len(next(iter(stacked.values())))
    if options.own_labels:
        if owned is None or np.shape(owned) != (k, NUM_CLASSES):
            raise ValueError(f"own_labels needs owned, bool ({k}, {NUM_CLASSES}): the labels "
                             f"each submitting worker owns")
        P, loss_all, delta_l, own = _own_label_scores(engine, stacked, validation,
                                                      np.asarray(owned, dtype=bool))
    else:
        probs, loss_all, loss_minus = engine.probs_and_loo_losses(stacked, *validation)
        P, own = probs.double().cpu().numpy(), None
        delta_l = (loss_minus.double().cpu().numpy() - loss_all) if k > 1 else np.zeros(1)
    passed = leave_one_out_pass(delta_l, options.delta)
    contrib = round_contributions(P, options.weighted, own)
    omega = aggregation_weights(contrib, delta_l, passed, options.s0, options.denominator)
    if passed.any():
        params = engine.aggregate(stacked, torch.from_numpy(omega))
    test_loss, test_acc = engine.evaluate(params, *test)
    local = local_accuracies(engine, stacked, *test) if local_accuracy else None
    return RoundRecord(loss_all, delta_l, passed, delta_l - options.delta, contrib,
                       contributions(P, weighted=False), omega, test_loss, test_acc,
                       local), params


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


#: ``submit(local_models, global_params, round)``: the models the workers hand in this round.
Submit = Callable[[Stacked, Params, int], Stacked]


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
    """
    options = options or TaskOptions()
    k = len(workers)
    if k == 0:
        raise ValueError("workers must hold at least one worker (k >= 1), got k = 0")
    if workers.dataset != publisher.dataset:
        raise ValueError(f"workers ({workers.dataset!r}) and publisher ({publisher.dataset!r}) "
                         "must come from the same dataset")
    generator = torch_generator(seed)
    params = engine.init_params(generator) if initial_params is None else initial_params
    x = preprocess(workers.images, engine.device, engine.dtype)
    y = workers.labels.to(engine.device)
    validation, test = publisher_tensors(engine, publisher)
    owned = workers.owned_labels(options.label_share) if options.own_labels else None
    records = []
    for t in range(options.rounds):
        orders = batch_orders(k, x.shape[1], options.epochs, generator)
        stacked = engine.train_local(params, x, y, orders, lr=options.lr,
                                     batch_size=options.batch_size, momentum=options.momentum)
        if submit is not None:
            stacked = submit(stacked, params, t)
        record, params = score_round(engine, stacked, params, validation, test, options,
                                     local_accuracy, owned)
        records.append(record)
    return finish_task(records, options, params)
