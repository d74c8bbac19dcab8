#!/usr/bin/env bash
# Refresh every pinned file from pyproject.toml (its one source), with hashes, at the versions
# installed in the current environment (install what you want first, then lock it):
# requirements.lock (the dependencies and the book and dev extras: the book's environment, which
# the README's commands, environment.yml and CI install first) and one file for each other extra
# (what it adds to the lock: requirements-lab.txt, -exercises, -flower, -tools), as pyproject's
# [tool.fedlib.pins] says. scripts/pins.py writes them with uv's pip compile, for Linux x86_64
# and this Python; tests/test_pins.py checks that they agree with pyproject and with each other.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tools="$(mktemp -d)"
trap 'rm -rf "$tools"' EXIT
python -m venv "$tools/venv"
"$tools/venv/bin/python" -m pip install --quiet uv
python scripts/pins.py "$tools/venv/bin/uv"
