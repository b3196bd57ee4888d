#!/usr/bin/env bash
# Render benchmark (issue 17): MP4Stitcher against `ffmpeg -f concat -c copy -movflags +faststart`
# on the same pieces, and against `cat` of the same bytes, every output fsynced. Four programmes:
#
#   samples    sample-heavy: 2,300 s of 320x240 H.264 (30 fps, B-frames) + AAC, 20 mid-rolls of a
#              10 s ad (about 180,000 samples, 120 MB)
#   two-hour   7,200 s at 25 fps, 320x240, 20 mid-rolls (about 530,000 samples, 190 MB)
#   0.5GB, 1GB byte-heavy: two / four 250 s 720p sources at 8 Mbit/s interleaved in 25 s pieces
#
#   Benchmarks/render/run.sh [WORKDIR]          CASES="samples two-hour" to run some of them,
#                                               BENCH=/path/to/RenderBenchmark to measure another build
#
# Generates its inputs with ffmpeg (not committed; about 1.4 GB in WORKDIR, and an output per tool of up
# to 1 GB while it runs; default a new temporary folder, removed at the end unless WORKDIR was
# given), builds the driver (release), warms the page cache, and runs each tool REPS times (default
# 5, after a `sync`; the tools take turns, a run each per round), keeping the fastest. The stitcher
# fsyncs its output (it must, to be atomic); ffmpeg and cat are followed by `sync FILE` so all do
# the same durable work. Prints wall time, samples/s, MB/s, peak RSS (GNU time) and the ratios.
# Targets: stitcher <= 1.3x cat + fsync, >= 5x faster than ffmpeg + fsync; peak RSS <= 48 MiB on the
# sample-heavy and two-hour programmes, growing by less than 24 bytes per sample between them.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${REPS:-5}
CASES=${CASES:-samples two-hour 0.5GB 1GB}
. "$ROOT/Benchmarks/lib/timing.sh"
bench_setup render "$@"

echo "== building the driver (release)"
BENCH=${BENCH:-$(release_binary RenderBenchmark)}
FLOOR=$(durable_copy_binary)

# piece FILE START END: one line of the driver's plan and of ffmpeg's concat list.
piece() {
    echo "$1 $2 $3" >>"$PLAN"
    printf "file '%s'\ninpoint %s\noutpoint %s\n" "$1" "$2" "$3" >>"$LIST"
}

# midrolls CONTENT LENGTH AD AD_LENGTH: the content cut into 21 pieces (0.5 s past a keyframe, so
# each cut copies a hidden lead-in), the ad between each two.
midrolls() {
    local content=$1 length=$2 ad=$3 ad_length=$4 k start end
    for k in $(seq 0 20); do
        start=$(awk -v k=$k -v l="$length" 'BEGIN{print (k == 0) ? 0 : int(k * l / 21 / 2) * 2 + 0.5}')
        end=$(awk -v k=$k -v l="$length" 'BEGIN{print (k == 20) ? l : int((k + 1) * l / 21 / 2) * 2 + 0.5}')
        piece "$content" "$start" "$end"
        [ "$k" = 20 ] || piece "$ad" 0 "$ad_length"
    done
    CAT_FILES=("$content"); for k in $(seq 20); do CAT_FILES+=("$ad"); done
}

# interleaved FILE...: the files interleaved in 25 s pieces, 10 per file, cut as midrolls cuts.
interleaved() {
    local cuts=(0 25.5 50.5 75.5 100.5 125.5 150.5 175.5 200.5 225.5 250) k f
    for k in $(seq 0 9); do
        for f in "$@"; do piece "$f" "${cuts[$k]}" "${cuts[$((k + 1))]}"; done
    done
    CAT_FILES=("$@")
}

# Samples in the output (video + audio), read from its sample tables by ffprobe.
output_samples() {
    ffprobe -v error -show_entries stream=nb_frames -of csv=p=0 "$1" | awk '{ n += $1 } END { print n }'
}

SUMMARY="$WORK/summary"; : >"$SUMMARY"
run_case() {  # NAME
    local name=$1
    PLAN="$WORK/$name.plan"; LIST="$WORK/$name.concat"; : >"$PLAN"; : >"$LIST"
    case $name in
        samples)
            encode samples-content 25 92 320x240 30 280k 96k 1; encode samples-ad 10 1 320x240 30 280k 96k 2
            midrolls "$WORK/samples-content.mp4" 2300 "$WORK/samples-ad.mp4" 10 ;;
        two-hour)
            encode hour-content 25 288 320x240 25 150k 64k 3; encode hour-ad 10 1 320x240 25 150k 64k 4
            midrolls "$WORK/hour-content.mp4" 7200 "$WORK/hour-ad.mp4" 10 ;;
        0.5GB|1GB)
            local i; for i in 1 2 3 4; do encode "src$i" 25 10 1280x720 25 8M 128k "$i"; done
            if [ "$name" = 0.5GB ]; then interleaved "$WORK/src1.mp4" "$WORK/src2.mp4"
            else interleaved "$WORK/src1.mp4" "$WORK/src2.mp4" "$WORK/src3.mp4" "$WORK/src4.mp4"; fi ;;
        *) echo "error: unknown case $name" >&2; exit 1 ;;
    esac
    local bytes; bytes=$(cat "${CAT_FILES[@]}" | wc -c)  # also warms the page cache

    # The stitcher, ffmpeg, cat and the floor take turns (see take_turns), each into a file of its own.
    run_stitcher() { measure "$BENCH" "$PLAN" "$OUT"; }
    run_ffmpeg() {
        measure sh -c 'ffmpeg -v error -y -f concat -safe 0 -i "$1" -map 0 -c copy -movflags +faststart -f mp4 "$0" && sync "$0"' "$OUT" "$LIST"
    }
    run_cat() { measure_cat "${CAT_FILES[@]}"; }
    run_floor() { measure_floor "${CAT_FILES[@]}"; }
    take_turns stitcher ffmpeg cat ${FLOOR:+floor}
    local samples output_bytes
    samples=$(output_samples "$WORK/out-stitcher"); output_bytes=$(wc -c <"$WORK/out-stitcher")
    rm -f "$WORK"/out-*

    local ts tf tc
    ts=$(seconds "$WORK/t-stitcher"); tf=$(seconds "$WORK/t-ffmpeg"); tc=$(seconds "$WORK/t-cat")
    echo
    echo "== $name: $(wc -l <"$PLAN") pieces, $((bytes / 1048576)) MiB in, $samples samples out, best of $REPS, every output fsynced"
    printf "  %-16s %6s s  %10.0f samples/s  %6.0f MB/s  peak RSS %6s MiB  CPU %5s s\n" stitcher "$ts" \
        "$(awk -v n="$samples" -v t="$ts" 'BEGIN{print n / t}')" "$(awk -v b="$output_bytes" -v t="$ts" 'BEGIN{print b / 1e6 / t}')" \
        "$(rss_mib "$WORK/t-stitcher")" "$(cpu_seconds "$WORK/t-stitcher")"
    local tool
    for tool in ffmpeg cat; do
        printf "  %-16s %6s s  %10s            %6.0f MB/s  peak RSS %6s MiB  CPU %5s s\n" "$tool + fsync" "$(seconds "$WORK/t-$tool")" "" \
            "$(awk -v b="$bytes" -v t="$(seconds "$WORK/t-$tool")" 'BEGIN{print b / 1e6 / t}')" "$(rss_mib "$WORK/t-$tool")" "$(cpu_seconds "$WORK/t-$tool")"
    done
    awk -v s="$ts" -v f="$tf" -v c="$tc" 'BEGIN {
        printf "  ffmpeg / stitcher = %.2fx (target >= 5)   stitcher / cat = %.2fx (target <= 1.3)\n", f / s, s / c }'
    report_floor stitcher
    echo "$name $samples $(awk '{print $2}' "$WORK/t-stitcher")" >>"$SUMMARY"
}

for name in $CASES; do run_case "$name"; done

# The memory targets: the sample-heavy and two-hour programmes' peaks, and the growth between them.
if grep -q '^samples ' "$SUMMARY" && grep -q '^two-hour ' "$SUMMARY"; then
    read -r _ n1 k1 < <(grep '^samples ' "$SUMMARY"); read -r _ n2 k2 < <(grep '^two-hour ' "$SUMMARY")
    echo
    awk -v n1="$n1" -v k1="$k1" -v n2="$n2" -v k2="$k2" 'BEGIN {
        printf "== memory: peak RSS %.1f MiB (samples) and %.1f MiB (two-hour), target <= 48 MiB each\n", k1 / 1024, k2 / 1024
        printf "   growth %.1f bytes per sample over %d more samples (target < 24)\n", (k2 - k1) * 1024 / (n2 - n1), n2 - n1 }'
fi
