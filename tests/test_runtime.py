"""Parallel runs: results in order, and no worker outlives an interrupted or failed map."""

from __future__ import annotations

import os
import signal
import threading
import time

import pytest

from fedlib.runtime import parallel_map


def test_results_come_in_the_order_of_the_calls():
    calls = [(2, 10), (3, 2), (5, 1), (7, 0)]
    assert parallel_map(pow, calls, jobs=2) == [1024, 9, 5, 1]
    assert parallel_map(pow, calls, jobs=1) == [1024, 9, 5, 1]


@pytest.mark.parametrize("jobs", [0, -1, 1.5, True])
def test_jobs_must_be_a_positive_integer(jobs):
    with pytest.raises(ValueError, match="jobs"):
        parallel_map(pow, [(2, 2)], jobs=jobs)


def _running_children():
    """PIDs of this process's running children (Linux ``/proc``), but multiprocessing's
    resource tracker. (``multiprocessing.active_children`` can list a worker that another
    thread has reaped.)"""
    children = []
    for entry in filter(str.isdigit, os.listdir("/proc")):
        try:
            with open(f"/proc/{entry}/stat") as stat, open(f"/proc/{entry}/cmdline", "rb") as cmd:
                state, ppid = stat.read().rsplit(")", 1)[1].split()[:2]
                command = cmd.read()
        except OSError:  # ended meanwhile
            continue
        if int(ppid) == os.getpid() and state != "Z" and b"resource_tracker" not in command:
            children.append(int(entry))
    return children


def test_a_failing_call_stops_the_map_and_its_workers():
    began = time.perf_counter()
    with pytest.raises(ValueError, match="non-negative"):
        parallel_map(time.sleep, [(60,), (-1,)], jobs=2)  # sleep(-1) raises at once
    assert time.perf_counter() - began < 30  # not the 60 s of the other call
    assert not _running_children()


def test_sigterm_stops_the_map_and_terminates_its_workers():
    assert threading.current_thread() is threading.main_thread()  # where signals arrive
    workers = []

    def terminate_me():
        workers.extend(_running_children())
        os.kill(os.getpid(), signal.SIGTERM)

    before = signal.getsignal(signal.SIGTERM)
    timer = threading.Timer(3.0, terminate_me)
    timer.start()
    began = time.perf_counter()
    try:
        with pytest.raises(SystemExit):
            parallel_map(time.sleep, [(60,), (60,), (60,)], jobs=2)
    finally:
        timer.cancel()
    assert time.perf_counter() - began < 30
    assert len(workers) == 2 and not _running_children()
    assert signal.getsignal(signal.SIGTERM) == before  # the previous handler is back
