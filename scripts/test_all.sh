#!/usr/bin/env bash
# Install everything and run every check, in order; stops at the first failure.
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"

step "ruff"
ruff check .

step "pair chapters with their notebooks"
mapfile -t chapters < <(python -m fedlib.book)
jupytext --sync "${chapters[@]}"

# Two workers (this machine has 2 cores); a test file stays on one worker, so its module
# fixtures are built once.
XDIST=(-n "${FEDLIB_TEST_WORKERS:-2}" --dist loadfile)

step "unit, property and sync tests"
python -m pytest tests -q -p no:cacheprovider "${XDIST[@]}"

step "execute every chapter in fast mode (nbval)"
FEDLIB_FAST=1 python -m pytest -q -p no:cacheprovider --nbval-lax --nbval-current-env \
  --nbval-cell-timeout=900 "${XDIST[@]}" "${chapters[@]/%.md/.ipynb}"

bash scripts/build_book.sh

step "open every page of the built book in headless Chromium"
python -m pytest tests_book -q -p no:cacheprovider
echo "screenshots: artifacts/screenshots/"
