"""Short federated runs whose one round a chapter looks at closely.

:func:`warm_round` trains a few rounds and one more round of local models, and shows that round
through Eqs. (2)-(3) (the contribution chapter, Figures 2-3 on real models);
:func:`quality_example` runs a short task and returns its last round's leave-one-out check and
aggregation weights, under both readings of the printed weight (the reputation chapter). The
statistics and formulas they feed are numpy-only (:mod:`fedlib.analysis`,
:mod:`fedlib.mechanism`); these two train.
"""

from __future__ import annotations

import functools
import time
from dataclasses import dataclass

import numpy as np
from numpy.typing import ArrayLike

from fedlib.fl.engine import BatchedEngine, batch_orders
from fedlib.fl.models import MODEL_FOR_DATASET, preprocess
from fedlib.fl.seeding import seed_sequence, torch_generator, torch_threads
from fedlib.fl.task import TaskOptions, local_accuracies, run_task
from fedlib.fl.workers import case2_workers, iid_workers, publisher_sets
from fedlib.mechanism.contribution import contributions, sample_weights
from fedlib.mechanism.quality import aggregation_weights, quality_scores


@dataclass(frozen=True, eq=False)
class RoundView:
    """One round of real local models seen by Eqs. (2)-(3) (see :func:`warm_round`).

    Attributes
    ----------
    dataset : str
    case : int
    dacc : numpy.ndarray
        Data accuracy of each worker.
    P : numpy.ndarray, shape (workers, n_val)
    val_labels : numpy.ndarray
    weights, weighted, equal, local_acc : numpy.ndarray
        Eq. (2) weights; Eq. (3) contributions with and without them; local test accuracies.
    warmup : int
        Federated rounds run before the measured one.
    seconds : float
        Wall time of the computation (a cached result keeps the time of its first run).
    """

    dataset: str
    case: int
    dacc: np.ndarray
    P: np.ndarray
    val_labels: np.ndarray
    weights: np.ndarray
    weighted: np.ndarray
    equal: np.ndarray
    local_acc: np.ndarray
    warmup: int
    seconds: float


@functools.lru_cache(maxsize=32)
def warm_round(dataset: str, case: int, daccs: tuple[float, ...], warmup: int = 5,
               n_samples: int = 1000, n_val: int = 1000, n_test: int = 1000, seed: int = 0,
               threads: int = 1) -> RoundView:
    """Local models of real workers after ``warmup`` federated rounds, seen by Eqs. (2)-(3).

    Case 1: iid workers. Case 2: clean workers of the non-iid split (worker 0 has every label,
    worker k lacks label k). The workers first run ``warmup`` rounds of the federated task
    (aggregating with omega, as in the pipeline), then train one more round of local models
    from the global one; those models give ``P``. Reproducible on a CPU; results are cached
    per argument tuple.

    Parameters
    ----------
    dataset : {"mnist", "fashion"}
        With the paper's model for it.
    case : {1, 2}
    daccs : tuple of float
        Data accuracies (Case 1) or just one entry per worker (Case 2).
    warmup : int, default 5
        Federated rounds before the measured one (0: the models start from random weights).
    n_samples, n_val, n_test : int
        Samples per worker, validation and test set sizes.
    seed : int
        Seeds the data, the initial model and the batch orders.
    threads : int, default 1
        torch threads of the computation.

    Returns
    -------
    RoundView
    """
    if case not in (1, 2):
        raise ValueError(f"case must be 1 or 2, got {case!r}")
    began = time.perf_counter()
    with torch_threads(threads):
        rng = np.random.default_rng(seed_sequence(seed, 0))
        publisher = publisher_sets(dataset, rng, n_val=n_val, n_test=n_test)
        if case == 1:
            pool = iid_workers(dataset, list(daccs), rng, n=n_samples)
        else:
            pool = case2_workers(dataset, rng, n=n_samples).subset(np.arange(len(daccs)))
        engine = BatchedEngine(MODEL_FOR_DATASET[dataset], device="cpu")
        generator = torch_generator(seed_sequence(seed, 1))
        params = engine.init_params(generator)
        if warmup > 0:
            params = run_task(engine, pool, publisher, seed=seed_sequence(seed, 2),
                              initial_params=params,
                              options=TaskOptions(rounds=warmup)).final_params
        x = preprocess(pool.images, engine.device, engine.dtype)
        orders = batch_orders(len(pool), x.shape[1], 1, generator)
        stacked = engine.train_local(params, x, pool.labels, orders)
        val_x = preprocess(publisher.val_images, engine.device, engine.dtype)
        P = engine.true_class_probs(stacked, val_x, publisher.val_labels).double().cpu().numpy()
        test_x = preprocess(publisher.test_images, engine.device, engine.dtype)
        local = local_accuracies(engine, stacked, test_x, publisher.test_labels)
    return RoundView(dataset, case, pool.dacc.copy(), P, publisher.val_labels.numpy(),
                     sample_weights(P), contributions(P), contributions(P, weighted=False),
                     local, warmup, time.perf_counter() - began)


@dataclass(frozen=True, eq=False)
class QualityExample:
    """One global round on real local models: the quality check and the aggregation weights.

    Attributes
    ----------
    dacc : numpy.ndarray
        Data accuracy of each worker.
    round : int
        Which round of the task is shown (0-based).
    loss_all : float
        Validation loss ``l`` of the plain average of all local models.
    delta_l : numpy.ndarray
        ``l_{-i} - l``.
    passed : numpy.ndarray of bool
        ``delta_l >= delta``.
    contrib : numpy.ndarray
        Round contributions (Eqs. (2)-(3), max-normalised).
    quality : numpy.ndarray
        Quality scores (0 for failing workers).
    omega : numpy.ndarray
        Aggregation weights, corrected denominator (fedlib's default).
    omega_printed : numpy.ndarray
        Aggregation weights with the denominator as printed (the quality score cancels).
    """

    dacc: np.ndarray
    round: int
    loss_all: float
    delta_l: np.ndarray
    passed: np.ndarray
    contrib: np.ndarray
    quality: np.ndarray
    omega: np.ndarray
    omega_printed: np.ndarray


def quality_example(daccs: ArrayLike = (1.0, 1.0, 0.9, 0.7, 0.4, 0.1), dataset: str = "mnist",
                    rounds: int = 3, seed: int = 0, n: int = 1000, n_val: int = 5000,
                    n_test: int = 1000, device: str = "cpu") -> QualityExample:
    """Run a short federated task and return its last round's quality check and weights.

    Parameters
    ----------
    daccs : array_like
        Data accuracy of each (iid) worker.
    dataset : {"mnist", "fashion"}
        With the paper's model for it (MLP, LeNet-5).
    rounds : int, default 3
        Global rounds; the last one is returned (later rounds start from a trained model).
    seed : int
        Seeds data, initial model and batch orders.
    n, n_val, n_test : int
        Samples per worker, validation and test set sizes.
    device : str, default "cpu"

    Returns
    -------
    QualityExample
    """
    rng = np.random.default_rng(seed)
    publisher = publisher_sets(dataset, rng, n_val=n_val, n_test=n_test)
    workers = iid_workers(dataset, list(np.asarray(daccs, dtype=float)), rng, n=n)
    engine = BatchedEngine(MODEL_FOR_DATASET[dataset], device=device)
    result = run_task(engine, workers, publisher, seed=seed, options=TaskOptions(rounds=rounds))
    last = result.rounds[-1]
    return QualityExample(
        workers.dacc.copy(), rounds - 1, float(last.loss_all), last.delta_l, last.passed,
        last.contrib, quality_scores(last.delta_l, last.passed), last.omega,
        aggregation_weights(last.contrib, last.delta_l, last.passed, denominator="printed"))
