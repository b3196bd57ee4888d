#!/usr/bin/env bash
# Two builds of the package measured in turns on the same machine, for a change that must keep
# its speed (issue 52's rule): the mapping, session and hls-parse benchmarks four times each
# (before, after, after, before), then breaks, packaging and render once each way, every run's
# output kept in WORKDIR.
#
#   Benchmarks/compare-builds.sh BEFORE_ROOT AFTER_ROOT [WORKDIR]
#
# BEFORE_ROOT and AFTER_ROOT are checkouts (a worktree of the commit before the change, and this
# one); each runs its own Benchmarks/ scripts. REPS (default 2) is passed to the whole-program
# ones, CASES (default: every case) to render. Nothing else may run meanwhile: every figure is
# wall-clock time.
set -u
BEFORE=$(cd "${1:?usage: compare-builds.sh BEFORE_ROOT AFTER_ROOT [WORKDIR]}" && pwd)
AFTER=$(cd "${2:?usage: compare-builds.sh BEFORE_ROOT AFTER_ROOT [WORKDIR]}" && pwd)
WORK=${3:-$(mktemp -d /tmp/compare-builds.XXXXXX)}
mkdir -p "$WORK"
export REPS=${REPS:-2}

run() {  # BENCH TREE LABEL
    local root=$BEFORE; [ "$2" = after ] && root=$AFTER
    echo "== $1, $2 ($3), $(date +%T)"
    bash "$root/Benchmarks/$1/run.sh" >"$WORK/$1-$2-$3.txt" 2>&1 || echo "   failed: see $WORK/$1-$2-$3.txt"
    # The lines with figures: each script's table rows (mapping, session), its tools' times, its ratios.
    grep -E "^(breaks|10|10000) |^== [^g]|compositor  |stitcher  |render  |timeline  |Compositor best|ratio|targets" "$WORK/$1-$2-$3.txt" \
        | sed 's/^/   /' | head -16
}

for bench in mapping session hls-parse; do
    run "$bench" before 1; run "$bench" after 1; run "$bench" after 2; run "$bench" before 2
done
for bench in breaks packaging render; do
    run "$bench" before 1; run "$bench" after 1
done
echo "compare-builds: outputs in $WORK"
