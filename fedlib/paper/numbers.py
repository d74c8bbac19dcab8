"""The paper's own numbers for Tables 1-3, to print beside ours (never to compute with).

Source: Zhang, Wu and Pan, "Auction-Based Ex-Post-Payment Incentive Mechanism Design for
Horizontal Federated Learning with Reputation and Contribution Measurement", Section 6
("Experiment"): Table 1 (``tab:contribution_reward_reputation``, contribution, reputation and
payment per data accuracy, "in 50 tasks"), Table 2 (``tab:proportion_acc1``, share of the
selected workers with data accuracy 1.0, last 45 tasks) and Table 3 (``tab:loss``, average loss
of the global models), copied from the paper's LaTeX source. The paper labels Fashion-MNIST's
third row of Table 1 "Reward"; it is the same quantity as MNIST's "Payment".
"""

from __future__ import annotations

from types import MappingProxyType
from typing import Any

#: Data accuracies of Table 1's columns.
TABLE1_DACCS = (0.1, 0.4, 0.7, 1.0)
#: Table 1's rows.
TABLE1_QUANTITIES = ("contribution", "reputation", "payment")


def _freeze(mapping: dict[str, Any]) -> MappingProxyType:
    return MappingProxyType({k: _freeze(v) if isinstance(v, dict) else v
                             for k, v in mapping.items()})


#: Table 1: ``TABLE1[dataset][quantity][dacc]``.
TABLE1 = _freeze({
    "mnist": {
        "contribution": dict(zip(TABLE1_DACCS, (0.430, 0.626, 0.824, 0.988), strict=True)),
        "reputation": dict(zip(TABLE1_DACCS, (0.0, 0.421, 0.556, 0.985), strict=True)),
        "payment": dict(zip(TABLE1_DACCS, (0.0, 2.203, 2.663, 5.533), strict=True)),
    },
    "fashion": {
        "contribution": dict(zip(TABLE1_DACCS, (0.734, 0.785, 0.867, 0.929), strict=True)),
        "reputation": dict(zip(TABLE1_DACCS, (0.291, 0.549, 0.666, 0.905), strict=True)),
        "payment": dict(zip(TABLE1_DACCS, (0.999, 2.539, 3.235, 5.527), strict=True)),
    },
})

#: Table 2: ``TABLE2[mechanism][dataset]``, share of selected workers with dacc 1.0.
TABLE2 = _freeze({
    "ours": {"mnist": 1.000, "fashion": 1.000},
    "rrafl": {"mnist": 1.000, "fashion": 1.000},
    "vanilla": {"mnist": 0.4903, "fashion": 0.4879},
    "bid_greedy": {"mnist": 0.2830, "fashion": 0.3134},
    "reputation_greedy": {"mnist": 0.9512, "fashion": 0.9602},
})

#: Table 3: ``TABLE3[mechanism][dataset]``, average loss of the global model.
TABLE3 = _freeze({
    "ours": {"mnist": 0.3747, "fashion": 0.8924},
    "rrafl": {"mnist": 0.3749, "fashion": 0.8944},
    "vanilla": {"mnist": 0.4409, "fashion": 1.0082},
    "bid_greedy": {"mnist": 0.4977, "fashion": 1.1585},
    "reputation_greedy": {"mnist": 0.3769, "fashion": 0.8942},
})
