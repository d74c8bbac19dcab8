"""How far a recomputed number may differ from the stored one: on the same machine, and on another.

float32 kernels round differently on another CPU model, instruction set, torch or numpy build,
thread count or a GPU, and the differences grow through training. :data:`FOREIGN_TOLERANCE`
holds the cross-machine tolerance of each family of run and record field, as a :class:`Drift`
that grows per round of training behind a value; :data:`SAME_TOLERANCE` the rule for the
environment that made a result. :mod:`fedlib.storage.comparison` applies them.
"""

from __future__ import annotations

import math
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Any


@dataclass(frozen=True)
class Tolerance:
    """``|stored - recomputed| <= atol + rtol * |stored|``."""

    rtol: float
    atol: float

    def allowed(self, stored: float) -> float:
        """The largest difference this tolerance accepts at ``stored``."""
        return self.atol + self.rtol * abs(stored)


@dataclass(frozen=True)
class Drift:
    """A tolerance that grows with the training behind a value, as float noise does.

    ``rtol`` and ``atol`` after one round of training, times ``growth`` for every further
    round, at most ``cap``: float32 differences between machines start near the rounding error
    and grow by a roughly constant factor per round (slowly for the MNIST model, about fourfold
    per round for the near-chance LeNet-5 of Fashion-MNIST), so a fixed tolerance would either
    reject the last rounds or accept any change in the first ones. The noise grows with every
    pass of local training over the data, so a round of ``e`` local epochs counts as ``e``
    rounds of the paper's one epoch (verification counts epochs of local training).
    """

    rtol: float
    atol: float
    growth: float = 1.0
    cap: float = math.inf

    def after(self, rounds: int) -> Tolerance:
        """The tolerance of a value with ``rounds`` rounds (epochs) of training behind it."""
        scale = self.growth ** max(rounds - 1, 0)
        return Tolerance(min(self.cap, self.rtol * scale), min(self.cap, self.atol * scale))


#: The same environment: every number to 1e-6 relative (and 1e-12 absolute, for exact zeros).
SAME_TOLERANCE = {"default": Drift(1e-6, 1e-12)}
#: Cross-machine tolerances by family of run (:func:`family`) and record field (``default`` for
#: the others: contributions, reputations, payments, bids). Each is about 10 times the envelope
#: of the drift measured between CPU kinds on the stored files
#: (``benchmarks/recorded/cross_machine_drift_amd-epyc-zen3-zen4_2026-11-26_e54473d.txt``),
#: so that a real change of the code (the mutations of ``tests/storage/test_verification.py``)
#: still fails.
FOREIGN_TOLERANCE: dict[str, dict[str, Drift]] = {
    "numpy": {"default": Drift(1e-9, 1e-12)},
    "mnist": {
        "default": Drift(5.5e-7, 1e-9, 2.52, 2.2e-3),
        "omega": Drift(0.0, 9.9e-5, 4.3, 2.8e-3),
        "margin": Drift(0.0, 3.1e-5, 2.52, 2.3e-3),
        "test_loss": Drift(1.5e-5, 0.0, 2.52, 1e-3),
        "test_acc": Drift(0.0, 1e-3, 2.52, 6e-3),
    },
    "fashion": {
        "default": Drift(1.3e-8, 1e-9, 6.95, 0.45),
        "omega": Drift(0.0, 3.9e-4, 3.8, 0.41),
        # The per-round contributions (stored by the cold-start map only) are omega before its
        # renormalisation over the passing workers, on the same scale: omega's drift, which
        # holds, with a safety factor of at least 3.8 before the noise saturates and 1.3 after,
        # over the drift measured on that map between the H100 that made it and two CPU kinds,
        # and between those CPU kinds.
        "contrib": Drift(0.0, 3.9e-4, 3.8, 0.41),
        "margin": Drift(0.0, 9.6e-6, 6.95, 0.47),
        "test_loss": Drift(1.3e-5, 0.0, 6.95, 0.2),
        "test_acc": Drift(0.0, 1e-3, 6.95, 0.39),
    },
}


#: The Shapley ground truth (:mod:`fedlib.experiments.shapley_truth`) on the accuracy game: how
#: many validation samples a coalition's utility (a validation accuracy, a multiple of
#: ``1 / n_val``) may gain or lose on another machine, after each round of training. An
#: accuracy moves only when float noise tips a validation image's prediction from one class to
#: another, so the drift counts images. Measured with ``benchmarks/shapley_drift.py`` on the
#: first two tasks of ``results/shapley_mnist.json`` (seed 0, Cases 1 and 2, all 2 x 10 games
#: of 1024 coalitions), recomputed on an AMD EPYC Zen 3 natively (AVX2) and with torch, MKL and
#: oneDNN held to SSE4 (``ATEN_CPU_CAPABILITY=default MKL_ENABLE_INSTRUCTIONS=SSE4_2
#: ONEDNN_MAX_CPU_ISA=SSE41``): the largest move of a coalition's utility was 1 image in round
#: 1 (one coalition of 2048 moved), 2 and 4 in rounds 2 and 3, at most 6 over the ten rounds.
#: As for :data:`FOREIGN_TOLERANCE`, this is 10 times the tightest envelope
#: ``min(start * growth**(rounds - 1), cap)`` of that drift (start 1, growth 2, cap 6). CI
#: verifies the file's first round, where it allows 10 images (0.2 points of accuracy): a code
#: change that moves every utility by fewer images is caught only in the environment that made
#: the file, while another seed of the training's or of the Monte-Carlo's random stream fails
#: this tolerance by far on that file (checked by hand on 2026-11-29).
SHAPLEY_SAMPLES = Drift(0.0, 10.0, 2.0, 60.0)
#: Per field of a Shapley record, how many utilities' moves bound its own: a utility (the empty
#: and the full coalition's, a worker's own model's) moves by one; a difference of two
#: (leave-one-out) by two, and so does a Shapley value, exact or sampled, whose weights over
#: the marginal contributions ``v(S + i) - v(S)`` sum to one; the Monte-Carlo error, the
#: difference of two Shapley values, by four.
SHAPLEY_FIELDS = {"v_empty": 1, "v_full": 1, "local": 1, "loo": 2, "shapley": 2,
                  "monte_carlo": 2, "mc_error": 4}
#: The fields of a Shapley record that are contributions of Eq. (3), as ``omega`` is in a
#: Tables run: the paper's weights and equal weights.
CONTRIBUTION_FIELDS = ("ours", "equal")


def foreign_drifts(config: Mapping[str, Any]) -> dict[str, Drift]:
    """The cross-machine tolerance of each field of a stored configuration's records: its
    :func:`family`'s, and for the Shapley ground truth the utilities' of
    :data:`SHAPLEY_FIELDS`, per validation sample of :data:`SHAPLEY_SAMPLES` (on the accuracy
    game) or, on the negative-loss game, as the family's loss drifts: the test loss's relative
    tolerance on a loss of ``ln 10``, an untrained 10-class model's (on the first round's game
    of ``results/shapley_mnist.json``, SSE4 against AVX2 moved a utility by 70 times less).
    Its contributions of Eq. (3) (:data:`CONTRIBUTION_FIELDS`: ours and the equal-weight
    benchmark, from float32 probabilities) take the family's ``omega`` drift, measured on the
    same contributions of the Tables runs: under the family's default, an Intel Xeon
    (AVX-512) moved them by 2e-6 in the first round against the file's AMD EPYC (AVX2), 3.8
    times that default's tolerance (CI on 2026-12-01), and 50 times less than ``omega``'s."""
    drifts = FOREIGN_TOLERANCE[family(config)]
    if config.get("experiment") != "shapley":
        return drifts
    if config["utility"] == "accuracy":
        unit = Drift(0.0, SHAPLEY_SAMPLES.atol / config["n_val"], SHAPLEY_SAMPLES.growth,
                     SHAPLEY_SAMPLES.cap / config["n_val"])
    else:
        loss = drifts["test_loss"]
        unit = Drift(0.0, loss.rtol * math.log(10), loss.growth, loss.cap * math.log(10))
    return {**drifts, **{name: drifts["omega"] for name in CONTRIBUTION_FIELDS},
            **{name: Drift(0.0, n * unit.atol, unit.growth, n * unit.cap)
               for name, n in SHAPLEY_FIELDS.items()}}


def family(config: Mapping[str, Any]) -> str:
    """The tolerance family of a stored configuration: its dataset (``"mnist"``, the fully
    connected model, or ``"fashion"``, LeNet-5, whose near-chance runs are chaotic), or
    ``"numpy"`` for the auction sweeps, which train nothing (float64 numpy only)."""
    dataset = config.get("dataset") or config.get("base", {}).get("dataset")
    return str(dataset) if dataset else "numpy"


#: What each field of a stored record is, for :func:`tolerance_rows`.
FIELD_LABELS = {"default": "contributions, reputations, payments", "omega": "weights omega",
                "contrib": "contributions per round",
                "margin": "leave-one-out margins", "test_loss": "test loss",
                "test_acc": "test accuracy"}


def tolerance_rows(rounds: Sequence[int] = (1, 5, 10)) -> list[dict[str, str]]:
    """The cross-machine tolerance of every trained family and field after ``rounds`` rounds
    of training, one row each (for the book)."""
    rows = []
    for family_name in ("mnist", "fashion"):
        for name, drift in FOREIGN_TOLERANCE[family_name].items():
            relative = drift.rtol > 0
            row = {"dataset": family_name, "value": FIELD_LABELS[name],
                   "tolerance": "relative" if relative else "absolute",
                   "growth per round": f"{drift.growth:g}"}
            for r in rounds:
                after = drift.after(r)
                row[f"after {r} round{'s' if r > 1 else ''}"] = (
                    f"{after.rtol if relative else after.atol:.1e}")
            rows.append(row)
    return rows


def near_tie_width(family_name: str, rounds: int) -> float:
    """How close to the threshold a leave-one-out margin with ``rounds`` rounds of training
    behind it may lie and still flip on another machine: the margins' cross-machine tolerance
    there (margins are differences of losses, and drift like them)."""
    return FOREIGN_TOLERANCE[family_name]["margin"].after(rounds).atol
