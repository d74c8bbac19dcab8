"""The table of the auction and proofs chapters (fedlib.experiments.auction_walkthrough)."""

from __future__ import annotations

import math

import pytest

from fedlib.experiments.auction_walkthrough import Table


def test_table_renders_as_text_and_html_and_gives_columns():
    t = Table(("a", "b"), ((1, 0.5), (True, math.inf)), title="T")
    text = str(t)
    assert text.splitlines()[0] == "T" and "yes" in text and "inf" in text
    assert "<table" in t._repr_html_() and "<caption>T</caption>" in t._repr_html_()
    assert t._repr_html_().count("<td") == 4
    assert t.column("b") == [0.5, math.inf]
    with pytest.raises(ValueError, match="every row"):
        Table(("a",), ((1, 2),))
