"""Every teaching chapter ends with its exercises (issue #34), read from the MyST sources: at
least two, each saying what the reader should find, each with one solution folded in the HTML
(``:class: dropdown``); a solution that computes is a gated {solution-start}/{solution-end}
pair whose code cells run at every build and hold a check that can fail (an ``assert``). The
rendered side (folded, unfolding on a click, in the PDF) is checked in ``tests_book``."""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from book import exercises, notebook_chapters, teaching_chapters

MIN_EXERCISES = 2
HEADING = "## Exercises"
TAKEAWAYS = ":::{admonition} What this chapter showed"


def problems(text: str) -> list[str]:
    """What is wrong with the exercises of one chapter's source (empty when nothing is)."""
    found = []
    lines = text.splitlines()
    if HEADING not in lines:
        return [f"no '{HEADING}' section"]
    start = lines.index(HEADING)
    headings = [i for i, line in enumerate(lines) if line.startswith("## ")]
    if headings[-1] != start:
        found.append(f"'{HEADING}' is not the last section")
    if TAKEAWAYS not in lines[:start]:
        found.append("the exercises do not follow the takeaways box")
    listed = exercises(text)
    if len(listed) < MIN_EXERCISES:
        found.append(f"{len(listed)} exercise(s), fewer than {MIN_EXERCISES}")
    code_cells = sum(line.startswith("```{code-cell}") for line in lines[start:])
    if code_cells != sum(len(e.code) for e in listed):
        found.append("a code cell of the exercises lies outside a gated solution")
    for e in listed:
        name = e.label or f"the exercise of line {e.line}"
        if e.line <= start + 1:
            found.append(f"{name}: before the '{HEADING}' heading")
        if not e.label.startswith("ex-"):
            found.append(f"{name}: no ':label: ex-...'")
        if not e.title:
            found.append(f"{name}: a solution without its exercise before it")
        if "should find" not in " ".join(e.statement.split()):
            found.append(f"{name}: does not say what the reader should find")
        if "should find that" in " ".join(e.statement.split()).lower():
            found.append(f"{name}: gives its answer away: say what to find, not that it holds")
        if len(e.solutions) != 1:
            found.append(f"{name}: {len(e.solutions)} solutions")
        if not all(e.dropdown):
            found.append(f"{name}: a solution not folded (:class: dropdown)")
        if not all(e.closed):
            found.append(f"{name}: a {{solution-start}} without its {{solution-end}}")
        if "code" in e.solutions and not e.code:
            found.append(f"{name}: a gated solution without a code cell")
        if e.code and not any(re.search(r"^\s*assert\b", c, re.MULTILINE) for c in e.code):
            found.append(f"{name}: its solution's code checks nothing (no assert)")
    return found


def test_the_teaching_chapters_are_every_chapter_of_the_book_proper():
    names = {path.stem for path in teaching_chapters()}
    assert names == {path.stem for path in notebook_chapters() if path.stem[:2].isdigit()}
    assert {"01_overview", "05_proofs", "07_federated", "09_federation", "08_reproducibility",
            "14_cold_start", "10_design_mechanism"} <= names


@pytest.mark.parametrize("chapter", teaching_chapters(), ids=lambda p: p.stem)
def test_a_teaching_chapter_ends_with_its_exercises(chapter: Path):
    assert problems(chapter.read_text()) == []


def test_exercise_labels_are_unique_across_the_book():
    labels = [e.label for path in teaching_chapters() for e in exercises(path.read_text())]
    assert len(labels) == len(set(labels)), sorted(
        {label for label in labels if labels.count(label) > 1})


GOOD = f"""# A chapter

Text.

{TAKEAWAYS}
:class: tip
- What it showed.
:::

{HEADING}

:::{{exercise}} By hand
:label: ex-a-hand

Compute it. You should find four.
:::

:::{{solution}} ex-a-hand
:class: dropdown

Four.
:::

:::{{exercise}} In code
:label: ex-a-code

Compute it again. You should find four again.
:::

:::{{solution-start}} ex-a-code
:class: dropdown
:::

```{{code-cell}} ipython3
assert 2 + 2 == 4
```

:::{{solution-end}}
:::
"""

BROKEN = {
    "no '## Exercises' section": GOOD.replace(HEADING, "## Practice"),
    "is not the last section": GOOD + "\n## Afterword\n",
    "do not follow the takeaways box": GOOD.replace(TAKEAWAYS, ":::{admonition} Summary"),
    "1 exercise(s), fewer than 2": GOOD[:GOOD.index(":::{exercise} In code")],
    "does not say what the reader should find": GOOD.replace("You should find four.", ""),
    "gives its answer away": GOOD.replace("You should find four.",
                                          "You should find that it is four."),
    "0 solutions": GOOD.replace(":::{solution} ex-a-hand", ":::{solution} ex-a-typo"),
    "a solution without its exercise before it": GOOD.replace(
        ":::{solution} ex-a-hand", ":::{solution} ex-a-typo"),
    "not folded": GOOD.replace(":::{solution} ex-a-hand\n:class: dropdown",
                               ":::{solution} ex-a-hand"),
    "without its {solution-end}": GOOD.replace(":::{solution-end}\n:::\n", ""),
    "checks nothing": GOOD.replace("assert 2 + 2 == 4", "print(2 + 2)"),
    "lies outside a gated solution": GOOD + "\n```{code-cell} ipython3\nprint(4)\n```\n",
    "no ':label: ex-...'": GOOD.replace(":label: ex-a-hand", ":label: a-hand").replace(
        ":::{solution} ex-a-hand", ":::{solution} a-hand"),
}


def test_the_checks_pass_a_good_section():
    assert problems(GOOD) == []
    assert [e.solutions for e in exercises(GOOD)] == [["text"], ["code"]]


@pytest.mark.parametrize("expected", sorted(BROKEN))
def test_the_checks_catch_a_broken_section(expected):
    assert any(expected in problem for problem in problems(BROKEN[expected])), (
        problems(BROKEN[expected]))
