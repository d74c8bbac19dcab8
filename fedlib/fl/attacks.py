"""Adversarial and strategic workers: what a worker submits or trains on instead of honest work.

An :class:`Attack` names a behaviour, the workers that adopt it, its strength and the first task
in which it is active. A ``"free_rider"`` trains nothing and submits the global model it
received plus Gaussian noise (0: an exact copy; a little noise disguises it); ``"noise"`` is the
same with a large noise (a "random-noise update"); a ``"label_flip"`` worker
trains honestly on labels of which a share is mapped ``y -> permutation[y]`` (a targeted
poisoning attack); a ``"quality_drop"`` worker is a strategic one whose data accuracy falls from
task ``from_task`` on (:func:`~fedlib.fl.workers.flip_labels`).

Every attacker keeps bidding as the worker it was (its bid follows its original data accuracy),
so the mechanism can only notice it through the quality check (leave-one-out), the contribution
measure (Eqs. (2)-(3)) and the reputation they feed (Eqs. (4)-(5), (13)).

Model attacks (free_rider, noise) replace rows of the stacked local models after local training
(:func:`model_submitter`, the ``submit`` hook of :func:`~fedlib.fl.task.run_task`); data attacks
(label_flip, quality_drop) change the worker's labels (:func:`attacked_pool`). All their
randomness comes from a seed the caller derives with its own key, so honest runs draw exactly
what they drew before, and without attacks nothing changes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import asdict, dataclass, replace
from typing import Any

import numpy as np
import torch
from numpy.typing import ArrayLike

from fedlib.checks import integer
from fedlib.fl.batched import Params, Stacked
from fedlib.fl.models import NUM_CLASSES
from fedlib.fl.seeding import SeedLike, seed_sequence, torch_generator
from fedlib.fl.task import Submit
from fedlib.fl.workers import WorkerPool, flip_labels

#: The behaviours an :class:`Attack` can name.
ATTACK_KINDS = ("free_rider", "noise", "label_flip", "quality_drop")
#: Kinds that replace the submitted model; the others change the training labels.
MODEL_KINDS = ("free_rider", "noise")
#: The default label map of a label-flipping attacker: ``y -> (y + 1) mod 10``.
SHIFT_BY_ONE = tuple((y + 1) % NUM_CLASSES for y in range(NUM_CLASSES))
# Purposes of the attacks' random streams (under the caller's seed).
_DATA, _MODEL = range(2)


@dataclass(frozen=True)
class Attack:
    """One behaviour adopted by some workers.

    Attributes
    ----------
    kind : {"free_rider", "noise", "label_flip", "quality_drop"}
    workers : tuple of int
        Indices of the attackers among all workers of the experiment (distinct, >= 0).
    strength : float, default 0.0
        free_rider and noise: standard deviation of the Gaussian noise added to the global
        model (>= 0); label_flip: share of the samples whose label is flipped, in [0, 1];
        quality_drop: the data accuracy the worker falls to, in (0, 1].
    from_task : int, default 0
        First task (0-based) in which the behaviour is active; before it the worker is honest.
    permutation : tuple of int, optional
        label_flip only: the label map, a permutation of 0..9 without fixed points (so every
        flipped label changes); default ``y -> (y + 1) mod 10``.
    """

    kind: str
    workers: tuple[int, ...]
    strength: float = 0.0
    from_task: int = 0
    permutation: tuple[int, ...] | None = None

    def __post_init__(self) -> None:
        if self.kind not in ATTACK_KINDS:
            raise ValueError(f"kind must be one of {ATTACK_KINDS}, got {self.kind!r}")
        workers = tuple(integer(w, "workers", minimum=0) for w in self.workers)
        if not workers or len(set(workers)) < len(workers):
            raise ValueError(f"workers must be distinct non-negative integers (at least one), "
                             f"got {self.workers!r}")
        object.__setattr__(self, "workers", workers)
        strength = float(self.strength)
        low, high, closed = {"label_flip": (0.0, 1.0, True),
                             "quality_drop": (0.0, 1.0, False)}.get(self.kind,
                                                                    (0.0, np.inf, True))
        if not (np.isfinite(strength) and (low <= strength if closed else low < strength)
                and strength <= high):
            what = {"label_flip": "a share in [0, 1]",
                    "quality_drop": "a data accuracy in (0, 1]"}.get(self.kind,
                                                                     "a noise std >= 0")
            raise ValueError(f"strength of {self.kind} must be {what}, got {self.strength!r}")
        object.__setattr__(self, "strength", strength)
        integer(self.from_task, "from_task", minimum=0)
        if self.permutation is not None:
            perm = tuple(int(p) for p in self.permutation)
            if self.kind != "label_flip":
                raise ValueError(f"permutation applies to label_flip only, not {self.kind!r}")
            if sorted(perm) != list(range(NUM_CLASSES)) or any(p == y for y, p in
                                                               enumerate(perm)):
                raise ValueError(f"permutation must be a permutation of 0..{NUM_CLASSES - 1} "
                                 f"without fixed points, got {self.permutation!r}")
            object.__setattr__(self, "permutation", perm)

    def active(self, task: int) -> bool:
        """Whether the behaviour is active in task ``task``."""
        return task >= self.from_task

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready fields (tuples as lists)."""
        out = asdict(self)
        out["workers"] = list(self.workers)
        out["permutation"] = None if self.permutation is None else list(self.permutation)
        return out

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> Attack:
        """Rebuild an attack from :meth:`to_dict` output."""
        values = dict(state)
        values["workers"] = tuple(values["workers"])
        if values.get("permutation") is not None:
            values["permutation"] = tuple(values["permutation"])
        return cls(**values)


def check_attacks(attacks: Sequence[Attack], n_workers: int) -> tuple[Attack, ...]:
    """Validate attacks against an experiment of ``n_workers`` workers."""
    seen: set[int] = set()
    for attack in attacks:
        if not isinstance(attack, Attack):
            raise ValueError(f"attacks must hold Attack objects, got {attack!r}")
        outside = [w for w in attack.workers if w >= n_workers]
        if outside:
            raise ValueError(f"attack {attack.kind!r} names workers {outside} outside "
                             f"0..{n_workers - 1}")
        twice = seen.intersection(attack.workers)
        if twice:
            raise ValueError(f"workers {sorted(twice)} appear in more than one attack")
        seen.update(attack.workers)
    return tuple(attacks)


def flip_share(labels: ArrayLike, share: float, rng: np.random.Generator,
               permutation: Sequence[int] = SHIFT_BY_ONE) -> np.ndarray:
    """Map exactly ``round(share * n)`` labels, at positions drawn without replacement, through
    ``permutation`` (``y -> permutation[y]``); the rest are kept.

    Parameters
    ----------
    labels : array_like of int, shape (n,)
    share : float
        In [0, 1].
    rng : numpy.random.Generator
        Draws the positions.
    permutation : sequence of int, default ``y -> (y + 1) mod 10``

    Returns
    -------
    numpy.ndarray of int64
        A new array.

    Examples
    --------
    >>> flip_share(np.arange(4), 0.5, np.random.default_rng(0)).tolist()  # two labels move
    [0, 1, 3, 4]
    """
    if not 0.0 <= share <= 1.0:
        raise ValueError(f"share must lie in [0, 1], got {share!r}")
    y = np.array(labels, dtype=np.int64)
    where = rng.choice(y.size, size=round(share * y.size), replace=False)
    y[where] = np.asarray(permutation, dtype=np.int64)[y[where]]
    return y


def attacked_pool(pool: WorkerPool, attacks: Sequence[Attack], task: int,
                  seed: SeedLike) -> WorkerPool:
    """The experiment's workers in task ``task``, with the active data attacks applied.

    A label-flipper's current labels go through :func:`flip_share`; a quality-dropper's clean
    labels are flipped to its new data accuracy by :func:`~fedlib.fl.workers.flip_labels` (and
    its ``dacc`` becomes that accuracy). Each attacker's draws come from
    ``seed_sequence(seed, 0, worker)``, so they are the same in every task.

    Parameters
    ----------
    pool : WorkerPool
        All workers of the experiment (row ``w`` is worker ``w``).
    seed : int or numpy.random.SeedSequence
        The experiment's seed for attacks (derive it with a key of its own).

    Returns
    -------
    WorkerPool
        ``pool`` itself when no data attack is active, else a new pool.
    """
    data = [a for a in check_attacks(attacks, len(pool))
            if a.kind not in MODEL_KINDS and a.active(task)]
    if not data:
        return pool
    labels, dacc = pool.labels.clone(), pool.dacc.copy()
    for attack in data:
        for w in attack.workers:
            rng = np.random.default_rng(seed_sequence(seed, _DATA, w))
            if attack.kind == "label_flip":
                new = flip_share(pool.labels[w].numpy(), attack.strength, rng,
                                 attack.permutation or SHIFT_BY_ONE)
            else:
                new = flip_labels(pool.clean_labels[w].numpy(), attack.strength, rng)
                dacc[w] = attack.strength
            labels[w] = torch.from_numpy(new)
    return replace(pool, labels=labels, dacc=dacc)


def replace_models(stacked: Stacked, global_params: Params, rows: Mapping[int, float],
                   generator: torch.Generator) -> Stacked:
    """The stacked local models with rows replaced by the global model plus Gaussian noise.

    Parameters
    ----------
    stacked : Stacked
        The k local models (leading dimension k).
    global_params : Params
        The global model the round started from.
    rows : mapping row -> std
        The rows to replace and the noise standard deviation of each (0: an exact copy).
    generator : torch.Generator
        A CPU generator; noise is drawn row by row (ascending), parameter by parameter.

    Returns
    -------
    Stacked
        A new dictionary; the other rows are the input's tensors' values.
    """
    out = {key: value.clone() for key, value in stacked.items()}
    for row in sorted(rows):
        std = rows[row]
        for key, value in global_params.items():
            if std == 0:
                out[key][row] = value
            else:
                noise = torch.randn(value.shape, generator=generator, dtype=torch.float64)
                out[key][row] = value + (std * noise).to(value.device, value.dtype)
    return out


def model_submitter(attacks: Sequence[Attack], workers: ArrayLike, task: int,
                    seed: SeedLike) -> Submit | None:
    """The ``submit`` hook of :func:`~fedlib.fl.task.run_task` for one task, or None.

    Parameters
    ----------
    workers : array_like of int
        The task's participants (experiment indices), in the order of the stacked rows.
    seed : int or numpy.random.SeedSequence
        The experiment's seed for attacks; round ``t`` draws from ``seed_sequence(seed, 1,
        task, t)``.

    Returns
    -------
    callable or None
        None when no participant runs an active model attack (then nothing changes).
    """
    index = {int(w): row for row, w in enumerate(np.asarray(workers).reshape(-1))}
    rows = {index[w]: a.strength for a in attacks
            if a.kind in MODEL_KINDS and a.active(task) for w in a.workers if w in index}
    if not rows:
        return None

    def submit(stacked: Stacked, global_params: Params, round_: int) -> Stacked:
        generator = torch_generator(seed_sequence(seed, _MODEL, task, round_))
        return replace_models(stacked, global_params, rows, generator)

    return submit


def for_task(attacks: Sequence[Attack], pool: WorkerPool, winners: ArrayLike, task: int,
             seed: SeedLike) -> tuple[WorkerPool, Submit | None]:
    """The winners' data and the ``submit`` hook for one task of a multi-task run.

    Without attacks this is ``(pool.subset(winners), None)``: an honest run is unchanged.
    """
    return (attacked_pool(pool, attacks, task, seed).subset(winners),
            model_submitter(attacks, winners, task, seed))
