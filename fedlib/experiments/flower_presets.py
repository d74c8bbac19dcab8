"""The runs a federation executes: the Tables 1-3 setting, or a smoke-sized six-node one.

``python -m fedlib federate``, the ``flwr run`` app (:mod:`fedlib.flower.app`) and the Flower
chapter run these configurations, in a Flower federation and on the batched engine, so that
the two can be compared record for record.
"""

from __future__ import annotations

from dataclasses import replace

from fedlib.experiments.multitask import MultiTaskConfig

#: The workers of a smoke-sized federation: three clean, two at dacc 0.4, one pure noise.
FAST_FEDERATION_GROUPS = ((1.0, 3), (0.4, 2), (0.1, 1))


def fast_federation(config: MultiTaskConfig) -> MultiTaskConfig:
    """``config.fast()`` with 6 workers (:data:`FAST_FEDERATION_GROUPS`, one Flower node each)
    and budget 12 (about half of them win)."""
    return replace(config, groups=FAST_FEDERATION_GROUPS, budget=12.0).fast()


def federation_config(dataset: str = "mnist", mechanism: str = "ours", tasks: int | None = None,
                      budget: float | None = None, seed: int = 0,
                      fast: bool = False) -> MultiTaskConfig:
    """The run of ``python -m fedlib federate`` (and of ``flwr run``): the Tables 1-3 setting
    on the CPU, or :func:`fast_federation` with ``fast``; ``tasks`` and ``budget`` (None: the
    setting's) replace its number of tasks and its budget."""
    config = MultiTaskConfig(dataset=dataset, mechanism=mechanism, seed=seed, device="cpu")
    if fast:
        config = fast_federation(config)
    tasks = config.n_tasks if tasks is None else tasks
    return replace(config, n_tasks=tasks, eval_from=min(config.eval_from, tasks - 1),
                   budget=config.budget if budget is None else budget)
