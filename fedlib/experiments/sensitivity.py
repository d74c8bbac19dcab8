"""How sensitive the mechanism's outcomes are to its parameters: a one-at-a-time sweep.

Around the configuration of the stored budget sweep (:mod:`fedlib.experiments.budget_sweep`:
ours on MNIST, 20 tasks, the first 5 not evaluated, ``B = 60``) each parameter of
:data:`PARAMETERS` (``theta`` of Eq. (4), the leave-one-out threshold ``delta``, ``beta1`` and
``beta2`` of Eqs. (11)-(13), the initial reputation ``Re^0``) takes a lower and a higher value
while every other one keeps its default. With the unchanged center run that makes 11 runs
(stored as ``results/sensitivity_<dataset>_<mechanism>.json`` by ``python -m fedlib reproduce
sensitivity``). The budget is the sixth parameter; its runs are read from the budget sweep,
whose base configuration is this sweep's (:func:`budget_config`), so that its run at ``B = 60``
is this sweep's center run.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, ClassVar

import numpy as np

from fedlib.analysis.claims import Claim
from fedlib.experiments import table_summaries
from fedlib.experiments.budget_sweep import BudgetSweepConfig, BudgetSweepResult
from fedlib.experiments.grid import SWEEP_ROUND_FIELDS, Grid, GridResult
from fedlib.experiments.multitask import MultiTaskConfig, MultiTaskResult
from fedlib.experiments.registry import register

#: Trust weight theta of Eq. (4), default 0.4. The paper asks for theta in (0, 0.5) so that a
#: failure weighs more than a pass: 0.2 makes a failure weigh four times a pass, 0.5 (the
#: edge of the paper's range) weighs them equally.
THETA_VALUES = (0.2, 0.5)
#: Leave-one-out threshold delta, default -0.005 (pass iff ``l_{-i} - l >= delta``): -0.02
#: forgives a worker whose removal lowers the validation loss by up to 0.02; 0 passes only
#: workers whose removal does not lower it at all.
DELTA_VALUES = (-0.02, 0.0)
#: beta1 of Eq. (11), default 1/2: how fast a streak of n tasks lowers g; half and twice.
BETA1_VALUES = (0.25, 1.0)
#: beta2 of Eq. (11), default 1/4: the floor of g that long streaks approach; 0.1 lets a long
#: streak make Re follow the latest re almost fully, 0.5 keeps more of the history.
BETA2_VALUES = (0.1, 0.5)
#: Initial reputation Re^0, default 0.5 (not given by the paper): a pessimistic and an
#: optimistic prior for newcomers, equally far from the default.
INITIAL_REPUTATION_VALUES = (0.25, 0.75)
#: The swept parameters and their alternative values, in the order of the runs.
SWEEP_VALUES: tuple[tuple[str, tuple[float, ...]], ...] = (
    ("theta", THETA_VALUES), ("delta", DELTA_VALUES), ("beta1", BETA1_VALUES),
    ("beta2", BETA2_VALUES), ("initial_reputation", INITIAL_REPUTATION_VALUES))
#: Parameters that live in the task options (:class:`~fedlib.fl.task.TaskOptions`); the others
#: are fields of :class:`~fedlib.experiments.multitask.MultiTaskConfig`.
TASK_PARAMETERS = ("theta", "delta", "epochs", "lr", "momentum")
#: The mechanism's parameters, which this sweep varies.
PARAMETERS = ("theta", "delta", "beta1", "beta2", "initial_reputation")
#: Every parameter a one-at-a-time sweep can vary: the mechanism's, the budget, local training
#: and whether a task starts from a fresh model (1) or the previous task's (0)
#: (:mod:`fedlib.experiments.coldstart` varies the latter).
SWEEPABLE = (*PARAMETERS, "budget", "epochs", "lr", "momentum", "fresh_model")
#: Parameters with integer or boolean values (stored as numbers like the others).
_CASTS = {"epochs": int, "fresh_model": bool}
#: Readable names, also of the budget (read from the budget sweep).
LABELS = {"theta": "θ (trust weight, Eq. 4)", "delta": "δ (leave-one-out threshold)",
          "beta1": "β₁ (Eq. 11)", "beta2": "β₂ (Eq. 11)",
          "initial_reputation": "Re⁰ (initial reputation)", "budget": "B (budget per task)",
          "epochs": "local epochs", "lr": "learning rate", "momentum": "SGD momentum",
          "fresh_model": "fresh model per task (0: carried)"}
#: The outcomes of :func:`outcomes` that :func:`effects` compares.
OUTCOMES = ("share", "loss", "paid", "winners")


def parameter_value(config: MultiTaskConfig, name: str) -> float:
    """The value of parameter ``name`` (one of :data:`SWEEPABLE`) as a float."""
    _check_name(name, SWEEPABLE)
    return float(getattr(config.task if name in TASK_PARAMETERS else config, name))


def with_parameter(config: MultiTaskConfig, name: str, value: float) -> MultiTaskConfig:
    """``config`` with parameter ``name`` (one of :data:`SWEEPABLE`) set to ``value``,
    validated by the configuration."""
    _check_name(name, SWEEPABLE)
    value = _CASTS.get(name, float)(value)
    if name in TASK_PARAMETERS:
        return replace(config, task=replace(config.task, **{name: value}))
    return replace(config, **{name: value})


def _check_name(name: str, known: Sequence[str]) -> None:
    if name not in known:
        raise ValueError(f"unknown parameter {name!r}; known: {', '.join(known)}")


class SensitivityResult(GridResult):
    """A sensitivity sweep: one :class:`~fedlib.experiments.multitask.MultiTaskResult` per
    run, in the order of :attr:`SensitivityConfig.points` (center first); the records keep the
    rounds' :data:`~fedlib.experiments.grid.SWEEP_ROUND_FIELDS`."""

    @property
    def center(self) -> MultiTaskResult:
        return self.runs[0]

    def runs_of(self, name: str) -> list[tuple[float, MultiTaskResult]]:
        """``(value, run)`` of parameter ``name``, the center run included, by value."""
        _check_name(name, [n for n, _ in self.config.values])
        chosen = [(parameter_value(run.config, name), run)
                  for (parameter, _), run in zip(self.config.points, self.runs, strict=True)
                  if parameter in (None, name)]
        return sorted(chosen, key=lambda pair: pair[0])


def _default_base() -> MultiTaskConfig:
    return BudgetSweepConfig().base


@register
@dataclass(frozen=True)
class SensitivityConfig(Grid):
    """The multi-task experiment ``base`` once as it is and once per alternative value (a
    :class:`~fedlib.experiments.grid.Grid`, ``python -m fedlib reproduce sensitivity``, stored
    as ``sensitivity_<dataset>_<mechanism>.json``).

    Attributes
    ----------
    values : tuple of (name, values), or a mapping name -> values
        Alternative values of each swept parameter (names from :data:`PARAMETERS`; values
        distinct, different from the base's value; stored sorted).
    base : MultiTaskConfig
        The center run; default the budget sweep's base (ours on MNIST, 20 tasks, B = 60).
    """

    values: tuple[tuple[str, tuple[float, ...]], ...] = SWEEP_VALUES
    base: MultiTaskConfig = field(default_factory=_default_base)

    kind: ClassVar[str] = "sensitivity"
    result_type: ClassVar[type] = SensitivityResult
    axis: ClassVar[str] = "values"
    round_fields: ClassVar[tuple[str, ...]] = SWEEP_ROUND_FIELDS
    #: The parameters this kind of sweep may vary.
    parameters: ClassVar[tuple[str, ...]] = PARAMETERS

    def __post_init__(self) -> None:
        pairs = self.values.items() if isinstance(self.values, Mapping) else self.values
        normalised = []
        for name, values in pairs:
            _check_name(name, self.parameters)
            numbers = sorted(float(v) for v in values)
            center = parameter_value(self.base, name)
            if not numbers or len(set(numbers)) < len(numbers) or center in numbers:
                raise ValueError(f"values of {name} must be distinct, at least one, and "
                                 f"differ from the base's {center:g}; got {values!r}")
            normalised.append((name, tuple(numbers)))
        if not normalised:
            raise ValueError("values must name at least one parameter")
        object.__setattr__(self, "values", tuple(normalised))
        self.run_configs()  # every value must make a valid configuration

    @property
    def points(self) -> list[tuple[str | None, float | None]]:
        """``(parameter, value)`` of every run: ``(None, None)`` for the center run first."""
        return [(None, None), *((name, v) for name, values in self.values for v in values)]

    def run_configs(self) -> list[MultiTaskConfig]:
        """One multi-task configuration per run, in the order of :attr:`points`."""
        return [self.base if name is None else with_parameter(self.base, name, value)
                for name, value in self.points]

    def run_labels(self) -> list[str]:
        return ["center" if name is None else f"{name}{value:g}" for name, value in self.points]

    def axis_json(self) -> dict[str, list[float]]:
        return {name: list(values) for name, values in self.values}



def budget_config(config: SensitivityConfig) -> BudgetSweepConfig:
    """The budget sweep around the same base: the budget dimension of ``config``."""
    return BudgetSweepConfig(base=config.base)


# ---------------------------------------------------------------------- comparing runs


def outcomes(run: MultiTaskResult) -> dict[str, Any]:
    """What a run achieved, over its evaluated tasks.

    Returns
    -------
    dict
        ``share``: Table 2's share of dacc 1.0 workers among the selected; ``loss``: Table 3's
        mean final test loss; ``winners``: mean winners per task; ``group_paid``: for each
        data accuracy, the mean total paid to the group per task; ``paid``: the mean total paid
        per task (the sum of ``group_paid``); ``budget``; ``used``: ``paid / budget``;
        ``max_paid``: the largest total paid in any task of the run (evaluated or not).
    """
    config, evaluated = run.config, run.evaluated
    group_paid = {float(d): 0.0 for d, _ in config.groups}
    for record in evaluated:
        for worker, paid in zip(record["winners"], record["payments"], strict=True):
            group_paid[float(config.daccs[worker])] += paid / len(evaluated)
    paid = sum(group_paid.values())
    return {
        "share": table_summaries.table2(run),
        "loss": table_summaries.table3(run),
        "winners": float(np.mean([len(r["winners"]) for r in evaluated])),
        "group_paid": group_paid,
        "paid": paid,
        "budget": config.budget,
        "used": paid / config.budget,
        "max_paid": max(sum(r["payments"]) for r in run.records),
    }


def sensitivity_rows(result: SensitivityResult,
                     budgets: BudgetSweepResult | None = None) -> list[dict[str, Any]]:
    """One row per (parameter, value), the center run counted once per parameter.

    Each row holds ``parameter``, ``value``, ``default`` (True for the center run's value)
    and the :func:`outcomes`; parameters in the order of the sweep, values increasing, then
    the budget's rows from ``budgets`` (a budget sweep around the same base, e.g.
    :func:`budget_config` of the sweep's configuration).
    """
    rows = [{"parameter": name, "value": value,
             "default": value == parameter_value(result.config.base, name), **outcomes(run)}
            for name, _ in result.config.values for value, run in result.runs_of(name)]
    if budgets is not None:
        if budgets.config.base != budget_config(result.config).base:
            raise ValueError("budgets must be a budget sweep around the same base "
                             "configuration (e.g. sensitivity.budget_config of the sweep's)")
        rows += [{"parameter": "budget", "value": budget,
                  "default": budget == result.config.base.budget, **outcomes(run)}
                 for budget, run in zip(budgets.config.budgets, budgets.runs, strict=True)]
    return rows


def rows_of(rows: Sequence[Mapping[str, Any]], name: str) -> list[Mapping[str, Any]]:
    """The rows of parameter ``name``, by value."""
    chosen = sorted((r for r in rows if r["parameter"] == name), key=lambda r: r["value"])
    if not chosen:
        raise ValueError(f"no rows for parameter {name!r}")
    return chosen


def effects(rows: Sequence[Mapping[str, Any]], outcome: str = "share") -> dict[str, float]:
    """For each parameter, how far ``outcome`` moves over its values: max minus min of the
    outcome over its rows (NaN values, e.g. the loss of a run without winners, left out;
    NaN if all are)."""
    if outcome not in OUTCOMES:
        raise ValueError(f"outcome must be one of {OUTCOMES}, got {outcome!r}")
    values = {name: [r[outcome] for r in rows
                     if r["parameter"] == name and np.isfinite(r[outcome])]
              for name in dict.fromkeys(row["parameter"] for row in rows)}
    return {name: float(np.ptp(v)) if v else float("nan") for name, v in values.items()}


def ranking(rows: Sequence[Mapping[str, Any]], outcome: str = "share") -> list[tuple[str, float]]:
    """The parameters by their effect on ``outcome`` (:func:`effects`), largest first (ties
    in the sweep's order, NaN last)."""
    moved = effects(rows, outcome)
    return sorted(moved.items(), key=lambda item: -item[1] if np.isfinite(item[1]) else np.inf)


def split_by_effect(rows: Sequence[Mapping[str, Any]], outcome: str,
                    threshold: float) -> tuple[list[str], list[str]]:
    """The parameters that move ``outcome`` by at least ``threshold`` and those that move it
    by less (each largest first)."""
    ranked = ranking(rows, outcome)
    return ([n for n, e in ranked if e >= threshold], [n for n, e in ranked if not e >= threshold])


def first_task(result: SensitivityResult) -> dict[str, dict[str, bool]]:
    """Where each parameter enters the first task: for every run but the center, whether its
    first task's ``winners``, ``training`` (the global model's test losses), ``re`` (winners'
    internal reputations), ``payments`` and ``Re`` (everyone's reputation after the task)
    differ from the center run's.

    Every run starts from the same ``Re^0`` for all workers, so Algorithm 1 ranks by bid alone
    and the first winners cannot depend on any swept parameter; ``beta1``, ``beta2`` and
    ``Re^0`` act only after the training, and only ``delta`` changes the aggregation.

    Returns
    -------
    dict
        ``"<parameter>=<value>"`` -> quantity -> True when it differs.
    """
    center = result.center.records[0]
    out = {}
    for (name, value), run in zip(result.config.points[1:], result.runs[1:], strict=True):
        record = run.records[0]
        out[f"{name}={value:g}"] = {
            "winners": record["winners"] != center["winners"],
            "training": record["rounds"]["test_loss"] != center["rounds"]["test_loss"],
            "re": record["re"] != center["re"],
            "payments": record["payments"] != center["payments"],
            "Re": record["Re"] != center["Re"],
        }
    return out


def first_task_claims(result: SensitivityResult) -> list[Claim]:
    """What the equations say about the first task (the book's claims, beyond the paper),
    checked on the runs' records; each statement gives its reason. A claim about a parameter
    the sweep leaves alone holds trivially.
    """
    swept = [name for name, _ in result.config.values]
    diff = first_task(result)

    def same(where: str, statement: str, quantity: str, names: Sequence[str]) -> Claim:
        runs = [key for key in diff if key.split("=")[0] in names]
        changed = [key for key in runs if diff[key][quantity]]
        finding = (f"differs from the center run in {', '.join(changed)}" if changed else
                   f"the same as the center run in all {len(runs)} runs")
        return Claim.from_checks(where, statement, finding, [not changed])

    def monotone(where: str, statement: str, name: str, field_name: str, sign: int) -> Claim:
        if name not in swept:
            return Claim.from_checks(where, statement, f"{name} is not swept", [True])
        runs = result.runs_of(name)
        series = [np.asarray(run.records[0][field_name], dtype=float) for _, run in runs]
        if field_name == "Re":  # the winners' move away from Re^0
            series = [np.abs(q[run.records[0]["winners"]] - run.config.initial_reputation)
                      for q, (_, run) in zip(series, runs, strict=True)]
        against = int(np.sum(~(sign * np.diff(np.array(series), axis=0) >= -1e-12)))
        finding = (f"mean over the winners of {'re' if field_name == 're' else '|Re - Re^0|'}"
                   f" at {name} = {', '.join(f'{v:g}' for v, _ in runs)}: "
                   f"{', '.join(f'{q.mean():.4f}' for q in series)}"
                   + (f"; {against} steps the other way" if against else ""))
        return Claim.from_checks(where, statement, finding, [against == 0])

    return [
        same("Algorithm 1 (first task)", "every run selects the same first winners "
             "(everyone starts at Re^0: b_k / Re^0 <= B / (k Re^0) compares bids alone)",
             "winners", PARAMETERS),
        same("Section 4.2, aggregation (first task)", "every run but delta's trains the same "
             "models (only the quality check shapes the aggregation; theta enters after the "
             "training, the others later still)", "training",
             [p for p in PARAMETERS if p != "delta"]),
        same("Section 4.2, re (first task)", "the beta1, beta2 and Re^0 runs reveal the "
             "center's internal reputations re", "re", ("beta1", "beta2", "initial_reputation")),
        monotone("Eq. (4) (first task)", "every winner's re is non-decreasing in theta (the "
                 "trust input grows with theta for a worker with passes and failures)",
                 "theta", "re", +1),
        monotone("Eqs. (11)-(13) (first task)", "a winner's reputation moves away from Re^0 "
                 "(by alpha |re - Re^0|, Eq. 13) no less as beta1 grows (alpha falls with "
                 "g(1), which falls with beta1)", "beta1", "Re", +1),
        monotone("Eqs. (11)-(13) (first task)", "a winner's reputation moves away from Re^0 "
                 "no more as beta2 grows (g(1) grows with beta2)", "beta2", "Re", -1),
    ]
