#!/usr/bin/env bash
# Packaging benchmark (issue 15, item 6), each tool on the same input in the same run:
#   1. a 1 GB MP4 packaged into MPEG-TS segments:  `CompositorDemo hls` (MP4 source, --segments ts)
#      against `ffmpeg -i SRC -c copy -f hls -hls_time 6 -hls_playlist_type vod`
#   2. the same into fragmented MP4 segments:      --segments fmp4 against ffmpeg's -hls_segment_type fmp4
#   3. a 1 GB TS playlist (the output of 1) read into one MP4: `CompositorDemo render` against
#      `ffmpeg -i PLAYLIST -c copy -movflags +faststart OUT.mp4`
# and `cat` of the same input bytes into one file. Compositor fsyncs what it writes (its folder and
# file appear atomically); ffmpeg and cat are measured with an fsync of their output (`sync`) too.
#
#   Benchmarks/packaging/run.sh [WORKDIR]      DEMO=/path/to/CompositorDemo to measure another build
#
# Generates its input with ffmpeg (not committed; about 3.5 GB in WORKDIR at the peak, default a new
# temporary folder, removed at the end unless WORKDIR was given): 25 s of 720p H.264 (B-frames, a
# keyframe every 2 s, about 8 Mbit/s) and AAC, looped by stream copy to 1,000 s (about 1 GB). Runs
# each tool REPS times (default 3, after a `sync`; the tools take turns, a run each per round),
# keeping the fastest; prints wall time, MB/s, peak RSS (GNU time), CPU time (user + system: the
# part of the wall time the tool's own work explains; this machine's disk makes single wall times
# vary several-fold) and the ratios. Targets: >= 3x faster than ffmpeg, <= 1.5x cat + fsync, flat
# memory.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${REPS:-3}
. "$ROOT/Benchmarks/lib/timing.sh"
bench_setup packaging "$@"

echo "== building CompositorDemo (release)"
DEMO=${DEMO:-$(release_binary CompositorDemo)}

echo "== generating the input in $WORK"
if [ ! -f "$WORK/src.mp4" ]; then
    ffmpeg -hide_banner -v error -y \
        -f lavfi -i "testsrc2=size=1280x720:rate=25,noise=alls=20:allf=t+u:all_seed=1" \
        -f lavfi -i "sine=frequency=440:sample_rate=48000" \
        -t 25 -c:v libx264 -preset ultrafast -g 50 -bf 2 -b:v 8M -maxrate 8M -bufsize 16M -pix_fmt yuv420p \
        -c:a aac -b:a 128k -ac 2 "$WORK/loop.mp4"
    ffmpeg -hide_banner -v error -y -stream_loop 39 -i "$WORK/loop.mp4" -c copy "$WORK/src.mp4"
    rm -f "$WORK/loop.mp4"
fi
echo '{ "content": [ { "id": "src", "url": "src.mp4" } ], "breaks": [] }' >"$WORK/mp4.json"
SIZE=$(wc -c <"$WORK/src.mp4")

report() {  # NAME INPUT_BYTES
    local name=$1 bytes=$2 tc tf tk
    tc=$(seconds "$WORK/t-compositor"); tf=$(seconds "$WORK/t-ffmpeg"); tk=$(seconds "$WORK/t-cat")
    echo
    echo "== $name: $((bytes / 1048576)) MiB in, best of $REPS, every output fsynced"
    for tool in compositor ffmpeg cat; do
        printf "  %-11s %7s s  %7.0f MB/s  peak RSS %6s MiB  CPU %5s s\n" "$tool" "$(seconds "$WORK/t-$tool")" \
            "$(awk -v b="$bytes" -v t="$(seconds "$WORK/t-$tool")" 'BEGIN{print b / 1e6 / t}')" "$(rss_mib "$WORK/t-$tool")" \
            "$(cpu_seconds "$WORK/t-$tool")"
    done
    awk -v c="$tc" -v f="$tf" -v k="$tk" 'BEGIN {
        printf "  ffmpeg / compositor = %.2fx (target >= 3)   compositor / (cat + fsync) = %.2fx (target <= 1.5)\n", f / c, c / k }'
    report_floor compositor
}

cat "$WORK/src.mp4" >/dev/null  # warm the page cache
FLOOR=$(durable_copy_binary)

# 1 and 2. Compositor, ffmpeg, cat and the floor take turns (see take_turns).
for kind in ts fmp4; do
    type=mpegts; [ "$kind" = fmp4 ] && type=fmp4
    run_compositor() { measure "$DEMO" hls "$WORK/mp4.json" --output "$OUT" --segments "$kind"; }
    run_ffmpeg() {
        measure sh -c 'mkdir -p "$0" && ffmpeg -v error -y -i "$1" -map 0 -c copy -f hls -hls_time 6 -hls_playlist_type vod -hls_segment_type "$2" -hls_segment_filename "$0/s%d.$3" "$0/index.m3u8" && sync "$0"/*' \
            "$OUT" "$WORK/src.mp4" "$type" "$([ "$kind" = fmp4 ] && echo m4s || echo ts)"
    }
    run_cat() { measure_cat "$WORK/src.mp4"; }
    run_floor() { measure_floor "$WORK/src.mp4"; }
    take_turns compositor ffmpeg cat ${FLOOR:+floor}
    report "MP4 -> $kind segments" "$SIZE"
done

# 3. The packaged TS playlist (kept from the last ts run) read into one MP4.
rm -rf "$WORK/ts-in"; "$DEMO" hls "$WORK/mp4.json" --output "$WORK/ts-in" --segments ts >/dev/null
echo '{ "content": [ { "id": "src", "url": "ts-in/stitched.m3u8" } ], "breaks": [] }' >"$WORK/ts.json"
TS_SIZE=$(cat "$WORK"/ts-in/*.ts | wc -c)
cat "$WORK"/ts-in/*.ts >/dev/null
run_compositor() { measure "$DEMO" render "$WORK/ts.json" --output "$OUT"; }
run_ffmpeg() {
    measure sh -c 'ffmpeg -v error -y -i "$1" -map 0 -c copy -movflags +faststart -f mp4 "$0" && sync "$0"' "$OUT" "$WORK/ts-in/stitched.m3u8"
}
run_cat() { measure_cat "$WORK"/ts-in/*.ts; }
run_floor() { measure_floor "$WORK"/ts-in/*.ts; }
take_turns compositor ffmpeg cat ${FLOOR:+floor}
report "TS playlist -> MP4" "$TS_SIZE"
rm -rf "$WORK"/out-*
