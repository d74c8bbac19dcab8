"""A mechanism defined outside fedlib: the protocol it must fit, loading it, and playing it
without trusting it.

**The protocol** is the interface of :data:`fedlib.mechanism.MECHANISMS`
(:class:`fedlib.mechanism.Mechanism`), checked structurally: any object with these members
fits, whatever its class derives from.

* ``name`` (str): a key for the registry and for file names (letters, digits, ``_.-``), not
  one of the built-ins';
* ``label`` (str): the name in figures and tables;
* ``claims``: the properties it claims, names of :data:`CLAIMABLE` (Theorems 1, 2 and 4,
  the critical-bid lemma's monotonicity, Theorem 3's running time);
* ``select(bids, Re, budget, *, costs=None, rng=None)``: whom it hires before the task, an
  allocation with ``selected`` (boolean mask, one entry per worker) and ``winners`` (their
  indices), such as a :class:`fedlib.mechanism.Allocation`; ``costs`` are the true costs
  (used only by a mechanism that ``knows = "costs"``), ``rng`` seeds a randomised one;
* ``pay(allocation, re)``: the payments after the task given the internal reputations ``re``
  (Eq. (5)) the workers delivered, one per worker, finite, non-negative, 0 for losers;
* ``knows``: ``"bids"``, or ``"costs"`` for a full-information benchmark (handed the true
  costs as ``costs``).

Both methods must be pure: the kit calls them many times on the same inputs. A worker's
utility is ``payment - cost`` if it wins, else 0 (Eq. (1)). :class:`MechanismBase` (the
built-ins' base, defined in :mod:`fedlib.mechanism.mechanisms`) is a convenience, not a
requirement; :func:`conform` checks an object, :func:`load` reads one.

**Playing it**: :class:`Player` calls ``select`` and ``pay`` and checks what they return; an
exception, a NaN, a negative payment, a payment to a loser or an array of the wrong shape
becomes a :class:`MechanismFault` carrying one line that says what went wrong, which the kit
reports with the instance instead of a traceback.
"""

from __future__ import annotations

import importlib
import importlib.util
import inspect
import re
import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import numpy as np

from fedlib.mechanism import CLAIMABLE, MECHANISMS, PROPERTIES, Instance, MechanismBase
from fedlib.mechanism.property_rules import utility

#: What each property of :data:`PROPERTIES` means: the definition the search checks on each
#: play it tries (a finite search can refute it, not prove it; the certificate says what was
#: searched).
DESCRIPTIONS: dict[str, str] = {name: p.description for name, p in PROPERTIES.items()}
#: A claim that implies others: every worker includes the honest ones.
IMPLIES: dict[str, tuple[str, ...]] = {name: p.implies for name, p in PROPERTIES.items()
                                       if p.implies}
#: The form of a mechanism's name.
NAME = re.compile(r"^[A-Za-z0-9_][A-Za-z0-9_.-]*$")
#: Where to read how a mechanism must look, named in every refusal.
SEE = "see fedlib.conformance.MechanismBase"
#: The prefix of the name under which :func:`load` imports a file (it is no importable module).
USER_MODULE = "fedlib_user_"
#: Payments below ``-TOLERANCE * scale``, or above ``TOLERANCE * scale`` for a loser, are faults.
TOLERANCE = 1e-12


def claimed(claims: Iterable[str]) -> frozenset[str]:
    """``claims`` with what they imply (:data:`IMPLIES`) and the required properties
    (``well_defined``).

    >>> sorted(claimed(["ir", "budget_feasible"]))
    ['budget_feasible', 'ir', 'ir_honest', 'well_defined']
    """
    claims = frozenset(claims)
    unknown = sorted(claims - set(PROPERTIES))
    if unknown:
        raise ValueError(f"unknown claims {unknown}: a mechanism may claim {CLAIMABLE}")
    return claims.union(*(PROPERTIES[c].implies for c in claims),
                        (name for name, p in PROPERTIES.items() if p.required))


def _missing(obj: Any) -> list[str]:
    """What ``obj`` (a class or an instance) lacks of the protocol, one phrase each."""
    missing = []
    for method, signature in (("select", "select(bids, Re, budget, *, costs=None, rng=None)"),
                              ("pay", "pay(allocation, re)")):
        function = getattr(obj, method, None)
        cls = obj if isinstance(obj, type) else type(obj)
        if not callable(function) or (  # MechanismBase's select needs a _select of its own
                method == "select" and issubclass(cls, MechanismBase)
                and cls.select is MechanismBase.select and cls._select is MechanismBase._select):
            missing.append(signature)
            continue
        try:
            parameters = inspect.signature(function)
        except (TypeError, ValueError):  # a builtin without a signature: trust it
            continue
        arguments = ((1, 1, 1.0), {"costs": None, "rng": None}) if method == "select" else \
            ((None, None), {})
        try:
            parameters.bind(*(["self"] if isinstance(obj, type) else []), *arguments[0],
                            **arguments[1])
        except TypeError:
            missing.append(f"{signature} (it takes {method}{parameters})")
    for attribute in ("name", "label"):
        if not (hasattr(obj, attribute) if isinstance(obj, type)
                else isinstance(getattr(obj, attribute, None), str)):
            missing.append(f"{attribute} (a str)")
    if not hasattr(obj, "claims"):
        missing.append(f"claims (a set of {CLAIMABLE})")
    if getattr(obj, "knows", None) not in ("bids", "costs"):
        missing.append("knows ('bids' or 'costs')")
    return missing


def conform(obj: Any) -> Any:
    """``obj`` as a mechanism of the protocol: an instance that fits, or a class that fits,
    created without arguments; otherwise a ValueError of one line naming everything missing or
    wrong (members, signatures, ``knows``, the name, unknown claims)."""
    what = obj.__name__ if isinstance(obj, type) else type(obj).__name__
    missing = _missing(obj)
    if missing:
        raise ValueError(f"{what} does not fit the mechanism protocol: it lacks "
                         f"{'; '.join(missing)} ({SEE})")
    if isinstance(obj, type):
        try:
            obj = obj()
        except TypeError as error:
            raise ValueError(f"{what} cannot be created without arguments ({error}): pass an "
                             "instance, e.g. MODULE:NAME where NAME = {what}(...)") from None
        missing = _missing(obj)
        if missing:
            raise ValueError(f"{what}() does not fit the mechanism protocol: it lacks "
                             f"{'; '.join(missing)} ({SEE})")
    if not NAME.match(obj.name):
        raise ValueError(f"{what}.name must be letters, digits and _.- (it names files), got "
                         f"{obj.name!r}")
    if obj.name in MECHANISMS and MECHANISMS[obj.name] != obj:
        raise ValueError(f"{what}.name {obj.name!r} is a built-in mechanism's: choose another")
    try:
        claimed(obj.claims)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what}.claims: {error}") from None
    return obj


def load(spec: str) -> Any:
    """The mechanism named by ``spec``: ``PATH.py:NAME`` (a file anywhere) or ``MODULE:NAME``
    (an importable module), where NAME is a class (created without arguments) or an object;
    a ValueError of one line says what is wrong (an import that failed gives its error, what
    NAME lacks is :func:`conform`'s)."""
    source, colon, attribute = spec.rpartition(":")
    if not colon or not source or not attribute:
        raise ValueError(f"expected PATH.py:CLASS or MODULE:CLASS, got {spec!r}")
    path = Path(source)
    if source.endswith(".py") and not path.is_file():
        raise ValueError(f"no file {source!r}")
    if not source.endswith(".py") and importlib.util.find_spec(source.split(".")[0]) is None:
        raise ValueError(f"no module {source!r} (a file needs the .py suffix)")
    try:
        if source.endswith(".py"):
            name = f"{USER_MODULE}{re.sub(r'[^0-9A-Za-z_]', '_', path.stem)}"
            module_spec = importlib.util.spec_from_file_location(name, path)
            module = importlib.util.module_from_spec(module_spec)  # type: ignore[arg-type]
            sys.modules[name] = module  # dataclasses and pickling look the module up by name
            module_spec.loader.exec_module(module)  # type: ignore[union-attr]
        else:
            module = importlib.import_module(source)
    except Exception as error:  # the user's code: any error is reported in one line
        raise ValueError(f"importing {source!r} raised {type(error).__name__}: {error}") from None
    if not hasattr(module, attribute):
        raise ValueError(f"{source!r} has no {attribute!r}")
    return conform(getattr(module, attribute))


class MechanismFault(Exception):
    """A mechanism's call failed or returned something invalid; ``str`` is one line."""


@dataclass(frozen=True, eq=False)
class Play:
    """One play of a mechanism: the reported bids and delivered ``re``, and the outcome.

    Attributes
    ----------
    bids, re : numpy.ndarray
        What the workers reported and delivered.
    selected : numpy.ndarray of bool or None
        The winners (None after a fault in ``select``).
    payments : numpy.ndarray or None
        The payments (None after a fault).
    fault : str or None
        What went wrong, one line.
    """

    bids: np.ndarray
    re: np.ndarray
    selected: np.ndarray | None
    payments: np.ndarray | None
    fault: str | None = None

    def utility(self, worker: int, cost: float) -> float:
        """Eq. (1): ``payment - cost`` if ``worker`` won, else 0."""
        assert self.selected is not None and self.payments is not None
        return utility(self, worker, cost)


class Player:
    """Plays a mechanism on instances, turning whatever goes wrong into a
    :class:`MechanismFault`.

    Parameters
    ----------
    mechanism
        An object of the protocol (see :func:`conform`).
    """

    def __init__(self, mechanism: Any) -> None:
        self.mechanism = mechanism

    def select(self, instance: Instance, bids: np.ndarray) -> tuple[Any, np.ndarray]:
        """The allocation for ``bids`` (the instance's ``Re``, budget and costs) and its
        selected mask."""
        try:
            allocation = self.mechanism.select(bids.copy(), instance.Re.copy(), instance.budget,
                                               costs=instance.costs.copy(), rng=instance.rng())
        except Exception as error:  # the user's code: any error is a fault
            raise MechanismFault(f"select raised {type(error).__name__}: {error}") from None
        selected = getattr(allocation, "selected", None)
        if selected is None or not hasattr(allocation, "winners"):
            raise MechanismFault(f"select returned a {type(allocation).__name__} without "
                                 "selected and winners (return an Allocation)")
        mask = np.asarray(selected)
        if mask.dtype != bool or mask.shape != bids.shape:
            raise MechanismFault(f"select's selected is {mask.dtype} of shape {mask.shape}, "
                                 f"expected bool of shape {bids.shape}")
        winners = np.asarray(allocation.winners).reshape(-1)
        if sorted(winners.tolist()) != np.flatnonzero(mask).tolist():
            raise MechanismFault(f"select's winners {winners.tolist()} disagree with its "
                                 f"selected mask {np.flatnonzero(mask).tolist()}")
        return allocation, mask

    def pay(self, instance: Instance, allocation: Any, selected: np.ndarray,
            re: np.ndarray) -> np.ndarray:
        """The payments of ``allocation`` for the delivered ``re``, checked."""
        try:
            payments = np.asarray(self.mechanism.pay(allocation, re.copy()), dtype=float)
        except Exception as error:  # the user's code: any error is a fault
            raise MechanismFault(f"pay raised {type(error).__name__}: {error}") from None
        if payments.shape != re.shape:
            raise MechanismFault(f"pay returned shape {payments.shape}, expected {re.shape}")
        bad = np.flatnonzero(~np.isfinite(payments))
        if bad.size:
            raise MechanismFault(f"pay returned {payments[bad[0]]} to worker {bad[0]}")
        tolerance = TOLERANCE * instance.scale
        negative = np.flatnonzero(payments < -tolerance)
        if negative.size:
            raise MechanismFault(f"pay returned a negative payment {payments[negative[0]]:.4g}"
                                 f" to worker {negative[0]}")
        paid_losers = np.flatnonzero(~selected & (np.abs(payments) > tolerance))
        if paid_losers.size:
            raise MechanismFault(f"pay paid {payments[paid_losers[0]]:.4g} to worker "
                                 f"{paid_losers[0]}, who was not selected (losers are paid 0)")
        return payments

    def play(self, instance: Instance, bids: np.ndarray | None = None,
             re: np.ndarray | None = None) -> Play:
        """Select with ``bids`` (default: the instance's), pay for ``re`` (default: the
        instance's); a fault is recorded in the :class:`Play`, not raised."""
        bids = instance.bids if bids is None else bids
        re = instance.re if re is None else re
        try:
            allocation, selected = self.select(instance, bids)
        except MechanismFault as fault:
            return Play(bids, re, None, None, str(fault))
        try:
            return Play(bids, re, selected, self.pay(instance, allocation, selected, re))
        except MechanismFault as fault:
            return Play(bids, re, selected, None, str(fault))
