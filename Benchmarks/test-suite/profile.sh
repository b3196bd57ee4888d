#!/usr/bin/env bash
# Where the test suite's time goes: `swift test` (debug build, as CI and the README run it) timed,
# and sampled by perf, every process of it (the test runner, ffmpeg, ffprobe, GStreamer...). Prints
# the wall and CPU time, the share of samples by process and library, and the library and test
# functions with the largest share of samples below them (the hot paths to look at first).
#
#   Benchmarks/test-suite/profile.sh [--filter REGEX]
#
# Needs perf (apt-get install linux-perf) and what the suite needs (.ci/run installs it). The
# suite's own figure for the same run is its closing line, "Test run with N tests ... after S seconds".
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v perf >/dev/null || { echo "error: perf not found (apt-get install linux-perf)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/compositor-suite-profile.XXXXXX)
trap 'rm -rf "$WORK"' EXIT
cd "$ROOT"

swift build --build-tests >&2
start=$(date +%s.%N)
# 49 Hz: enough samples over minutes, little overhead; -g for the functions above each sample.
/usr/bin/time -f "%U %S" -o "$WORK/cpu" perf record -q -F 49 -g -o "$WORK/perf.data" -- \
    swift test --skip-build "$@" >"$WORK/test.log" 2>&1 || { tail -30 "$WORK/test.log"; exit 1; }
end=$(date +%s.%N)
read -r user system <"$WORK/cpu"
grep -E "Test run with" "$WORK/test.log" | tail -1
python3 -c 'import sys; s, e, u, y = map(float, sys.argv[1:]); print(f"wall {e - s:.0f} s, CPU {u + y:.0f} s (user {u:.0f}, system {y:.0f})")' \
    "$start" "$end" "$user" "$system"

# The reports are cut short with head: a reader that stops early is no failure here.
set +o pipefail
echo
echo "samples by process and library:"
perf report -i "$WORK/perf.data" --no-children --sort comm,dso -g none -q 2>/dev/null | head -15

echo
echo "the project's functions, by the share of samples below them (self and callees), demangled:"
perf report -i "$WORK/perf.data" --children --sort sym -g none -q 2>/dev/null \
    | grep -E "Compositor" | head -25 | swift demangle --simplified | cut -c1-160
