#!/usr/bin/env bash
# Peak memory of `CompositorDemo simulate` with many `insert now` actions (issue 13, R4: 4,000
# insertions used 1.8 GB, growing with their square). Builds the demo in release, then runs
#   simulate Fixtures/demo.json --actions "play 1; insert now ad1.mp4 0 1; ..."
# with 0, 1,000, 2,000 and 4,000 insertions, and prints the peak resident set size of each run and
# its growth over the run without insertions. Linear memory doubles the growth when the insertions
# double (ratio ~2); quadratic memory quadruples it (ratio ~4).
#
#   Benchmarks/simulate-inserts/run.sh                 # the demo of this checkout
#   DEMO=/path/to/CompositorDemo Benchmarks/simulate-inserts/run.sh 1000 2000   # another build, other counts
#
# Peak RSS comes from GNU time (`/usr/bin/time -v`) when present, else from python3's
# resource.getrusage(RUSAGE_CHILDREN). Not a timed test: the seconds are printed for information.
set -euo pipefail
root="$(cd "$(dirname "$0")/../.." && pwd)"
counts=("$@")
(( ${#counts[@]} > 0 )) || counts=(1000 2000 4000)

if [[ -z ${DEMO:-} ]]; then
  swift build --package-path "$root" -c release --product CompositorDemo >&2
  DEMO="$(swift build --package-path "$root" -c release --show-bin-path)/CompositorDemo"
fi
schedule="$root/Fixtures/demo.json"

# Prints "KB SECONDS" for one run of the demo with `$1` insertions (events to /dev/null).
peak() {
  local actions="play 1" i
  # Relative to the schedule's folder, so 4,000 actions stay under the kernel's 128 KiB limit on
  # one argument.
  for ((i = 0; i < $1; i++)); do actions+="; insert now ad1.mp4 0 1"; done
  local started=$SECONDS
  if [[ -x /usr/bin/time ]] && /usr/bin/time -v -o /dev/null true 2>/dev/null; then
    local report
    report=$(mktemp)
    /usr/bin/time -v -o "$report" "$DEMO" simulate "$schedule" --actions "$actions" >/dev/null 2>&1
    echo "$(sed -n 's/.*Maximum resident set size (kbytes): *//p' "$report") $((SECONDS - started))"
    rm -f "$report"
  else
    python3 - "$DEMO" "$schedule" "$actions" <<'PY'
import resource, subprocess, sys, time
started = time.monotonic()
subprocess.run([sys.argv[1], "simulate", sys.argv[2], "--actions", sys.argv[3]],
               stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, check=True)
print(resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, int(time.monotonic() - started))
PY
  fi
}

read -r base _ < <(peak 0)
echo "simulate with N 'insert now' actions: peak RSS ($DEMO)"
printf '%-12s %-14s %-18s %-22s %s\n' insertions "peak RSS MB" "growth over 0, MB" "growth / previous" seconds
printf '%-12s %-14s %-18s %-22s %s\n' 0 "$((base / 1024))" - - -
previous=""
for n in "${counts[@]}"; do
  read -r kb seconds < <(peak "$n")
  growth=$((kb - base))
  ratio=-
  if [[ -n $previous ]] && (( previous > 0 )); then
    ratio=$(awk -v g="$growth" -v p="$previous" 'BEGIN { printf "%.2fx", g / p }')
  fi
  printf '%-12s %-14s %-18s %-22s %s\n' "$n" "$((kb / 1024))" "$((growth / 1024))" "$ratio" "$seconds"
  previous=$growth
done
echo "linear memory: growth / previous ~2x when the insertions double (quadratic: ~4x)"
