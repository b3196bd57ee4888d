#!/usr/bin/env bash
# Many breaks (issue 17): `CompositorDemo render` of a schedule with 10,000 mid-rolls (one 0.5 s ad
# each, in an hour of 160x120 content: 20,001 pieces), against `ffmpeg -f concat -c copy` of the
# same pieces and `cat` of the same bytes (every output fsynced); and `CompositorDemo timeline` of a
# schedule with 100,000 mid-rolls, against Python reading the same JSON document.
#
#   Benchmarks/breaks/run.sh [WORKDIR]        DEMO=/path/to/CompositorDemo to measure another build
#
# Generates its inputs with ffmpeg and make_schedule.py (not committed; about 40 MB in WORKDIR,
# default a new temporary folder removed at the end), runs each tool REPS times (default 3; ffmpeg,
# which opens a file per piece, once), keeping the fastest. Targets: the 10,000-break render
# <= 1 s and <= 64 MiB peak RSS; the 100,000-break timeline <= 0.5 s.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/Benchmarks/breaks
REPS=${REPS:-3}
. "$ROOT/Benchmarks/lib/timing.sh"
bench_setup breaks "$@"
DEMO=${DEMO:-$(release_binary CompositorDemo)}

# One hour of 160x120 content (a keyframe every 2 s) and a 0.5 s ad, small so the figures are about
# planning 10,000 breaks, not about copying bytes: each break cuts the content mid-GOP, so each
# piece also copies its hidden lead-in from the keyframe before it.
echo "== generating sources in $WORK"
encode() {  # NAME SECONDS FREQUENCY
    ffmpeg -hide_banner -v error -y -f lavfi -i "testsrc2=size=160x120:rate=25" -f lavfi -i "sine=frequency=$3:sample_rate=24000" \
        -t "$2" -c:v libx264 -preset ultrafast -g 50 -bf 2 -b:v 40k -c:a aac -b:a 16k -ac 1 "$WORK/$1.mp4"
}
if [ ! -f "$WORK/content.mp4" ]; then
    encode loop 25 440
    ffmpeg -hide_banner -v error -y -stream_loop 143 -i "$WORK/loop.mp4" -c copy "$WORK/content.mp4"
    encode ad 0.5 880
    rm -f "$WORK/loop.mp4"
fi
python3 "$HERE/make_schedule.py" "$WORK/content.mp4" 3600 "$WORK/ad.mp4" 0.5 10000 >"$WORK/render.json"
python3 "$HERE/make_schedule.py" "$WORK/content.mp4" 3600 "$WORK/ad.mp4" 0.5 100000 >"$WORK/timeline.json"

# ffmpeg's concat list of the same pieces: content up to each break, the ad, ..., the rest.
python3 - "$WORK/render.json" >"$WORK/render.concat" <<'PY'
import json, sys
schedule = json.load(open(sys.argv[1]))
clip = schedule["content"][0]
start = 0.0
for b in schedule["breaks"]:
    n, d = b["at"].split("/")
    at = int(n) / int(d)
    print(f"file '{clip['url']}'\ninpoint {start}\noutpoint {at}")
    for ad in b["ads"]:
        print(f"file '{ad['url']}'\ninpoint {ad['start']}\noutpoint {ad['end']}")
    start = at
print(f"file '{clip['url']}'\ninpoint {start}\noutpoint {clip['end']}")
PY
ADS=(); for _ in $(seq 10000); do ADS+=("$WORK/ad.mp4"); done
BYTES=$(cat "$WORK/content.mp4" "${ADS[@]}" | wc -c)  # also warms the page cache

OUT="$WORK/out.mp4"
measure "$DEMO" render "$WORK/render.json" --output "$OUT"; cp "$WORK/best" "$WORK/t-render"
REPS=1 measure sh -c 'ffmpeg -v error -y -f concat -safe 0 -i "$1" -map 0 -c copy -movflags +faststart "$0" && sync "$0"' "$OUT" "$WORK/render.concat"
cp "$WORK/best" "$WORK/t-ffmpeg"
measure sh -c 'cat "$@" > "$0" && sync "$0"' "$OUT" "$WORK/content.mp4" "${ADS[@]}"; cp "$WORK/best" "$WORK/t-cat"
OUT=""
measure "$DEMO" timeline "$WORK/timeline.json"; cp "$WORK/best" "$WORK/t-timeline"
measure python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$WORK/timeline.json"; cp "$WORK/best" "$WORK/t-json"

echo
echo "== render, 10,000 breaks (20,001 pieces, $((BYTES / 1048576)) MiB), best of $REPS, every output fsynced"
for tool in render ffmpeg cat; do
    printf "  %-8s %7s s  peak RSS %6s MiB  CPU %5s s\n" "$tool" "$(seconds "$WORK/t-$tool")" "$(rss_mib "$WORK/t-$tool")" "$(cpu_seconds "$WORK/t-$tool")"
done
awk -v r="$(seconds "$WORK/t-render")" -v f="$(seconds "$WORK/t-ffmpeg")" -v c="$(seconds "$WORK/t-cat")" -v m="$(rss_mib "$WORK/t-render")" 'BEGIN {
    printf "  render %.2f s (target <= 1), %.1f MiB (target <= 64); ffmpeg / render = %.1fx; render / cat = %.2fx\n", r, m, f / r, r / c }'
echo "== timeline, 100,000 breaks ($(($(wc -c <"$WORK/timeline.json") / 1048576)) MiB of JSON), best of $REPS"
for tool in timeline json; do
    printf "  %-8s %7s s  peak RSS %6s MiB\n" "$tool" "$(seconds "$WORK/t-$tool")" "$(rss_mib "$WORK/t-$tool")"
done
awk -v t="$(seconds "$WORK/t-timeline")" -v j="$(seconds "$WORK/t-json")" 'BEGIN {
    printf "  timeline %.2f s (target <= 0.5); Python json.load of the same document %.2f s: timeline / json.load = %.2fx\n", t, j, t / j }'
