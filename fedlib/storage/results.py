"""Stored, verified results of the long experiments: ``results/<name>.json``.

A stored result holds the full configuration, the seed, the fedlib version, the git revision of
the code that produced it, a machine description, the fingerprint of the environment that made
it (:mod:`fedlib.storage.environment`), the wall time, the command that replays it, and one
record per task. Chapters read results through :func:`load_result`, which checks that the
stored configuration is the one asked for;
:func:`~fedlib.storage.verification.verify_result` recomputes the first tasks and checks
they match, so stale results are caught.

The file is JSON: a readable header, then one compact line per task record. Floats are written
at full precision (Python's shortest round-trip form).
"""

from __future__ import annotations

import json
import os
import platform
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import numpy as np
import torch

import fedlib
from fedlib.experiments import registry
from fedlib.experiments.registry import Experiment
from fedlib.fl.device import cpu_field, resolve_device
from fedlib.runtime import write_atomic
from fedlib.storage import environment

#: Configuration keys that say where a run executed, not what it computed.
RUNTIME_KEYS = ("device",)


@dataclass(frozen=True, eq=False)
class StoredResult:
    """A result read back by :func:`load_result`.

    Attributes
    ----------
    name : str
    experiment : str
        The kind of experiment (a key of :func:`~fedlib.experiments.registry.experiments`).
    config : dict
        The stored configuration (as written by the config's ``to_dict``).
    records : list of dict
        One record per task.
    meta : dict
        ``seed``, ``fedlib_version``, ``git_revision``, ``git_dirty``, ``machine``,
        ``environment`` (absent in results stored before it was recorded), ``wall_time_s``,
        ``created`` and ``command``.
    path : pathlib.Path
    """

    name: str
    experiment: str
    config: dict[str, Any]
    records: list[dict[str, Any]]
    meta: dict[str, Any]
    path: Path


def json_values(value: Any) -> Any:
    """``value`` as plain JSON values (dicts, lists, floats, None): as it reads back from a
    stored file, so that fresh records compare equal to stored ones."""
    return json.loads(json.dumps(value))


def _config_dict(config: Mapping[str, Any] | Experiment) -> dict[str, Any]:
    return json_values(dict(config) if isinstance(config, Mapping) else config.to_dict())


def reproduce_command(config: Mapping[str, Any] | Experiment,
                      results_dir: str | os.PathLike[str] = "results") -> str:
    """How to regenerate a result with ``config``: a command line, or what to run in Python."""
    raw = _config_dict(config)
    built = registry.rebuild(raw)
    flags = registry.command_flags(built)
    if flags is None:
        return (f"run {type(built).__name__}.from_dict(config).run() in Python and store its "
                "records with fedlib.storage.results.save_result (the command line "
                "cannot express this configuration)")
    return " ".join(["python -m fedlib reproduce", built.kind, *flags, "--device cpu",
                     f"--out {results_dir}"])


def replay_command(path: str | os.PathLike[str], out: str | os.PathLike[str] = "results") -> str:
    """The command that reruns exactly the configuration stored in ``path`` into ``out``."""
    return f"python -m fedlib reproduce --config {path} --out {out}"


def git_revision() -> tuple[str, bool]:
    """``git rev-parse HEAD`` of the fedlib checkout and whether tracked files are modified.

    Outside a git checkout (a ``git archive`` export carried to another machine, say) the
    ``FEDLIB_GIT_REVISION`` variable names the exported revision, else ``"unknown"``."""
    where = Path(fedlib.__file__).resolve().parent

    def git(*args: str) -> str:
        return subprocess.run(["git", *args], cwd=where, capture_output=True, text=True,
                              check=True, timeout=30).stdout.strip()

    try:
        return git("rev-parse", "HEAD"), bool(git("status", "--porcelain", "--untracked-files=no"))
    except (OSError, subprocess.SubprocessError):
        return os.environ.get("FEDLIB_GIT_REVISION", "unknown"), False


def cpu_generation() -> str | None:
    """The CPU's family and model numbers (``"family 25 model 1"``: a generation, which
    ``"AMD EPYC"`` or ``"Intel(R) Xeon(R) Processor"`` alone does not name), or None where
    ``/proc/cpuinfo`` does not give them."""
    family, model = cpu_field("cpu family"), cpu_field("model")
    return f"family {family} model {model}" if family and model else None


def machine_description(device: str | torch.device = "auto") -> dict[str, Any]:
    """Platform, CPU (its name and :func:`cpu_generation`), library versions and the compute
    device a run used."""
    resolved = resolve_device(device)
    cpu = cpu_field("model name") or platform.processor() or platform.machine()
    return {
        "platform": platform.platform(), "cpu": cpu, "cpu_generation": cpu_generation(),
        "cpu_count": os.cpu_count(),
        "python": platform.python_version(), "torch": torch.__version__,
        "numpy": np.__version__, "device": str(resolved),
        "device_name": torch.cuda.get_device_name(resolved) if resolved.type == "cuda" else cpu,
    }


def _path(name: str, results_dir: str | os.PathLike[str]) -> Path:
    return Path(results_dir) / f"{name}.json"


def save_result(name: str, config: Mapping[str, Any] | Experiment,
                records: Sequence[Mapping[str, Any]], out_dir: str | os.PathLike[str] = "results",
                *, wall_time_s: float) -> Path:
    """Write ``<out_dir>/<name>.json`` atomically (a temporary file, then ``os.replace``).

    Parameters
    ----------
    name : str
        File name without ``.json``, e.g. ``"tables_mnist_ours"``.
    config : mapping or config object
        The experiment's configuration (``MultiTaskConfig``, ``ContributionConfig`` or their
        ``to_dict``); its ``device`` is the device described in the machine section.
    records : sequence of dict
        One JSON-ready record per task.
    out_dir : path, default "results"
    wall_time_s : float
        Compute time of the run.

    Returns
    -------
    pathlib.Path
        The written file.
    """
    raw = _config_dict(config)
    registry.experiment_class(raw)
    revision, dirty = git_revision()
    header = {
        "name": name, "experiment": raw["experiment"], "config": raw,
        "seed": raw.get("seed", raw.get("seeds")), "fedlib_version": fedlib.__version__,
        "git_revision": revision, "git_dirty": dirty,
        "machine": machine_description(raw["device"]),
        "environment": environment.fingerprint(raw["device"], raw.get("threads", 1)),
        "wall_time_s": wall_time_s, "created": datetime.now(UTC).isoformat(timespec="seconds"),
        "command": replay_command(f"results/{name}.json"),
    }
    lines = ",\n".join(json.dumps(record, separators=(",", ":")) for record in records)
    text = json.dumps(header, indent=1)[:-2] + ',\n "records": [\n' + lines + "\n ]\n}\n"
    path = _path(name, out_dir)
    path.parent.mkdir(parents=True, exist_ok=True)
    return write_atomic(path, lambda tmp: tmp.write_text(text))


def _comparable(config: Mapping[str, Any]) -> dict[str, Any]:
    """The configuration rebuilt by its experiment (so a field added to fedlib after a result
    was stored reads as its default, the value the code then had fixed), less the runtime keys.
    """
    normalised = _config_dict(registry.rebuild(config))
    return {key: value for key, value in normalised.items() if key not in RUNTIME_KEYS}


def load_result(name: str, expected_config: Mapping[str, Any] | Experiment,
                results_dir: str | os.PathLike[str] = "results") -> StoredResult:
    """Read ``<results_dir>/<name>.json`` and check it was computed with ``expected_config``.

    The comparison ignores :data:`RUNTIME_KEYS` (the device) and reads fields missing from
    the stored configuration (added to fedlib later) as their defaults.

    Raises
    ------
    FileNotFoundError
        If the file is missing; the message gives the command that creates it.
    ValueError
        If the stored configuration differs; the message names the differing fields (stored
        and expected values) and the command that regenerates the file.
    """
    expected = _config_dict(expected_config)
    path = _path(name, results_dir)
    command = reproduce_command(expected, results_dir)
    if not path.exists():
        raise FileNotFoundError(f"{path} does not exist. To create it: {command}")
    payload = json.loads(path.read_text())
    stored = _comparable(payload["config"])
    wanted = _comparable(expected)
    if stored != wanted:
        diff = "; ".join(f"{key}: stored {stored.get(key)!r}, expected {wanted.get(key)!r}"
                         for key in sorted(set(stored) | set(wanted))
                         if stored.get(key) != wanted.get(key))
        raise ValueError(f"{path} was computed with another configuration ({diff}). To "
                         f"regenerate it: {command}")
    records = payload.pop("records")
    meta = {key: value for key, value in payload.items()
            if key not in ("name", "experiment", "config")}
    return StoredResult(name, payload["experiment"], payload["config"], records, meta, path)
