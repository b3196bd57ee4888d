# Shared by the benchmark scripts that time whole programs (sourced, not run).
#
#   bench_setup NAME "$@"   WORK: the script's WORKDIR argument, or a new temporary folder that is
#                           removed at exit; checks ffmpeg and GNU time are there
#   measure CMD...          runs CMD REPS times under /usr/bin/time, each after removing $OUT (when
#                           set) and a `sync` (no run pays for another's writeback); leaves the
#                           fastest run's "elapsed maxrss_kib user sys" in $WORK/best (elapsed to
#                           the millisecond)
#   take_turns TOOL...      REPS rounds, each running every TOOL once (the function run_TOOL, called
#                           with REPS=1 and OUT=$WORK/out-TOOL: it measures a command writing $OUT),
#                           in an order that changes from round to round; the fastest run of each
#                           in $WORK/t-TOOL
#   measure_cat FILE...     measures `cat FILE... > $OUT` + fsync
#   durable_copy_binary     builds Benchmarks/render/durable_copy.c into $WORK and prints its path
#                           (nothing without a C compiler: the scripts then leave the floor out)
#   measure_floor FILE...   measures the floor of FILE... into $OUT ($FLOOR: durable_copy_binary's)
#   report_floor TOOL       prints the floor's row and TOOL / floor, ffmpeg / floor (after take_turns)
#   seconds FILE, rss_mib FILE, cpu_seconds FILE (user + system)   fields of such a file
#   release_binary PRODUCT  builds PRODUCT of the package at $ROOT in release (output on stderr)
#                           and prints the binary's path
#   encode NAME SECONDS LOOPS SIZE FPS VIDEO_BITRATE AUDIO_BITRATE SEED   makes $WORK/NAME.mp4 (below)

bench_setup() {
    local name=$1; shift
    if [ $# -ge 1 ]; then WORK=$1; mkdir -p "$WORK"; KEEP=1; else WORK=$(mktemp -d "/tmp/compositor-$name-bench.XXXXXX"); KEEP=0; fi
    WORK=$(cd "$WORK" && pwd)
    trap '[ "$KEEP" = 1 ] || rm -rf "$WORK"' EXIT
    command -v ffmpeg >/dev/null || { echo "error: ffmpeg not found" >&2; exit 1; }
    [ -x /usr/bin/time ] || { echo "error: /usr/bin/time (GNU time) not found" >&2; exit 1; }
}

release_binary() {
    swift build --package-path "$ROOT" -c release --product "$1" >&2 || return 1
    echo "$(swift build --package-path "$ROOT" -c release --show-bin-path)/$1"
}

# The floor: the fastest durable copy of the same input bytes (`copy_file_range` into a file set
# aside with `fallocate`, writeback started every 8 MiB, `fsync`), no media work at all. Its time
# moves with the machine's disk from run to run, and ffmpeg / floor is the most any tool's ratio
# against ffmpeg could be in that run.
durable_copy_binary() {
    command -v cc >/dev/null || return 0
    cc -O2 -o "$WORK/durable_copy" "$ROOT/Benchmarks/render/durable_copy.c" && echo "$WORK/durable_copy"
}

measure_floor() { measure "$FLOOR" "$1" "$OUT" 1 "${@:2}"; }

report_floor() {  # TOOL
    [ -f "$WORK/t-floor" ] || return 0
    printf "  %-16s %6s s  (durable_copy.c: the same bytes copied durably, nothing else)\n" "floor" "$(seconds "$WORK/t-floor")"
    awk -v t="$(seconds "$WORK/t-$1")" -v f="$(seconds "$WORK/t-ffmpeg")" -v k="$(seconds "$WORK/t-floor")" -v name="$1" 'BEGIN {
        printf "  %s / floor = %.2fx   ffmpeg / floor = %.2fx (the most any tool could be faster than ffmpeg in this run)\n", name, t / k, f / k }'
}

seconds() { awk '{print $1}' "$1"; }
rss_mib() { awk '{printf "%.1f", $2 / 1024}' "$1"; }
cpu_seconds() { awk '{printf "%.2f", $3 + $4}' "$1"; }

measure_cat() { measure sh -c 'cat "$@" > "$0" && sync "$0"' "$OUT" "$@"; }

measure() {
    local best=""
    for _ in $(seq "$REPS"); do
        [ -z "${OUT:-}" ] || rm -rf "$OUT"
        sync
        # Wall time from the shell's microsecond clock (GNU time's %e has only 10 ms steps, a
        # sixth of a sample-heavy render); GNU time still gives peak RSS and CPU.
        local started=$EPOCHREALTIME
        /usr/bin/time -f "%e %M %U %S" -o "$WORK/time" "$@" >/dev/null 2>"$WORK/stderr" || { cat "$WORK/stderr" >&2; exit 1; }
        local ended=$EPOCHREALTIME
        awk -v a="$started" -v b="$ended" '{ $1 = sprintf("%.3f", b - a); print }' "$WORK/time" >"$WORK/time.wall" && mv "$WORK/time.wall" "$WORK/time"
        if [ -z "$best" ] || awk -v a="$(seconds "$WORK/time")" -v b="$(seconds "$best")" 'BEGIN{exit !(a<b)}'; then
            cp "$WORK/time" "$WORK/best.tmp"; best="$WORK/best.tmp"
        fi
    done
    mv "$WORK/best.tmp" "$WORK/best"
}

# The tools of one comparison take turns, a run each per round, rather than each running its
# repetitions in a row: this machine's speed drifts in stretches of seconds (seven runs in a row
# of one build took 1.69 s, the same binary 0.36 s a minute later), and a tool whose runs all fall
# in a slow stretch would be compared with others that had none. The order changes too (turned
# by one each round, and backwards every other round), so that no tool always runs right after the
# same other one: a run right after another tool wrote or deleted a gigabyte can take twice as long.
take_turns() {
    local tools=("$@") round i tool n=$#
    for tool in "${tools[@]}"; do rm -f "$WORK/t-$tool"; done
    for round in $(seq 0 $((REPS - 1))); do
        for i in "${!tools[@]}"; do
            [ $((round % 2)) = 1 ] && i=$((n - 1 - i))
            tool=${tools[$(((round / 2 + i) % n))]}
            OUT="$WORK/out-$tool" REPS=1 "run_$tool"
            if [ ! -f "$WORK/t-$tool" ] || awk -v a="$(seconds "$WORK/best")" -v b="$(seconds "$WORK/t-$tool")" 'BEGIN{exit !(a<b)}'; then
                cp "$WORK/best" "$WORK/t-$tool"
            fi
        done
    done
}

# encode NAME SECONDS LOOPS SIZE FPS VIDEO_BITRATE AUDIO_BITRATE SEED: SECONDS of H.264 (B-frames,
# a keyframe every 2 s; grain keeps x264 from compressing it away) + AAC 48 kHz stereo, then looped
# LOOPS times by stream copy so generating stays cheap.
encode() {
    local name=$1 seconds=$2 loops=$3 size=$4 fps=$5 vb=$6 ab=$7 seed=$8
    [ -f "$WORK/$name.mp4" ] && return
    ffmpeg -hide_banner -v error -y \
        -f lavfi -i "testsrc2=size=$size:rate=$fps,noise=alls=20:allf=t+u:all_seed=$seed" \
        -f lavfi -i "sine=frequency=$((300 + 100 * seed)):sample_rate=48000" \
        -t "$seconds" -c:v libx264 -preset ultrafast -g $((2 * fps)) -bf 2 -b:v "$vb" -maxrate "$vb" -bufsize "$vb" -pix_fmt yuv420p \
        -c:a aac -b:a "$ab" -ac 2 "$WORK/loop-$name.mp4"
    ffmpeg -hide_banner -v error -y -stream_loop $((loops - 1)) -i "$WORK/loop-$name.mp4" -c copy "$WORK/$name.mp4"
    rm -f "$WORK/loop-$name.mp4"
}
