"""A JupyterLab server for the browser tests of the interactive path, and what the tests ask
the running app (``--expose-app-in-browser`` puts it at ``window.jupyterapp``).

The server serves ``chapters/`` on a free local port with a throw-away token, under
``FEDLIB_FAST=1`` (the kernels it starts inherit it), from the environment the tests run in:
the same JupyterLab, jupytext and widget extensions a reader gets from the README's commands.
"""

from __future__ import annotations

import json
import os
import re
import secrets
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Any

from selenium.webdriver.remote.webdriver import WebDriver

#: The document factory jupytext registers: a ``.md`` chapter opened as a notebook.
JUPYTEXT_FACTORY = "Jupytext Notebook"

#: The JupyterLab defaults the README's ``JUPYTER_CONFIG_PATH`` names.
LAB_CONFIG = Path(__file__).resolve().parent.parent / "jupyter_config"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


@contextmanager
def lab_server(root: str, data: str, timeout: float = 90.0,
               disabled: tuple[str, ...] = ()) -> Iterator[str]:
    """Run ``jupyter lab`` on ``root``; yields the URL of the app, token included.
    ``disabled`` names JupyterLab extensions to leave out (a user-level ``page_config.json`` in a
    throw-away configuration folder)."""
    port, token = _free_port(), secrets.token_hex(16)
    scratch = tempfile.mkdtemp(prefix="fedlib-lab-")
    # A fresh user: no saved workspace, and no "fetch news?" toast over the screenshots.
    settings = Path(scratch, "settings", "@jupyterlab", "apputils-extension")
    settings.mkdir(parents=True)
    (settings / "notification.jupyterlab-settings").write_text(
        json.dumps({"fetchNews": "false", "checkForUpdates": False}))
    # The book's own JupyterLab defaults, as the README sets them: the notebook's windowing off,
    # so markdown renders as the notebook opens and no renderer works on a cell taken away.
    env = dict(os.environ, FEDLIB_FAST="1", FEDLIB_DATA=data, JUPYTERLAB_WORKSPACES_DIR=scratch,
               JUPYTERLAB_SETTINGS_DIR=str(settings.parent.parent),
               JUPYTER_CONFIG_PATH=str(LAB_CONFIG))
    if disabled:
        labconfig = Path(scratch, "config", "labconfig")
        labconfig.mkdir(parents=True)
        (labconfig / "page_config.json").write_text(
            json.dumps({"disabledExtensions": {name: True for name in disabled}}))
        env["JUPYTER_CONFIG_DIR"] = str(labconfig.parent)
    log = open(os.path.join(scratch, "server.log"), "w+")  # noqa: SIM115 - closed below
    server = subprocess.Popen(
        [sys.executable, "-m", "jupyterlab", "--no-browser", "--allow-root",
         "--ServerApp.ip=127.0.0.1", f"--port={port}", f"--IdentityProvider.token={token}",
         f"--ServerApp.root_dir={root}", "--expose-app-in-browser",
         "--LabApp.news_url=", "--LabApp.check_for_updates_class=jupyterlab.NeverCheckForUpdate"],
        env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
    base = f"http://127.0.0.1:{port}"
    try:
        deadline = time.monotonic() + timeout
        while True:
            try:
                urllib.request.urlopen(f"{base}/api/status?token={token}", timeout=2)
                break
            except OSError as error:
                if server.poll() is not None or time.monotonic() > deadline:
                    server.kill()
                    log.seek(0)
                    raise RuntimeError(f"JupyterLab did not start: {log.read()[-2000:]}") from error
                time.sleep(0.5)
        yield f"{base}/lab?token={token}"
    finally:
        server.terminate()
        try:
            server.wait(15)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()


def run_js(driver: WebDriver, body: str, *args: Any) -> Any:
    """Await the async JavaScript ``body`` (it may use ``app`` and ``args``) and return its
    value; a rejected promise comes back as ``{"error": message}``."""
    return driver.execute_async_script(
        "const done = arguments[arguments.length - 1]; const app = window.jupyterapp;"
        "const args = Array.from(arguments).slice(0, -1);"
        f"(async () => {{ {body} }})().then(done, e => done({{error: String(e)}}));", *args)


def wait_for_app(driver: WebDriver, url: str, timeout: float = 60.0) -> None:
    """Load the app and wait until it has started."""
    driver.get(url)
    deadline = time.monotonic() + timeout
    while not driver.execute_script("return !!(window.jupyterapp && window.jupyterapp.started)"):
        if time.monotonic() > deadline:
            raise TimeoutError("JupyterLab's app did not appear in the page")
        time.sleep(0.3)
    run_js(driver, "await app.started; await app.restored; return true;")


def open_chapter(driver: WebDriver, path: str) -> dict[str, Any]:
    """Open ``path`` (a chapter's ``.md``) as a notebook with a Python kernel; returns its
    cell count and the document factory that opened it."""
    return run_js(driver, f"""
        const widget = await app.commands.execute('docmanager:open',
            {{path: args[0], factory: '{JUPYTEXT_FACTORY}', kernel: {{name: 'python3'}}}});
        await widget.context.ready;
        return {{cells: widget.context.model.cells.length,
                 factory: widget.context.model.type, path: widget.context.path}};""", path)


#: MyST markup that a renderer which does not know MyST leaves in the text: a role
#: (``{doc}`x``` shows as ``{doc}`` before the name), a directive fence (``:::{admonition}``),
#: or a target (``(sec-x)=`` on its own line).
RAW_MYST = re.compile(r"(?::{3,}|`{3,})\{[\w:-]+\}|\{[a-z][\w:-]*\}(?=[`\w])|^\([\w-]+\)=\s*$",
                      re.MULTILINE)


def rendered_markdown(driver: WebDriver, timeout: float = 15.0) -> list[str | None]:
    """The text of every markdown cell of the current notebook as rendered (None for a cell
    that did not render within ``timeout`` seconds): by JupyterLab's own renderer
    (``.jp-RenderedMarkdown``) or jupyterlab-myst's (``.myst``). The book's JupyterLab defaults
    (:data:`LAB_CONFIG`, which :func:`lab_server` reads as the README's readers do) turn the
    notebook's windowing off, so that every cell renders as the notebook opens; each is still
    scrolled to first, in case a renderer waits for its cell to be seen."""
    cells = run_js(driver, "return app.shell.currentWidget.content.widgets.length;")
    driver.set_script_timeout(30 + cells * timeout)
    return run_js(driver, """
        const nb = app.shell.currentWidget.content;
        const sleep = ms => new Promise(done => setTimeout(done, ms));
        const rendered = '.jp-RenderedMarkdown, .myst';
        const texts = [];
        for (let i = 0; i < nb.widgets.length; i++) {
            const cell = nb.widgets[i];
            if (cell.model.type !== 'markdown') continue;
            await nb.scrollToItem(i, 'center');
            const node = () => cell.node.querySelector(rendered);
            for (let t = 0; t < args[0] * 4 && !node(); t++) { await sleep(250); }
            // a renderer may attach its node before filling it; a cell may render empty
            // (a lone {solution-end})
            for (let t = 0; t < 8 && node() && !node().innerText.trim(); t++) {
                await sleep(250);
            }
            texts.push(node() ? node().innerText : null);
        }
        return texts;""", timeout)


def raw_myst(texts: list[str | None]) -> list[str]:
    """The MyST markup left in rendered markdown texts, each with a little context (and an
    entry for each cell that did not render)."""
    found = []
    for i, text in enumerate(texts):
        if text is None:
            found.append(f"markdown cell {i} did not render")
            continue
        found += [f"cell {i}: ...{text[max(0, m.start() - 30):m.end() + 30]!r}..."
                  for m in RAW_MYST.finditer(text)]
    return found


def run_all(driver: WebDriver, timeout: float = 300.0) -> dict[str, Any]:
    """Run every cell of the current notebook; returns the code cells, those executed and
    the error outputs (``ename: evalue``), read from the notebook's model."""
    run_js(driver, """
        const widget = app.shell.currentWidget;
        await widget.sessionContext.ready;
        await app.commands.execute('notebook:run-all-cells');
        return true;""")
    deadline = time.monotonic() + timeout
    while True:
        state = run_js(driver, """
            const widget = app.shell.currentWidget;
            const nb = widget.context.model.toJSON();
            const code = nb.cells.filter(c => c.cell_type === 'code');
            return {code: code.length,
                    executed: code.filter(c => c.execution_count).length,
                    busy: widget.sessionContext.session.kernel.status !== 'idle',
                    errors: code.flatMap(c => c.outputs.filter(o => o.output_type === 'error')
                                                       .map(o => o.ename + ': ' + o.evalue))};""")
        if (state["executed"] == state["code"] and not state["busy"]) or state["errors"]:
            return state
        if time.monotonic() > deadline:
            raise TimeoutError(f"cells still running after {timeout:g} s: {state}")
        time.sleep(1)


def wait_idle(driver: WebDriver, timeout: float = 30.0) -> None:
    """Wait until the current notebook's kernel has been idle for two checks in a row (a
    moved slider queues one update per step)."""
    deadline, idle = time.monotonic() + timeout, 0
    while idle < 2:
        if time.monotonic() > deadline:
            raise TimeoutError(f"the kernel was still busy after {timeout:g} s")
        time.sleep(0.5)
        idle = idle + 1 if run_js(driver, """return app.shell.currentWidget.sessionContext
            .session.kernel.status === 'idle';""") else 0


def execute(driver: WebDriver, code: str) -> None:
    """Run ``code`` in the current notebook's kernel (not in a cell) and wait for it."""
    result = run_js(driver, """
        const kernel = app.shell.currentWidget.sessionContext.session.kernel;
        const reply = await kernel.requestExecute({code: args[0]}).done;
        return reply.content.status;""", code)
    if result != "ok":
        raise RuntimeError(f"kernel could not run {code!r}: {result}")


def close_all(driver: WebDriver) -> None:
    """Close every document without saving, then shut their kernels down (in that order: a
    widget manager whose kernel goes first reports errors)."""
    run_js(driver, """
        for (const widget of Array.from(app.shell.widgets('main'))) {
            if (widget.context) { widget.context.model.dirty = false; }
            widget.close();
        }
        await app.serviceManager.sessions.refreshRunning();
        await app.serviceManager.sessions.shutdownAll();
        return true;""")
