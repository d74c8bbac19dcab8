"""Recorded benchmarks name their date, machine and commit, never a working session.

A reader of ``benchmarks/recorded/`` cannot place "session 3" or "this session's machine"; they
can place 2026-11-26, an AMD EPYC Zen 4 and revision 7c0e8aa. These tests hold every record and
the folder's README to that rule, and show that the check fails on a planted mention.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
RECORDED = ROOT / "benchmarks" / "recorded"

# "session 3", "Sessions 1-3", "session12" (an old file name), "this session", "this session's
# machine", "same session", "the session that filed ...", "at the start of the session". Other
# sessions (a Jupyter kernel's, pytest's scope="session", start_new_session) do not match.
WORKING_SESSION = re.compile(
    r"(?<![a-z])sessions?[\s_-]*\d+|\bthis session\b|\bsame session\b|\bthe session\b",
    re.IGNORECASE,
)
# <what>_<machine>_<date>_<commit>.txt, as the README says.
RECORD_NAME = re.compile(r"^[a-z0-9_]+_[a-z0-9-]+_\d{4}-\d{2}-\d{2}_[0-9a-f]{7,40}\.txt$")


def working_session_mentions(path: Path) -> list[tuple[int, str]]:
    """The lines of ``path`` (1-based number, text) that name a working session."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return [(n, line) for n, line in enumerate(lines, 1) if WORKING_SESSION.search(line)]


def _records() -> list[Path]:
    return sorted(RECORDED.glob("*.txt"))


def test_there_are_records():
    assert len(_records()) >= 10
    assert (RECORDED / "README.md").is_file()


@pytest.mark.parametrize("path", [*_records(), RECORDED / "README.md"], ids=lambda p: p.name)
def test_no_record_names_a_working_session(path):
    mentions = working_session_mentions(path)
    assert not mentions, f"{path.name} names a working session (use date, machine, commit): " + (
        "; ".join(f"line {n}: {line.strip()}" for n, line in mentions)
    )
    assert not WORKING_SESSION.search(path.name)


@pytest.mark.parametrize("path", _records(), ids=lambda p: p.name)
def test_record_is_named_by_what_machine_date_and_commit(path):
    assert RECORD_NAME.match(path.name), path.name


@pytest.mark.parametrize(
    "planted",
    [
        "All of Tables 1-3, 2026-11-26 (session 3), from a fresh clone of revision 7c0e8aa",
        "  here     this session's machine: AMD EPYC, family 25 model 1 (Milan)",
        "the stored files, made in sessions 1-3 on an AMD EPYC",
        "Also measured, by the session that filed issue 14, on an Intel Xeon",
        "Same session, same machine (.gpudata/gpu_check.py):",
        "(c76b25a, at the start of the session, host idle)",
        "see tables_both_cpu_amd_genoa_session12.txt",
    ],
)
def test_the_check_fails_on_a_planted_mention(tmp_path, planted):
    record = tmp_path / "round_speed_amd-epyc_2026-11-26_f4eb537.txt"
    record.write_text(
        f"header line\n{planted}\nfp32 matmul ceiling 205.6 GFLOP/s\n", encoding="utf-8"
    )
    assert working_session_mentions(record) == [(2, planted)]
    with pytest.raises(AssertionError, match="names a working session"):
        test_no_record_names_a_working_session(record)


@pytest.mark.parametrize(
    "kept",
    [
        "2026-11-26, from a fresh clone of revision 7c0e8aa (AMD EPYC Zen 4, AVX-512)",
        "its cell was run in another kernel session: run the",
        '@pytest.fixture(scope="session")',
        "start_new_session=True",
    ],
)
def test_other_sessions_pass(tmp_path, kept):
    record = tmp_path / "note.txt"
    record.write_text(kept + "\n", encoding="utf-8")
    assert working_session_mentions(record) == []
