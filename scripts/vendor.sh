#!/usr/bin/env bash
# Fetch MathJax, require.js and the Jupyter widget manager from the npm registry into _vendor/
# (git-ignored), so that the built HTML typesets math and shows widgets with no network.
# _config.yml copies _vendor/ into the HTML root (html_extra_path) and points at vendor/.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
MATHJAX=3.2.2 HTML_MANAGER=1.0.15 REQUIREJS=2.3.8
target=_vendor/vendor
if [ -f "$target/.versions" ] && [ "$(cat "$target/.versions")" = "$MATHJAX $HTML_MANAGER $REQUIREJS" ]; then
  exit 0
fi
work=$(mktemp -d)
npm install --silent --no-audit --no-fund --ignore-scripts --prefix "$work" \
  "mathjax@$MATHJAX" "@jupyter-widgets/html-manager@$HTML_MANAGER" "requirejs@$REQUIREJS"
rm -rf "$target" && mkdir -p "$target"
cp -r "$work/node_modules/mathjax/es5" "$target/mathjax"
cp -r "$work/node_modules/@jupyter-widgets/html-manager/dist" "$target/html-manager"
cp "$work/node_modules/requirejs/require.js" "$target/require.js"
echo "$MATHJAX $HTML_MANAGER $REQUIREJS" > "$target/.versions"
rm -rf "$work"
echo "vendored MathJax $MATHJAX, html-manager $HTML_MANAGER, require.js $REQUIREJS into $target"
