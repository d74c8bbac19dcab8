"""Kernel choices timed once per machine and remembered (the idea of ``cudnn.benchmark``).

Some of the engine's batched layers (:mod:`fedlib.fl.batched`) have a parameter whose best
value depends on the CPU: how many images LeNet-5's first stage on shared images takes per
block trades cache reuse against the overhead of small kernel calls. 2 MiB of conv1 maps per
block suits the AMD EPYC build machine; an Intel Xeon spent about half of its evaluation in
the calls of those blocks (``benchmarks/recorded/``). :func:`choice` makes such a choice: the
first time a machine needs it, it times the candidates on a workload of the engine's shapes,
keeps the fastest if it beats the default by :data:`MARGIN` (timings on a shared machine
are noisy, and the default needs no change), and stores it in a JSON file under the
choice's name and the machine's key (:func:`machine_key`). Later processes read it.

Only choices that leave every number unchanged are made this way: a block of images changes
how many images one matrix product covers, not the arithmetic of any output
(``tests/fl/test_batched.py`` holds every candidate to PyTorch's convolution and to the others
bit for bit), so results do not depend on which block a machine picked.

``FEDLIB_KERNEL_CACHE`` names the file (default ``~/.cache/fedlib/kernels.json``, under
``XDG_CACHE_HOME`` where set); ``FEDLIB_TUNE=0`` keeps every default and times nothing.
"""

from __future__ import annotations

import json
import os
import platform
import statistics
import tempfile
import time
import warnings
from collections.abc import Callable, Sequence
from pathlib import Path

import torch

from fedlib.fl.device import cpu_field

#: A candidate must take less than ``1 - MARGIN`` of the default's time to replace it.
MARGIN = 0.1
#: Timed rounds, each running every candidate once, after one warm-up round.
ROUNDS = 7

_chosen: dict[tuple[str, str], int] = {}


def cache_path() -> Path:
    """The JSON file of choices: ``FEDLIB_KERNEL_CACHE``, else ``kernels.json`` in the user
    cache folder."""
    if os.environ.get("FEDLIB_KERNEL_CACHE"):
        return Path(os.environ["FEDLIB_KERNEL_CACHE"])
    cache = Path(os.environ.get("XDG_CACHE_HOME", Path.home() / ".cache"))
    return cache / "fedlib" / "kernels.json"


def machine_key() -> str:
    """What a kernel's speed depends on: CPU model, instruction set torch dispatches to,
    torch version and intra-op threads, e.g. ``"AMD EPYC | AVX2 | torch 2.14.1 | 2 threads"``."""
    cpu = cpu_field("model name") or platform.processor() or platform.machine()
    return (f"{cpu} | {torch.backends.cpu.get_cpu_capability()} | torch {torch.__version__}"
            f" | {torch.get_num_threads()} threads")


def tuning_enabled() -> bool:
    """False when ``FEDLIB_TUNE=0``; ``1`` or unset: True."""
    value = os.environ.get("FEDLIB_TUNE", "1")
    if value not in ("0", "1"):
        raise ValueError(f"FEDLIB_TUNE must be 0 or 1, got {value!r}")
    return value == "1"


def time_candidates(candidates: Sequence[int], run: Callable[[int], object],
                    rounds: int = ROUNDS) -> dict[int, list[float]]:
    """Seconds of ``run(candidate)`` in each of ``rounds`` rounds that run every candidate once
    (after one warm-up round), by candidate."""
    seconds: dict[int, list[float]] = {candidate: [] for candidate in candidates}
    for _ in range(rounds + 1):
        for candidate in candidates:
            start = time.perf_counter()
            run(candidate)
            seconds[candidate].append(time.perf_counter() - start)
    return {candidate: times[1:] for candidate, times in seconds.items()}


def fastest(seconds: dict[int, list[float]], default: int) -> int:
    """The candidate whose time, as a ratio to the default's in the same round, has the lowest
    median, if that median is below ``1 - MARGIN``; else ``default``. Comparing within a round
    cancels the slow changes of a shared machine's load."""
    ratios = {candidate: statistics.median(t / d for t, d in zip(times, seconds[default],
                                                                  strict=True))
              for candidate, times in seconds.items()}
    best = min(ratios, key=ratios.__getitem__)
    return best if ratios[best] < 1 - MARGIN else default


def _read(path: Path) -> dict[str, dict[str, int]]:
    if not path.exists():
        return {}
    try:
        stored = json.loads(path.read_text())
    except (OSError, ValueError) as error:
        raise ValueError(f"the kernel choices in {path} cannot be read ({error}); delete the "
                         "file and fedlib times the candidates again") from error
    if not isinstance(stored, dict):
        raise ValueError(f"{path} does not hold fedlib's kernel choices; delete it")
    return stored


def _write(path: Path, stored: dict[str, dict[str, int]]) -> None:
    """Write atomically, so that processes tuning at once never leave half a file."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.NamedTemporaryFile("w", dir=path.parent, delete=False, suffix=".tmp") as f:
        json.dump(stored, f, indent=1, sort_keys=True)
    os.replace(f.name, path)


def choice(name: str, candidates: Sequence[int], default: int,
           run: Callable[[int], object]) -> int:
    """This machine's value of the choice ``name``: remembered, else timed and stored.

    Parameters
    ----------
    name
        The choice, e.g. ``"lenet.shared_block_bytes"``.
    candidates
        The values to time; ``default`` is one of them.
    default
        The value when tuning is off (``FEDLIB_TUNE=0``) or no candidate clearly beats it.
    run
        Runs the workload once with a candidate value.

    Raises
    ------
    ValueError
        If ``default`` is not a candidate, the cache file cannot be read or holds a value that
        is not a candidate.

    Warns
    -----
    UserWarning
        If the cache file cannot be written (the choice then holds for this process only).
    """
    if default not in candidates:
        raise ValueError(f"the default {default} of {name} is not among its candidates")
    if not tuning_enabled():
        return default
    key = machine_key()
    if (name, key) not in _chosen:
        path = cache_path()
        value = _read(path).get(name, {}).get(key)
        if value is None:
            value = fastest(time_candidates(candidates, run), default)
            stored = _read(path)
            try:
                _write(path, stored | {name: stored.get(name, {}) | {key: value}})
            except OSError as error:
                warnings.warn(f"fedlib could not store its kernel choice in {path} ({error}); "
                              "it times the candidates again in every process until "
                              "FEDLIB_KERNEL_CACHE names a writable file", stacklevel=2)
        if value not in candidates:
            raise ValueError(f"{path} gives {name} = {value!r} on this machine, which is not "
                             f"one of {list(candidates)}; delete the entry or the file")
        _chosen[name, key] = value
    return _chosen[name, key]
