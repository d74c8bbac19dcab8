"""The interactive path in a real JupyterLab: chapters open from their ``.md`` as notebooks,
their MyST markdown renders, they run in the live kernel, and their widgets drive their
outputs. Headless Chromium drives JupyterLab; the kernel runs in fast mode.

Every chapter is opened and must show the cells of its notebook twin, and its markdown cells,
rendered by jupyterlab-myst, must show no MyST markup (no ``{doc}`` role, no ``:::{...}``
fence, exercises and solutions included); in a JupyterLab without jupyterlab-myst the same
check finds the markup (it can fail). The auction chapter is run whole and its budget slider
moved through the page, which must change the explorer's output; with the slider's callback
cut in the kernel, the same move must change nothing (the check can fail). Executing every
chapter in this kernel is nbval's job (the same environment and ``python3`` kernel); these
tests add the front end: jupytext's notebook view, the MyST renderer, the widget manager and
the page's events.
"""

from __future__ import annotations

import json
import os
import time
from pathlib import Path

import nbformat
import pytest
from book import ROOT, notebook_chapters
from browser import open_browser
from lab import (
    close_all,
    execute,
    lab_server,
    open_chapter,
    raw_myst,
    rendered_markdown,
    run_all,
    run_js,
    wait_for_app,
    wait_idle,
)
from selenium.webdriver.common.by import By
from selenium.webdriver.common.keys import Keys

pytest.importorskip("jupyterlab", reason="needs the lab extra: "
                    "pip install -r requirements-lab.txt")

WIDGET_CHAPTER = "04_auction.md"
SLIDER = ".widget-slider .noUi-handle, .widget-hslider .noUi-handle"
#: jupyterlab-myst renders each markdown cell on its own, so a reference to a figure named in a
#: code cell's metadata, or to another chapter's target, is "not found" and logged as an error:
#: not an error of the widget path.
MYST_UNRESOLVED = "Cross reference target was not found"
MYST_EXTENSION = "jupyterlab-myst"


@pytest.fixture(scope="module")
def lab(driver):
    """JupyterLab on chapters/, loaded in the browser; the browser's console log is emptied."""
    data = os.environ.get("FEDLIB_DATA")
    if not data:
        pytest.fail("FEDLIB_DATA must name the data folder (the chapters load MNIST)")
    with lab_server(str(ROOT / "chapters"), data) as url:
        wait_for_app(driver, url)
        driver.get_log("browser")
        yield driver
        close_all(driver)


def test_the_lab_opens_notebooks_with_the_books_defaults(lab):
    """The server reads jupyter_config/ as the README's command has it: windowing off."""
    plugin = run_js(lab, "const p = await app.serviceManager.settings.fetch(args[0]);"
                    "return p.schema.properties.windowingMode.default;",
                    "@jupyterlab/notebook-extension:tracker")
    assert plugin == "none", plugin


@pytest.mark.parametrize("chapter", [p.name for p in notebook_chapters()])
def test_every_chapter_opens_as_a_notebook_and_renders_its_myst(lab, chapter):
    """One opening per chapter (each starts a kernel): its cells are its notebook twin's, and
    its rendered markdown shows no MyST markup."""
    opened = open_chapter(lab, chapter)
    texts = rendered_markdown(lab) if opened.get("error") is None else []
    twin = nbformat.read(ROOT / "chapters" / Path(chapter).with_suffix(".ipynb"), as_version=4)
    close_all(lab)
    assert opened.get("error") is None, opened
    assert (opened["path"], opened["cells"]) == (chapter, len(twin.cells))
    assert texts and not raw_myst(texts), raw_myst(texts)


def test_a_lab_without_the_myst_renderer_is_caught(lab):
    """The negative control: JupyterLab's own markdown renderer leaves the exercises' fences
    and the roles as text, and the check above finds them (in a second browser, on a second
    server, so that the other tests keep theirs)."""
    plain = open_browser()
    try:
        with lab_server(str(ROOT / "chapters"), os.environ["FEDLIB_DATA"],
                        disabled=(MYST_EXTENSION,)) as url:
            wait_for_app(plain, url)
            open_chapter(plain, WIDGET_CHAPTER)
            found = raw_myst(rendered_markdown(plain))
            close_all(plain)
    finally:
        plain.quit()
    assert any("{doc}" in f for f in found) and any(":::{exercise}" in f for f in found), found


def _explorer_output(driver, handle):
    """The text (less the controls' own readouts and fields) and the images' sources of the
    output area that holds ``handle``'s widget."""
    return driver.execute_script("""
        const area = arguments[0].closest('.jp-OutputArea');
        const text = area.cloneNode(true);
        text.querySelectorAll('.widget-readout, input, textarea').forEach(e => e.remove());
        return [text.textContent, Array.from(area.querySelectorAll('img')).map(i => i.src)];""",
        handle)


def _move_slider(driver, screenshots, name):
    """Move the first budget slider 10 steps right; its output area (before, after) and its
    readout (before, after)."""
    handle = driver.find_elements(By.CSS_SELECTOR, SLIDER)[0]
    driver.execute_script("arguments[0].scrollIntoView({block: 'center'})", handle)
    time.sleep(0.5)
    readout = "return arguments[0].closest('.widget-slider, .widget-hslider')" \
              ".querySelector('.widget-readout').textContent"
    before, value = _explorer_output(driver, handle), driver.execute_script(readout, handle)
    driver.save_screenshot(str(screenshots / f"jupyterlab_{name}_before.png"))
    handle.click()
    for _ in range(10):
        handle.send_keys(Keys.ARROW_RIGHT)
    deadline = time.monotonic() + 15
    while _explorer_output(driver, handle) == before and time.monotonic() < deadline:
        time.sleep(0.5)
    wait_idle(driver)  # every queued step drawn: the screenshot shows the final state
    time.sleep(0.5)
    driver.save_screenshot(str(screenshots / f"jupyterlab_{name}_after.png"))
    return (before, _explorer_output(driver, handle)), (value, driver.execute_script(readout,
                                                                                      handle))


@pytest.fixture(scope="module")
def ran(lab):
    """The widget chapter opened and run whole in the live kernel (the browser's console log
    emptied first, so that what it holds afterwards comes from this chapter)."""
    close_all(lab)
    lab.get_log("browser")
    open_chapter(lab, WIDGET_CHAPTER)
    return run_all(lab)


def test_the_widget_chapter_runs_without_an_error(ran):
    assert not ran["errors"], ran["errors"]
    assert ran["executed"] == ran["code"] > 10


def test_moving_the_budget_slider_changes_the_explorers_output(lab, ran, screenshot_dir):
    screenshot_dir.mkdir(parents=True, exist_ok=True)
    (before, after), (value, moved) = _move_slider(lab, screenshot_dir, "auction")
    assert float(moved) > float(value)
    assert after[0] != before[0] and f"B = {moved}" in after[0]
    assert after[1] != before[1], "the explorer's figure did not change"
    severe = [entry["message"] for entry in lab.get_log("browser")
              if entry["level"] == "SEVERE" and "favicon" not in entry["message"]
              and not (MYST_EXTENSION in entry["message"]
                       and MYST_UNRESOLVED in entry["message"])]
    assert not severe, json.dumps(severe, indent=1)


def test_a_slider_whose_callback_is_cut_is_caught(lab, ran, screenshot_dir):
    """The negative control: the same move with the explorer's callbacks removed in the
    kernel leaves its output as it was, so the test above would fail."""
    execute(lab, "explorer.budget.unobserve_all()")
    (before, after), (value, moved) = _move_slider(lab, screenshot_dir, "auction_cut")
    assert float(moved) > float(value)  # the front end still moves
    assert after == before
