"""Bring your own mechanism: certify its properties against the paper's, compare it with the
seven of Figures 4-5, and run it in the federated setting.

:func:`check_mechanism` takes any object of the mechanism protocol
(:mod:`fedlib.analysis.conformance`; :class:`MechanismBase`, the built-ins' base, is a
convenient one) or a
``PATH.py:CLASS`` / ``MODULE:CLASS`` string, searches random and adversarial instances for
counterexamples to budget feasibility, individual rationality, truthfulness (misreported bids
and delivering less than it can), monotonicity and running time
(:mod:`fedlib.analysis.conformance_search`), and returns a :class:`Certificate`;
``python -m fedlib check-mechanism`` is its command line. The layer sits above
:mod:`fedlib.viz` and :mod:`fedlib.flower` and below :mod:`fedlib.cli`; the federated
pipeline (torch, Flower) is imported only when a federated run is asked for.
"""

from fedlib.analysis.conformance import conform, load
from fedlib.conformance.certificate import Certificate
from fedlib.conformance.check import check_mechanism
from fedlib.mechanism import MechanismBase

__all__ = ["Certificate", "MechanismBase", "check_mechanism", "conform", "load"]
