#!/usr/bin/env bash
# Mapping benchmark: compile time and lookup cost at 10 and 10,000 breaks (release build).
# Usage: bash Benchmarks/mapping/run.sh
set -euo pipefail
cd "$(dirname "$0")/.."
swift build -c release --product MappingBenchmark >&2
"$(swift build -c release --show-bin-path)/MappingBenchmark"
