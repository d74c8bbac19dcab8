# Sourced by the scripts in this folder: go to the repository root, check FEDLIB_DATA, install.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
if [ -z "${FEDLIB_DATA:-}" ] || [ ! -d "$FEDLIB_DATA" ]; then
  echo "FEDLIB_DATA must name a folder holding MNIST/raw and FashionMNIST/raw" >&2
  echo "(in this project: FEDLIB_DATA=../shared/data); got '${FEDLIB_DATA:-}'" >&2
  exit 2
fi
# Chapters run with chapters/ as their working directory, so the path must be absolute.
FEDLIB_DATA="$(cd "$FEDLIB_DATA" && pwd)"
export FEDLIB_DATA
export PYTHONHASHSEED=0

step() { printf '\n==== %s (%s) ====\n' "$1" "$(date +%H:%M:%S)"; }

if [ -z "${FEDLIB_INSTALLED:-}" ]; then
  step "install"
  # Every package pinned with hashes (requirements.lock, refreshed by scripts/lock.sh), then
  # the project itself.
  python -m pip install --quiet -r requirements.lock
  # The distribution was called fedlib until the name was found taken on the package index:
  # an old editable install of it would shadow this checkout's package.
  python -m pip uninstall --quiet --yes fedlib 2>/dev/null || true
  python -m pip install --quiet --no-deps -e .
  # The extras kept out of the lock, pinned with hashes by the same script: a call of their
  # own, as Flower and JupyterLab move some of the lock's packages (pyproject's
  # [tool.fedlib.pins.moves]).
  python -m pip install --quiet -r requirements-tools.txt -r requirements-flower.txt \
    -r requirements-lab.txt -r requirements-exercises.txt
  if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    # Debian's Chromium for the browser tests of the built book.
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq \
      chromium chromium-driver >/dev/null
  fi
  export FEDLIB_INSTALLED=1
fi
