"""The workers' data through Flower Datasets: fedlib's draw served by a Flower ``Partitioner``.

The paper's setting (Section 6): 30 workers hold 1000 i.i.d. training samples each of MNIST or
Fashion-MNIST, in groups of data accuracy (15 x 1.0, 5 x 0.7, 5 x 0.4, 5 x 0.1: a worker's
labels are flipped to its accuracy). :func:`pool_dataset` holds those rows as a
``datasets.Dataset`` (the image, the label the worker trains on, the worker and the sample's
position in the training split), read from the local files (:mod:`fedlib.fl.data`: nothing is
downloaded; a missing file raises its :class:`~fedlib.fl.data.DataError`, which says how to get
it). :class:`WorkerPoolPartitioner` serves worker ``i``'s rows as partition ``i``: exactly
``worker_pool(config).images[i]`` and ``.labels[i]``
(:func:`fedlib.experiments.multitask.worker_pool`), so the batched engine and a Flower run
train on the same data for the same seed.

Label skew is ready too: :func:`label_skew_partitioner` is Flower Datasets'
``DirichletPartitioner`` (per class, ``self_balancing=False``) over the same training split
(:func:`split_dataset`); :func:`fedlib.fl.partitions.per_class_partition` draws the same
partitions from the same seed.
"""

from __future__ import annotations

import numpy as np
import pyarrow as pa
from datasets import Dataset
from datasets.features.features import Array2DExtensionType
from flwr_datasets.partitioner import DirichletPartitioner, Partitioner

from fedlib.experiments.multitask import MultiTaskConfig, worker_pool
from fedlib.fl import data
from fedlib.fl.workers import WorkerPool

SHAPE = (28, 28)


def _images(images: np.ndarray) -> pa.ExtensionArray:
    """uint8 images (m, 28, 28) as a column of ``datasets.Array2D`` (no copy per image)."""
    flat = pa.array(np.ascontiguousarray(images, dtype=np.uint8).reshape(-1))
    rows = pa.ListArray.from_arrays(np.arange(len(images) * SHAPE[0] + 1, dtype=np.int64)
                                    * SHAPE[1], flat)
    column = pa.ListArray.from_arrays(np.arange(len(images) + 1, dtype=np.int64) * SHAPE[0],
                                      rows)
    return pa.ExtensionArray.from_storage(Array2DExtensionType(SHAPE, "uint8"), column)


def split_dataset(dataset: str, split: str = "train") -> Dataset:
    """One split of MNIST or Fashion-MNIST from the local files: rows ``image`` (uint8 28 x 28),
    ``label`` (the true label) and ``index`` (the row's position in the split)."""
    loaded = data.load(dataset, split)
    return Dataset(pa.table({"image": _images(loaded.images.numpy()),
                             "label": pa.array(loaded.labels.numpy()),
                             "index": pa.array(np.arange(len(loaded)))}))


def pool_dataset(pool: WorkerPool) -> Dataset:
    """The workers' rows, worker 0's first: ``image``, ``label`` (after its group's label
    noise), ``worker`` and ``index`` (the sample's position in the training split)."""
    workers, n = pool.labels.shape
    return Dataset(pa.table({"image": _images(pool.images.numpy().reshape(-1, *SHAPE)),
                             "label": pa.array(pool.labels.numpy().reshape(-1)),
                             "worker": pa.array(np.repeat(np.arange(workers), n)),
                             "index": pa.array(pool.indices.reshape(-1))}))


class WorkerPoolPartitioner(Partitioner):
    """Partition ``i``: the rows of worker ``i`` (column ``worker``) of a :func:`pool_dataset`.

    Flower Datasets' partitioners draw a partition from a dataset; this one serves fedlib's
    draw (:func:`~fedlib.experiments.multitask.worker_pool`: the IID split and its noise
    groups), so that a Flower run holds the batched engine's data.

    Parameters
    ----------
    workers : int
        The partitions: one per worker (the paper: 30).
    """

    def __init__(self, workers: int) -> None:
        super().__init__()
        if isinstance(workers, bool) or not isinstance(workers, int | np.integer) or workers < 1:
            raise ValueError(f"workers must be a positive integer, got {workers!r}")
        self._workers = int(workers)

    @classmethod
    def from_config(cls, config: MultiTaskConfig) -> WorkerPoolPartitioner:
        """The partitioner of a run, its dataset the run's worker pool."""
        pool = worker_pool(config)
        partitioner = cls(len(pool))
        partitioner.dataset = pool_dataset(pool)
        return partitioner

    @property
    def num_partitions(self) -> int:
        return self._workers

    def load_partition(self, partition_id: int) -> Dataset:
        """Worker ``partition_id``'s rows, in the order of its samples."""
        if (isinstance(partition_id, bool) or not isinstance(partition_id, int | np.integer)
                or not 0 <= partition_id < self._workers):
            raise ValueError(f"partition_id {partition_id!r} names no worker: the run has "
                             f"{self._workers} (0..{self._workers - 1})")
        if not self.is_dataset_assigned():
            raise ValueError("the partitioner has no dataset: assign a pool_dataset(pool) to "
                             "its dataset, or build it with WorkerPoolPartitioner.from_config")
        if "worker" not in self.dataset.column_names:
            raise ValueError(f"the dataset has no 'worker' column (it has "
                             f"{self.dataset.column_names}): build it with pool_dataset")
        owner = self.dataset.with_format("numpy")["worker"][:]
        return self.dataset.select(np.flatnonzero(owner == partition_id))


def worker_partition(config: MultiTaskConfig, worker: int) -> tuple[np.ndarray, np.ndarray]:
    """uint8 images (n, 28, 28) and int64 labels (n,) of ``worker`` in the run ``config``,
    through :class:`WorkerPoolPartitioner`."""
    rows = WorkerPoolPartitioner.from_config(config).load_partition(worker).with_format("numpy")
    # the numpy format widens integers to int64: the images come back to their uint8
    return rows["image"][:].astype(np.uint8), np.array(rows["label"][:])


def label_skew_partitioner(dataset: str, partitions: int, alpha: float, *,
                           min_partition_size: int = 10, shuffle: bool = True,
                           seed: int | None = 42) -> DirichletPartitioner:
    """Flower Datasets' ``DirichletPartitioner`` over the training split of ``dataset``
    (:func:`split_dataset`): per class, ``self_balancing=False``, the dataset assigned.
    :func:`fedlib.fl.partitions.per_class_partition` with ``np.random.default_rng(seed)``
    draws the same partitions."""
    partitioner = DirichletPartitioner(num_partitions=partitions, partition_by="label",
                                       alpha=alpha, min_partition_size=min_partition_size,
                                       self_balancing=False, shuffle=shuffle, seed=seed)
    partitioner.dataset = split_dataset(dataset, "train")
    return partitioner


__all__ = ["WorkerPoolPartitioner", "label_skew_partitioner", "pool_dataset", "split_dataset",
           "worker_partition"]
