#!/usr/bin/env bash
# Install everything and run every check, in order; stops at the first failure.
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

step "ruff"
ruff check .

step "pair chapters with their notebooks"
mapfile -t chapters < <(python scripts/book.py)
jupytext --sync "${chapters[@]}"

# Two workers (this machine has 2 cores). Tests go to whichever worker is free (the slow
# recomputations of the stored results spread over both), except the stored results that share
# their first tasks, which one worker verifies in turn (loadgroup: their xdist_group marks) so
# the later ones read those tasks from a shared task store; a notebook's cells must stay
# together in one kernel, so nbval distributes whole notebooks (loadscope, as nbval advises).
WORKERS=(-n "${FEDLIB_TEST_WORKERS:-2}")

step "unit, property and sync tests"
# (--durations: the slowest tests, the first place to look when CI's time grows; every test's
# time, setup included, is in artifacts/unit-tests.xml, and every cell's in fast-chapters.xml)
python -m pytest tests -q -p no:cacheprovider "${WORKERS[@]}" --dist loadgroup --durations=30 \
  --junitxml=artifacts/unit-tests.xml

# Every chapter but those executed at the paper's scale only (FULL_SCALE_ONLY of scripts/book.py:
# the Flower federation, whose slow sections run alike in both modes).
step "execute the chapters in fast mode (nbval)"
mapfile -t fast_chapters < <(python scripts/book.py --fast-checked)
FEDLIB_FAST=1 python -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env \
  --nbval-cell-timeout=900 "${WORKERS[@]}" --dist loadscope --junitxml=artifacts/fast-chapters.xml \
  "${fast_chapters[@]/%.md/.ipynb}"

bash scripts/build_book.sh
bash scripts/build_pdf.sh

step "open every page of the built book in headless Chromium"
# A test file to each of two processes (each its own Chromium; a JupyterLab server on a port of
# its own): the files share no state but the built book they read.
python -m pytest tests_book -q -p no:cacheprovider "${WORKERS[@]}" --dist loadfile
echo "screenshots: artifacts/screenshots/"
