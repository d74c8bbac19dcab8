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
# The slowest chapters at full scale start first (on a 2-core Zen 1 EPYC, 2026-11-30, at
# 862113a: 09 1377 s, 10 584 s, 08 334 s, 05 325 s, the rest 450 s together),
# so that neither process is left with a long chapter at the end; the order changes the wall
# time only, never a result.
python scripts/execute_chapters.py --cache _build/full/_build/.jupyter_cache \
  --first chapters/09_federation.md chapters/10_design_mechanism.md \
  chapters/08_reproducibility.md chapters/05_proofs.md \
  -- "${chapters[@]}"
jupyter-book build . -W --keep-going --path-output _build/full
echo "open _build/full/_build/html/index.html"
