"""Every reading of the paper names a parameter or function that exists, and a chapter."""

from __future__ import annotations

import importlib
import re
from pathlib import Path

import pytest

from fedlib.paper.readings import READINGS

CHAPTERS = Path(__file__).resolve().parents[2] / "chapters"


def _resolve(dotted: str) -> object:
    """The object a dotted name ``fedlib.module.attribute`` names."""
    parts = dotted.split(".")
    for split in range(len(parts), 0, -1):
        try:
            target = importlib.import_module(".".join(parts[:split]))
        except ModuleNotFoundError:
            continue
        for name in parts[split:]:
            target = getattr(target, name)
        return target
    raise ModuleNotFoundError(dotted)


def test_every_reading_is_distinct_and_names_a_chapter():
    assert len({r.topic for r in READINGS}) == len(READINGS)
    assert all(r.default != r.alternative for r in READINGS)
    for reading in READINGS:
        assert reading.parameter and reading.paper, reading.topic
        assert (CHAPTERS / f"{reading.chapter}.md").is_file(), reading.chapter


@pytest.mark.parametrize("reading", READINGS, ids=lambda r: r.topic)
def test_every_fedlib_name_in_a_reading_exists(reading):
    for dotted in re.findall(r"fedlib(?:\.\w+)+", reading.parameter):
        _resolve(dotted)
