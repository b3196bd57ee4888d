#!/usr/bin/env bash
# Planning cost of many cuts into one long source: Fixtures/content.mp4 looped by stream copy to
# one hour (86,400 frames, a keyframe every 2 s), cut by 830 one-second mid-rolls of ad1.mp4
# (every 4.3 s), rendered by CompositorDemo (release) in both cut modes. Prints the best user CPU
# time of REPS runs (default 3) per mode, and the output's MD5. With a git revision, that revision
# is built in a temporary worktree and run too, for a before/after figure (the outputs should be
# byte for byte the same).
#
#   Benchmarks/many-cuts/run.sh [REV]
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${REPS:-3}
. "$ROOT/Benchmarks/lib/timing.sh"
bench_setup many-cuts
trap 'git -C "$ROOT" worktree remove --force "$WORK/rev" 2>/dev/null || true; rm -rf "$WORK"' EXIT

ffmpeg -hide_banner -v error -y -stream_loop 179 -i "$ROOT/Fixtures/content.mp4" -c copy "$WORK/long.mp4"
python3 - "$WORK" "$ROOT/Fixtures/ad1.mp4" <<'PY'
import json, sys
breaks = [{"id": f"b{i}", "at": round(2.5 + i * 4.3, 3), "ads": [{"id": f"a{i}", "url": sys.argv[2], "end": 1}]} for i in range(830)]
json.dump({"content": [{"id": "main", "url": sys.argv[1] + "/long.mp4"}], "breaks": breaks}, open(sys.argv[1] + "/schedule.json", "w"))
PY

run() {  # PACKAGE_PATH LABEL
    local demo mode best
    swift build --package-path "$1" -c release --product CompositorDemo >&2
    demo="$(swift build --package-path "$1" -c release --show-bin-path)/CompositorDemo"
    for mode in sample keyframe; do
        OUT="$WORK/out.mp4"
        measure "$demo" render "$WORK/schedule.json" --output "$OUT" --cut "$mode"
        "$demo" render "$WORK/schedule.json" --output "$OUT" --cut "$mode" >/dev/null
        printf "  %-24s %-9s user %5s s  wall %5s s  peak RSS %6s MiB  md5 %s\n" "$2" "$mode" \
            "$(awk '{print $3}' "$WORK/best")" "$(seconds "$WORK/best")" "$(rss_mib "$WORK/best")" "$(md5sum <"$OUT" | cut -c1-12)"
    done
}

echo "== 830 mid-rolls into one hour of content.mp4, best of $REPS"
run "$ROOT" "working tree"
if [ $# -ge 1 ]; then
    git -C "$ROOT" worktree add --detach "$WORK/rev" "$1" >/dev/null 2>&1
    run "$WORK/rev" "$1"
fi
