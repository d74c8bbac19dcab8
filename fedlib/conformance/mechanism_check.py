"""``check_mechanism``: search a mechanism for counterexamples to the paper's properties and
measure its regret, IR violation and budget overrun, compare it with the seven in Figures 4-5,
and optionally run it in the federated setting beside ours."""

from __future__ import annotations

import datetime
import sys
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from fedlib.checks import integer
from fedlib.conformance.certificate import Certificate
from fedlib.conformance.comparison import DEFAULT_TRIALS, compare
from fedlib.conformance.federated_run import SETTINGS, Engine, federated_config, run_federated
from fedlib.conformance.protocol import USER_MODULE, claimed, conform, load
from fedlib.conformance.report import save
from fedlib.conformance.search import search
from fedlib.fl.data import verify
from fedlib.storage.environment import fingerprint

#: Random instances searched by default (after the adversarial ones), of the sizes of
#: :data:`~fedlib.conformance.search.SIZES`: under two minutes for ours on two cores.
DEFAULT_INSTANCES = 300


def _source(mechanism: Any) -> str:
    """``MODULE:CLASS`` of a mechanism (a file imported by :func:`load`: ``PATH.py:CLASS``)."""
    kind = mechanism if isinstance(mechanism, type) else type(mechanism)
    module = sys.modules.get(kind.__module__)
    where = kind.__module__
    if module is not None and where.startswith(USER_MODULE):
        path = Path(module.__file__).resolve()
        where = str(path.relative_to(Path.cwd()) if path.is_relative_to(Path.cwd()) else path)
    return f"{where}:{kind.__qualname__}"


def _attempt(part: str, skipped: dict[str, str], run: Callable[[], Any]) -> Any:
    """``run()``, or None with why it stopped in ``skipped[part]``: the mechanism's code may
    fail on workers the search never tried (a sweep's, a federation's)."""
    try:
        return run()
    except Exception as error:  # the user's code: any error is reported in one line
        skipped[part] = f"stopped: {type(error).__name__}: {error}"
        return None


def check_mechanism(mechanism: Any, *, claims: Iterable[str] | None = None,
                    instances: int = DEFAULT_INSTANCES, seed: int = 0,
                    trials: int = DEFAULT_TRIALS, federated: str = "none",
                    engine: Engine = "batched", paper: bool = True,
                    out: str | Path | None = None) -> Certificate:
    """Search ``mechanism`` for counterexamples to its properties (and measure its regret, IR
    violation and budget overrun), compare it with the paper's seven mechanisms, optionally
    run it in a federation, and say whether the search refuted a property it claims.

    Parameters
    ----------
    mechanism : object, class or str
        A mechanism of the protocol of :mod:`fedlib.conformance.protocol` (an object, a class
        created without arguments, or ``"PATH.py:CLASS"`` / ``"MODULE:CLASS"``).
    claims : iterable of str, optional
        The properties to check, instead of the mechanism's ``claims``.
    instances : int
        Random instances searched, after the adversarial ones (default 300, of 1 to 200
        workers: :data:`~fedlib.conformance.search.SIZES`).
    seed : int
        Seed of the search, the sweeps and the federated runs.
    trials : int
        Worker pools per point of the Figures 4-5 sweeps (0: no comparison).
    federated : {"none", "fast", "mnist"}
        Also run it beside ours: the six-worker smoke federation, or the Tables 1-3 setting
        (30 workers, 50 tasks: about an hour on two cores). Needs the MNIST data.
    engine : {"batched", "flower"}
        The federated runs' engine; ``"flower"`` needs the Flower extra.
    paper : bool
        Search the paper's worked examples too.
    out : path, optional
        Write the certificate as ``<out>/<name>.json`` and ``<out>/<name>.html``
        (:func:`~fedlib.conformance.report.save`).

    Returns
    -------
    Certificate

    Raises
    ------
    fedlib.fl.data.DataError
        If a federated run is asked for and its dataset is missing or corrupted (before the
        search: the message says how to get it).

    Examples
    --------
    >>> from fedlib.mechanism import MECHANISMS
    >>> cert = check_mechanism(MECHANISMS["rrafl"], instances=5, trials=0)
    >>> cert.passed, cert.refuted
    (True, ())
    """
    mech = load(mechanism) if isinstance(mechanism, str) else conform(mechanism)
    source = mechanism if isinstance(mechanism, str) else _source(mechanism)
    wanted = claimed(mech.claims if claims is None else claims)
    if federated not in SETTINGS:
        raise ValueError(f"federated must be one of {SETTINGS}, got {federated!r}")
    integer(trials, "trials", minimum=0)
    config = None if federated == "none" else federated_config(federated, seed)
    if config is not None:  # before the search: missing data is the caller's to fix
        verify(config.dataset)
    result = search(mech, instances, seed=seed, paper=paper)
    skipped: dict[str, str] = {}
    comparison = runs = None
    if not result.verdict("well_defined").holds:
        skipped = {"comparison": "the mechanism is not well defined",
                   "federated": "the mechanism is not well defined"}
    else:
        if trials:
            comparison = _attempt("comparison", skipped, lambda: compare(mech, trials, seed))
        if config is not None:
            runs = _attempt("federated", skipped,
                            lambda: run_federated(config, mech, engine=engine))
    environment = (fingerprint("cpu") if config is None
                   else fingerprint(config.device, config.threads))
    certificate = Certificate(
        mech, source, wanted, result, comparison, runs, skipped, environment,
        datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds"))
    if out is not None:
        save(certificate, out)
    return certificate
