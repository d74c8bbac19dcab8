"""The workers' data through Flower Datasets (fedlib.flower.worker_data): the partitioner
serves the worker pool of the batched engine index by index, fedlib's per-class Dirichlet draw
is Flower Datasets' ``DirichletPartitioner``, and bad input is refused with a clear message."""

from __future__ import annotations

import subprocess
import sys
import warnings

import numpy as np
import pytest

pytest.importorskip("flwr", reason="the Flower tests need the flower extra: "
                    "pip install -r requirements-flower.txt")
pytest.importorskip("flwr_datasets", reason="the Flower tests need the flower extra: "
                    "pip install -r requirements-flower.txt")

from datasets import Dataset
from flwr.app import Context, RecordDict
from flwr_datasets.partitioner import DirichletPartitioner

import fedlib.flower
from fedlib.experiments.flower_presets import federation_config
from fedlib.experiments.multitask import worker_pool
from fedlib.fl.data import DataError
from fedlib.fl.models import preprocess
from fedlib.fl.partitions import per_class_partition
from fedlib.flower import client
from fedlib.flower.worker_data import (
    WorkerPoolPartitioner,
    label_skew_partitioner,
    pool_dataset,
    worker_partition,
)

#: The smoke-sized federation: 6 workers in three noise groups.
CONFIG = federation_config(fast=True)
#: Five of the ten classes, in random order: Flower draws for the classes present, sorted.
LABELS = np.random.default_rng(123).choice([9, 0, 3, 5, 2], size=600)


def _flowers(partitions, alpha, seed, minimum, shuffle):
    """Flower Datasets' per-class Dirichlet partitioner over :data:`LABELS` (and positions)."""
    flower = DirichletPartitioner(num_partitions=partitions, partition_by="label", alpha=alpha,
                                  min_partition_size=minimum, self_balancing=False,
                                  shuffle=shuffle, seed=seed)
    flower.dataset = Dataset.from_dict({"label": LABELS, "index": np.arange(LABELS.size)})
    return flower


@pytest.fixture(scope="module")
def pool(data_root):
    return worker_pool(CONFIG)


@pytest.fixture(scope="module")
def partitioner(pool):
    return WorkerPoolPartitioner.from_config(CONFIG)


def test_each_partition_is_its_workers_row_of_the_pool_index_by_index(pool, partitioner):
    assert partitioner.num_partitions == len(pool) == 6
    for worker in range(len(pool)):
        rows = partitioner.load_partition(worker).with_format("numpy")[:]
        np.testing.assert_array_equal(rows["image"], pool.images[worker].numpy())
        np.testing.assert_array_equal(rows["label"], pool.labels[worker].numpy())
        np.testing.assert_array_equal(rows["index"], pool.indices[worker])
        assert (rows["worker"] == worker).all()
        images, labels = worker_partition(CONFIG, worker)
        assert images.dtype == np.uint8 and labels.dtype == np.int64
        np.testing.assert_array_equal(images, pool.images[worker].numpy())
        np.testing.assert_array_equal(labels, pool.labels[worker].numpy())


def test_the_flower_worker_trains_on_its_partition(pool):
    """The ClientApp's data (fedlib.flower.client) come through the partitioner."""
    context = Context(run_id=1, node_id=1, node_config={"partition-id": 4}, state=RecordDict(),
                      run_config={})
    images, labels = client._data(context, CONFIG, 4)
    np.testing.assert_array_equal(labels.numpy(), pool.labels[4].numpy())
    np.testing.assert_array_equal(images.numpy(), preprocess(pool.images[4]).numpy())


@pytest.mark.parametrize("partitions, alpha, seed, minimum, shuffle", [
    (5, 0.3, 0, 10, True),
    (10, 1.0, 7, 10, False),
    (8, 0.1, 1, 5, True),  # three draws refused for a partition under 5 samples
    (20, 0.5, 0, 12, True),  # seven refused
    (4, 2, 42, 0, True),
])
def test_per_class_partition_is_flowers_dirichlet_partitioner(partitions, alpha, seed, minimum,
                                                              shuffle):
    flower = _flowers(partitions, alpha, seed, minimum, shuffle)
    with warnings.catch_warnings():
        warnings.filterwarnings("ignore", "The specified min_partition_size")
        theirs = [flower.load_partition(i)["index"][:] for i in range(partitions)]
    ours = per_class_partition(LABELS, partitions, alpha, np.random.default_rng(seed),
                               min_partition_size=minimum, shuffle=shuffle)
    assert len(ours) == partitions
    for mine, flowers in zip(ours, theirs, strict=True):
        assert mine.tolist() == list(flowers)


def test_both_give_up_after_the_same_eleven_draws():
    flower = _flowers(20, 0.5, 1, 12, True)
    with warnings.catch_warnings(record=True) as refused:
        warnings.simplefilter("always")
        with pytest.raises(ValueError, match="max number of attempts"):
            flower.load_partition(0)
    assert len(refused) == 11
    with pytest.raises(ValueError, match="no draw in 11"):
        per_class_partition(LABELS, 20, 0.5, np.random.default_rng(1), min_partition_size=12)


def test_the_label_skew_partitioner_splits_the_training_split_as_fedlib_does(data_root):
    flower = label_skew_partitioner("mnist", 30, 0.5, seed=3)
    labels = np.asarray(flower.dataset.with_format("numpy")["label"][:])
    assert labels.size == 60000
    ours = per_class_partition(labels, 30, 0.5, np.random.default_rng(3))
    for i in (0, 17, 29):
        assert ours[i].tolist() == list(flower.load_partition(i)["index"][:])


@pytest.mark.parametrize("partition_id", [-1, 6, 2.0, True])
def test_a_partition_id_naming_no_worker_is_refused(partitioner, partition_id):
    with pytest.raises(ValueError, match=r"names no worker: the run has 6 \(0\.\.5\)"):
        partitioner.load_partition(partition_id)


def test_a_partitioner_without_its_dataset_is_refused(pool):
    with pytest.raises(ValueError, match="has no dataset"):
        WorkerPoolPartitioner(6).load_partition(0)
    partitioner = WorkerPoolPartitioner(6)
    partitioner.dataset = pool_dataset(pool).remove_columns("worker")
    with pytest.raises(ValueError, match="no 'worker' column"):
        partitioner.load_partition(0)
    with pytest.raises(ValueError, match="workers must be a positive integer"):
        WorkerPoolPartitioner(0)


def test_missing_files_give_the_data_checks_message(tmp_path, monkeypatch):
    monkeypatch.setenv("FEDLIB_DATA", str(tmp_path))
    for build in (lambda: WorkerPoolPartitioner.from_config(CONFIG),
                  lambda: label_skew_partitioner("mnist", 3, 1.0)):
        with pytest.raises(DataError, match=r"Dataset files not found:(.|\n)*"
                                            r"python -m fedlib data download"):
            build()


def test_a_clientapp_answering_a_bid_imports_neither_flower_datasets_nor_the_publisher():
    """On the Deployment Runtime every message a node answers starts a process that imports
    the ClientApp: Flower Datasets (datasets, pyarrow, seaborn) waits for a worker's first
    training request, and the package leaves the launcher and the counterexample replay (the
    publisher's tools) to those who use them."""
    heavy = ["flwr_datasets", "datasets", "fedlib.flower.worker_data", "fedlib.flower.launch",
             "fedlib.flower.counterexample_replay"]
    probe = ("import sys, fedlib.flower.client; "
             f"print([m for m in {heavy!r} if m in sys.modules])")
    loaded = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True,
                            check=True).stdout.strip()
    assert loaded == "[]"
    assert fedlib.flower.federate.__module__ == "fedlib.flower.simulation"
    with pytest.raises(AttributeError, match="no attribute 'federated'"):
        fedlib.flower.federated  # noqa: B018 - a mistyped name is an AttributeError
