"""The own-label variant (beyond the paper): every worker measured on the validation samples of
the labels it holds, its contribution (Eq. (3)) and its leave-one-out check alike."""

from __future__ import annotations

import numpy as np
import pytest
import torch

from fedlib.fl.engine import BatchedEngine, batch_orders
from fedlib.fl.models import NUM_CLASSES, preprocess
from fedlib.fl.seeding import torch_generator, torch_threads
from fedlib.fl.task import TaskOptions, publisher_tensors, run_task, score_round
from fedlib.fl.workers import WorkerPool, publisher_sets, skewed_workers
from fedlib.mechanism.contribution import round_contributions


@pytest.fixture(scope="module")
def setting(data_root):
    """Two clean workers with labels of Dirichlet(0.1) proportions, a clean and a pure-noise
    one with balanced labels, 300 samples each; one round of local training from one model."""
    rng = np.random.default_rng(3)
    publisher = publisher_sets("mnist", rng, n_val=400, n_test=300, root=data_root)
    pool = skewed_workers("mnist", [1.0, 1.0, 1.0, 0.1], [True, True, False, False], 0.1, rng,
                          n=300, root=data_root)
    engine = BatchedEngine("mlp", device="cpu")
    generator = torch_generator(0)
    with torch_threads(1):
        params = engine.init_params(generator)
        stacked = engine.train_local(params, preprocess(pool.images, engine.device, engine.dtype),
                                     pool.labels, batch_orders(4, 300, 1, generator), lr=0.05,
                                     batch_size=64, momentum=0.0)
    return engine, pool, publisher, params, stacked


def _pool(labels):
    labels = torch.tensor(labels)
    return WorkerPool("mnist", torch.zeros((*labels.shape, 28, 28), dtype=torch.uint8), labels,
                      labels, np.ones(len(labels)), np.zeros(labels.shape, dtype=np.int64))


def test_a_worker_owns_the_labels_of_at_least_the_share_of_its_samples():
    pool = _pool([[0, 0, 0, 1], [2, 2, 2, 2]])
    expected = np.zeros((2, NUM_CLASSES), dtype=bool)
    expected[0, [0, 1]] = expected[1, 2] = True
    assert np.array_equal(pool.owned_labels(0.25), expected)
    expected[0, 1] = False  # one sample of 4 is below 0.3
    assert np.array_equal(pool.owned_labels(0.3), expected)


def test_losses_by_label_add_up_to_the_leave_one_out_losses(setting):
    engine, _, publisher, _, stacked = setting
    (images, labels), _ = publisher_tensors(engine, publisher)
    probs, loss, loss_minus = engine.probs_and_loo_losses(stacked, images, labels)
    by_label_probs, sums = engine.probs_and_label_losses(stacked, images, labels)
    assert torch.equal(probs, by_label_probs) and sums.shape == (5, NUM_CLASSES)
    totals = sums.double().sum(1).numpy() / len(labels)
    assert totals == pytest.approx([*loss_minus.double().tolist(), loss], rel=1e-5)
    absent = np.setdiff1d(np.arange(NUM_CLASSES), labels.numpy())
    assert not sums[:, absent].any()


def test_the_check_and_contribution_are_those_on_the_workers_own_samples(setting):
    """Recomputed apart: each worker's validation samples, the average of all four models and
    the average without it evaluated on them (evaluate_averages), and Eq. (3) on them."""
    engine, pool, publisher, params, stacked = setting
    validation, test = publisher_tensors(engine, publisher)
    owned = pool.owned_labels(0.05)
    assert owned[:2].sum(1).max() < NUM_CLASSES and owned[2:].all()  # the skewed own fewer
    record, _ = score_round(engine, stacked, params, validation, test,
                            TaskOptions(own_labels=True), owned=owned)
    images, labels = validation
    for i in range(4):
        mine = torch.from_numpy(owned[i][labels.numpy()])
        weights = torch.full((2, 4), 1 / 4, dtype=engine.dtype)
        weights[1] = torch.tensor([0.0 if j == i else 1 / 3 for j in range(4)])
        losses, _ = engine.evaluate_averages(stacked, weights, images[mine], labels[mine])
        assert record.delta_l[i] == pytest.approx(float(losses[1] - losses[0]), abs=1e-5)
    P = engine.true_class_probs(stacked, images, labels).double().numpy()
    assert record.contrib == pytest.approx(round_contributions(P, own=owned[:, labels.numpy()]))
    assert record.loss_all == pytest.approx(engine.probs_and_loo_losses(
        stacked, images, labels)[1], rel=1e-6)


def test_owning_every_label_is_the_papers_measurement(setting):
    engine, _, publisher, params, stacked = setting
    validation, test = publisher_tensors(engine, publisher)
    paper, paper_params = score_round(engine, stacked, params, validation, test, TaskOptions())
    own, own_params = score_round(engine, stacked, params, validation, test,
                                  TaskOptions(own_labels=True),
                                  owned=np.ones((4, NUM_CLASSES), dtype=bool))
    assert np.array_equal(paper.passed, own.passed)
    assert own.delta_l == pytest.approx(paper.delta_l, abs=1e-6)
    assert own.contrib == pytest.approx(paper.contrib, rel=1e-9)
    for key, value in paper_params.items():
        assert torch.allclose(value, own_params[key], atol=1e-6)


def test_a_clean_skewed_worker_passes_the_check_on_its_own_labels(setting):
    """Five rounds: on every sample the check fails the first skewed clean worker in some
    rounds (margins of a few 1e-4 below 0, far above float noise); on their own labels both
    skewed clean workers pass every round, with margins larger in every round, and so a
    higher trust and re."""
    engine, pool, publisher, _, _ = setting
    with torch_threads(1):
        paper, own = (run_task(engine, pool, publisher, seed=1,
                               options=TaskOptions(rounds=5, own_labels=own_labels))
                      for own_labels in (False, True))
    skewed = slice(0, 2)
    assert paper.n_fail[0] > 0 and (own.n_fail[skewed] == 0).all()
    assert (own.round_values("margin")[:, skewed] > paper.round_values("margin")[:, skewed]).all()
    assert (own.re[skewed] >= paper.re[skewed]).all() and own.re[0] > paper.re[0]


@pytest.mark.parametrize("changes, match", [
    ({"own_labels": 1}, "own_labels must be True or False"),
    ({"label_share": 0}, r"label_share must lie in \(0, 0.1\]"),
    ({"label_share": 0.2}, "every worker must own a label"),
    ({"label_share": True}, "label_share"),
])
def test_bad_options_are_refused(changes, match):
    with pytest.raises(ValueError, match=match):
        TaskOptions(**changes)


def test_the_variant_needs_the_owned_labels_and_names_its_results(setting):
    engine, _, publisher, params, stacked = setting
    validation, test = publisher_tensors(engine, publisher)
    for owned in (None, np.ones((3, NUM_CLASSES), dtype=bool)):
        with pytest.raises(ValueError, match=r"own_labels needs owned, bool \(4, 10\)"):
            score_round(engine, stacked, params, validation, test,
                        TaskOptions(own_labels=True), owned=owned)
    assert TaskOptions().name_suffix == ""
    assert TaskOptions(own_labels=True).name_suffix == "_ownlabels"
    assert TaskOptions(own_labels=True, label_share=0.1).name_suffix == "_ownlabels0.1"
