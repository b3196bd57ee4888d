#!/usr/bin/env bash
# The layer rules, checked: CompositorCore imports nothing (no Foundation, no C library, so no file
# system and no clock), a core file that imports a layer above it does not build, and neither does a
# core test that does: each test target reaches only its library target, the ones below it and its
# layer's support target (Package.swift).
set -euo pipefail
cd "$(dirname "$0")/.."

if grep -rnE '^\s*(@_exported\s+)?import\s' Sources/CompositorCore; then
  echo "check-layers: CompositorCore must import nothing (the lines above do)" >&2
  exit 1
fi

# A copy of the package in which one core file imports the MP4 layer: the build must fail on it.
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
cp -R Package.swift Sources Benchmarks Tests "$work"/
sed -i '1i import CompositorMP4' "$work/Sources/CompositorCore/Time/MediaTime.swift"
if swift build --package-path "$work" --target CompositorCore >"$work/build.log" 2>&1; then
  echo "check-layers: a core file importing CompositorMP4 built; the target graph does not enforce the layers" >&2
  exit 1
fi
grep -q "no such module 'CompositorMP4'" "$work/build.log" || { tail -20 "$work/build.log"; exit 1; }

# The same copy, the core file as it is, and a file in CompositorCoreTests that imports the MP4 layer:
# the test target must not build either. SwiftPM's explicit import check names the undeclared
# dependency too (it would, even where CompositorMP4 had been built already).
cp Sources/CompositorCore/Time/MediaTime.swift "$work/Sources/CompositorCore/Time/MediaTime.swift"
echo 'import CompositorMP4' >"$work/Tests/CompositorCoreTests/LayerCheck.swift"
if swift build --package-path "$work" --target CompositorCoreTests --explicit-target-dependency-import-check error \
    >"$work/tests.log" 2>&1; then
  echo "check-layers: a core test importing CompositorMP4 built; the test targets do not follow the layers" >&2
  exit 1
fi
grep -q "LayerCheck.swift:1:8: error: no such module 'CompositorMP4'" "$work/tests.log" || { tail -20 "$work/tests.log"; exit 1; }
echo "check-layers: CompositorCore imports nothing, and importing CompositorMP4 into it, or into its tests, fails the build (no such module)"
