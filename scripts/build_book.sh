#!/usr/bin/env bash
# Install everything and build the rendered book at paper scale into _build/full/_build/html.
source "$(dirname "${BASH_SOURCE[0]}")/_common.sh"
step "vendor MathJax and the widget manager"
bash scripts/vendor.sh
step "pair chapters with their notebooks (the pages offer them for download)"
mapfile -t chapters < <(python -m fedlib.book)
jupytext --sync "${chapters[@]}"
step "build the book at full scale"
unset FEDLIB_FAST
export FEDLIB_QUIET=1
jupyter-book build . -W --keep-going --path-output _build/full
echo "open _build/full/_build/html/index.html"
