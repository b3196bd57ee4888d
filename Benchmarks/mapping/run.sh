#!/usr/bin/env bash
# Mapping benchmark: compile a schedule of 10 and of 10,000 breaks, then 1,000,000 lookups each way
# on each (release build). Prints compile time, ns per lookup, the 10,000/10 ratio, and the indexed
# lookup against a plain linear scan of the same composition.
#
#   Benchmarks/mapping/run.sh
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
swift build --package-path "$root" -c release --product MappingBenchmark >&2
"$(swift build --package-path "$root" -c release --show-bin-path)/MappingBenchmark"
