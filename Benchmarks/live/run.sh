#!/usr/bin/env bash
# Live stitching benchmark (issue 55, "Speed"), in one run:
#
#   stitch  Benchmarks/Sources/LiveBenchmark (release): a 6-hour live stream (10,800 two-second
#           segments, 100 marked breaks, pods of packaged ads) replayed reload by reload from its
#           start, then one reload step (the last segment arrives: markers -> requests,
#           LiveDecisions.advanced, LiveStitcher.playlist, .text -> bytes) timed at windows of 60,
#           600 and 3,600 segments, best of many runs: bytes written, time, ns per byte, against a
#           memcpy and a write+rename of the same bytes, and against the same window with no breaks.
#   nginx   the 3,600-segment stitched playlist the harness wrote, served as a static file by nginx
#           (one worker, generated config in a temporary folder, 127.0.0.1), requests per second
#           measured by wrk -t1 -c16 (keep-alive). nginx and the harness run on core 0, wrk on core 1.
#
# Prints stitched playlists per second on one core (1 / best step, and 1 / mean step) against nginx's
# static responses per second on one core, and the ratio.
#
#   Benchmarks/live/run.sh [RUNS=200] [WRK_SECONDS=10]     FORMAT=ts|fmp4, LIVE_BENCH=/path/to/LiveBenchmark
#
# Needs nginx and wrk (apt-get install nginx-light wrk). Nothing leaves 127.0.0.1.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
root="$(cd "$here/../.." && pwd)"
runs="${1:-200}"
wrk_seconds="${2:-10}"
format="${FORMAT:-ts}"
work="$(mktemp -d "${TMPDIR:-/tmp}/live-bench.XXXXXX")"
nginx_pid=""
cleanup() {
    [ -z "$nginx_pid" ] || { kill "$nginx_pid" 2>/dev/null || true; wait "$nginx_pid" 2>/dev/null || true; }
    rm -rf "$work"
}
trap cleanup EXIT

nginx="$(command -v nginx || echo /usr/sbin/nginx)"
[ -x "$nginx" ] || { echo "error: nginx not found (apt-get install nginx-light)" >&2; exit 1; }
command -v wrk >/dev/null || { echo "error: wrk not found (apt-get install wrk)" >&2; exit 1; }
cores="$(nproc)"
if [ "$cores" -ge 2 ] && command -v taskset >/dev/null; then
    server_core=(taskset -c 0); client_core=(taskset -c 1)
else
    server_core=(); client_core=()
fi
echo "== load average at the start: $(cut -d' ' -f1-3 /proc/loadavg) (this machine has $cores cores)"

if [ -z "${LIVE_BENCH:-}" ]; then
    echo "== building the Swift harness (release, -j 1)"
    swift build --package-path "$root" -j 1 -c release --product LiveBenchmark >&2
    LIVE_BENCH="$(swift build --package-path "$root" -j 1 -c release --show-bin-path)/LiveBenchmark"
fi

mkdir -p "$work/root"
echo "== stitching (${server_core[*]:-unpinned})"
"${server_core[@]}" "$LIVE_BENCH" --runs "$runs" --format "$format" --write-stitched "$work/root/stitched.m3u8" | tee "$work/stitch.out"
result="$(grep '^RESULT ' "$work/stitch.out")"
field() { sed -n "s/.* $1=\([^ ]*\).*/\1/p" <<<"$result"; }
rate_best="$(field rate3600_best)"
rate_mean="$(field rate3600_mean)"
bytes="$(field bytes3600)"

echo "== nginx serving the same $bytes bytes as a static file (1 worker, ${server_core[*]:-unpinned})"
port="$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')"
p="$work/nginx"
mkdir -p "$p"
cat >"$p/nginx.conf" <<CONF
daemon off; master_process off; worker_processes 1;
pid $p/nginx.pid; error_log $p/error.log;
events { worker_connections 256; }
http {
  access_log off;
  sendfile on; tcp_nopush on;
  keepalive_requests 1000000;
  client_body_temp_path $p/body; proxy_temp_path $p/proxy; fastcgi_temp_path $p/fastcgi;
  uwsgi_temp_path $p/uwsgi; scgi_temp_path $p/scgi;
  types { application/vnd.apple.mpegurl m3u8; }
  server {
    listen 127.0.0.1:$port;
    root $work/root;
  }
}
CONF
"${server_core[@]}" "$nginx" -c "$p/nginx.conf" -p "$p" -e "$p/error.log" &
nginx_pid=$!
url="http://127.0.0.1:$port/stitched.m3u8"
for _ in $(seq 50); do curl -sf -o "$work/fetched.m3u8" "$url" && break; sleep 0.1; done
cmp -s "$work/fetched.m3u8" "$work/root/stitched.m3u8" || { echo "error: nginx did not serve the stitched playlist" >&2; cat "$p/error.log" >&2; exit 1; }

echo "== wrk -t1 -c16 -d${wrk_seconds}s ${client_core[*]:-unpinned}"
"${client_core[@]}" wrk -t1 -c16 -d"${wrk_seconds}s" "$url" | tee "$work/wrk.out"
nginx_rate="$(awk '/^Requests\/sec:/ {print $2}' "$work/wrk.out")"

echo "== summary (3,600-segment window, $bytes bytes)"
python3 - "$rate_best" "$rate_mean" "$nginx_rate" "$bytes" <<'PY'
import sys
best, mean, nginx, size = float(sys.argv[1]), float(sys.argv[2]), float(sys.argv[3]), int(sys.argv[4])
print(f"   stitched playlists/s on one core: {best:.0f} (1 / best step), {mean:.0f} (1 / mean step)")
print(f"   nginx static responses/s on one core: {nginx:.0f} ({nginx * size / 1e9:.2f} GB/s)")
print(f"   stitched / nginx static: {best / nginx:.4f} (best), {mean / nginx:.4f} (mean): nginx serves {nginx / best:.0f}x as many")
PY
