"""Open built HTML pages in headless Chromium and report what a reader would stumble on.

Used by the browser tests after the book is built. Each check runs in the page itself, after
MathJax and the widget manager have had their turn.
"""

from __future__ import annotations

import time
from dataclasses import dataclass, field
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.options import Options
from selenium.webdriver.chrome.service import Service

CHROMIUM_FLAGS = (
    "--headless=new", "--no-sandbox", "--disable-gpu", "--disable-quic", "--no-first-run",
    "--disable-background-networking", "--disable-component-update", "--disable-sync",
    "--disable-dev-shm-usage", "--window-size=1280,2000",
)

#: Runs in the page and returns the problems it can see (raw TeX, broken images, ...).
PAGE_CHECK_JS = (Path(__file__).parent / "page_check.js").read_text()


@dataclass
class PageReport:
    """What the checks found on one page."""

    path: Path
    title: str
    figures: int
    widgets: int
    widget_images: int
    math: int
    problems: list[str] = field(default_factory=list)


def open_browser() -> webdriver.Chrome:
    """Headless Debian Chromium driven by chromedriver, with no network chatter."""
    options = Options()
    options.binary_location = "/usr/bin/chromium"
    for flag in CHROMIUM_FLAGS:
        options.add_argument(flag)
    return webdriver.Chrome(options=options, service=Service("/usr/bin/chromedriver"))


def check_page(driver: webdriver.Chrome, page: Path, screenshot: Path | None = None,
               settle: float = 1.5) -> PageReport:
    """Load ``page`` from disk, wait for MathJax to finish, run the checks, take a screenshot."""
    driver.get(page.resolve().as_uri())
    deadline = time.monotonic() + 20
    while time.monotonic() < deadline:
        ready = driver.execute_script(
            "return document.readyState === 'complete' && (!window.MathJax || "
            "!MathJax.startup || !MathJax.startup.promise || window.__mjx_done === true);"
        )
        driver.execute_script(
            "if (window.MathJax && MathJax.startup && MathJax.startup.promise && "
            "!window.__mjx_hooked) { window.__mjx_hooked = true; "
            "MathJax.startup.promise.then(() => { window.__mjx_done = true; }); }"
        )
        if ready:
            break
        time.sleep(0.2)
    time.sleep(settle)
    result = driver.execute_script(PAGE_CHECK_JS)
    deadline = time.monotonic() + 15  # the widget manager renders after the page has loaded
    while result["widget_images"] < result["widgets"] and time.monotonic() < deadline:
        time.sleep(0.5)
        result = driver.execute_script(PAGE_CHECK_JS)
    problems = list(result["problems"])
    if result["widget_images"] < result["widgets"]:
        problems.append(f"widget without its default figure: {result['widgets']} widget views, "
                        f"{result['widget_images']} rendered figures")
    if screenshot is not None:
        screenshot.parent.mkdir(parents=True, exist_ok=True)
        height = driver.execute_script("return document.body.scrollHeight")
        driver.set_window_size(1280, min(max(int(height), 800), 16000))
        driver.save_screenshot(str(screenshot))
        driver.set_window_size(1280, 2000)
    return PageReport(page, result["title"], result["figures"], result["widgets"],
                      result["widget_images"], result["mathjax"], problems)
