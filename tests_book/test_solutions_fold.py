"""The exercises in the built HTML (#34), as a reader meets them in Chromium: every teaching
chapter's page shows the exercises of its source, each followed by its solution, and every
solution is folded (its text and code hidden) until a real click on its toggle button opens
it. A solution that was not folded, a toggle that opens nothing, or a gated solution whose code
cells did not end up inside it fails."""

from __future__ import annotations

import time

import pytest
from book import ROOT, exercises, teaching_chapters
from selenium.webdriver.common.by import By

PAGES = [path.relative_to(ROOT).with_suffix("").as_posix() for path in teaching_chapters()]
#: sphinx-exercise's nodes; sphinx-togglebutton marks a folded dropdown ``toggle-hidden`` and
#: puts its button in the title.
EXERCISE, SOLUTION, BUTTON = "main div.exercise", "main div.solution", ".toggle-button"


def _open(driver, page) -> None:
    driver.get(page.resolve().as_uri())
    deadline = time.monotonic() + 15  # togglebutton folds the solutions once the page loads
    while time.monotonic() < deadline and driver.execute_script(
            f"return document.querySelectorAll('{SOLUTION}').length !== "
            f"document.querySelectorAll('{SOLUTION}.toggle').length"):
        time.sleep(0.1)


def _shown(element) -> bool:
    """Whether a reader can see ``element``: displayed, with a box of some height."""
    return element.is_displayed() and element.size["height"] > 0


@pytest.mark.parametrize("name", PAGES)
def test_solutions_are_folded_and_open_on_a_click(driver, html_dir, name):
    page = html_dir / f"{name}.html"
    assert page.exists(), f"{page} was not built"
    _open(driver, page)
    listed = exercises((ROOT / f"{name}.md").read_text())
    shown = driver.find_elements(By.CSS_SELECTOR, EXERCISE)
    solutions = driver.find_elements(By.CSS_SELECTOR, SOLUTION)
    assert [e.get_attribute("id") for e in shown] == [e.label for e in listed]
    assert len(solutions) == len(listed)
    for exercise, solution in zip(listed, solutions, strict=True):
        where = f"{name}, the solution of {exercise.label}"
        body = solution.find_element(By.CSS_SELECTOR, ":scope > section")
        cells = body.find_elements(By.CSS_SELECTOR, "div.cell")
        assert len(cells) == len(exercise.code), f"{where}: its code cells are not inside it"
        assert not _shown(body), f"{where} is not folded"
        button = solution.find_element(By.CSS_SELECTOR, BUTTON)
        driver.execute_script("arguments[0].scrollIntoView({block: 'center'});", button)
        button.click()  # a real click: WebDriver moves the mouse there and presses it
        deadline = time.monotonic() + 5
        while not _shown(body) and time.monotonic() < deadline:
            time.sleep(0.1)
        assert _shown(body), f"{where} did not open on a click"
        assert all(_shown(cell) for cell in cells), f"{where}: a code cell stays hidden"
