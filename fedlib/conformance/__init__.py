"""Bring your own mechanism: certify its properties against the paper's, compare it with the
seven of Figures 4-5, and run it in the federated setting.

:func:`check_mechanism` takes any object of the mechanism protocol
(:mod:`fedlib.conformance.protocol`; :class:`MechanismBase`, the built-ins' base, is a
convenient one) or a
``PATH.py:CLASS`` / ``MODULE:CLASS`` string, searches random and adversarial instances for
counterexamples to budget feasibility, individual rationality, truthfulness (misreported bids
and delivering less than it can), monotonicity and running time
(:mod:`fedlib.conformance.search`, with the exact best response of
:mod:`fedlib.conformance.best_response`), and returns a :class:`Certificate`;
``python -m fedlib check-mechanism`` is its command line.

The kit has two ranks. Its protocol, search and best response compute with numpy alone and
rank with :mod:`fedlib.analysis`, below :mod:`fedlib.experiments`; the rest (the certificate,
the comparison with the seven, the federated run, figures, report, explorer) sits above
:mod:`fedlib.viz` and :mod:`fedlib.flower` and below :mod:`fedlib.cli`. Importing this package
therefore loads only the numpy half: :func:`check_mechanism` and :class:`Certificate` are
imported when first used (the federated pipeline, torch and Flower, only when a federated run
is asked for).
"""

import importlib
from typing import Any

from fedlib.conformance.protocol import conform, load
from fedlib.mechanism import MechanismBase

__all__ = ["Certificate", "MechanismBase", "check_mechanism", "conform", "load"]


def __getattr__(name: str) -> Any:
    """``check_mechanism`` and ``Certificate``, imported on first use (matplotlib comes with
    them); the module names are literal, so that ``tests/test_layers.py`` reads them."""
    if name == "Certificate":
        return importlib.import_module("fedlib.conformance.certificate").Certificate
    if name == "check_mechanism":
        return importlib.import_module("fedlib.conformance.mechanism_check").check_mechanism
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def __dir__() -> list[str]:
    return sorted(set(globals()) | set(__all__))
