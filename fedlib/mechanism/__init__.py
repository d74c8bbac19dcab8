"""The paper's mathematics: contribution, quality check, reputation, Algorithm 1, benchmarks.

numpy only: importing this package never imports torch. Equation numbers count the paper's
displayed equations in order (listed in :mod:`fedlib.paper`): (1) utility, (2) sample weight,
(3) contribution, (4) Gompertz input, (5) internal reputation, (6) moving average, (7) n+,
(8) n-, (9) Re_i - Re_j, (10) h, (11) g, (12) alpha, (13) Re update, (14) rho*, (15) p_up,
(16) p_i. Where the paper is silent or ambiguous, the reading implemented here is listed in
:data:`fedlib.paper.readings.READINGS`.

Modules: ``contribution`` (Eqs. (2)-(3)), ``quality`` (quality check, omega), ``reputation``
(Eqs. (4)-(13)), ``auction`` (Algorithm 1, Eqs. (14)-(16)), ``mechanisms`` (ours and the six
benchmarks), ``property_rules`` (each economic property once: meaning and margin),
``instances`` and ``properties`` (empirical property checks), ``synthetic``
(Figures 4-5).
"""

from fedlib.mechanism.auction import Auction, ex_ante_payments, ex_post_payments, select
from fedlib.mechanism.contribution import (
    contributions,
    own_label_contributions,
    round_contributions,
    sample_weights,
    task_contributions,
)
from fedlib.mechanism.instances import Instance, random_instance, random_instances
from fedlib.mechanism.mechanisms import (
    MECHANISMS,
    RRAFL,
    Allocation,
    ApproximateOptimal,
    BidGreedy,
    Mechanism,
    MechanismBase,
    OurMechanism,
    ProportionalShare,
    ReputationGreedy,
    VanillaFL,
)
from fedlib.mechanism.properties import (
    IRReport,
    PropertyReport,
    Witness,
    budget_feasibility,
    deviation_grid,
    find_truthfulness_counterexample,
    individual_rationality,
    outcome,
    truthfulness,
)
from fedlib.mechanism.property_rules import CLAIMABLE, PROPERTIES, Played, Property
from fedlib.mechanism.quality import (
    aggregation_weights,
    detection_scores,
    leave_one_out_pass,
    quality_scores,
)
from fedlib.mechanism.reputation import (
    ReputationLedger,
    attenuation,
    g,
    gompertz_trust,
    h,
    internal_reputation,
    trust_input,
    update_counters,
    update_reputation,
)
from fedlib.mechanism.synthetic import synthetic_instance, utility_per_payment

__all__ = [
    "CLAIMABLE", "MECHANISMS", "PROPERTIES", "RRAFL", "Allocation", "ApproximateOptimal",
    "Auction", "BidGreedy", "IRReport", "Instance", "Mechanism", "MechanismBase", "OurMechanism",
    "Played", "Property", "PropertyReport",
    "ProportionalShare", "ReputationGreedy", "ReputationLedger", "VanillaFL", "Witness",
    "aggregation_weights", "attenuation", "budget_feasibility", "contributions",
    "detection_scores", "deviation_grid", "ex_ante_payments", "ex_post_payments",
    "find_truthfulness_counterexample", "g", "gompertz_trust", "h", "individual_rationality",
    "internal_reputation", "leave_one_out_pass", "outcome", "own_label_contributions",
    "quality_scores", "random_instance", "random_instances", "round_contributions",
    "sample_weights", "select", "synthetic_instance",
    "task_contributions", "truthfulness", "trust_input", "update_counters", "update_reputation",
    "utility_per_payment",
]
