#!/usr/bin/env bash
# Prints the public API of the library products (Compositor and what it re-exports,
# CompositorAVFoundation, CompositorTesting), one declaration a line, with counts, from the
# symbol graphs of a debug build.
#
#   bash docs/public-api.sh            # print
#   bash docs/public-api.sh --check    # fail when it differs from docs/public-api.txt (CI runs this)
#   bash docs/public-api.sh > docs/public-api.txt   # after a deliberate API change
set -euo pipefail
cd "$(dirname "$0")/.."
# It also tries the test modules, which fail when the tests are not built yet: what counts is
# that every library module's graph was written.
log=$(mktemp)
trap 'rm -f "$log"' EXIT
swift package dump-symbol-graph --minimum-access-level public >"$log" 2>&1 || true
folder="$(swift build --show-bin-path 2>/dev/null)/../symbolgraph"

for module in Compositor CompositorCore CompositorHLS CompositorMP4 CompositorAds CompositorAVFoundation CompositorTesting; do
  [ -f "$folder/$module.symbols.json" ] || { tail -20 "$log" >&2; echo "public-api: no symbol graph for $module" >&2; exit 1; }
done
current=$(python3 docs/public-api.py "$folder")
if [[ ${1:-} == --check ]]; then
  if ! diff -u docs/public-api.txt <(printf '%s\n' "$current"); then
    echo "public-api: the public API changed; if that is deliberate, run: bash docs/public-api.sh > docs/public-api.txt" >&2
    exit 1
  fi
  echo "public-api: $(head -1 docs/public-api.txt)"
else
  printf '%s\n' "$current"
fi
