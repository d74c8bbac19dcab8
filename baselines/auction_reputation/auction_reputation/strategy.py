"""The strategy of a task's global rounds.

:class:`MechanismStrategy` is a Flower ``Strategy`` (message API) whose ``aggregate_train``
scores every winner's model on the publisher's validation set (contribution, Eqs. 2-3; the
leave-one-out check, Eq. 4) and aggregates with the weights omega; :class:`TaskPlan` is what
it needs of a task (winners, their nodes and batch orders). :func:`run_tasks` is the
publisher's loop over the tasks that the ServerApp runs.
"""

from fedlib.flower.publisher import run_tasks
from fedlib.flower.strategy import MechanismStrategy, TaskPlan

__all__ = ["MechanismStrategy", "TaskPlan", "run_tasks"]
