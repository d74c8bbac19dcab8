#!/usr/bin/env bash
# Install everything and build the rendered book at paper scale into _build/full/_build/html.
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
step "vendor MathJax and the widget manager"
bash scripts/vendor.sh
step "pair chapters with their notebooks (the pages offer them for download)"
mapfile -t chapters < <(python scripts/book.py)
jupytext --sync "${chapters[@]}"
step "build the book at full scale"
unset FEDLIB_FAST
export FEDLIB_QUIET=1
# Two chapters at a time into the cache the build reads (the build alone runs them one by one).
# The slowest chapters at full scale start first (about 250 and 220 s on the 2-core build
# machine); the order changes the wall time only, never a result.
python scripts/execute_chapters.py --cache _build/full/_build/.jupyter_cache \
  --first chapters/09_federation.md chapters/05_proofs.md \
  -- "${chapters[@]}"
jupyter-book build . -W --keep-going --path-output _build/full
echo "open _build/full/_build/html/index.html"
