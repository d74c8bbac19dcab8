"""The multi-task experiment of Tables 1-3: 30 workers, 50 tasks, reputation carried across tasks.

Before every task each worker bids ``b ~ U[10/3 dacc + 2/3, 10/3 dacc + 8/3]`` (its true cost
is its bid), the mechanism selects winners from the bids and the accumulated reputations ``Re``,
the winners run one federated task (:func:`fedlib.fl.task.run_task`), the mechanism pays them
given their internal reputations ``re``, and the :class:`~fedlib.mechanism.ReputationLedger`
applies Eq. (13) to the winners.

The paper leaves four choices open; they are explicit fields of :class:`MultiTaskConfig`:
the budget ``B`` (default 60, see :data:`DEFAULT_BUDGET`), the initial reputation
``Re^0 = 0.5``, bids redrawn every task (``redraw_bids=True``) and a fresh global model for
every task (``fresh_model=True``).

Beyond the paper, ``label_skew`` gives some workers of every noise group label skew drawn from
a Dirichlet distribution (:func:`~fedlib.fl.workers.skewed_workers`), so that skew and label
noise vary independently (:mod:`fedlib.experiments.noniid`).

A run can checkpoint after every task and resume (:func:`run_multitask`);
:mod:`fedlib.experiments.grid` runs several configurations in parallel processes.
"""

from __future__ import annotations

import logging
import math
import os
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import asdict, dataclass, field, replace
from pathlib import Path
from typing import Any, ClassVar

import numpy as np

from fedlib.checks import integer
from fedlib.experiments.registry import Records, register
from fedlib.experiments.run_state import RunState
from fedlib.experiments.task_store import TaskStore, task_key
from fedlib.fl.attacks import Attack, check_attacks, for_task
from fedlib.fl.data import DATASETS
from fedlib.fl.engine import BatchedEngine
from fedlib.fl.models import MODEL_FOR_DATASET
from fedlib.fl.partitions import check_alpha
from fedlib.fl.records import TaskResult
from fedlib.fl.seeding import seed_sequence, torch_threads
from fedlib.fl.task import TaskOptions, run_task
from fedlib.fl.workers import (
    PublisherSets,
    WorkerPool,
    iid_workers,
    publisher_sets,
    skewed_workers,
)
from fedlib.mechanism.mechanisms import MECHANISMS, Allocation
from fedlib.mechanism.reputation import BETA1, BETA2, INITIAL_REPUTATION
from fedlib.paper.settings import PAPER_GROUPS
from fedlib.runtime import progress

#: Our budget per task; the paper does not state it. It is the smallest budget of the stored
#: budget sweep (``budget_sweep.SWEEP_BUDGETS``) at which the first MNIST auction reaches the
#: clean workers (chapter 7, ``sec-07-budget-choice``).
DEFAULT_BUDGET = 60.0
#: The mechanisms of Tables 2-3.
TABLE_MECHANISMS = ("ours", "rrafl", "vanilla", "bid_greedy", "reputation_greedy")
#: The mechanisms also run with the model carried across tasks (``fresh_model=False``), the
#: reading the paper leaves open, on both datasets.
CARRIED_MECHANISMS = ("ours", "reputation_greedy")
#: Round fields stored per task (the rest are cheap to recompute and would bloat the JSON);
#: ``margin`` (``delta_l - delta``) lets verification on another machine judge every
#: leave-one-out decision (results stored before it existed lack it).
ROUND_FIELDS = ("passed", "margin", "omega", "test_loss", "test_acc")
#: Config fields that describe where a run executes, not what it computes.
RUNTIME_FIELDS = ("device",)
logger = logging.getLogger(__name__)
# Purposes of the random streams, the first element of every seed key.
_POOL, _PUBLISHER, _BIDS, _SELECT, _TRAIN, _ATTACK = range(6)


class MultiTaskResult(Records):
    """A multi-task run: its configuration and one JSON-ready record per task.

    Each record holds ``task``; ``winners`` (worker indices in selection order); ``bids`` and
    ``Re`` (all workers; ``Re`` after the task, so task ``t`` started from record ``t - 1``'s
    ``Re``, or ``Re^0``); per winner ``payments``, ``contribution``, ``n_pass``, ``n_fail``,
    ``re``; and ``rounds`` with the global model's ``test_loss`` and ``test_acc`` per round and
    the winners' ``passed`` and ``omega`` per round. A task without winners has empty lists.
    """

    @property
    def evaluated(self) -> tuple[dict[str, Any], ...]:
        """The records from ``config.eval_from`` on."""
        return tuple(r for r in self.records if r["task"] >= self.config.eval_from)


@register
@dataclass(frozen=True)
class MultiTaskConfig:
    """Everything that determines a multi-task run.

    Attributes
    ----------
    dataset : {"mnist", "fashion"}
        MNIST trains the fully connected model, Fashion-MNIST LeNet-5.
    mechanism : str
        A key of :data:`~fedlib.mechanism.MECHANISMS`.
    n_tasks : int, default 50
        Tasks in the run.
    eval_from : int, default 5
        First task (0-based) counted in Tables 2-3: the paper's last 45 of 50 (Table 1, "in 50
        tasks", counts every task: the reading "Tasks and payments of Tables 1-3").
    groups : tuple of (dacc, count), default 15 x 1.0, 5 x 0.7, 5 x 0.4, 5 x 0.1
        The workers' data accuracies.
    budget : float, default 60
        Budget B per task (the paper does not give it).
    initial_reputation : float, default 0.5
        ``Re^0`` of every worker (the paper does not give it).
    beta1, beta2 : float, default 0.5, 0.25
        Constants of the reputation update's attenuation ``g``, Eqs. (11)-(13).
    redraw_bids : bool, default True
        Draw new bids before every task (False: one draw for the whole run); the paper does
        not say which.
    fresh_model : bool, default True
        Start every task from a new model (False: from the previous task's global model); the
        paper does not say which.
    n_samples, n_val, n_test : int, default 1000, 5000, 5000
        Samples per worker, validation and test set sizes.
    task : TaskOptions
        Rounds, local training and the mechanism's constants.
    seed : int, default 0
        The experiment seed; every random stream derives from it.
    device : str, default "auto"
        ``"auto"``, ``"cpu"`` or ``"cuda"``; bit-for-bit reproducibility holds on the CPU.
    threads : int, default 1
        torch CPU threads during the run (fixed for reproducibility).
    attacks : tuple of Attack, default ()
        Adversarial or strategic workers (:mod:`fedlib.fl.attacks`); their random draws use
        a seed key of their own, so without attacks a run is exactly the honest one.
    label_skew : float or None, default None
        The Dirichlet concentration alpha of the skewed workers' label proportions
        (:func:`~fedlib.fl.workers.skewed_workers`: per worker, ``n_samples`` each); None:
        every worker iid, the paper's setting.
    skewed_share : float, default 0.5
        With ``label_skew``, the share of every ``groups`` entry that is skewed: its first
        ``ceil(skewed_share * count)`` workers (:attr:`skewed`), so any share above 0 skews
        at least one worker of every group and 0.5 skews 8 of 15 and 3 of 5. In (0, 1]; it
        has no effect without ``label_skew``.
    """

    dataset: str = "mnist"
    mechanism: str = "ours"
    n_tasks: int = 50
    eval_from: int = 5
    groups: tuple[tuple[float, int], ...] = PAPER_GROUPS
    budget: float = DEFAULT_BUDGET
    initial_reputation: float = INITIAL_REPUTATION
    beta1: float = BETA1
    beta2: float = BETA2
    redraw_bids: bool = True
    fresh_model: bool = True
    n_samples: int = 1000
    n_val: int = 5000
    n_test: int = 5000
    task: TaskOptions = field(default_factory=TaskOptions)
    seed: int = 0
    device: str = "auto"
    threads: int = 1
    attacks: tuple[Attack, ...] = ()
    label_skew: float | None = None
    skewed_share: float = 0.5

    kind: ClassVar[str] = "tables"
    result_type: ClassVar[type] = MultiTaskResult

    def __post_init__(self) -> None:
        if self.dataset not in DATASETS:
            raise ValueError(f"dataset must be one of {DATASETS}, got {self.dataset!r}")
        if self.mechanism not in MECHANISMS:
            raise ValueError(f"mechanism must be one of {sorted(MECHANISMS)}, got "
                             f"{self.mechanism!r}")
        if not (isinstance(self.budget, int | float) and np.isfinite(self.budget)
                and self.budget > 0):
            raise ValueError(f"budget must be a positive number, got {self.budget!r}")
        if not self.initial_reputation >= 0:
            raise ValueError(f"initial_reputation must be non-negative, got "
                             f"{self.initial_reputation!r}")
        if not (self.beta1 > 0 and 0 <= self.beta2 <= 1):
            raise ValueError(f"beta1 must be positive and beta2 in [0, 1], got beta1 = "
                             f"{self.beta1!r}, beta2 = {self.beta2!r}")
        for name in ("n_tasks", "n_samples", "n_val", "n_test", "threads"):
            integer(getattr(self, name), name)
        integer(self.eval_from, "eval_from", minimum=0)
        if not self.groups:
            raise ValueError("groups must name at least one (dacc, count) group")
        for dacc, count in self.groups:
            if not 0 < dacc <= 1:
                raise ValueError(f"groups: dacc must lie in (0, 1], got {dacc!r}")
            integer(count, "groups: count")
        object.__setattr__(self, "attacks", check_attacks(self.attacks, self.daccs.size))
        if self.label_skew is not None:
            object.__setattr__(self, "label_skew", check_alpha(self.label_skew))
        if (isinstance(self.skewed_share, bool) or not isinstance(self.skewed_share, int | float)
                or not 0 < self.skewed_share <= 1):
            raise ValueError(f"skewed_share must lie in (0, 1], got {self.skewed_share!r}")
        object.__setattr__(self, "skewed_share", float(self.skewed_share))

    @property
    def daccs(self) -> np.ndarray:
        """Data accuracy of every worker, in group order."""
        return np.repeat([d for d, _ in self.groups], [c for _, c in self.groups]).astype(float)

    @property
    def skewed(self) -> np.ndarray:
        """Which workers hold label-skewed data (bool, one per worker): the first
        ``ceil(skewed_share * count)`` of every group with ``label_skew``, none without."""
        counts = [count for _, count in self.groups]
        if self.label_skew is None:
            return np.zeros(sum(counts), dtype=bool)
        # Rounded first, so that a product such as 0.3 * 10 = 3.0000000000000004 gives 3.
        return np.concatenate([np.arange(count) < math.ceil(round(self.skewed_share * count, 9))
                               for count in counts])

    def to_dict(self) -> dict[str, Any]:
        """JSON-ready configuration, tagged ``"experiment": "tables"``; ``attacks``,
        ``label_skew`` and ``skewed_share`` only when they are not their defaults (so that the
        paper's configuration reads as it did before they existed)."""
        out = asdict(self)
        out["groups"] = [list(group) for group in self.groups]
        out["task"] = self.task.to_dict()
        out["attacks"] = [attack.to_dict() for attack in self.attacks]
        defaults = {"attacks": [], "label_skew": None, "skewed_share": 0.5}
        return {"experiment": "tables", **{key: value for key, value in out.items()
                                           if key not in defaults or value != defaults[key]}}

    @classmethod
    def from_dict(cls, state: Mapping[str, Any]) -> MultiTaskConfig:
        """Rebuild a configuration from :meth:`to_dict` output."""
        values = {key: value for key, value in state.items() if key != "experiment"}
        values["groups"] = tuple((float(d), int(c)) for d, c in values["groups"])
        values["task"] = TaskOptions(**values["task"])
        values["attacks"] = tuple(Attack.from_dict(a) for a in values.get("attacks", ()))
        return cls(**values)

    def fast(self) -> MultiTaskConfig:
        """A smoke-sized version: 3 tasks of 2 rounds, 200 samples, 500-sample sets."""
        return replace(self, n_tasks=3, eval_from=1, n_samples=200, n_val=500, n_test=500,
                       task=replace(self.task, rounds=2))

    def result_name(self) -> str:
        """``tables_<dataset>_<mechanism>``, with ``_b<budget>``, ``_carried`` (the model
        carried across tasks), ``_skew<alpha>`` (label skew), ``_share<share>`` (a share
        of skewed workers other than 0.5), ``_ownlabels`` (:attr:`TaskOptions.name_suffix
        <fedlib.fl.task.TaskOptions.name_suffix>`), ``_s<seed>``, ``_attacked`` (with attacks)
        and ``_fast`` suffixes where the configuration differs from the paper-scale default."""
        name = f"tables_{self.dataset}_{self.mechanism}"
        if self.budget != DEFAULT_BUDGET:
            name += f"_b{self.budget:g}"
        if not self.fresh_model:
            name += "_carried"
        if self.label_skew is not None:
            name += f"_skew{self.label_skew:g}"
        if self.skewed_share != 0.5:
            name += f"_share{self.skewed_share:g}"
        name += self.task.name_suffix
        if self.seed != 0:
            name += f"_s{self.seed}"
        if self.attacks:
            name += "_attacked"
        return name + ("_fast" if self == self.fast() else "")

    def run(self, *, jobs: int = 1, checkpoint_dir: str | os.PathLike[str] | None = None,
            task_store: str | os.PathLike[str] | None = None) -> MultiTaskResult:
        """:func:`run_multitask`, checkpointed as ``<checkpoint_dir>/<result_name>.pt`` (deleted
        when the run ends); one process (``jobs`` is not used)."""
        checkpoint = (None if checkpoint_dir is None else
                      Path(checkpoint_dir) / f"{self.result_name()}.pt")
        result = run_multitask(self, checkpoint, task_store=task_store)
        if checkpoint is not None:
            checkpoint.unlink()
        return result

    def recompute(self, n_tasks: int,
                  task_store: str | os.PathLike[str] | None = None) -> list[dict[str, Any]]:
        """The records of the first ``n_tasks`` tasks, on the CPU (tasks already in
        ``task_store`` are read from it)."""
        return list(run_multitask(replace(self, n_tasks=n_tasks, device="cpu"),
                                  task_store=task_store).records)



def draw_bids(config: MultiTaskConfig, task: int) -> np.ndarray:
    """Every worker's bid (= its true cost) ``U[10/3 dacc + 2/3, 10/3 dacc + 8/3]`` for one
    task."""
    rng = np.random.default_rng(seed_sequence(config.seed, _BIDS,
                                              task if config.redraw_bids else 0))
    return 10.0 / 3.0 * config.daccs + 2.0 / 3.0 + 2.0 * rng.random(config.daccs.size)


def auction(config: MultiTaskConfig, task: int, Re: np.ndarray,
            bids: np.ndarray | None = None) -> Allocation:
    """The selection of task ``task`` of a run of ``config`` from the reputations ``Re`` before
    it: the mechanism on ``bids`` (each taken as the worker's cost; default: every worker's
    :func:`draw_bids`), its random stream drawn from the seed."""
    bids = draw_bids(config, task) if bids is None else bids
    rng = np.random.default_rng(seed_sequence(config.seed, _SELECT, task))
    return MECHANISMS[config.mechanism].select(bids, Re, config.budget, costs=bids, rng=rng)


def task_seed(config: MultiTaskConfig, task: int) -> np.random.SeedSequence:
    """The seed of task ``task``'s initial model and batch orders."""
    return seed_sequence(config.seed, _TRAIN, task)


def worker_pool(config: MultiTaskConfig) -> WorkerPool:
    """All workers' training data: ``n_samples`` each, the :attr:`~MultiTaskConfig.skewed`
    ones with label skew of concentration ``label_skew``, labels flipped to their dacc."""
    rng = np.random.default_rng(seed_sequence(config.seed, _POOL))
    if config.label_skew is None:
        return iid_workers(config.dataset, config.daccs, rng, n=config.n_samples)
    return skewed_workers(config.dataset, config.daccs, config.skewed, config.label_skew, rng,
                          n=config.n_samples)


def publisher_of(config: MultiTaskConfig) -> PublisherSets:
    """The task publisher's validation and test sets."""
    return publisher_sets(config.dataset,
                          np.random.default_rng(seed_sequence(config.seed, _PUBLISHER)),
                          n_val=config.n_val, n_test=config.n_test)


def _run_one(run: RunState, engine: BatchedEngine, pool: WorkerPool,
             publisher: PublisherSets, task: int, store: TaskStore | None,
             round_fields: tuple[str, ...]) -> None:
    """Select, train (or read the task from ``store``), pay and update reputations for task
    ``task``; append its record (with the rounds' ``round_fields``)."""
    config = run.config
    bids = draw_bids(config, task)
    allocation = auction(config, task, run.ledger.Re, bids)
    winners = allocation.winners
    result = None
    if winners.size:
        workers, submit = for_task(config.attacks, pool, winners, task,
                                   seed_sequence(config.seed, _ATTACK))
        seed = task_seed(config, task)
        initial = None if config.fresh_model else run.params

        def train() -> TaskResult:
            return run_task(engine, workers, publisher, seed=seed, options=config.task,
                            initial_params=initial, submit=submit)

        if store is None or submit is not None:
            result = train()
        else:
            key = task_key(engine, workers, publisher, seed, config.task, initial)
            result = store.get_or_run(key, train)
    run.settle(task, bids, allocation, result, round_fields)


def run_multitask(config: MultiTaskConfig, checkpoint: str | os.PathLike[str] | None = None, *,
                  on_task: Callable[[dict[str, Any]], None] | None = None,
                  task_store: str | os.PathLike[str] | None = None,
                  round_fields: Sequence[str] = ROUND_FIELDS) -> MultiTaskResult:
    """Run (or resume) the multi-task experiment of Tables 1-3.

    Parameters
    ----------
    config : MultiTaskConfig
    checkpoint : path, optional
        A file written after every task (atomically: a temporary file, then ``os.replace``).
        If it exists, the run resumes from it; it must come from the same configuration except
        ``n_tasks`` (no more tasks than that), so a run can be extended.
    on_task : callable, optional
        Called with each new task's record after its checkpoint is written (progress hooks,
        or a test simulating an interruption by raising).
    task_store : path, optional
        A :class:`~fedlib.experiments.task_store.TaskStore` folder shared with other runs of
        the same command: a task another run already trained with exactly the same inputs is
        read from it instead of trained again (same records).
    round_fields : sequence of str, default :data:`ROUND_FIELDS`
        The :class:`~fedlib.fl.records.RoundRecord` fields each record keeps per round.

    Returns
    -------
    MultiTaskResult

    Notes
    -----
    Every random stream is derived from ``config.seed`` and the task index
    (:func:`~fedlib.fl.seeding.seed_sequence`), and the run executes under ``config.threads``
    torch threads, so a resumed run and an uninterrupted one give identical records on a CPU.
    """
    run = RunState(config)
    path = Path(checkpoint) if checkpoint is not None else None
    if path is not None and path.exists():
        run.resume(path)
    pool, publisher = worker_pool(config), publisher_of(config)
    engine = BatchedEngine(MODEL_FOR_DATASET[config.dataset], device=config.device)
    store = TaskStore(task_store) if task_store is not None else None
    start = len(run.records)
    with torch_threads(config.threads):
        for task in progress(range(start, config.n_tasks), desc=config.result_name(),
                             total=config.n_tasks - start):
            began = time.perf_counter()
            _run_one(run, engine, pool, publisher, task, store, tuple(round_fields))
            run.seconds += time.perf_counter() - began
            record = run.records[-1]
            logger.info("%s task %d: %d winners, paid %.2f of %g, final test loss %s",
                        config.result_name(), task, len(record["winners"]),
                        sum(record["payments"]), config.budget,
                        f"{record['rounds']['test_loss'][-1]:.4f}" if record["winners"]
                        else "(no winners, no model)")
            if path is not None:
                run.save(path)
            if on_task is not None:
                on_task(run.records[-1])
    return MultiTaskResult(config, tuple(run.records), run.seconds)
