"""``python -m fedlib reproduce --executor ray`` on a Ray head started here, attached to as
``RAY_ADDRESS=127.0.0.1:PORT`` (Ray names the node by the machine's own address).

The head (``ray start --head --block``, one process whose id is recorded, stopped with its
children; its own temporary folder and port, so that no other Ray on the machine is touched)
runs with ``ONEDNN_MAX_CPU_ISA=ALL``, oneDNN's default, which changes no kernel but enters the
environment fingerprint: a file that records it was saved on a Ray worker, not by the driver.
A fast MNIST tables run of two seeds (ours and RRAFL, which reads ours' tasks from the node's
task store) must give the records of the process-pool run, file by file.
"""

from __future__ import annotations

import json
import os
import shutil
import tempfile
from pathlib import Path

import pytest

from fedlib.cli import main

ray = pytest.importorskip("ray", reason="needs the flower extra (Ray comes with Flower): "
                         "pip install -r requirements-flower.txt")

ARGS = ["reproduce", "tables", "--dataset", "mnist", "--fast", "--seeds", "0", "1",
        "--mechanisms", "ours", "rrafl", "--device", "cpu"]


@pytest.fixture(scope="module")
def ray_head():
    """A Ray head on this machine with two CPUs (fedlib.flower.launch.RayHead); its address.
    Stopped by its process id, with its process group."""
    from fedlib.flower.launch import RayHead, _group, descendants, process_alive

    folder = tempfile.mkdtemp(prefix="fr", dir="/tmp")  # Ray's socket paths must be short
    env = {**os.environ, "ONEDNN_MAX_CPU_ISA": "ALL"}
    try:
        with RayHead(folder, cpus=2, env=env) as head:
            processes = [head.process.pid, *descendants(head.process.pid),
                         *_group(head.process.pid)]
            yield head.address
        assert not [pid for pid in processes if process_alive(pid)]
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def _saved(folder: Path) -> dict[str, dict]:
    return {path.name: json.loads(path.read_text()) for path in sorted(folder.glob("*.json"))}


def test_reproduce_on_ray_gives_the_process_pools_records(ray_head, tmp_path, monkeypatch,
                                                          capsys):
    monkeypatch.setenv("RAY_ADDRESS", ray_head)
    assert main([*ARGS, "--executor", "ray", "--out", str(tmp_path / "ray")]) == 0
    monkeypatch.delenv("RAY_ADDRESS")
    assert main([*ARGS, "--jobs", "2", "--out", str(tmp_path / "pool")]) == 0
    on_ray, in_pool = _saved(tmp_path / "ray"), _saved(tmp_path / "pool")
    assert sorted(on_ray) == sorted(in_pool) == [
        "tables_mnist_ours_fast.json", "tables_mnist_ours_s1_fast.json",
        "tables_mnist_rrafl_fast.json", "tables_mnist_rrafl_s1_fast.json"]
    for name, stored in on_ray.items():
        assert stored["records"] == in_pool[name]["records"], name
        assert stored["config"] == in_pool[name]["config"]
        # saved on a Ray worker: its environment, not the driver's
        assert stored["environment"]["isa_overrides"] == {"ONEDNN_MAX_CPU_ISA": "ALL"}, name
        assert in_pool[name]["environment"]["isa_overrides"] == {}
    assert not list((tmp_path / "ray").glob(".*.tmp"))
    # a second command keeps what is saved instead of computing it again
    monkeypatch.setenv("RAY_ADDRESS", ray_head)
    capsys.readouterr()
    assert main([*ARGS, "--executor", "ray", "--out", str(tmp_path / "ray")]) == 0
    assert capsys.readouterr().out.count("kept") == 4
