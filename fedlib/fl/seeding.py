"""What makes a run reproducible: a random stream for every purpose, and a fixed thread count.

Every random draw of an experiment (the workers' data, label noise, bids, initial models, batch
orders, attacks) comes from a :class:`numpy.random.SeedSequence` derived from the experiment's
seed and a key naming its purpose (:func:`seed_sequence`), or from a ``torch.Generator`` seeded
from one (:func:`torch_generator`). A fixed number of torch threads (:func:`torch_threads`)
fixes the order of the CPU's floating-point sums, so a run is reproducible bit for bit on one
machine.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager

import numpy as np
import torch

from fedlib.checks import integer

SeedLike = int | np.random.SeedSequence


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

    A fixed thread count makes CPU results reproducible bit for bit from run to run on one
    machine.
    """
    threads = integer(threads, "threads")
    previous = torch.get_num_threads()
    torch.set_num_threads(threads)
    try:
        yield
    finally:
        torch.set_num_threads(previous)
