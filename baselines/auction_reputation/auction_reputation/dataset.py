"""The partitions: each worker holds ``n_samples`` i.i.d. training images of MNIST or
Fashion-MNIST whose labels are flipped to its data accuracy (the paper's groups, Sec. 6), and
the publisher a validation and a test set (:mod:`fedlib.experiments.multitask`). A worker's
partition comes through Flower Datasets
(:class:`fedlib.flower.worker_data.WorkerPoolPartitioner`): the rows of the run's worker pool
as a ``datasets.Dataset``.

The raw files are read from ``FEDLIB_DATA`` (torchvision's layout), else fedlib's cache
(``python -m fedlib data`` downloads and checks them).
"""

from collections.abc import Mapping
from typing import Any

import numpy as np

from fedlib.experiments.multitask import publisher_of, worker_pool
from fedlib.flower.settings import RunSettings
from fedlib.flower.worker_data import worker_partition


def load_partition(partition_id: int, run_config: Mapping[str, Any]
                   ) -> tuple[np.ndarray, np.ndarray]:
    """Images (n, 28, 28) and labels (n,) of the worker ``partition_id`` trains on in the run
    ``run_config`` (keys of ``[tool.flwr.app.config]``)."""
    return worker_partition(RunSettings.from_run_config(run_config).config, partition_id)


__all__ = ["load_partition", "publisher_of", "worker_pool"]
