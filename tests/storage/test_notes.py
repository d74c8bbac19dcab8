"""The stored results' provenance is true of every file: the notes of results/notes.toml cover
every file made from a dirty checkout, on a GPU, or paired with a run of another machine; a
recorded lock hash names a lock whose numeric pins the file's machine had installed; and the
provenance tables print the notes of their files."""

from __future__ import annotations

import hashlib
import json
import subprocess
from pathlib import Path

import pytest
from book import ROOT

from fedlib.storage import environment
from fedlib.storage.provenance import notes, provenance_html, stored_name
from fedlib.storage.stored import Provenance

RESULTS = ROOT / "results"
FILES = {p.relative_to(RESULTS).with_suffix("").as_posix(): json.loads(p.read_text())
         for p in sorted(RESULTS.rglob("*.json")) if ".checkpoints" not in p.parts}
NOTED: dict[str, list[str]] = {}
for names, text in notes(RESULTS):
    for name in names:
        NOTED.setdefault(name, []).append(text)


def test_every_note_names_stored_files():
    assert NOTED, "results/notes.toml holds no note"
    assert set(NOTED) <= set(FILES), sorted(set(NOTED) - set(FILES))


@pytest.mark.parametrize("name", [n for n, d in FILES.items() if d["git_dirty"]])
def test_a_file_from_a_dirty_checkout_says_so(name):
    assert any("uncommitted changes" in text for text in NOTED.get(name, [])), name


@pytest.mark.parametrize("name", FILES)
def test_every_stored_file_records_the_environment_that_computed_it(name):
    assert set(FILES[name].get("environment", {})) >= set(
        environment.fingerprint("cpu")), f"{name}: no environment fingerprint"


@pytest.mark.parametrize("name", [n for n, d in FILES.items()
                                  if d["machine"]["device"] != "cpu"])
def test_a_file_made_on_a_gpu_names_it_and_its_libraries(name):
    machine = FILES[name]["machine"]
    said = " ".join(NOTED.get(name, []))
    assert machine["device_name"].split()[1] in said  # H100, H200
    assert f"torch {machine['torch'].split('+')[0]}" in said and machine["python"] in said


def _pairs():
    """Carried runs of ours and Reputation Greedy of one dataset and seed."""
    for name in FILES:
        if "_ours_carried" in name:
            partner = name.replace("_ours_", "_reputation_greedy_")
            if partner in FILES:
                yield name, partner


@pytest.mark.parametrize("ours,partner", [p for p in _pairs()
                                          if FILES[p[0]]["machine"]["device"]
                                          != FILES[p[1]]["machine"]["device"]])
def test_a_pair_of_runs_from_two_machines_says_so(ours, partner):
    for name in (ours, partner):
        assert any("mixed pair" in text for text in NOTED.get(name, [])), name


def _lock_pins_by_hash() -> dict[str, dict[str, str]]:
    """Every version of requirements.lock in the history, by its SHA-256."""
    revisions = subprocess.run(["git", "-C", str(ROOT), "log", "--format=%H", "--",
                                "requirements.lock"], capture_output=True, text=True,
                               check=True).stdout.split()
    assert revisions, "no history of requirements.lock (a shallow clone?)"
    found = {}
    for revision in revisions:
        text = subprocess.run(["git", "-C", str(ROOT), "show", f"{revision}:requirements.lock"],
                              capture_output=True, check=True).stdout
        found[hashlib.sha256(text).hexdigest()] = environment.lock_pins(text.decode())
    return found


def test_a_recorded_lock_hash_was_installed():
    pins_of = _lock_pins_by_hash()
    for name, stored in FILES.items():
        recorded = (stored.get("environment") or {}).get("lock_sha256")
        if recorded is None:
            continue
        assert recorded in pins_of, f"{name}: lock {recorded[:12]} is in no commit"
        pins, machine = pins_of[recorded], stored["machine"]
        assert (pins["torch"], pins["numpy"]) == (machine["torch"].split("+")[0],
                                                  machine["numpy"]), name


def test_the_fingerprint_records_the_lock_only_where_its_pins_are_installed(monkeypatch,
                                                                           tmp_path):
    lock = tmp_path / "requirements.lock"
    lock.write_text("".join(f"{name}==0.0.1 \\\n" for name in environment.NUMERIC_PACKAGES))
    assert environment.lock_hash(lock) is None  # other versions installed
    monkeypatch.setattr(environment.metadata, "version", lambda name: "0.0.1")
    assert environment.lock_hash(lock) == hashlib.sha256(lock.read_bytes()).hexdigest()
    assert environment.lock_hash(tmp_path / "missing.lock") is None


def test_the_lock_hash_does_not_decide_the_environment():
    here = environment.fingerprint("cpu", 1)
    assert environment.same_environment(here, {**here, "lock_sha256": "another lock"})
    assert not environment.same_environment(here, {**here, "torch": "0.0.1"})


def test_the_provenance_table_prints_the_notes_of_its_files():
    path = RESULTS / "coldstart_fashion_ours_s2.json"
    provenance = Provenance("coldstart_fashion_ours_s2", "stored", path, "e23c85e", "AMD EPYC",
                            1.0, "2026-11-28", "python -m fedlib reproduce coldstart")
    assert stored_name(provenance) == "coldstart_fashion_ours_s2"
    page = provenance_html([provenance])
    assert "About these files" in page and "A replaced run" in page
    assert "coldstart_fashion_ours (seed 2)" in page
    computed = Provenance("x", "fast", None, "e23c85e", "AMD EPYC", 1.0, "2026-11-28", "cmd")
    assert "About these files" not in provenance_html([computed])


def test_notes_of_a_folder_without_them(tmp_path: Path):
    assert notes(tmp_path) == []
