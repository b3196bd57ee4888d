#!/usr/bin/env bash
# Behaviour unchanged (issue 52's rule): every demo schedule rendered (each cut mode) and stitched
# (TS, fMP4, every piece packaged, interstitials) by two builds of the demo, byte for byte.
#
#   Tests/Tools/compare-outputs.sh BEFORE_DEMO AFTER_DEMO [WORKDIR]
#
# BEFORE_DEMO and AFTER_DEMO are CompositorDemo binaries (build one from a worktree of the commit
# before a change). Prints one line per output and exits 1 when any differs or only one build
# could make it (the same refusal by both is fine: it is compared too, as the error text).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
BEFORE=${1:?usage: compare-outputs.sh BEFORE_DEMO AFTER_DEMO [WORKDIR]}
AFTER=${2:?usage: compare-outputs.sh BEFORE_DEMO AFTER_DEMO [WORKDIR]}
WORK=${3:-$(mktemp -d /tmp/compare-outputs.XXXXXX)}
mkdir -p "$WORK"
cd "$ROOT"
differ=0 compared=0

# run BUILD NAME ARGS...: runs a demo command writing to $WORK/out/NAME (the same path for both
# builds, so paths in the output and the messages agree), then moves it to $WORK/BUILD/NAME, with
# its exit status and messages beside it.
run() {
    local build=$1 name=$2 binary; shift 2
    binary=$([ "$build" = before ] && echo "$BEFORE" || echo "$AFTER")
    mkdir -p "$WORK/$build" "$WORK/out"
    "$binary" "$@" --output "$WORK/out/$name" >"$WORK/$build/$name.stdout" 2>"$WORK/$build/$name.stderr"
    echo $? >"$WORK/$build/$name.status"
    rm -rf "$WORK/$build/$name"
    [ -e "$WORK/out/$name" ] && mv "$WORK/out/$name" "$WORK/$build/$name"
}

compare() {
    local name=$1
    compared=$((compared + 1))
    if { { [ ! -e "$WORK/before/$name" ] && [ ! -e "$WORK/after/$name" ]; } || diff -r -q "$WORK/before/$name" "$WORK/after/$name" >/dev/null 2>&1; } \
        && cmp -s "$WORK/before/$name.stdout" "$WORK/after/$name.stdout" \
        && cmp -s "$WORK/before/$name.status" "$WORK/after/$name.status" \
        && cmp -s "$WORK/before/$name.stderr" "$WORK/after/$name.stderr"; then
        echo "same     $name (exit $(cat "$WORK/after/$name.status"))"
    else
        echo "DIFFERS  $name"; differ=$((differ + 1))
    fi
}

for schedule in Fixtures/demo*.json Fixtures/reference-sample.json Fixtures/seed-scenario.json; do
    base=$(basename "$schedule" .json)
    for build in before after; do
        for cut in sample keyframe web; do
            run "$build" "$base-render-$cut" render "$schedule" --cut "$cut"
        done
        run "$build" "$base-hls" hls "$schedule"
        run "$build" "$base-hls-fmp4" hls "$schedule" --segments fmp4
        run "$build" "$base-hls-every" hls "$schedule" --package-every-piece
        run "$build" "$base-hls-interstitials" hls "$schedule" --interstitials
    done
    for name in render-sample render-keyframe render-web hls hls-fmp4 hls-every hls-interstitials; do compare "$base-$name"; done
done
echo "compare-outputs: $compared outputs, $differ differ (in $WORK)"
[ "$differ" = 0 ]
