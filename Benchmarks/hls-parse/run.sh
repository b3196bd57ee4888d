#!/usr/bin/env bash
# HLS parse benchmark: a 24-hour VOD playlist (43,200 two-second segments) parsed by this project
# (release build) and by the Python m3u8 package, in the same run. Prints both best times and the ratio.
#
#   Benchmarks/hls-parse/run.sh [SWIFT_RUNS] [PYTHON_RUNS]
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
swift_runs="${1:-20}"
python_runs="${2:-5}"
work="$(mktemp -d "${TMPDIR:-/tmp}/hls-parse-bench.XXXXXX")"
trap 'rm -rf "$work"' EXIT

echo "== generating the 24-hour playlist"
python3 "$here/generate_playlist.py" > "$work/day.m3u8"
printf '   %s lines, %s bytes\n' "$(wc -l < "$work/day.m3u8")" "$(wc -c < "$work/day.m3u8")"

echo "== building the Swift harness (release)"
swift build --package-path "$root" -c release --product HLSParseBenchmark >&2
bench="$(swift build --package-path "$root" -c release --show-bin-path)/HLSParseBenchmark"

echo "== installing m3u8 into a temporary virtual environment"
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet --disable-pip-version-check m3u8

echo "== parsing"
swift_line="$("$bench" "$work/day.m3u8" "$swift_runs")"
python_line="$("$work/venv/bin/python" "$here/bench_m3u8.py" "$work/day.m3u8" "$python_runs")"
echo "   Compositor: $swift_line"
echo "   m3u8:       $python_line"
swift_s="${swift_line##*best_seconds=}"
python_s="${python_line##*best_seconds=}"
python3 - "$swift_s" "$python_s" "$(wc -c < "$work/day.m3u8")" <<'PY'
import sys
swift, python, size = float(sys.argv[1]), float(sys.argv[2]), int(sys.argv[3])
print(f"   Compositor best {swift * 1000:.1f} ms, m3u8 best {python * 1000:.1f} ms: Compositor is {python / swift:.1f}x faster")
rate = size / swift / 1e6
verdict = "met" if swift <= 0.008 else "NOT met"
print(f"   Compositor {rate:.0f} MB/s; target >= 300 MB/s (<= 8 ms on this playlist): {verdict}")
PY
