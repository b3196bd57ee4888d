#!/usr/bin/env bash
# Builds the documentation of what `import Compositor` brings: the articles of
# Sources/Compositor/Compositor.docc and the API reference of Compositor and the modules it
# re-exports (CompositorCore, CompositorHLS, CompositorMP4, CompositorAds), with the toolchain's own
# swift-symbolgraph-extract and docc (no plugin package: the package stays dependency-free).
# Any docc warning fails it: a symbol link that no longer resolves, a missing article or image.
#
#   bash docs/build-docs.sh      # writes .build/docs (a static site: serve the folder, open /documentation/compositor)
#
# CI runs it after the public API check. DOCC and SYMBOLGRAPH_EXTRACT name other tools.
set -euo pipefail
cd "$(dirname "$0")/.."
started=$SECONDS

tool() {  # the toolchain's tool $1: on the PATH, else through xcrun (Xcode)
  if command -v "$1" >/dev/null; then command -v "$1"
  elif command -v xcrun >/dev/null && xcrun --find "$1" 2>/dev/null; then :
  else echo "build-docs: $1 not found (it ships with Swift 5.9 and later)" >&2; exit 1
  fi
}
docc=${DOCC:-$(tool docc)}
extract=${SYMBOLGRAPH_EXTRACT:-$(tool swift-symbolgraph-extract)}

symbols=.build/docs-symbolgraph
output=.build/docs
log=$(mktemp)
trap 'rm -f "$log"' EXIT

# The module and what it re-exports, built as the tests build them (a no-op when they are).
if ! swift build --target Compositor >"$log" 2>&1; then
  tail -40 "$log" >&2; echo "build-docs: the Compositor module does not build" >&2; exit 1
fi
modules="$(swift build --show-bin-path)/Modules"
triple=$(swift -print-target-info | python3 -c 'import json, sys; print(json.load(sys.stdin)["target"]["triple"])')
sdk=()
if command -v xcrun >/dev/null; then sdk=(-sdk "$(xcrun --show-sdk-path)"); fi

rm -rf "$symbols" && mkdir -p "$symbols"
if ! "$extract" -module-name Compositor -target "$triple" "${sdk[@]}" -I "$modules" \
    -minimum-access-level public -skip-inherited-docs \
    -experimental-allowed-reexported-modules=CompositorCore,CompositorHLS,CompositorMP4,CompositorAds \
    -output-dir "$symbols" >"$log" 2>&1; then
  cat "$log" >&2; echo "build-docs: swift-symbolgraph-extract failed" >&2; exit 1
fi

rm -rf "$output"
if ! "$docc" convert Sources/Compositor/Compositor.docc --additional-symbol-graph-dir "$symbols" \
    --output-path "$output" --fallback-display-name Compositor \
    --fallback-bundle-identifier org.compositor.Compositor --warnings-as-errors >"$log" 2>&1; then
  cat "$log" >&2; echo "build-docs: docc found problems (above)" >&2; exit 1
fi

articles=$(find Sources/Compositor/Compositor.docc -name '*.md' | xargs grep -L '^# ``' | wc -l)
count=$(python3 -c 'import json, sys; print(len(json.load(open(sys.argv[1]))["symbols"]))' "$symbols/Compositor.symbols.json")
echo "build-docs: $articles articles and $count public symbols, no warnings, in $output ($((SECONDS - started)) s)"
