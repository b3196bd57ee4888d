#!/usr/bin/env bash
# How many reads a render of a fragmented MP4 makes: content.mp4 remuxed by ffmpeg into fragments
# of 0.1 s (189 moofs), rendered whole by CompositorDemo (debug build) under `strace -c`, counting
# pread64 calls (the reader's only way to read). With a git revision, that revision is built in a
# temporary worktree and counted too, for a before/after figure.
#
#   Benchmarks/fragment-reads/run.sh [REV]
#
# Needs ffmpeg and strace (Debian packages).
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
command -v ffmpeg >/dev/null || { echo "error: ffmpeg not found" >&2; exit 1; }
command -v strace >/dev/null || { echo "error: strace not found (apt-get install strace)" >&2; exit 1; }
WORK=$(mktemp -d /tmp/compositor-fragment-reads.XXXXXX)
trap 'git -C "$ROOT" worktree remove --force "$WORK/rev" 2>/dev/null || true; rm -rf "$WORK"' EXIT

ffmpeg -hide_banner -v error -y -i "$ROOT/Fixtures/content.mp4" -c copy \
    -movflags empty_moov+default_base_moof -frag_duration 100000 "$WORK/fragmented.mp4"
echo "{ \"content\": [ { \"id\": \"c\", \"url\": \"$WORK/fragmented.mp4\" } ], \"breaks\": [] }" >"$WORK/schedule.json"
FRAGMENTS=$(python3 -c "import sys; print(open(sys.argv[1], 'rb').read().count(b'moof'))" "$WORK/fragmented.mp4")

count() {  # PACKAGE_PATH LABEL
    swift build --package-path "$1" --product CompositorDemo >&2
    local demo reads
    demo="$(swift build --package-path "$1" --show-bin-path)/CompositorDemo"
    reads=$(strace -f -c -e trace=pread64 "$demo" render "$WORK/schedule.json" --output "$WORK/out.mp4" 2>&1 >/dev/null \
        | awk '$NF == "pread64" { print $4 }')
    printf "  %-24s %6s pread64 calls\n" "$2" "$reads"
}

echo "== a render of a fragmented MP4 of $FRAGMENTS fragments"
count "$ROOT" "working tree"
if [ $# -ge 1 ]; then
    git -C "$ROOT" worktree add --detach "$WORK/rev" "$1" >/dev/null 2>&1
    count "$WORK/rev" "$1"
fi
