"""``flwr run`` on this machine, against a SuperLink (and SuperNodes) started and stopped here.

* :func:`stage_app` writes the app bundle's source: the app's ``pyproject.toml``
  (:data:`APP`, package data of fedlib, so that an installed fedlib needs no checkout) with
  the fedlib sources beside it, so that the FAB ``flwr run`` builds
  carries the code its ServerApp and ClientApps run, and the fingerprint of those sources in
  the run configuration's ``code`` (:mod:`fedlib.flower.settings`).
* :class:`LocalFederation` starts a SuperLink on 127.0.0.1 (insecure: loopback only) on a free
  port, in its own Flower home folder: with ``simulation=True`` Flower's Simulation Runtime
  (the SuperLink runs the ClientApps as Ray actors, on a :class:`RayHead` started here unless
  ``RAY_ADDRESS`` names a cluster), otherwise the Deployment Runtime, whose
  SuperNodes :meth:`~LocalFederation.add_supernodes` starts, one process per worker with its
  ``partition-id``. Each process's id is recorded; :meth:`~LocalFederation.stop_node` stops one
  SuperNode, and leaving the block stops exactly the recorded processes and their children.
  :meth:`~LocalFederation.run` is ``flwr run APP --run-config FILE --stream`` against it.

The SuperLink and SuperNodes run with runtime dependency installation off: the apps run in
this environment, where the bundle's dependencies are installed.
"""

from __future__ import annotations

import contextlib
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import tomllib
from collections.abc import Callable, Iterable, Mapping
from importlib.resources import files
from pathlib import Path
from shutil import copy2, which
from types import TracebackType
from typing import Any

import httpx
import psutil
import tomli_w
from filelock import FileLock

import fedlib
from fedlib.experiments.task_store import code_fingerprint
from fedlib.flower.answers import count_answers
from fedlib.runtime import sigterm_as_exit

#: The app's pyproject.toml (its components, run configuration and dependencies), shipped in
#: fedlib's wheel as package data.
APP = files("fedlib.flower") / "app_template" / "pyproject.toml"
#: Environment of every process started here: no update check (no network), no runtime
#: installation of the app's dependencies (this environment has them).
QUIET_ENV = {"FLWR_DISABLE_UPDATE_CHECK": "1", "FLWR_DISABLE_RUNTIME_DEPENDENCY_INSTALLATION": "1"}
#: What ``ray start --block`` prints once its node is up.
READY = "This command will now block forever"
#: Milliseconds a Ray head's raylet gives its agents to register (Ray's default is shorter,
#: which a machine busy with other work misses).
AGENT_TIMEOUT_MS = 60_000


def stage_app(folder: str | os.PathLike[str]) -> Path:
    """Write the app bundle's source into ``folder`` and return it: the app's pyproject.toml
    (:data:`APP`), its run configuration's ``code`` set to the fingerprint of the fedlib
    sources (``fedlib/**/*.py``) copied beside it."""
    folder = Path(folder)
    project = tomllib.loads(APP.read_text())
    project["tool"]["flwr"]["app"]["config"]["code"] = code_fingerprint()
    package = Path(fedlib.__file__).parent
    for source in sorted(package.rglob("*.py")):
        target = folder / "fedlib" / source.relative_to(package)
        target.parent.mkdir(parents=True, exist_ok=True)
        copy2(source, target)
    (folder / "pyproject.toml").write_text(tomli_w.dumps(project))
    return folder


def _command(name: str) -> str:
    """The console script ``name`` of this environment (beside its Python), else on PATH."""
    beside = Path(sys.executable).with_name(name)
    found = str(beside) if beside.exists() else which(name)
    if found is None:
        raise FileNotFoundError(f"{name} not found: install the Flower extra "
                                "(pip install -r requirements-flower.txt)")
    return found


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def descendants(pid: int) -> list[int]:
    """The processes that ``pid`` started, and theirs, down the tree."""
    with contextlib.suppress(psutil.Error):
        return [child.pid for child in psutil.Process(pid).children(recursive=True)]
    return []


def process_alive(pid: int) -> bool:
    """Whether the process ``pid`` still runs (a zombie, ended but not yet reaped, does not)."""
    try:
        return psutil.Process(pid).status() != psutil.STATUS_ZOMBIE
    except psutil.Error:
        return False


def _group(pid: int) -> list[int]:
    """The processes of the process group ``pid`` leads (started with a session of its own,
    its children stay in it even when their parent has died; none where the operating system
    has no process groups)."""
    if not hasattr(os, "getpgid"):
        return []
    members = []
    for process in psutil.process_iter():
        with contextlib.suppress(OSError, psutil.Error):
            if os.getpgid(process.pid) == pid:
                members.append(process.pid)
    return members


def stop_process(process: subprocess.Popen[Any], grace: float = 15.0) -> None:
    """Stop ``process``, its children and the rest of its process group (SIGTERM, then SIGKILL
    after ``grace`` seconds). The processes started here lead a group of their own."""
    pids = sorted({process.pid, *descendants(process.pid), *_group(process.pid)})
    for pid in pids:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    while time.monotonic() < deadline:
        with contextlib.suppress(subprocess.TimeoutExpired):
            process.wait(timeout=0.2)
        if not any(process_alive(pid) for pid in pids):
            return
    for pid in {*pids, *descendants(process.pid), *_group(process.pid)}:
        with contextlib.suppress(ProcessLookupError):
            os.kill(pid, getattr(signal, "SIGKILL", signal.SIGTERM))
    process.wait()


class RayHead:
    """A Ray head on this machine, for the Simulation Runtime or Ray tasks (a context manager).

    ``ray start --head --block`` with its own temporary folder and ports (so that no other Ray
    on the machine is touched), no dashboard and no log monitor: one process whose id is
    recorded, stopped with its group. Ray gives its node 30 s to register (a fixed deadline)
    and the raylet's agents a configurable time to start (:data:`AGENT_TIMEOUT_MS`, set here
    above Ray's default), which a busy machine can miss: the head is then started again, up to
    ``attempts`` times (each ``startup_timeout`` seconds at most); heads start one at a time on
    a machine (a lock file in the temporary folder), and a head is up when ``ray start`` says
    so in its log (``head.log``). No process's priority is changed.

    Parameters
    ----------
    folder : path
        Ray's temporary folder (short: Ray's socket paths must fit in 107 characters).
    cpus : int
    env : mapping, optional
        The head's environment (default: this process's, without ``RAY_ADDRESS``).
    """

    def __init__(self, folder: str | os.PathLike[str], cpus: int,
                 env: Mapping[str, str] | None = None, attempts: int = 6,
                 startup_timeout: float = 180.0) -> None:
        self.folder, self.cpus, self.attempts = Path(folder), cpus, attempts
        self.startup_timeout = startup_timeout
        self.env = {key: value for key, value in (env or os.environ).items()
                    if key != "RAY_ADDRESS"}
        self.env.update(RAY_USAGE_STATS_ENABLED="0", PYTHONUNBUFFERED="1",
                        RAY_agent_register_timeout_ms=str(AGENT_TIMEOUT_MS))
        self.process: subprocess.Popen[Any] | None = None
        self.port = 0

    @property
    def address(self) -> str:
        """The head's address (``RAY_ADDRESS``)."""
        return f"127.0.0.1:{self.port}"

    def __enter__(self) -> RayHead:
        self.folder.mkdir(parents=True, exist_ok=True)
        # one head starts at a time on this machine: heads starting together (parallel tests, a
        # chapter beside them) slow each other past Ray's start-up deadlines
        with FileLock(Path(tempfile.gettempdir()) / "fedlib-ray-start.lock"):
            for _ in range(self.attempts):
                if self._start():
                    return self
        raise RuntimeError(f"Ray did not start in {self.attempts} attempts; see "
                           f"{self.folder / 'head.log'}")

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        if self.process is not None:
            stop_process(self.process)

    def _start(self) -> bool:
        ray = _command("ray")
        self.port = _free_port()
        with (self.folder / "head.log").open("ab") as log:
            offset = log.tell()
            self.process = subprocess.Popen(
                [ray, "start", "--head", "--block", "--port", str(self.port),
                 "--num-cpus", str(self.cpus), "--include-dashboard", "false",
                 "--include-log-monitor", "false", "--ray-client-server-port",
                 str(_free_port()), "--temp-dir", str(self.folder), "--disable-usage-stats"],
                stdout=log, stderr=subprocess.STDOUT, env=self.env, start_new_session=True)
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline and self.process.poll() is None:
            # ``ray start --block`` says so once its node has registered (read from its log:
            # polling ``ray status``, a Python process each time, slows a busy machine's start)
            if READY in (self.folder / "head.log").read_text(errors="replace")[offset:]:
                return True
            time.sleep(0.5)
        stop_process(self.process)
        return False


class LocalFederation:
    """A SuperLink on 127.0.0.1, and SuperNodes, each a process of its own.

    Parameters
    ----------
    folder : path
        Flower's home folder (``FLWR_HOME``, with the connection ``fedlib`` in its
        config.toml) and the processes' logs (``*.log``).
    simulation : bool, default False
        The Simulation Runtime (no SuperNodes) instead of the Deployment Runtime. Its ClientApps
        run on the Ray cluster ``RAY_ADDRESS`` names, else on a :class:`RayHead` started here
        with ``cpus`` CPUs.
    cpus : int, optional
        The Ray head's CPUs (default: all of the machine's).
    startup_timeout : float, default 180
        Seconds the SuperLink may take to answer.

    Examples
    --------
    The Deployment Runtime with six workers, one ``flwr run``::

        with LocalFederation(folder) as federation:
            federation.add_supernodes(range(6))
            federation.run(stage_app(folder / "app"), {"fast": True, "out": "/tmp/out"})
    """

    def __init__(self, folder: str | os.PathLike[str], *, simulation: bool = False,
                 cpus: int | None = None, startup_timeout: float = 180.0) -> None:
        self.folder, self.simulation = Path(folder), simulation
        self.cpus = cpus or os.cpu_count() or 1
        self.ray: RayHead | None = None
        self.startup_timeout = startup_timeout
        self.port = _free_port()
        #: The started processes by name: ``superlink``, ``supernode-<worker>``.
        self.processes: dict[str, subprocess.Popen[Any]] = {}
        #: The SuperNodes :meth:`stop_node` stopped.
        self.stopped: set[str] = set()
        #: The ``out`` folder of the current :meth:`run`'s ServerApp.
        self.out: Path | None = None
        self.env = {**os.environ, **QUIET_ENV, "FLWR_HOME": str(self.folder / "home")}

    @property
    def pids(self) -> dict[str, int]:
        """The recorded process ids, by name (``ray`` for a Ray head started here)."""
        pids = {name: process.pid for name, process in self.processes.items()}
        if self.ray is not None and self.ray.process is not None:
            pids["ray"] = self.ray.process.pid
        return pids

    def _start(self, name: str, command: list[str]) -> subprocess.Popen[Any]:
        with (self.folder / f"{name}.log").open("ab") as log:
            process = subprocess.Popen(command, stdout=log, stderr=subprocess.STDOUT,
                                       env=self.env, start_new_session=True)
        self.processes[name] = process
        return process

    def __enter__(self) -> LocalFederation:
        self._signals = contextlib.ExitStack()
        self._signals.enter_context(sigterm_as_exit())  # kill PID stops the processes too
        home = self.folder / "home"
        home.mkdir(parents=True, exist_ok=True)
        (home / "config.toml").write_text(tomli_w.dumps({"superlink": {
            "default": "fedlib",
            "fedlib": {"address": f"127.0.0.1:{self.port}", "insecure": True}}}))
        try:
            if self.simulation and not self.env.get("RAY_ADDRESS"):
                self.ray = RayHead(self.folder / "ray", self.cpus, self.env).__enter__()
                self.env["RAY_ADDRESS"] = self.ray.address
            self._start_superlink()
        except BaseException:
            self.stop()
            raise
        return self

    def __exit__(self, kind: type[BaseException] | None, error: BaseException | None,
                 trace: TracebackType | None) -> None:
        self.stop()
        self._signals.close()

    def _start_superlink(self) -> None:
        command = [_command("flower-superlink"), "--insecure", "--host", "127.0.0.1",
                   "--port", str(self.port), "--disable-runtime-dependency-installation"]
        process = self._start("superlink", command + (["--simulation"] if self.simulation
                                                      else []))
        deadline = time.monotonic() + self.startup_timeout
        while time.monotonic() < deadline:
            if process.poll() is not None:
                raise RuntimeError(f"flower-superlink exited ({process.returncode}); see "
                                   f"{self.folder / 'superlink.log'}")
            with contextlib.suppress(httpx.HTTPError):
                if httpx.get(f"http://127.0.0.1:{self.port}/health", timeout=2).is_success:
                    return
            time.sleep(0.5)
        raise TimeoutError(f"the SuperLink did not answer within {self.startup_timeout:g} s")

    def add_supernodes(self, workers: Iterable[int]) -> None:
        """Start one SuperNode per worker, each with ``--node-config "partition-id=W"``."""
        if self.simulation:
            raise ValueError("the Simulation Runtime runs its own nodes: no SuperNodes")
        for worker in workers:
            self._start(f"supernode-{worker}", [
                _command("flower-supernode"), "--insecure", "--superlink",
                f"127.0.0.1:{self.port}", "--node-config", f"partition-id={worker}",
                "--host", "127.0.0.1", "--port", str(_free_port())])

    def stop_node(self, worker: int) -> None:
        """Stop worker ``worker``'s SuperNode (and its ClientApp processes)."""
        self.stopped.add(f"supernode-{worker}")
        stop_process(self.processes[f"supernode-{worker}"])

    def answered(self, worker: int) -> dict[str, int]:
        """How many requests of each type worker ``worker`` has answered so far in the current
        :meth:`run`, from the ServerApp's record in the run's ``out`` folder
        (:func:`fedlib.flower.answers.count_answers`)."""
        return {} if self.out is None else count_answers(self.out, worker)

    def logs(self) -> dict[str, str]:
        """The logs of the processes started here and of each ``flwr run``, by name
        (``superlink``, ``supernode-<worker>``, ``run_config_<n>`` for the n-th run's output)."""
        return {path.stem: path.read_text(errors="replace")
                for path in sorted(self.folder.glob("*.log"))}

    def run(self, app: str | os.PathLike[str], run_config: Mapping[str, Any],
            federation_config: Mapping[str, Any] | None = None, *,
            timeout: float | None = None,
            on_poll: Callable[[LocalFederation], None] | None = None
            ) -> subprocess.CompletedProcess[str]:
        """``flwr run app fedlib --run-config FILE --stream`` (and ``--federation-config``):
        returns when the run has ended, with its output. ``on_poll(self)`` is called about
        every half second while the run lasts (to stop a node mid-run, say)."""
        config = self.folder / f"run_config_{len(list(self.folder.glob('run_config_*')))}.toml"
        config.write_text(tomli_w.dumps(dict(run_config)))
        self.out = Path(str(run_config["out"])) if "out" in run_config else None
        command = [_command("flwr"), "run", str(app), "fedlib", "--run-config", str(config),
                   "--stream"]
        if federation_config:
            command += ["--federation-config",
                        " ".join(f"{key}={value}" for key, value in federation_config.items())]
        log = self.folder / f"{config.stem}.log"
        with log.open("w") as output:
            flwr = subprocess.Popen(command, env=self.env, stdout=output,
                                    stderr=subprocess.STDOUT, text=True)
            try:
                self._watch(flwr, timeout, on_poll)
            finally:
                if flwr.poll() is None:
                    stop_process(flwr)
        return subprocess.CompletedProcess(command, flwr.returncode, log.read_text(), "")

    def _watch(self, flwr: subprocess.Popen[Any], timeout: float | None,
               on_poll: Callable[[LocalFederation], None] | None) -> None:
        """Wait for ``flwr run`` to end; raise when it runs past ``timeout`` or a process of
        the federation ends under it (other than a SuperNode :meth:`stop_node` stopped)."""
        deadline = None if timeout is None else time.monotonic() + timeout
        while flwr.poll() is None:
            ended = [name for name, process in self.processes.items()
                     if process.poll() is not None and name not in self.stopped]
            if ended:
                raise RuntimeError(f"{', '.join(ended)} ended during the run; see "
                                   + ", ".join(str(self.folder / f"{n}.log") for n in ended))
            if deadline is not None and time.monotonic() > deadline:
                raise TimeoutError(f"flwr run took more than {timeout:g} s")
            if on_poll is not None:
                on_poll(self)
            time.sleep(0.5)

    def stop(self) -> None:
        """Stop every recorded process (SuperNodes first) and their children, then the Ray head
        started here."""
        for name in sorted(self.processes, key=lambda name: name == "superlink"):
            stop_process(self.processes[name])
        if self.ray is not None:
            self.ray.__exit__(None, None, None)
