"""Every chapter that displays the reputation update, Eq. (13), displays the paper's form
``Re_i^tau = alpha re_i^tau + (1 - alpha) Re_i^(tau-1)``, the one fedlib computes
(:func:`fedlib.mechanism.update_reputation`)."""

from __future__ import annotations

import re

import pytest
from book import ROOT

#: Eq. (13) as the paper prints it (alpha weighs the newest task's internal reputation).
EQ13 = r"Re_i^{\tau} = \alpha\, re_i^{\tau} + (1 - \alpha)\, Re_i^{\tau-1}"
#: The start of a display of Eq. (13): the new accumulated reputation, equals.
START = re.compile(r"Re_i\^\{?\\tau\}?\s*=")


def normalised(latex: str) -> str:
    """Spacing, braces and the index of alpha_i removed, so that equal formulas compare equal."""
    for token in (r"\,", r"\;", r"\!", " ", "\n", "{", "}"):
        latex = latex.replace(token, "")
    return latex.replace(r"\alpha_i", r"\alpha")


def displays(text: str) -> list[str]:
    """Every ``Re_i^tau = ...`` of ``text``, up to the end of its formula (a comma that is not
    a thin space, a full stop, a dollar sign or a ``\\qquad``)."""
    return [re.split(r"(?<!\\),|\$|\\qquad|\.(?=\s|\$)", text[m.start():])[0]
            for m in START.finditer(text)]


CHAPTERS = sorted((ROOT / "chapters").glob("*.md"))


@pytest.mark.parametrize("chapter", CHAPTERS, ids=lambda p: p.stem)
def test_every_display_of_eq13_is_the_papers(chapter):
    for shown in displays(chapter.read_text()):
        assert normalised(shown) == normalised(EQ13), f"{chapter.name} shows Eq. (13) as {shown}"


def test_the_check_finds_the_displays_and_a_swapped_alpha():
    # The reputation chapter states Eq. (13) (twice); other chapters link to it rather than
    # retype it, but any that does is held to the paper's form.
    assert len(displays((ROOT / "chapters" / "03_reputation.md").read_text())) >= 2
    swapped = r"$Re_i^{\tau} = \alpha Re_i^{\tau-1} + (1-\alpha) re_i^{\tau}$, and"
    assert normalised(displays(swapped)[0]) != normalised(EQ13)
    assert normalised(displays(r"$$Re_i^\tau = \alpha_i\, re_i^\tau + (1 - \alpha_i)\, "
                               r"Re_i^{\tau-1}.$$")[0]) == normalised(EQ13)
