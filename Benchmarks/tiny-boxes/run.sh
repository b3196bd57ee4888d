#!/usr/bin/env bash
# Tiny-box benchmark (issue 13, R3): MP4 files made of millions of 8-byte boxes, probed and rendered
# by this project (the release CompositorDemo) and probed by ffprobe, in the same run.
#
#   Benchmarks/tiny-boxes/run.sh [REPS]          (default 3: best of three runs each)
#
# Four files, generated with python3 into a temporary folder from Fixtures/content.mp4 (whose moov
# is at the end, so boxes can be added after it or inside it without moving any sample):
#   top-8M    ftyp + 1,048,576 'free' boxes at top level, no moov      -> must fail, < 0.2 s
#   moov-8M   ftyp + a moov of 1,048,576 'free' boxes, no mvhd         -> must fail, < 0.2 s
#   top-64M   content.mp4 + 8,388,608 'free' boxes after it (64 MiB)   -> must probe, < 1 s
#   moov-64M  content.mp4 with 8,388,608 'free' boxes inside its moov  -> must probe, < 1 s
# Probing is `CompositorDemo timeline` on a one-clip schedule (it reads the file to find the clip's
# natural duration); rendering is `CompositorDemo render` of the same schedule.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${1:-3}
WORK=$(mktemp -d "${TMPDIR:-/tmp}/compositor-tiny-boxes.XXXXXX")
trap 'rm -rf "$WORK"' EXIT
command -v ffprobe >/dev/null || { echo "error: ffprobe not found" >&2; exit 1; }

echo "== generating the files in $WORK"
python3 - "$ROOT/Fixtures/content.mp4" "$WORK" <<'PY'
import struct, sys
source, work = sys.argv[1], sys.argv[2]
data = open(source, 'rb').read()
# Top-level boxes of the source; content.mp4 ends with its moov.
boxes, offset = [], 0
while offset < len(data):
    size, kind = struct.unpack('>I4s', data[offset:offset + 8])
    boxes.append((kind, offset, size))
    offset += size
kind, moov_at, moov_size = boxes[-1]
assert kind == b'moov' and moov_at + moov_size == len(data), "content.mp4 must end with its moov"
free = struct.pack('>I4s', 8, b'free')
ftyp = data[:boxes[0][2]]
small, large = free * (1 << 20), free * (8 << 20)
def write(name, parts):
    with open(f"{work}/{name}.mp4", 'wb') as out:
        for part in parts:
            out.write(part)
    with open(f"{work}/{name}.json", 'w') as schedule:
        schedule.write('{"content": [{"id": "clip", "url": "%s.mp4"}]}' % name)
write('top-8M', [ftyp, small])
write('moov-8M', [ftyp, struct.pack('>I4s', 8 + len(small), b'moov'), small])
write('top-64M', [data, large])
write('moov-64M', [data[:moov_at], struct.pack('>I4s', moov_size + len(large), b'moov'), data[moov_at + 8:], large])
PY
for f in "$WORK"/*.mp4; do printf "   %-13s %10d bytes\n" "$(basename "$f")" "$(wc -c <"$f")"; done

echo "== building CompositorDemo (release)"
swift build --package-path "$ROOT" -c release --product CompositorDemo >&2
DEMO="$(swift build --package-path "$ROOT" -c release --show-bin-path)/CompositorDemo"

# best_of EXPECTED_STATUS COMMAND...: the fastest of REPS runs, in seconds; fails when the command's
# exit status is not the expected one (0 for a file that must read, 1 for one that must fail, - for
# any).
best_of() {
    local expected=$1; shift
    local best="" start end status
    for _ in $(seq "$REPS"); do
        start=$EPOCHREALTIME
        status=0
        "$@" >"$WORK/out" 2>"$WORK/err" || status=$?
        end=$EPOCHREALTIME
        if [ "$expected" != - ] && [ "$status" != "$expected" ]; then
            echo "error: '$*' exited $status, expected $expected:" >&2; cat "$WORK/err" >&2; exit 1
        fi
        best=$(awk -v a="$start" -v b="$end" -v best="$best" 'BEGIN { t = b - a; if (best == "" || t < best) best = t; printf "%.3f", best }')
    done
    echo "$best"
}

echo "== timing (best of $REPS)"
printf "   %-9s %-9s %10s %10s %10s %18s\n" file expected probe render ffprobe "ffprobe / probe"
cd "$WORK"
for name in top-8M moov-8M top-64M moov-64M; do
    case $name in
        *-8M) expected=1 target=0.2 ;;
        *) expected=0 target=1 ;;
    esac
    probe=$(best_of "$expected" "$DEMO" timeline "$name.json")
    if [ "$expected" = 0 ]; then
        render="$(best_of 0 "$DEMO" render "$name.json" --output "$WORK/out.mp4")s"
    else
        render="-"
        grep -q "no moov\|missing required 'mvhd'" "$WORK/err" || { echo "error: unexpected failure:" >&2; cat "$WORK/err" >&2; exit 1; }
    fi
    # ffprobe reports a file without a moov as an error too; its status is not compared.
    ffprobe_s=$(best_of - ffprobe -v error "$name.mp4")
    verdict=$(awk -v p="$probe" -v t="$target" 'BEGIN { print (p < t) ? "ok" : "SLOW" }')
    printf "   %-9s %-9s %9ss %10s %9ss %17sx   (target < %s s: %s)\n" "$name" "$([ "$expected" = 0 ] && echo reads || echo fails)" \
        "$probe" "$render" "$ffprobe_s" "$(awk -v p="$probe" -v f="$ffprobe_s" 'BEGIN { printf "%.1f", f / p }')" "$target" "$verdict"
done
