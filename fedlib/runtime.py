"""Process-wide switches and helpers: fast mode, progress bars, the compute device, and
independent runs in parallel processes."""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from typing import Any, TypeVar

from fedlib.checks import integer

T = TypeVar("T")


def fast_mode() -> bool:
    """True when ``FEDLIB_FAST=1``: chapters and experiments shrink to a quick smoke run."""
    return os.environ.get("FEDLIB_FAST", "0") not in ("", "0", "false", "False")


def quiet() -> bool:
    """Progress bars stay quiet in fast mode, in CI (``CI`` set) and when ``FEDLIB_QUIET=1``.

    The book build sets ``FEDLIB_QUIET=1``: a progress bar's widget would leave an empty box
    in the rendered page.
    """
    return fast_mode() or bool(os.environ.get("CI")) or os.environ.get("FEDLIB_QUIET") == "1"


def progress(iterable: Iterable[T], desc: str, total: int | None = None) -> Iterable[T]:
    """Wrap a long loop in a ``tqdm.auto`` progress bar unless :func:`quiet`."""
    from tqdm.auto import tqdm

    return tqdm(iterable, desc=desc, total=total, disable=quiet(), leave=False)


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


@contextmanager
def _sigterm_as_exit() -> Iterator[None]:
    """Within the block, SIGTERM (``kill PID``) raises ``SystemExit`` in the main thread, so
    that cleanup code runs; the previous handler is restored after."""
    main = threading.current_thread() is threading.main_thread()
    previous = signal.signal(signal.SIGTERM, _exit_on_sigterm) if main else None
    try:
        yield
    finally:
        if main:
            signal.signal(signal.SIGTERM, previous)


def parallel_map(fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], jobs: int,
                 desc: str | None = None) -> list[T]:
    """``[fn(*call) for call in calls]``, ``jobs`` calls at a time in spawned processes.

    Parameters
    ----------
    fn : callable
        A module-level function (spawned processes import it by name).
    calls : sequence of tuple
        The arguments of each call.
    jobs : int
        Processes at a time; 1 (or a single call) runs everything in this process.
    desc : str, optional
        A progress bar over the finished calls (:func:`progress`).

    Returns
    -------
    list
        The results in the order of ``calls``.

    Notes
    -----
    If the map is interrupted (Ctrl-C, a Jupyter interrupt, or SIGTERM, turned into
    ``SystemExit`` while the map runs) or a call raises, the calls not started are cancelled
    and the worker processes are terminated before the exception propagates: no worker goes on
    computing after the map has ended. Runs that checkpoint keep their finished tasks.
    """
    jobs = integer(jobs, "jobs")
    if jobs == 1 or len(calls) <= 1:
        return [fn(*call) for call in (calls if desc is None else progress(calls, desc))]
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(calls)),
                               mp_context=multiprocessing.get_context("spawn"))
    try:
        with _sigterm_as_exit():
            futures = [pool.submit(fn, *call) for call in calls]
            finished = as_completed(futures)
            for future in finished if desc is None else progress(finished, desc, len(futures)):
                future.result()  # the first failure stops the map at once
            return [future.result() for future in futures]
    except BaseException:
        workers = list((pool._processes or {}).values())  # no public handle before Python 3.14
        pool.shutdown(wait=False, cancel_futures=True)
        for worker in workers:
            worker.terminate()
        for worker in workers:
            worker.join()
        raise
    finally:
        pool.shutdown()
