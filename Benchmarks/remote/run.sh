#!/usr/bin/env bash
# Remote sources (issue 51, "Speed"): the demo reading its sources over HTTP from nginx on
# 127.0.0.1, against ffmpeg / ffprobe reading the same URLs and against curl of the same bytes.
#
#   render   the 1 GB programme of Benchmarks/render (four 250 s 720p sources at 8 Mbit/s
#            interleaved in 25 s pieces) with every source on the server: `CompositorDemo render`
#            against `ffmpeg -f concat -c copy` of the same http URLs (+ `sync`), and against the
#            floor: `curl` of the same bytes (to /dev/null) + the durable copy of them
#            (durable_copy.c); the output compared (cmp) with the same render from the local files,
#            and the demo's peak memory rendering 250 MB, 500 MB, 1 GB and 2 GB of them (flat in input size)
#   probe    100 remote MP4s of 8 s (50 with the moov at the front, 50 at the end):
#            `CompositorDemo timeline` of a schedule of all 100 (the catalog loads 6 at a time),
#            the demo once per clip, and ffprobe over http one by one (and 6 at a time)
#   hls      `CompositorDemo hls` of a remote 24-hour VOD playlist (14,400 entries of 6 s) with 100
#            mid-rolls of a remote ad: an HLS ad (segments referenced at their URLs) and an MP4 ad
#            (packaged into segments in the output folder); the same schedule from local files
#
#   Benchmarks/remote/run.sh [WORKDIR]        PARTS="probe hls" to run some of them,
#                                             DEMO=/path/to/CompositorDemo to measure another build
#
# Generates its inputs with ffmpeg (not committed; about 1.2 GB in WORKDIR, and two 1 GB outputs
# while the render runs; default a new temporary folder, removed at the end unless WORKDIR was
# given), serves WORKDIR with nginx (a generated config, a free port on 127.0.0.1, stopped at exit),
# runs each tool REPS times (default 3; the render's tools take turns, see take_turns), keeping the
# fastest. Requests and bytes are counted from nginx's access log ($bytes_sent: what nginx sent,
# which for a client that closes early is more than it read). Spool files go to WORKDIR/tmp.
# Targets: the render >= 3x faster than ffmpeg, <= 1.3x curl + floor.
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
HERE=$ROOT/Benchmarks/remote
REPS=${REPS:-3}
PARTS=${PARTS:-render probe hls}
. "$ROOT/Benchmarks/lib/timing.sh"
bench_setup remote "$@"
NGINX=$(command -v nginx || echo /usr/sbin/nginx)
for tool in "$NGINX" curl ffprobe python3; do
    command -v "$tool" >/dev/null || { echo "error: $tool not found (apt-get install nginx-light curl ffmpeg)" >&2; exit 1; }
done

echo "== building the demo (release)"
DEMO=${DEMO:-$(release_binary CompositorDemo)}
FLOOR=$(durable_copy_binary)
mkdir -p "$WORK/tmp"
export TMPDIR=$WORK/tmp   # the demo's spool files
# sweep_spools RUNS: counts and removes what the last RUNS runs of the demo left in $TMPDIR (its
# spool files are unlinked as they are made, so nothing should be; before they were, some runs
# left them, a gigabyte a render), so that no run pays for another's writeback. Called after the
# timed runs, never within them.
sweep_spools() {
    echo "$1 $(find "$TMPDIR" -type f | wc -l) $(du -s -B1 "$TMPDIR" | cut -f1)" >>"$WORK/spools-left"
    find "$TMPDIR" -mindepth 1 -delete
}
find "$TMPDIR" -mindepth 1 -delete; : >"$WORK/spools-left"

# nginx serving $WORK on a free port of 127.0.0.1, its files in a folder of its own.
SERVER=$(mktemp -d /tmp/compositor-remote-nginx.XXXXXX)
NGINX_PID=""
stop_nginx() {
    [ -z "$NGINX_PID" ] || { kill "$NGINX_PID" 2>/dev/null || true; wait "$NGINX_PID" 2>/dev/null || true; }
    rm -rf "$SERVER"
}
trap 'stop_nginx; [ "$KEEP" = 1 ] || rm -rf "$WORK"' EXIT
PORT=$(python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
# The access log: one line a request, tab-separated (URI, status, bytes sent, Range header).
cat >"$SERVER/nginx.conf" <<EOF
daemon off; master_process off; worker_processes 1;
pid $SERVER/nginx.pid; error_log $SERVER/error.log;
events { worker_connections 256; }
http {
  log_format bench '\$msec	\$request_uri	\$status	\$bytes_sent	\$http_range	\$http_user_agent';
  access_log $SERVER/access.log bench;
  client_body_temp_path $SERVER/body; proxy_temp_path $SERVER/proxy; fastcgi_temp_path $SERVER/fastcgi;
  uwsgi_temp_path $SERVER/uwsgi; scgi_temp_path $SERVER/scgi;
  types { application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/mp4 mp4 m4s; }
  sendfile on; tcp_nopush on;
  server {
    listen 127.0.0.1:$PORT;
    root $WORK;
  }
}
EOF
"$NGINX" -c "$SERVER/nginx.conf" -p "$SERVER" -e "$SERVER/error.log" &
NGINX_PID=$!
for _ in $(seq 100); do curl -s -o /dev/null "http://127.0.0.1:$PORT/" && break; sleep 0.05; done
curl -s -o /dev/null "http://127.0.0.1:$PORT/" || { cat "$SERVER/error.log" >&2; echo "error: nginx did not start" >&2; exit 1; }
BASE=http://127.0.0.1:$PORT
LOG=$SERVER/access.log
echo "== nginx on $BASE serving $WORK; load average at the start: $(cut -d' ' -f1-3 /proc/loadavg)"

# logged NAME CMD...: runs CMD, appending the access log's lines of its requests to $WORK/log-NAME.
logged() {
    local name=$1 mark; shift
    mark=$(wc -l <"$LOG")
    "$@"
    tail -n +$((mark + 1)) "$LOG" >>"$WORK/log-$name"
}
# requests NAME [RUNS [URI_PATTERN]]: "requests MiB" a run (RUNS: how many runs the log holds).
requests() {
    awk -F'\t' -v runs="${2:-$REPS}" -v p="${3:-.}" '$2 ~ p { n++; b += $4 } END { printf "%d %.1f\n", n / runs, b / runs / 1048576 }' "$WORK/log-$1" 2>/dev/null || echo "0 0"
}
SUMMARY=$WORK/summary; : >"$SUMMARY"
row() { printf "%s\t%s\t%s\t%s\t%s\t%s\n" "$@" >>"$SUMMARY"; }  # part, what, seconds, RSS MiB, requests, MiB sent
clear_logs() { rm -f "$WORK"/log-*; }

run_render() {
    echo "== render: generating four 250 s 720p sources (8 Mbit/s) in $WORK"
    local i files=() urls=()
    for i in 1 2 3 4; do encode "src$i" 25 10 1280x720 25 8M 128k "$i"; files+=("src$i.mp4"); urls+=("$BASE/src$i.mp4"); done
    python3 "$HERE/make_inputs.py" render "$BASE/" "${files[@]}" >"$WORK/remote.json"
    python3 "$HERE/make_inputs.py" render "" "${files[@]}" >"$WORK/local.json"
    python3 "$HERE/make_inputs.py" render concat: "${urls[@]}" >"$WORK/remote.concat"
    local bytes; bytes=$(cd "$WORK" && cat "${files[@]}" | wc -c)  # also warms the page cache
    CURL_ARGS=(); for i in "${urls[@]}"; do CURL_ARGS+=(-o /dev/null "$i"); done
    LOCAL_FILES=(); for i in "${files[@]}"; do LOCAL_FILES+=("$WORK/$i"); done
    clear_logs

    # The demo (remote and local sources), ffmpeg over http, curl and the floor take turns.
    run_demo() { local OUT=$OUT.mp4; logged demo measure "$DEMO" render "$WORK/remote.json" --output "$OUT"; sweep_spools 1; }
    run_local() { local OUT=$OUT.mp4; measure "$DEMO" render "$WORK/local.json" --output "$OUT"; }
    run_ffmpeg() {
        logged ffmpeg measure sh -c 'ffmpeg -v error -y -protocol_whitelist file,http,tcp -f concat -safe 0 -i "$1" -map 0 -c copy -movflags +faststart -f mp4 "$0" && sync "$0"' \
            "$OUT" "$WORK/remote.concat"
    }
    run_curl() { logged curl measure curl -sSf "${CURL_ARGS[@]}"; }
    run_floor() { measure_floor "${LOCAL_FILES[@]}"; }
    take_turns demo local ffmpeg curl ${FLOOR:+floor}
    # Peak memory against input size: the demo's render of the first source alone (250 MB, its 10
    # pieces), of the first two (500 MB), of all four (1 GB) and of the four twice over (2 GB, each
    # piece played twice), one run each, not timed.
    local count peaks=() twice=("${files[@]}" "${files[@]}")
    for count in 1 2 4 8; do
        python3 "$HERE/make_inputs.py" render "$BASE/" "${twice[@]:0:count}" >"$WORK/remote-$count.json"
        /usr/bin/time -f %M -o "$WORK/rss-$count" "$DEMO" render "$WORK/remote-$count.json" --output "$WORK/out-rss.mp4" >/dev/null 2>&1
        peaks+=("$(awk '{printf "%.0f", $1 / 1024}' "$WORK/rss-$count")")
        sweep_spools 1
        rm -f "$WORK/out-rss.mp4"
    done
    PEAKS="${peaks[0]} / ${peaks[1]} / ${peaks[2]} / ${peaks[3]} MiB (2 GB / 1 GB: $(awk -v a="${peaks[3]}" -v b="${peaks[2]}" 'BEGIN{printf "%.2fx", a / b}'))"

    local identical=no output_bytes
    cmp -s "$WORK/out-demo.mp4" "$WORK/out-local.mp4" && identical=yes
    output_bytes=$(wc -c <"$WORK/out-demo.mp4")
    rm -f "$WORK"/out-*

    echo
    echo "== render: 40 pieces of 4 remote sources, $((bytes / 1048576)) MiB in, $((output_bytes / 1048576)) MiB out, best of $REPS, every output fsynced"
    printf "  %-18s %7s  %6s  %9s  %5s  %9s  %s\n" "" "wall" "MB/s" "peak RSS" "CPU" "requests" "MiB sent (a run)"
    local tool label n
    for tool in demo local ffmpeg curl floor; do
        [ -f "$WORK/t-$tool" ] || continue
        case $tool in
            demo) label="demo render (http)"; n=$output_bytes ;; local) label="demo render (files)"; n=$output_bytes ;;
            ffmpeg) label="ffmpeg concat (http)"; n=$bytes ;; curl) label="curl > /dev/null"; n=$bytes ;; floor) label="floor (durable copy)"; n=$bytes ;;
        esac
        read -r req mib < <(requests "$tool")
        printf "  %-20s %7s s %6.0f  %5s MiB  %5s  %9s  %s\n" "$label" "$(seconds "$WORK/t-$tool")" \
            "$(awk -v b="$n" -v t="$(seconds "$WORK/t-$tool")" 'BEGIN{print b / 1e6 / t}')" "$(rss_mib "$WORK/t-$tool")" \
            "$(cpu_seconds "$WORK/t-$tool")" "$([ "$tool" = local ] || [ "$tool" = floor ] && echo - || echo "$req")" \
            "$([ "$tool" = local ] || [ "$tool" = floor ] && echo - || echo "$mib")"
        row render "$label" "$(seconds "$WORK/t-$tool")" "$(rss_mib "$WORK/t-$tool")" \
            "$([ "$tool" = local ] || [ "$tool" = floor ] && echo - || echo "$req")" "$([ "$tool" = local ] || [ "$tool" = floor ] && echo - || echo "$mib")"
    done
    local td tf tc tk tl
    td=$(seconds "$WORK/t-demo"); tf=$(seconds "$WORK/t-ffmpeg"); tc=$(seconds "$WORK/t-curl"); tl=$(seconds "$WORK/t-local")
    tk=$([ -f "$WORK/t-floor" ] && seconds "$WORK/t-floor" || echo 0)
    awk -v d="$td" -v f="$tf" -v c="$tc" -v k="$tk" -v l="$tl" 'BEGIN {
        printf "  ffmpeg / demo = %.2fx (target >= 3)   demo / (curl + floor) = %.2fx (target <= 1.3)   demo http / files = %.2fx\n", f / d, d / (c + k), d / l }'
    echo "  peak RSS of the demo's render of 250 MB, 500 MB, 1 GB and 2 GB of the sources: $PEAKS"
    echo "  identical: $identical (the remote render against the same render from the local files, cmp)"
    row render "ffmpeg / demo" "$(awk -v d="$td" -v f="$tf" 'BEGIN{printf "%.2fx", f / d}')" "" "" ""
    row render "demo / (curl + floor)" "$(awk -v d="$td" -v c="$tc" -v k="$tk" 'BEGIN{printf "%.2fx", d / (c + k)}')" "" "" ""
    row render "identical to local render" "$identical" "" "" ""
    row render "peak RSS, 0.25 / 0.5 / 1 / 2 GB" "$PEAKS" "" "" ""
}

run_probe() {
    echo
    echo "== probe: generating 100 clips of 8 s (640x360, 1.5 Mbit/s), 50 with the moov at the front, 50 at the end"
    mkdir -p "$WORK/probe/one"
    if [ ! -f "$WORK/probe/end-50.mp4" ]; then
        ffmpeg -hide_banner -v error -y -f lavfi -i "testsrc2=size=640x360:rate=25,noise=alls=10:allf=t+u" \
            -f lavfi -i "sine=frequency=500:sample_rate=48000" -t 8 -c:v libx264 -preset ultrafast -g 50 -b:v 1500k \
            -maxrate 1500k -bufsize 1500k -pix_fmt yuv420p -c:a aac -b:a 96k "$WORK/probe/base.mp4"
        local i
        for i in $(seq 50); do
            ffmpeg -hide_banner -v error -y -i "$WORK/probe/base.mp4" -map 0 -c copy -metadata comment="clip $i" -movflags +faststart "$WORK/probe/front-$i.mp4"
            ffmpeg -hide_banner -v error -y -i "$WORK/probe/base.mp4" -map 0 -c copy -metadata comment="clip $i" "$WORK/probe/end-$i.mp4"
        done
    fi
    local names=() urls=() i
    for i in $(seq 50); do names+=("front-$i.mp4" "end-$i.mp4"); urls+=("$BASE/probe/front-$i.mp4" "$BASE/probe/end-$i.mp4"); done
    python3 "$HERE/make_inputs.py" probe "$BASE/probe/" "${names[@]}" >"$WORK/probe/all.json"
    ONE=()
    for i in "${!names[@]}"; do
        python3 "$HERE/make_inputs.py" probe "$BASE/probe/" "${names[$i]}" >"$WORK/probe/one/$i.json"; ONE+=("$WORK/probe/one/$i.json")
    done
    local clip_bytes; clip_bytes=$(wc -c <"$WORK/probe/end-1.mp4")
    clear_logs
    OUT=""
    logged demo measure "$DEMO" timeline "$WORK/probe/all.json"; cp "$WORK/best" "$WORK/t-demo"; sweep_spools "$REPS"
    logged one measure sh -c 'for f in "$@"; do "$0" timeline "$f" >/dev/null || exit 1; done' "$DEMO" "${ONE[@]}"; cp "$WORK/best" "$WORK/t-one"
    sweep_spools $((REPS * 100))
    logged ffprobe measure sh -c 'for u in "$@"; do ffprobe -v error -show_format -show_streams "$u" >/dev/null || exit 1; done' sh "${urls[@]}"
    cp "$WORK/best" "$WORK/t-ffprobe"
    logged ffprobe6 measure sh -c 'printf "%s\n" "$@" | xargs -P 6 -I{} ffprobe -v error -show_format -show_streams {} >/dev/null' sh "${urls[@]}"
    cp "$WORK/best" "$WORK/t-ffprobe6"

    echo
    echo "== probe: 100 remote MP4s of $((clip_bytes / 1024)) KiB (50 moov at the front, 50 at the end), best of $REPS"
    printf "  %-34s %7s  %9s  %-26s %-26s\n" "" "wall" "peak RSS" "front: requests, MiB sent" "end: requests, MiB sent"
    local tool label
    for tool in demo one ffprobe ffprobe6; do
        case $tool in
            demo) label="demo timeline, 100 clips (6 at once)" ;; one) label="demo timeline, a clip a process" ;;
            ffprobe) label="ffprobe, one by one" ;; ffprobe6) label="ffprobe, 6 at once (xargs -P 6)" ;;
        esac
        read -r fr fm < <(requests "$tool" "$REPS" /front-); read -r er em < <(requests "$tool" "$REPS" /end-)
        printf "  %-34s %7s s  %5s MiB  %5s %9s              %5s %9s\n" "$label" "$(seconds "$WORK/t-$tool")" "$(rss_mib "$WORK/t-$tool")" "$fr" "$fm" "$er" "$em"
        row probe "$label" "$(seconds "$WORK/t-$tool")" "$(rss_mib "$WORK/t-$tool")" "$fr + $er" "$fm + $em"
    done
    awk -v d="$(seconds "$WORK/t-demo")" -v o="$(seconds "$WORK/t-one")" -v f="$(seconds "$WORK/t-ffprobe")" -v g="$(seconds "$WORK/t-ffprobe6")" 'BEGIN {
        printf "  ffprobe one by one / demo (6 at once) = %.2fx   ffprobe one by one / demo a clip a process = %.2fx   ffprobe 6 at once / demo = %.2fx\n", f / d, f / o, g / d }'
    echo "  (a clip is $clip_bytes bytes; nginx counts what it sent, which for a client that closes a connection early is more than it read)"
}

run_hls() {
    echo
    echo "== hls: generating a 24-hour playlist (14,400 entries of 6 s over 4 real segments) and the ads"
    mkdir -p "$WORK/hls/content" "$WORK/hls/ad1"
    if [ ! -f "$WORK/hls/content/seg3.ts" ]; then
        ffmpeg -hide_banner -v error -y -f lavfi -i "testsrc2=size=320x240:rate=25" -f lavfi -i "sine=frequency=400:sample_rate=48000" \
            -t 24 -c:v libx264 -preset ultrafast -g 150 -keyint_min 150 -sc_threshold 0 -b:v 300k -pix_fmt yuv420p -c:a aac -b:a 64k -ac 2 \
            -f hls -hls_time 6 -hls_playlist_type vod -hls_segment_filename "$WORK/hls/content/seg%d.ts" "$WORK/hls/content/real.m3u8"
    fi
    python3 "$HERE/make_inputs.py" hls-playlist seg0.ts,seg1.ts,seg2.ts,seg3.ts 6 14400 >"$WORK/hls/content/day.m3u8"
    cp "$ROOT"/Fixtures/hls/ts/ad1/* "$WORK/hls/ad1/"
    cp "$ROOT/Fixtures/ad1.mp4" "$WORK/hls/ad1.mp4"
    python3 "$HERE/make_inputs.py" hls "$BASE/hls/content/day.m3u8" "$BASE/hls/ad1/index.m3u8" 86400 100 >"$WORK/hls/remote.json"
    python3 "$HERE/make_inputs.py" hls "$BASE/hls/content/day.m3u8" "$BASE/hls/ad1.mp4" 86400 100 >"$WORK/hls/remote-mp4.json"
    python3 "$HERE/make_inputs.py" hls "content/day.m3u8" "ad1/index.m3u8" 86400 100 >"$WORK/hls/local.json"
    python3 "$HERE/make_inputs.py" hls "content/day.m3u8" "ad1.mp4" 86400 100 >"$WORK/hls/local-mp4.json"
    clear_logs
    local kind
    for kind in remote local remote-mp4 local-mp4; do
        OUT=$WORK/hls/out-$kind
        logged "$kind" measure "$DEMO" hls "$WORK/hls/$kind.json" --output "$OUT"; cp "$WORK/best" "$WORK/t-$kind"
        case $kind in remote*) sweep_spools "$REPS" ;; esac
    done
    OUT=""
    logged curl measure curl -sSf -o /dev/null "$BASE/hls/content/day.m3u8" -o /dev/null "$BASE/hls/ad1/index.m3u8"; cp "$WORK/best" "$WORK/t-curl"
    local entries segments
    entries=$(grep -c '^#EXTINF' "$WORK/hls/out-remote/stitched.m3u8" || true)
    segments=$(find "$WORK/hls/out-remote-mp4" -name '*.ts' | wc -l)

    echo
    echo "== hls: 24-hour remote playlist ($(($(wc -c <"$WORK/hls/content/day.m3u8") / 1024)) KiB), 100 mid-rolls, best of $REPS"
    printf "  %-40s %7s  %9s  %9s  %s\n" "" "wall" "peak RSS" "requests" "MiB sent (a run)"
    local label
    for kind in remote local remote-mp4 local-mp4 curl; do
        case $kind in
            remote) label="demo hls, remote HLS ad" ;; local) label="demo hls, same from files" ;;
            remote-mp4) label="demo hls, remote MP4 ad (packaged)" ;; local-mp4) label="demo hls, MP4 ad from files" ;;
            curl) label="curl of the two playlists" ;;
        esac
        read -r req mib < <(requests "$kind")
        printf "  %-40s %7s s  %5s MiB  %9s  %s\n" "$label" "$(seconds "$WORK/t-$kind")" "$(rss_mib "$WORK/t-$kind")" "$req" "$mib"
        row hls "$label" "$(seconds "$WORK/t-$kind")" "$(rss_mib "$WORK/t-$kind")" "$req" "$mib"
    done
    echo "  stitched.m3u8 (remote HLS ad): $entries segment entries; the MP4 ad's run wrote $segments TS segments"
    rm -rf "$WORK"/hls/out-*
}

for part in $PARTS; do "run_$part"; done

echo
awk '{ runs += $1; files += $2; bytes += $3 } END {
    printf "== spool files the demo left behind in TMPDIR (swept after each step, outside the timings): %d after %d runs, %.0f MiB\n", files, runs, bytes / 1048576 }' "$WORK/spools-left"
echo "== load average at the end: $(cut -d' ' -f1-3 /proc/loadavg) (this machine has $(nproc) cores)"
echo "== summary (best of $REPS; requests and MiB sent a run, from nginx's access log)"
printf "  %-7s %-40s %9s  %9s  %11s  %s\n" part what wall "RSS MiB" requests "MiB sent"
while IFS=$'\t' read -r part what secs rss req mib; do
    printf "  %-7s %-40s %9s  %9s  %11s  %s\n" "$part" "$what" "$secs" "$rss" "$req" "$mib"
done <"$SUMMARY"
