#!/usr/bin/env bash
# Builds and runs the libFuzzer targets against the library sources.
#
#   Tests/Fuzz/run.sh [mp4|hls|schedule|all] [EXECUTIONS]     (default: all 100000)
#   Tests/Fuzz/run.sh mp4 1000000
#   Tests/Fuzz/run.sh hls 0 INPUT...        # replay files (a crash to reproduce), no fuzzing
#
# Sources/Compositor is built once with `swiftc -sanitize=fuzzer,address` into a static library
# in .build-fuzz/ (git-ignored); each target, Tests/Fuzz/<Target>Fuzz.swift, links against it. It starts from the committed seeds (Tests/Fuzz/seeds/<target>) and
# keeps what it learns in .build-fuzz/corpus/<target>; crashes, hangs (-timeout) and oversized
# allocations (-malloc_limit_mb) are written to .build-fuzz/artifacts/<target>/ and make the run
# exit non-zero. Every one found is kept in Tests/Fuzz/regressions/<target>/ (also read as seeds)
# and fed back by a test in Tests/CompositorTests/Robustness/FuzzRegressionTests.swift.
#
# Environment: FUZZ_FLAGS adds libFuzzer flags (e.g. FUZZ_FLAGS=-max_total_time=600, or
# FUZZ_FLAGS="-fork=1 -ignore_crashes=1" to collect several crashes in one run), FUZZ_OUT moves
# .build-fuzz, SWIFTC picks the compiler.
set -euo pipefail
cd "$(dirname "$0")/../.."

target=${1:-all}
runs=${2:-100000}
shift $(( $# > 2 ? 2 : $# )) || true
replay=("$@")

SWIFTC=${SWIFTC:-swiftc}
out=${FUZZ_OUT:-.build-fuzz}
# Swift's own crash handler would catch the signal first and hide the report; libFuzzer's is enough.
export SWIFT_BACKTRACE=enable=no
mkdir -p "$out"

# target name -> (source file, max input length)
source_of() {
  case $1 in
    mp4) echo Tests/Fuzz/MP4ReaderFuzz.swift ;;
    hls) echo Tests/Fuzz/HLSParserFuzz.swift ;;
    schedule) echo Tests/Fuzz/ScheduleFuzz.swift ;;
    *) echo "unknown target '$1' (mp4, hls, schedule or all)" >&2; exit 64 ;;
  esac
}
max_len_of() {
  case $1 in
    mp4) echo 65536 ;;     # the largest fixture moov is 15 KiB
    hls) echo 16384 ;;
    schedule) echo 8192 ;;
  esac
}

# The library, instrumented once for all targets (coverage + AddressSanitizer).
build_library() {
  local lib=$out/lib/libCompositor.a
  if [[ -f $lib ]] && [[ -z $(find Sources/Compositor -name '*.swift' -newer "$lib" | head -1) ]]; then
    return
  fi
  echo "fuzz: building $lib" >&2
  local started=$SECONDS
  mkdir -p "$out/lib"
  # shellcheck disable=SC2046
  "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 \
    -module-name Compositor -emit-module -emit-module-path "$out/lib/Compositor.swiftmodule" \
    -emit-library -static -o "$lib" $(find Sources/Compositor -name '*.swift' | sort)
  echo "fuzz: built $lib in $((SECONDS - started)) s" >&2
}

build() {
  local name=$1 src binary
  src=$(source_of "$name")
  binary=$out/$name-fuzzer
  build_library
  if [[ -x $binary ]] && [[ ! $out/lib/libCompositor.a -nt $binary ]] && [[ ! $src -nt $binary ]]; then
    return
  fi
  echo "fuzz: building $binary" >&2
  "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -use-ld=lld \
    -I "$out/lib" "$src" "$out/lib/libCompositor.a" -o "$binary"
}

run() {
  local name=$1 binary=$out/$1-fuzzer
  build "$name"
  local corpus=$out/corpus/$name artifacts=$out/artifacts/$name/
  mkdir -p "$corpus" "$artifacts"
  local flags=(
    -max_len="$(max_len_of "$name")"
    -timeout=10              # seconds per input: longer is a hang
    -rss_limit_mb=2048
    -malloc_limit_mb=256     # no input this small has a reason to allocate more at once
    -use_value_profile=1
    -print_final_stats=1
    -artifact_prefix="$artifacts"
    -dict=Tests/Fuzz/dict/$name.dict
  )
  if (( ${#replay[@]} > 0 )); then
    "$binary" "${flags[@]}" ${FUZZ_FLAGS:-} "${replay[@]}"
    return
  fi
  echo "fuzz: $name, $runs executions" >&2
  local started=$SECONDS
  # shellcheck disable=SC2086
  "$binary" "${flags[@]}" -runs="$runs" ${FUZZ_FLAGS:-} "$corpus" "Tests/Fuzz/seeds/$name" "Tests/Fuzz/regressions/$name"
  # -max_total_time in FUZZ_FLAGS may end it sooner: stat::number_of_executed_units above counts.
  echo "fuzz: $name done in $((SECONDS - started)) s (asked for $runs executions)" >&2
}

if [[ $target == all ]]; then
  for name in mp4 hls schedule; do run "$name"; done
else
  run "$target"
fi
