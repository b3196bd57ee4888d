#!/usr/bin/env bash
# Render memory (issue 70): what `CompositorDemo render` of a sample-heavy programme holds at its
# peak, split into the cost of loading the binary and its libraries (`CompositorDemo --version`,
# which loads everything a render loads and does nothing) and the render's own part (the
# render's peak minus that). The programme is the render benchmark's sample-heavy one: 2,300 s of
# 320x240 H.264 (30 fps, B-frames) + AAC, cut by 20 mid-rolls of a 10 s ad, local files only
# (194,823 samples, 120 MB out).
#
#   Benchmarks/render-memory/run.sh [REV...]    each REV (a git revision) is built in a temporary
#                                               worktree and measured too, for a before/after figure;
#                                               WORKDIR=DIR keeps the inputs there (made once)
#
# Builds CompositorDemo (release), runs each measurement REPS times (default 3) under GNU time and
# keeps the smallest peak RSS (the peak of one run moves by a few hundred KiB with the allocator's
# timing). Target: the render's own part at most 13 MiB.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
REPS=${REPS:-3}
. "$ROOT/Benchmarks/lib/timing.sh"
bench_setup render-memory ${WORKDIR:+"$WORKDIR"}
trap 'for w in "$WORK"/rev-*; do [ -d "$w" ] && git -C "$ROOT" worktree remove --force "$w" 2>/dev/null; done; [ "$KEEP" = 1 ] || rm -rf "$WORK"' EXIT

encode samples-content 25 92 320x240 30 280k 96k 1
encode samples-ad 10 1 320x240 30 280k 96k 2
# The render benchmark's cuts: 21 pieces of content, 0.5 s past a keyframe, the ad between each two.
python3 - "$WORK" <<'PY'
import json, sys
work, length = sys.argv[1], 2300
breaks = [{"id": f"mid{k}", "at": int(k * length / 21 / 2) * 2 + 0.5,
           "ads": [{"id": f"ad{k}", "url": work + "/samples-ad.mp4"}]} for k in range(1, 21)]
json.dump({"content": [{"id": "feature", "url": work + "/samples-content.mp4"}], "breaks": breaks},
          open(work + "/schedule.json", "w"))
PY
cat "$WORK"/samples-*.mp4 >/dev/null  # warm the page cache

# least_rss CMD...: the smallest peak RSS (KiB) of REPS runs of CMD.
least_rss() {
    local best="" rss i
    for i in $(seq "$REPS"); do
        rm -f "$WORK/out.mp4"
        /usr/bin/time -f "%M" -o "$WORK/rss" "$@" >/dev/null
        rss=$(tail -1 "$WORK/rss")
        if [ -z "$best" ] || [ "$rss" -lt "$best" ]; then best=$rss; fi
    done
    echo "$best"
}

measure_build() {  # PACKAGE_PATH LABEL
    local demo load peak samples
    swift build --package-path "$1" -c release --product CompositorDemo >&2
    demo="$(swift build --package-path "$1" -c release --show-bin-path)/CompositorDemo"
    load=$(least_rss "$demo" --version)
    peak=$(least_rss "$demo" render "$WORK/schedule.json" --output "$WORK/out.mp4")
    samples=$(ffprobe -v error -show_entries stream=nb_frames -of csv=p=0 "$WORK/out.mp4" | awk '{ n += $1 } END { print n }')
    awk -v label="$2" -v l="$load" -v p="$peak" -v n="$samples" 'BEGIN {
        printf "  %-22s render peak %5.1f MiB = loading %5.1f MiB + its own %5.1f MiB (target <= 13)  %d samples, %.1f bytes each\n",
            label, p / 1024, l / 1024, (p - l) / 1024, n, (p - l) * 1024 / n }'
    printf "  %-22s libraries loaded: %s\n" "" "$(ldd "$demo" | grep -oE 'lib(Foundation[A-Za-z]*|swiftCore|xml2|curl|icu[a-z]*)[^ ]*' | sort -u | tr '\n' ' ')"
}

# by_mapping DEMO: where the render's own part is, by mapping: each mapping's resident KiB at the
# render's exit less at --version's exit (read from /proc/PID/smaps under gdb, at exit_group;
# the render's exit is within a few hundred KiB of its peak). Needs gdb; skipped without it.
by_mapping() {
    command -v gdb >/dev/null || { echo "  (gdb not found: no breakdown by mapping)"; return; }
    snapshot() {  # FILE CMD...
        local file=$1; shift
        gdb -q -batch -ex 'catch syscall exit_group' -ex run -ex "python open('$file', 'w').write(open('/proc/%d/smaps' % gdb.selected_inferior().pid).read())" \
            --args "$@" >/dev/null 2>&1
    }
    snapshot "$WORK/version.smaps" "$1" --version
    snapshot "$WORK/render.smaps" "$1" render "$WORK/schedule.json" --output "$WORK/out.mp4"
    python3 - "$WORK/version.smaps" "$WORK/render.smaps" <<'PY'
import collections, re, sys
def resident(path):
    by, name = collections.Counter(), None
    for line in open(path):
        if m := re.match(r"^[0-9a-f]+-[0-9a-f]+ \S+ \S+ \S+ \S+\s*(.*)$", line):
            name = m.group(1).rsplit("/", 1)[-1] or "[anonymous]"
        elif m := re.match(r"^Rss:\s+(\d+) kB", line):
            by[name] += int(m.group(1))
    return by
version, render = resident(sys.argv[1]), resident(sys.argv[2])
grown = sorted(((render[k] - version[k], k) for k in render), reverse=True)
print(f"  at exit: --version {sum(version.values()) / 1024:.1f} MiB, render {sum(render.values()) / 1024:.1f} MiB; the render's own part by mapping:")
for kib, name in grown[:8]:
    print(f"    {kib / 1024:+6.2f} MiB  {name}")
PY
}

echo "== render of 2,300 s + 20 mid-rolls (sample-heavy), smallest peak RSS of $REPS runs"
measure_build "$ROOT" "working tree"
by_mapping "$(swift build --package-path "$ROOT" -c release --show-bin-path)/CompositorDemo"
for rev in "$@"; do
    git -C "$ROOT" worktree add --detach "$WORK/rev-$rev" "$rev" >/dev/null 2>&1
    measure_build "$WORK/rev-$rev" "$rev"
done
