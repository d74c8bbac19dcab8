"""Process-wide switches and helpers: fast mode, progress bars, the compute device, atomic file
writes, and independent runs in parallel processes, or as tasks on a Ray cluster.

:func:`parallel_map` runs its calls in spawned processes on this machine. Within
``with RayExecutor():`` it hands them to Ray instead (``python -m fedlib reproduce --executor
ray``): each call is a Ray task of one CPU, placed anywhere on the cluster, and a call made
inside such a task (the runs of a grid) is placed on that task's node, so that a stored file is
computed on one machine and records that machine's environment. Ray attaches to the cluster
``RAY_ADDRESS`` names (``ray start --head`` on one machine, ``ray start --address=HEAD:6379`` on
the others, each with fedlib installed), else it starts a Ray of its own on this machine for
the block. The calls' functions travel by name: every node imports them from its own fedlib.
"""

from __future__ import annotations

import multiprocessing
import os
import signal
import threading
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from contextlib import contextmanager
from pathlib import Path
from types import TracebackType
from typing import Any, Protocol, TypeVar

from fedlib.checks import integer

T = TypeVar("T")


class Executor(Protocol):
    """Runs the calls of :func:`parallel_map` elsewhere (:class:`RayExecutor`)."""

    def map(self, fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], jobs: int | None,
            desc: str | None = None) -> list[T]: ...


_EXECUTOR: list[Executor] = []


@contextmanager
def executor(mapper: Executor) -> Iterator[None]:
    """Within the block, :func:`parallel_map` hands its calls to ``mapper``."""
    _EXECUTOR.append(mapper)
    try:
        yield
    finally:
        _EXECUTOR.remove(mapper)


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


def write_atomic(path: Path, write: Callable[[Path], object]) -> Path:
    """``write`` a temporary file beside ``path``, then move it there (``os.replace``): no
    reader sees half a file."""
    tmp = path.with_name(f".{path.name}.{os.getpid()}.tmp")
    write(tmp)
    os.replace(tmp, path)
    return path


def _exit_on_sigterm(signum: int, frame: Any) -> None:
    raise SystemExit(128 + signum)


@contextmanager
def sigterm_as_exit() -> Iterator[None]:
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
        Processes at a time; 1 (or a single call) runs everything in this process. Within
        :func:`executor`, the executor runs every call of a map of two or more.
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
    if _EXECUTOR and len(calls) > 1:
        return _EXECUTOR[-1].map(fn, calls, jobs, desc)
    if jobs == 1 or len(calls) <= 1:
        return [fn(*call) for call in (calls if desc is None else progress(calls, desc))]
    pool = ProcessPoolExecutor(max_workers=min(jobs, len(calls)),
                               mp_context=multiprocessing.get_context("spawn"))
    try:
        with sigterm_as_exit():
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


def _call(fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    """Run ``fn(*args)`` in a Ray worker, its own parallel maps kept on this node."""
    import ray

    with executor(RayExecutor(node=ray.get_runtime_context().get_node_id())):
        return fn(*args)


def _on_node(fn: Callable[..., T], args: tuple[Any, ...]) -> T:
    return fn(*args)


class RayExecutor:
    """Run :func:`fedlib.runtime.parallel_map`'s calls as Ray tasks (a context manager).

    Parameters
    ----------
    address : str, optional
        The cluster (default: ``RAY_ADDRESS``; neither: a Ray started here for the block).
    node : str, optional
        Place every task on this node (used inside a task, for its own maps).
    """

    def __init__(self, address: str | None = None, node: str | None = None) -> None:
        self.address, self.node = address, node
        self._started = False
        self._scope: Any = None

    def __enter__(self) -> RayExecutor:
        import ray

        if not ray.is_initialized():
            address = self.address or os.environ.get("RAY_ADDRESS") or "local"
            ray.init(address=address, include_dashboard=False,
                     log_to_driver=not quiet(), configure_logging=False)
            self._started = True
        self._scope = executor(self)
        self._scope.__enter__()
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        import ray

        self._scope.__exit__(kind, error, trace)
        if self._started:
            ray.shutdown()

    def _options(self, node: str | None) -> dict[str, Any]:
        from ray.util.scheduling_strategies import NodeAffinitySchedulingStrategy

        if node is None:
            return {"num_cpus": 1}
        return {"num_cpus": 1,
                "scheduling_strategy": NodeAffinitySchedulingStrategy(node, soft=False)}

    def map(self, fn: Callable[..., T], calls: Sequence[tuple[Any, ...]], jobs: int | None,
            desc: str | None = None) -> list[T]:
        """``[fn(*call) for call in calls]`` as Ray tasks, at most ``jobs`` at a time (None: as
        many as the cluster runs; inside a task, ``jobs`` is not used); in the order of
        ``calls``. The first failure, or an interruption, cancels the tasks not finished."""
        import ray

        task: Any = ray.remote(_call).options(**self._options(self.node))
        limit = len(calls) if jobs is None or self.node is not None else max(1, jobs)
        refs: list[Any] = []
        pending: list[Any] = []
        finished = progress(range(len(calls)), desc) if desc else range(len(calls))
        try:
            for _ in finished:
                while len(refs) < len(calls) and len(pending) < limit:
                    refs.append(task.remote(fn, calls[len(refs)]))
                    pending.append(refs[-1])
                done, pending = ray.wait(pending, num_returns=1)
                ray.get(done)  # the first failure stops the map at once
            return list(ray.get(refs))
        except BaseException:
            for ref in pending:
                ray.cancel(ref, force=True)
            raise

    def on_every_node(self, fn: Callable[..., T], *args: Any) -> list[T]:
        """``fn(*args)`` once on every node of the cluster that is alive."""
        import ray

        nodes = [node["NodeID"] for node in ray.nodes() if node["Alive"]]
        task: Any = ray.remote(_on_node)
        return list(ray.get([task.options(**self._options(node)).remote(fn, args)
                             for node in nodes]))
