"""Every reading of the paper names a parameter or function that exists, and a chapter."""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from dataclasses import replace
from pathlib import Path
from types import FunctionType

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


# A documented reading parameter: a numpydoc entry (Parameters, Attributes or Other Parameters
# of a public class, method or function of fedlib) or a ``#:`` comment of a module constant whose
# text says the paper leaves the value open or calls it a reading.
READING_PHRASE = re.compile(
    r"the paper does not|not given|not said|not stated|does not (?:say|state|give|print)|"
    r"leaves? (?:it )?open|left open|\b(?:our|default|corrected|printed|which|the) reading\b|"
    r"\breading of\b", re.IGNORECASE)
_SECTION = re.compile(
    r"^(?:Parameters|Attributes|Other Parameters)\n-+\n(.*?)(?=^\w[\w ]*\n-+\n|\Z)",
    re.MULTILINE | re.DOTALL)
_CONSTANT = re.compile(r"((?:^#:.*\n)+)^([A-Z_][A-Z0-9_]*(?:, *[A-Z_][A-Z0-9_]*)*)\b",
                       re.MULTILINE)
#: The table itself describes readings in its own docstrings.
NOT_SCANNED = ("fedlib.__main__", "fedlib.paper.readings")


def _entries(doc: str):
    """``(names, text)`` of every numpydoc entry of ``doc``'s parameter sections."""
    for section in _SECTION.finditer(doc):
        entry = None
        for line in section.group(1).splitlines():
            if line and not line[0].isspace():
                if entry:
                    yield entry
                entry = (line.split(" : ")[0], line)
            elif entry:
                entry = (entry[0], f"{entry[1]} {line.strip()}")
        if entry:
            yield entry


def documented_readings(module_name: str, namespace: dict, source: str):
    """``(module basename, owner, name, text)`` of every documented reading parameter of a
    module (``owner`` is None for a constant)."""
    basename = module_name.rsplit(".", 1)[-1]
    owners = []
    for name, obj in namespace.items():
        if name.startswith("_") or getattr(obj, "__module__", None) != module_name:
            continue
        if inspect.isclass(obj):
            owners.append((name, obj))
            owners += [(name, getattr(obj, attr)) for attr, member in vars(obj).items()
                       if not attr.startswith("_")
                       and isinstance(member, staticmethod | classmethod | FunctionType)]
        elif inspect.isfunction(obj):
            owners.append((name, obj))
    for owner, obj in owners:
        for names, text in _entries(inspect.getdoc(obj) or ""):
            if READING_PHRASE.search(text):
                for name in re.split(r",\s*", names.strip("* ")):
                    yield basename, owner, name.strip("* "), text
    for comment, names in _CONSTANT.findall(source):
        if READING_PHRASE.search(" ".join(comment.replace("#:", " ").split())):
            for name in re.split(r",\s*", names):
                yield basename, None, name, comment


def _word(word: str, text: str) -> bool:
    return re.search(rf"(?<![\w.]){re.escape(word)}\b|\.{re.escape(word)}\b", text) is not None


def uncovered(found, readings=READINGS):
    """The documented readings no row names: a constant by its name, a parameter by its name
    together with its owner or its module."""
    columns = [r.parameter for r in readings]
    return [(basename, owner, name) for basename, owner, name, _ in found
            if not any(_word(name, c) and (owner is None or _word(owner, c) or _word(basename, c))
                       for c in columns)]


def _fedlib_modules():
    import fedlib
    for info in pkgutil.walk_packages(fedlib.__path__, "fedlib."):
        if info.name not in NOT_SCANNED:
            yield importlib.import_module(info.name)


def test_every_documented_reading_parameter_is_in_the_table():
    found = [entry for module in _fedlib_modules()
             for entry in documented_readings(module.__name__, vars(module),
                                              Path(module.__file__).read_text())]
    names = {name for _, _, name, _ in found}
    assert {"budget", "initial_reputation", "denominator", "optimal_values", "fresh_model",
            "temp_denominator", "PIXEL_MEAN", "PAPER_BUDGETS"} <= names
    assert uncovered(found) == []


FAKE_MODULE = '''
#: Spread of the fake bids (the paper does not give it).
FAKE_SPREAD = 2.0


def fake_auction(bids, window=3):
    """A fake auction.

    Parameters
    ----------
    bids : array_like
        The bids.
    window : int, default 3
        How many bids are compared (our reading; the paper is silent).
    """
'''


def test_an_undocumented_reading_parameter_is_caught():
    namespace = {"__name__": "fedlib.experiments.fake_auction"}
    exec(FAKE_MODULE, namespace)  # noqa: S102 - a fixed, local source
    found = list(documented_readings("fedlib.experiments.fake_auction", namespace, FAKE_MODULE))
    assert {name for _, _, name, _ in found} == {"window", "FAKE_SPREAD"}
    assert set(uncovered(found)) == {("fake_auction", "fake_auction", "window"),
                                     ("fake_auction", None, "FAKE_SPREAD")}
    named = replace(READINGS[0], parameter="fake_auction(window); FAKE_SPREAD")
    assert uncovered(found, (*READINGS, named)) == []
    # the name alone is not enough: a row must also name its owner or module
    unowned = replace(READINGS[0], parameter="window; FAKE_SPREAD")
    assert uncovered(found, (*READINGS, unowned)) == [("fake_auction", "fake_auction", "window")]
