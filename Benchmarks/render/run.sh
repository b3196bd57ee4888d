#!/usr/bin/env bash
# Render benchmark: MP4Stitcher against `ffmpeg -f concat -c copy -movflags +faststart` on the same
# ranges, and against `cat` of the same input files, for two input sizes (about 0.5 and 1 GB).
#
#   Benchmarks/render/run.sh [WORKDIR]
#
# Generates its inputs with ffmpeg (not committed; about 1 GB in WORKDIR, default a new temporary
# folder, removed at the end unless WORKDIR was given), builds the driver (release), then for each input size: warms the page cache, and runs each tool
# REPS times (default 5, after a `sync`), keeping the fastest. The stitcher fsyncs its output (it
# must, to be atomic); ffmpeg and cat do not. Prints wall time, ratios and peak RSS (from
# /usr/bin/time). Targets: stitcher >= 2x faster than ffmpeg, <= 1.5x cat, peak RSS < 64 MiB and flat.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${REPS:-5}
. "$ROOT/Benchmarks/lib/timing.sh"
bench_setup render "$@"

echo "== building the driver (release)"
BENCH=$(release_binary RenderBenchmark)

# Four 720p sources of about 250 s and 250 MB each (a programme's worth of content at about
# 8 Mbit/s): 25 s encoded (grain keeps x264 from compressing it away; H.264 with B-frames, keyframe
# every 2 s, AAC 48 kHz stereo), then looped ten times by stream copy so generating stays cheap.
LOOP=25
DURATION=$((LOOP * 10))
echo "== generating sources in $WORK"
for i in 1 2 3 4; do
    [ -f "$WORK/src$i.mp4" ] && continue
    ffmpeg -hide_banner -v error -y \
        -f lavfi -i "testsrc2=size=1280x720:rate=25,noise=alls=20:allf=t+u:all_seed=$i" \
        -f lavfi -i "sine=frequency=$((300 + 100 * i)):sample_rate=48000" \
        -t $LOOP -c:v libx264 -preset ultrafast -g 50 -bf 2 -b:v 8M -maxrate 8M -bufsize 16M -pix_fmt yuv420p \
        -c:a aac -b:a 128k -ac 2 "$WORK/loop$i.mp4"
    ffmpeg -hide_banner -v error -y -stream_loop 9 -i "$WORK/loop$i.mp4" -c copy "$WORK/src$i.mp4"
    rm -f "$WORK/loop$i.mp4"
done

run_set() {
    local name=$1; shift
    local files=("$@")
    local plan="$WORK/$name.plan" list="$WORK/$name.concat"
    : >"$plan"; : >"$list"
    # Interleave the files in 25 s pieces cut between keyframes (0.5 s past a keyframe, so each
    # cut copies a hidden lead-in), as ad breaks would cut content: 10 pieces per file.
    local cuts=(0 25.5 50.5 75.5 100.5 125.5 150.5 175.5 200.5 225.5 $DURATION)
    for k in $(seq 0 9); do
        for f in "${files[@]}"; do
            echo "$f ${cuts[$k]} ${cuts[$((k + 1))]}" >>"$plan"
            printf "file '%s'\ninpoint %s\noutpoint %s\n" "$f" "${cuts[$k]}" "${cuts[$((k + 1))]}" >>"$list"
        done
    done
    local input_bytes
    input_bytes=$(cat "${files[@]}" | wc -c)
    cat "${files[@]}" >/dev/null  # warm the page cache

    # The stitcher fsyncs its output before renaming it into place; ffmpeg and cat leave theirs in
    # the page cache. Both are measured as they are, and again with an fsync of their output
    # (`sync FILE`) so all three do the same durable work.
    measure "$BENCH" "$plan" "$WORK/out-stitcher.mp4"; cp "$WORK/best" "$WORK/t-stitcher"
    measure ffmpeg -v error -y -f concat -safe 0 -i "$list" -map 0 -c copy -movflags +faststart "$WORK/out-ffmpeg.mp4"; cp "$WORK/best" "$WORK/t-ffmpeg"
    measure sh -c 'ffmpeg -v error -y -f concat -safe 0 -i "$1" -map 0 -c copy -movflags +faststart "$0" && sync "$0"' "$WORK/out-ffmpeg.mp4" "$list"; cp "$WORK/best" "$WORK/t-ffmpeg-sync"
    measure sh -c 'cat "$@" > "$0"' "$WORK/out-cat" "${files[@]}"; cp "$WORK/best" "$WORK/t-cat"
    measure sh -c 'cat "$@" > "$0" && sync "$0"' "$WORK/out-cat" "${files[@]}"; cp "$WORK/best" "$WORK/t-cat-sync"

    local ts tf tc tfs tcs
    ts=$(seconds "$WORK/t-stitcher"); tf=$(seconds "$WORK/t-ffmpeg"); tc=$(seconds "$WORK/t-cat")
    tfs=$(seconds "$WORK/t-ffmpeg-sync"); tcs=$(seconds "$WORK/t-cat-sync")
    echo
    echo "== $name: ${#files[@]} files, $((input_bytes / 1048576)) MiB in, $(wc -l <"$plan") pieces, best of $REPS"
    printf "  %-16s %6s s  peak RSS %6s MiB  output %5d MiB\n" "stitcher (fsync)" "$ts" "$(rss_mib "$WORK/t-stitcher")" $(( $(wc -c <"$WORK/out-stitcher.mp4") / 1048576 ))
    printf "  %-16s %6s s  peak RSS %6s MiB  output %5d MiB\n" ffmpeg "$tf" "$(rss_mib "$WORK/t-ffmpeg")" $(( $(wc -c <"$WORK/out-ffmpeg.mp4") / 1048576 ))
    printf "  %-16s %6s s\n" "ffmpeg + fsync" "$tfs"
    printf "  %-16s %6s s  peak RSS %6s MiB  output %5d MiB\n" cat "$tc" "$(rss_mib "$WORK/t-cat")" $(( $(wc -c <"$WORK/out-cat") / 1048576 ))
    printf "  %-16s %6s s\n" "cat + fsync" "$tcs"
    awk -v s="$ts" -v f="$tf" -v c="$tc" -v fs="$tfs" -v cs="$tcs" 'BEGIN {
        printf "  as they are:     ffmpeg / stitcher = %.2fx (target >= 2)   stitcher / cat = %.2fx (target <= 1.5)\n", f / s, s / c
        printf "  all with fsync:  ffmpeg / stitcher = %.2fx (target >= 2)   stitcher / cat = %.2fx (target <= 1.5)\n", fs / s, s / cs }'
    rm -f "$WORK/out-stitcher.mp4" "$WORK/out-ffmpeg.mp4" "$WORK/out-cat"
}

run_set "0.5GB" "$WORK/src1.mp4" "$WORK/src2.mp4"
run_set "1GB" "$WORK/src1.mp4" "$WORK/src2.mp4" "$WORK/src3.mp4" "$WORK/src4.mp4"
