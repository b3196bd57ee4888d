#!/usr/bin/env bash
# Session benchmark: one PlaybackSession.update(position:) per player tick through a whole
# programme of 10 and of 10,000 breaks (release build). Prints ns per tick, the 10,000/10 ratio,
# and the same ticks answered by scanning the segments (the peer).
#
#   Benchmarks/session/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
swift build --package-path "$root" -c release --product SessionBenchmark >&2
"$(swift build --package-path "$root" -c release --show-bin-path)/SessionBenchmark"
