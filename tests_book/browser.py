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
#: Runs in the page laid out for print and returns what would print wrongly (screen chrome, a
#: folded output left out, code or a table cut at the page edge).
PRINT_CHECK_JS = (Path(__file__).parent / "print_check.js").read_text()
#: The text column of a printed page in CSS pixels: A4 (8.27 in) less the PDF script's margins
#: (0.6 in each side), at 96 px per inch.
PRINT_WIDTH_PX = 679


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


def print_problems(driver: webdriver.Chrome) -> list[str]:
    """Lay the loaded page out as it prints (print media, the printed column's width), fire
    ``beforeprint`` (folded outputs and solutions open) and return what would print wrongly.

    The page stays ready for print (``beforeprint`` is not undone); the layout is restored."""
    driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": "print"})
    driver.execute_cdp_cmd("Emulation.setDeviceMetricsOverride", {
        "width": PRINT_WIDTH_PX, "height": 1000, "deviceScaleFactor": 1, "mobile": False})
    try:
        driver.execute_script("window.dispatchEvent(new Event('beforeprint'));")
        return list(driver.execute_script(PRINT_CHECK_JS))
    finally:
        driver.execute_cdp_cmd("Emulation.clearDeviceMetricsOverride", {})
        driver.execute_cdp_cmd("Emulation.setEmulatedMedia", {"media": ""})
