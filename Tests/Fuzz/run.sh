#!/usr/bin/env bash
# Builds and runs the libFuzzer targets against the library sources.
#
#   Tests/Fuzz/run.sh [mp4|hls|segments|packaging|schedule|mapping|markers|manifest|vast|http|all] [EXECUTIONS]     (default: all 100000)
#   Tests/Fuzz/run.sh mp4 1000000
#   Tests/Fuzz/run.sh hls 0 INPUT...        # replay files (a crash to reproduce), no fuzzing
#
# The library's modules are built once with `swiftc -sanitize=fuzzer,address` into static libraries
# in .build-fuzz/lib (git-ignored); each target, Tests/Fuzz/<Target>Fuzz.swift, links against it. It starts from the committed seeds (Tests/Fuzz/seeds/<target>) and
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
# Leaks of the toolchain's own libraries (FoundationXML's error strings on malformed XML) are
# suppressed as in CI's sanitized run; any other leak still fails a run.
export LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$PWD/.ci/lsan-suppressions.txt}
mkdir -p "$out"

# target name -> (source file, max input length)
source_of() {
  case $1 in
    mp4) echo Tests/Fuzz/MP4ReaderFuzz.swift ;;
    hls) echo Tests/Fuzz/HLSParserFuzz.swift ;;
    segments) echo Tests/Fuzz/SegmentsFuzz.swift ;;
    packaging) echo Tests/Fuzz/PackagingFuzz.swift ;;
    schedule) echo Tests/Fuzz/ScheduleFuzz.swift ;;
    mapping) echo Tests/Fuzz/MappingFuzz.swift ;;
    markers) echo Tests/Fuzz/MarkersFuzz.swift ;;
    manifest) echo Tests/Fuzz/ManifestFuzz.swift ;;
    vast) echo Tests/Fuzz/AdsFuzz.swift ;;
    http) echo Tests/Fuzz/HTTPResponseFuzz.swift ;;
    *) echo "unknown target '$1' (mp4, hls, segments, packaging, schedule, mapping, markers, manifest, vast, http or all)" >&2; exit 64 ;;
  esac
}
max_len_of() {
  case $1 in
    # 4 MiB: the hostile files that mattered are megabytes (70,000 sample descriptions are 1.1 MB,
    # a file of tiny boxes 8 MB); at 64 KiB the fuzzer could not reach them.
    mp4) echo 4194304 ;;
    hls) echo 16384 ;;
    segments) echo 65541 ;;  # five header bytes, then media its 16-bit cuts can reach
    packaging) echo 65536 ;;
    schedule) echo 8192 ;;
    mapping) echo 8192 ;;    # a schedule, then queries and scripts
    markers) echo 16384 ;;
    manifest) echo 4096 ;;
    vast) echo 16384 ;;
    http) echo 16385 ;;      # a byte of choices, then what the server sends
  esac
}

# packaging reads MP4 files.
dict_of() {
  case $1 in
    packaging) echo mp4 ;;
    *) echo "$1" ;;
  esac
}

# The library's modules, in dependency order, instrumented once for all targets (coverage +
# AddressSanitizer). `-package-name` lets the targets use `package` API as the tests do.
modules=(CompositorCore CompositorIO CompositorTS CompositorMP4 CompositorHLS CompositorAds Compositor CompositorTesting)
build_library() {
  local stamp=$out/lib/built
  if [[ -f $stamp ]] && [[ -z $(find Sources -name '*.swift' -newer "$stamp" | head -1) ]]; then
    return
  fi
  local started=$SECONDS
  mkdir -p "$out/lib"
  for module in "${modules[@]}"; do
    echo "fuzz: building $out/lib/lib$module.a" >&2
    # shellcheck disable=SC2046
    "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -package-name Compositor \
      -I "$out/lib" -module-name "$module" -emit-module -emit-module-path "$out/lib/$module.swiftmodule" \
      -emit-library -static -o "$out/lib/lib$module.a" $(find "Sources/$module" -name '*.swift' | sort)
  done
  touch "$stamp"
  echo "fuzz: built the library in $((SECONDS - started)) s" >&2
}

build() {
  local name=$1 src binary
  src=$(source_of "$name")
  binary=$out/$name-fuzzer
  build_library
  if [[ -x $binary ]] && [[ ! $out/lib/built -nt $binary ]] && [[ ! $src -nt $binary ]]; then
    return
  fi
  echo "fuzz: building $binary" >&2
  local libraries=()
  for module in "${modules[@]}"; do libraries+=("$out/lib/lib$module.a"); done
  "$SWIFTC" -sanitize=fuzzer,address -parse-as-library -O -g -swift-version 6 -use-ld=lld -package-name Compositor \
    -I "$out/lib" "$src" "${libraries[@]}" -o "$binary"
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
    -malloc_limit_mb=256     # counts are checked against their bytes; a 4 MiB input honestly needs tens of MiB
    -use_value_profile=1
    -print_final_stats=1
    -artifact_prefix="$artifacts"
    -dict=Tests/Fuzz/dict/"$(dict_of "$name")".dict
  )
  if (( ${#replay[@]} > 0 )); then
    "$binary" "${flags[@]}" ${FUZZ_FLAGS:-} "${replay[@]}"
    return
  fi
  echo "fuzz: $name, $runs executions" >&2
  local started=$SECONDS
  # shellcheck disable=SC2086
  local inputs=("$corpus" "Tests/Fuzz/seeds/$name")
  [[ -d Tests/Fuzz/regressions/$name ]] && inputs+=("Tests/Fuzz/regressions/$name")
  "$binary" "${flags[@]}" -runs="$runs" ${FUZZ_FLAGS:-} "${inputs[@]}"
  # -max_total_time in FUZZ_FLAGS may end it sooner: stat::number_of_executed_units above counts.
  echo "fuzz: $name done in $((SECONDS - started)) s (asked for $runs executions)" >&2
}

if [[ $target == all ]]; then
  for name in mp4 hls segments packaging schedule mapping markers manifest vast http; do run "$name"; done
else
  run "$target"
fi
