"""fedlib: the reputation-and-contribution auction for horizontal federated learning.

Reference implementation of Zhang, Wu and Pan, *Auction-Based Ex-Post-Payment Incentive
Mechanism Design for Horizontal Federated Learning with Reputation and Contribution
Measurement*. ``fedlib/README.md`` maps its layers (which depend downwards only, as
``tests/test_layers.py`` checks), what each holds and which module to open for which change.
``fedlib.mechanism`` and ``fedlib.analysis`` are numpy only and never import torch.

``fedlib.check_mechanism`` (:func:`fedlib.conformance.check_mechanism`) certifies a mechanism
of one's own; it is imported on first use, so that ``import fedlib`` stays light and the
package's root imports no layer.
"""

import importlib
from typing import Any

__version__ = "0.1.0"


def __getattr__(name: str) -> Any:
    if name == "check_mechanism":
        return importlib.import_module("fedlib.conformance").check_mechanism
    raise AttributeError(f"module 'fedlib' has no attribute {name!r}")
