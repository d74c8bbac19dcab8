"""Finished federated tasks on disk, shared between the runs of one command.

Two multi-task runs often train exactly the same task: RRAFL selects its winners with the rule
of our mechanism and both update the reputations with Eq. (13), so with the same seed the two
runs hire the same workers for every task and differ only in what they pay; a sweep's runs
agree as long as their winners do. A federated task is a deterministic function of its inputs
(the winners' data, the publisher's sets, the task's seed, the options, the starting model, the
engine and the fedlib code), so a task finished by one run can be read back by the other
instead of being trained again, with identical results.

:class:`TaskStore` keys each task by a SHA-256 digest of all those inputs
(:func:`task_key`) and keeps the :class:`~fedlib.fl.records.TaskResult` as a pickle written
atomically (with the final model: about 0.3 MB per LeNet-5 task, 0.8 MB per MLP task). The
store is a temporary folder that a command creates and deletes; it is read only by the
processes of the command that wrote it. Tasks with a ``submit`` hook (model-replacing
attacks) are not stored: the hook is code, not data.
"""

from __future__ import annotations

import functools
import hashlib
import json
import logging
import os
import pickle
from collections.abc import Callable
from dataclasses import asdict
from pathlib import Path

import torch

import fedlib
from fedlib.fl.batched import Params
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.records import TaskResult
from fedlib.fl.seeding import SeedLike, seed_sequence
from fedlib.fl.task import TaskOptions
from fedlib.fl.workers import PublisherSets, WorkerPool
from fedlib.runtime import write_atomic

logger = logging.getLogger(__name__)


@functools.cache
def code_fingerprint() -> str:
    """SHA-256 of every Python source file of the installed fedlib package (path and text):
    a task stored by other code never matches."""
    root = Path(fedlib.__file__).parent
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def task_key(engine: BatchedEngine, workers: WorkerPool, publisher: PublisherSets,
             seed: SeedLike, options: TaskOptions, initial_params: Params | None) -> str:
    """The digest of everything :func:`~fedlib.fl.task.run_task` computes a task from.

    Parameters
    ----------
    engine, workers, publisher, seed, options, initial_params
        As for :func:`~fedlib.fl.task.run_task` (``initial_params=None``: a fresh model drawn
        from ``seed``).

    Returns
    -------
    str
        A hex digest: the engine (model, device, dtype, CPU threads), the workers' images and
        labels, the publisher's validation and test sets, the seed sequence, the options, the
        starting model and :func:`code_fingerprint`.
    """
    sequence = seed_sequence(seed)
    header = {
        "code": code_fingerprint(), "model": engine.model, "device": str(engine.device),
        "dtype": str(engine.dtype), "threads": torch.get_num_threads(),
        "dataset": workers.dataset, "entropy": str(sequence.entropy),
        "spawn_key": [int(k) for k in sequence.spawn_key], "options": asdict(options),
        "fresh_model": initial_params is None,
    }
    digest = hashlib.sha256(json.dumps(header, sort_keys=True).encode())
    tensors = [workers.images, workers.labels, publisher.val_images, publisher.val_labels,
               publisher.test_images, publisher.test_labels]
    tensors += [initial_params[name] for name in sorted(initial_params or {})]
    for tensor in tensors:
        digest.update(f"{tensor.dtype}{tuple(tensor.shape)}".encode())
        digest.update(tensor.detach().cpu().contiguous().numpy().tobytes())
    return digest.hexdigest()


class TaskStore:
    """Finished tasks in ``directory``, one pickle per :func:`task_key`.

    Parameters
    ----------
    directory : path
        Created if missing. Only for folders this command's processes write (the files are
        pickles).

    Examples
    --------
    >>> import tempfile
    >>> store = TaskStore(tempfile.mkdtemp())
    >>> store.get_or_run("abc", lambda: 42), store.get_or_run("abc", lambda: 0)
    (42, 42)
    """

    def __init__(self, directory: str | os.PathLike[str]) -> None:
        self.directory = Path(directory)
        self.directory.mkdir(parents=True, exist_ok=True)

    def get_or_run(self, key: str, run: Callable[[], TaskResult]) -> TaskResult:
        """The stored result of ``key``, or ``run()``'s, stored (atomically) before returning.

        Two processes that miss the same key at once both run it and store the same result.
        """
        path = self.directory / f"{key}.pkl"
        if path.exists():
            logger.debug("task %s read from %s", key[:12], self.directory)
            with path.open("rb") as file:
                return pickle.load(file)
        result = run()
        write_atomic(path, lambda tmp: tmp.write_bytes(
            pickle.dumps(result, protocol=pickle.HIGHEST_PROTOCOL)))
        return result

