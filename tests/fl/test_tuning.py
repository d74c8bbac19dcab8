"""Kernel choices made once per machine (:mod:`fedlib.fl.tuning`)."""

from __future__ import annotations

import json

import pytest

from fedlib.fl import tuning


@pytest.fixture
def cache(tmp_path, monkeypatch):
    """A fresh cache file and no choice remembered by the process."""
    path = tmp_path / "kernels.json"
    monkeypatch.setenv("FEDLIB_KERNEL_CACHE", str(path))
    monkeypatch.delenv("FEDLIB_TUNE", raising=False)
    monkeypatch.setattr(tuning, "_chosen", {})
    return path


def test_the_default_stays_unless_a_candidate_beats_it_by_the_margin() -> None:
    assert tuning.MARGIN == 0.1
    # candidate 1 against the default 2, round by round: ratios 0.95, 0.5, 0.92 (median 0.92)
    seconds = {1: [0.95, 1.0, 0.92], 2: [1.0, 2.0, 1.0], 3: [2.0, 4.0, 2.0]}
    assert tuning.fastest(seconds, default=2) == 2
    # ratios 0.85, 0.5, 0.92: median 0.85, more than 10% faster
    seconds[1] = [0.85, 1.0, 0.92]
    assert tuning.fastest(seconds, default=2) == 1
    # the load doubled in the second round: paired ratios see through it
    assert tuning.fastest({1: [1.0, 2.0, 1.0], 2: [1.2, 2.4, 1.2]}, default=2) == 1
    assert tuning.fastest({1: [1.0, 2.0, 1.0], 2: [1.0, 1.0, 1.0]}, default=2) == 2


def test_a_choice_is_timed_once_per_machine_and_then_read(cache, monkeypatch) -> None:
    calls = []

    def run(candidate: int) -> None:
        calls.append(candidate)

    monkeypatch.setattr(tuning, "time_candidates",
                        lambda candidates, run: {8: [2.0], 16: [1.0], 32: [3.0]})
    assert tuning.choice("toy", (8, 16, 32), 8, run) == 16
    stored = json.loads(cache.read_text())
    assert stored == {"toy": {tuning.machine_key(): 16}}

    monkeypatch.setattr(tuning, "_chosen", {})  # another process on the same machine
    monkeypatch.setattr(tuning, "time_candidates", pytest.fail)
    assert tuning.choice("toy", (8, 16, 32), 8, run) == 16
    assert calls == []  # the timing was stubbed; the workload never ran


def test_time_candidates_interleaves_rounds_after_a_warm_up() -> None:
    calls = []
    seconds = tuning.time_candidates((1, 2), calls.append, rounds=3)
    assert calls == [1, 2] * 4
    assert set(seconds) == {1, 2}
    assert all(len(times) == 3 and min(times) >= 0 for times in seconds.values())


def test_choices_of_other_names_and_machines_are_kept(cache, monkeypatch) -> None:
    cache.write_text(json.dumps({"toy": {"another machine": 32}, "other": {"x": 1}}))
    monkeypatch.setattr(tuning, "time_candidates", lambda candidates, run: {8: [1.0], 16: [2.0]})
    assert tuning.choice("toy", (8, 16), 16, lambda c: None) == 8
    assert json.loads(cache.read_text()) == {
        "toy": {"another machine": 32, tuning.machine_key(): 8}, "other": {"x": 1}}


def test_tuning_off_keeps_the_default_and_times_nothing(cache, monkeypatch) -> None:
    monkeypatch.setenv("FEDLIB_TUNE", "0")
    monkeypatch.setattr(tuning, "time_candidates", pytest.fail)
    assert tuning.choice("toy", (8, 16), 16, pytest.fail) == 16
    assert not cache.exists()
    monkeypatch.setenv("FEDLIB_TUNE", "yes")
    with pytest.raises(ValueError, match="FEDLIB_TUNE must be 0 or 1"):
        tuning.choice("toy", (8, 16), 16, pytest.fail)


@pytest.mark.parametrize("content, match", [
    ("{not json", "cannot be read"),
    ("[1, 2]", "does not hold fedlib's kernel choices"),
])
def test_an_unreadable_cache_is_named(cache, content, match) -> None:
    cache.write_text(content)
    with pytest.raises(ValueError, match=match) as error:
        tuning.choice("toy", (8, 16), 16, pytest.fail)
    assert str(cache) in str(error.value)


def test_a_stored_value_that_is_no_candidate_is_refused(cache) -> None:
    cache.write_text(json.dumps({"toy": {tuning.machine_key(): 12}}))
    with pytest.raises(ValueError, match="12 on this machine, which is not one of"):
        tuning.choice("toy", (8, 16), 16, pytest.fail)


def test_the_default_must_be_a_candidate(cache) -> None:
    with pytest.raises(ValueError, match="not among its candidates"):
        tuning.choice("toy", (8, 16), 4, pytest.fail)


def test_an_unwritable_cache_warns_and_the_choice_still_holds(tmp_path, monkeypatch) -> None:
    blocker = tmp_path / "a file"
    blocker.write_text("")
    monkeypatch.setenv("FEDLIB_KERNEL_CACHE", str(blocker / "kernels.json"))
    monkeypatch.setattr(tuning, "_chosen", {})
    monkeypatch.setattr(tuning, "time_candidates", lambda candidates, run: {8: [1.0], 16: [2.0]})
    with pytest.warns(UserWarning, match="could not store its kernel choice"):
        assert tuning.choice("toy", (8, 16), 16, pytest.fail) == 8
