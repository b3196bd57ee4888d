#!/usr/bin/env python3
"""A live HLS origin for tests: ffmpeg encoding in real time, a publisher inserting cue markers,
and nginx serving it on 127.0.0.1.

    python3 Tests/live/live_origin.py FOLDER [--format ts|fmp4] [--end-after S] [--window N]
                                      [--break-every N] [--break-segments K] [--break-offset O]

Layout of FOLDER (nginx's root; created):

    FOLDER/origin/raw/ffmpeg.m3u8   ffmpeg's own playlist (every segment: -hls_list_size 0)
    FOLDER/origin/raw/segNNNNN.ts   its segments (.m4s and init.mp4 for fMP4), never deleted, so
                                    that a player test can decode every content frame afterwards
    FOLDER/origin/live.m3u8         the published live playlist (what clients load)
    FOLDER/origin/markers.json      the cue markers published so far
    FOLDER/out/                     for the stitcher's output (served too)

The encoder: ffmpeg -re, lavfi testsrc2 320x180 at 30 fps with the frame number burnt in (the
drawtext style of Fixtures/generate.sh, six digits) and a 440 Hz sine; H.264 Main, libx264
ultrafast, no B-frames, a keyframe every 60 frames exactly (2 s: -g 60 -keyint_min 60
-sc_threshold 0); AAC-LC 44.1 kHz mono like Fixtures/ad1.mp4 and ad2.mp4; HLS segments of 2 s
(-hls_time 2, program_date_time, independent_segments, temp_file), MPEG-TS or fMP4.

The publisher (a thread) polls ffmpeg's playlist every 0.1 s and, when it has new segments,
publishes live.m3u8 atomically (temporary file + os.replace): the last --window (6) segments,
EXT-X-MEDIA-SEQUENCE the first one's number, ffmpeg's dates kept, URIs raw/segNNNNN.*, and
EXT-X-ENDLIST once ffmpeg wrote it. The window slides only in the published playlist.

Cue markers, deterministic in the media sequence number (msn; the first segment is 0):

    #EXT-X-CUE-OUT:DURATION=<2K>  before every segment msn with msn % N == O
    #EXT-X-CUE-IN                 before segment msn + K

with N = --break-every (12), K = --break-segments (8), O = --break-offset (6): breaks at
6-13, 18-25, 30-37, ... (CUE-IN on 14, 26, 38). K < N. With --end-after, a break is published
only if its CUE-IN segment comes at least one segment before the last one, so that every break
published is closed before EXT-X-ENDLIST. markers.json lists each published break:
{"cue_out_msn", "duration", "cue_in_msn", "date" (the cue-out segment's PROGRAM-DATE-TIME),
"cue_in_date"}.

--endlist-delay S publishes the last segment alone, and EXT-X-ENDLIST S seconds later (GStreamer's
hlsdemux and hlsdemux2 both skip segments that arrive in the same reload as EXT-X-ENDLIST).

--end-after S stops the encoder after S seconds of media (ffmpeg -t S: it writes its last,
possibly short, segment and EXT-X-ENDLIST); without it the origin runs until stopped (Ctrl-C
makes ffmpeg finish the same way).

As a library:

    with LiveOrigin(folder, format="ts", end_after=60) as origin:   # starts nginx and ffmpeg
        origin.url            # http://127.0.0.1:PORT/origin/live.m3u8
        origin.base           # http://127.0.0.1:PORT
        origin.wait_segments(3)
        origin.wait_ended()
        origin.segments()     # [(msn, path)] of every segment ffmpeg wrote
        origin.markers()      # the markers published

`Nginx(root)` alone serves a folder (a context manager too): .m3u8 with Cache-Control: no-cache,
the MIME types of .m3u8, .ts, .m4s and .mp4.
"""

import argparse
import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_check import parse  # noqa: E402

FONT = os.environ.get("FONT", "/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf")
SEGMENT_SECONDS = 2
FPS = 30


def find_nginx():
    for folder in os.environ.get("PATH", "").split(":") + ["/usr/sbin", "/usr/local/sbin", "/usr/bin"]:
        path = os.path.join(folder, "nginx")
        if os.access(path, os.X_OK):
            return path
    raise FileNotFoundError("nginx not found (apt-get install nginx-light)")


def free_port():
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def accepts(port):
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as s:
        s.settimeout(0.5)
        return s.connect_ex(("127.0.0.1", port)) == 0


class Nginx:
    """nginx serving `root` on 127.0.0.1 (a free port), from a generated config in root/.nginx."""

    def __init__(self, root):
        self.root = Path(root).resolve()
        self.process = None
        self.port = None

    @property
    def base(self):
        return f"http://127.0.0.1:{self.port}"

    def start(self):
        prefix = self.root / ".nginx"
        prefix.mkdir(parents=True, exist_ok=True)
        self.port = free_port()
        p = prefix
        config = f"""
daemon off; master_process off; worker_processes 1;
pid {p}/nginx.pid; error_log {p}/error.log;
events {{ worker_connections 256; }}
http {{
  access_log {p}/access.log;
  client_body_temp_path {p}/body; proxy_temp_path {p}/proxy; fastcgi_temp_path {p}/fastcgi;
  uwsgi_temp_path {p}/uwsgi; scgi_temp_path {p}/scgi;
  types {{ application/vnd.apple.mpegurl m3u8; video/mp2t ts; video/iso.segment m4s; video/mp4 mp4;
          application/json json; }}
  default_type application/octet-stream;
  server {{
    listen 127.0.0.1:{self.port};
    root {self.root};
    location /.nginx/ {{ return 403; }}
    location ~ \\.m3u8$ {{ expires -1; add_header Access-Control-Allow-Origin *; }}
    # HLS interstitial asset lists (CompositorDemo live --form interstitials): a client starting
    # inside a break asks with _HLS_start_offset (RFC 8216bis D.4) and gets N-joined.json.
    location ~ /assets/[0-9]+\\.json$ {{
      expires -1; add_header Access-Control-Allow-Origin *;
      if ($arg__HLS_start_offset) {{ rewrite ^(.*)\\.json$ $1-joined.json break; }}
    }}
    location / {{ add_header Access-Control-Allow-Origin *; }}
  }}
}}
"""
        (p / "nginx.conf").write_text(config)
        self.process = subprocess.Popen([find_nginx(), "-c", str(p / "nginx.conf"), "-p", str(p), "-e",
                                         str(p / "error.log")], stdout=subprocess.DEVNULL, stderr=subprocess.PIPE)
        for _ in range(100):
            if accepts(self.port):
                return self
            if self.process.poll() is not None:
                break
            time.sleep(0.05)
        self.stop()
        log = (p / "error.log").read_text() if (p / "error.log").exists() else ""
        raise RuntimeError(f"nginx did not start listening on 127.0.0.1:{self.port}: {log}")

    def stop(self):
        if self.process and self.process.poll() is None:
            self.process.send_signal(signal.SIGQUIT)  # graceful; SIGKILL if it lingers
            try:
                self.process.wait(timeout=5)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()


def ffmpeg_command(raw, format, end_after=None):
    counter = (f"drawtext=fontfile={FONT}:text='%{{eif\\:n\\:d\\:6}}':x=8:y=8:fontsize=24:"
               "fontcolor=white:box=1:boxcolor=black")
    extension = "m4s" if format == "fmp4" else "ts"
    command = ["ffmpeg", "-hide_banner", "-v", "error", "-y",
               "-re", "-f", "lavfi", "-i", f"testsrc2=size=320x180:rate={FPS},{counter}",
               "-re", "-f", "lavfi", "-i", "sine=frequency=440:sample_rate=44100"]
    if end_after:
        command += ["-t", str(end_after)]
    command += ["-map", "0:v", "-map", "1:a",
                "-c:v", "libx264", "-preset", "veryfast", "-profile:v", "main", "-pix_fmt", "yuv420p",
                "-bf", "0", "-g", str(SEGMENT_SECONDS * FPS), "-keyint_min", str(SEGMENT_SECONDS * FPS),
                "-sc_threshold", "0", "-threads", "1",
                "-c:a", "aac", "-b:a", "48k", "-ac", "1", "-ar", "44100",
                "-f", "hls", "-hls_time", str(SEGMENT_SECONDS), "-hls_list_size", "0",
                "-hls_flags", "program_date_time+independent_segments+temp_file",
                "-hls_segment_filename", str(raw / f"seg%05d.{extension}")]
    if format == "fmp4":
        command += ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"]
    return command + [str(raw / "ffmpeg.m3u8")]


class Markers:
    """The cue-marker rule: CUE-OUT before msn % every == offset, CUE-IN `segments` later."""

    def __init__(self, every=12, segments=8, offset=6, last_msn=None):
        if not 0 < segments < every:
            raise ValueError("need 0 < --break-segments < --break-every")
        self.every, self.segments, self.offset, self.last_msn = every, segments, offset % every, last_msn

    def break_at(self, msn):
        """Whether a break starts at msn (CUE-OUT before it)."""
        if msn % self.every != self.offset:
            return False
        # Every break published closes (its CUE-IN segment is not the last segment) before the end.
        return self.last_msn is None or msn + self.segments < self.last_msn

    def tags(self, msn):
        tags = []
        if self.break_at(msn):
            tags.append(f"#EXT-X-CUE-OUT:DURATION={self.segments * SEGMENT_SECONDS}")
        if msn >= self.segments and self.break_at(msn - self.segments):
            tags.append("#EXT-X-CUE-IN")
        return tags


def publish(playlist, window, markers, uri_prefix="raw/"):
    """The text of the published live playlist from ffmpeg's (parsed, every segment)."""
    segments = playlist.segments[-window:]
    first = segments[0].msn if segments else playlist.next_msn
    lines = ["#EXTM3U", "#EXT-X-VERSION:7" if any(s.map for s in segments) else "#EXT-X-VERSION:3",
             f"#EXT-X-TARGETDURATION:{playlist.target}", f"#EXT-X-MEDIA-SEQUENCE:{first}",
             "#EXT-X-DISCONTINUITY-SEQUENCE:0", "#EXT-X-INDEPENDENT-SEGMENTS"]
    current_map = None
    for s in segments:
        if s.map != current_map:
            lines.append(f'#EXT-X-MAP:URI="{uri_prefix}{s.map}"')
            current_map = s.map
        lines += markers.tags(s.msn)
        if s.date_text:
            lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{s.date_text}")
        lines.append(f"#EXTINF:{s.duration},")
        lines.append(uri_prefix + s.uri)
    if playlist.endlist:
        lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


def write_atomically(path, text):
    temporary = path.with_name("." + path.name + ".tmp")
    temporary.write_text(text)
    os.replace(temporary, path)


class LiveOrigin:
    def __init__(self, folder, format="ts", end_after=None, window=6, break_every=12, break_segments=8,
                 break_offset=6, serve=True, log=None, endlist_delay=0.0):
        if format not in ("ts", "fmp4"):
            raise ValueError("format is ts or fmp4")
        self.folder = Path(folder).resolve()
        self.format, self.end_after, self.window, self.serve = format, end_after, window, serve
        last_msn = None
        if end_after:
            last_msn = -(-int(end_after * FPS) // (SEGMENT_SECONDS * FPS)) - 1
        self.rule = Markers(break_every, break_segments, break_offset, last_msn)
        self.origin = self.folder / "origin"
        self.raw = self.origin / "raw"
        self.nginx = Nginx(self.folder) if serve else None
        self.ffmpeg = None
        self.thread = None
        self.stopping = threading.Event()
        self.ended = threading.Event()
        self.published = []  # the markers published, dicts
        self.publications = 0
        self.started_at = None
        self.log = log
        self.endlist_delay = endlist_delay

    @property
    def base(self):
        return self.nginx.base if self.nginx else None

    @property
    def url(self):
        return f"{self.base}/origin/live.m3u8" if self.nginx else None

    def start(self):
        self.raw.mkdir(parents=True, exist_ok=True)
        (self.folder / "out").mkdir(parents=True, exist_ok=True)
        if self.nginx:
            self.nginx.start()
        self.started_at = time.monotonic()
        self.ffmpeg = subprocess.Popen(ffmpeg_command(self.raw, self.format, self.end_after),
                                       stdin=subprocess.PIPE, stdout=subprocess.DEVNULL,
                                       stderr=open(self.folder / "ffmpeg.log", "wb"))
        self.thread = threading.Thread(target=self.run, daemon=True)
        self.thread.start()
        return self

    def run(self):
        source = self.raw / "ffmpeg.m3u8"
        last = None
        while not self.ended.is_set():
            try:
                text = source.read_text()
            except FileNotFoundError:
                text = None
            if text and text != last:
                last = text
                playlist = parse(text)
                if not playlist.errors and playlist.segments:
                    self.note_markers(playlist)
                    if playlist.endlist and self.endlist_delay:
                        # The last segment first, EXT-X-ENDLIST in a later publication.
                        playlist.endlist = False
                        write_atomically(self.origin / "live.m3u8", publish(playlist, self.window, self.rule))
                        self.publications += 1
                        time.sleep(self.endlist_delay)
                        playlist.endlist = True
                    write_atomically(self.origin / "live.m3u8", publish(playlist, self.window, self.rule))
                    self.publications += 1
                    if playlist.endlist:
                        self.ended.set()
                        break
            if self.ffmpeg.poll() is not None and text == last and not self.ended.is_set():
                # ffmpeg exited: one more read catches its last playlist; then it is over.
                time.sleep(0.2)
                if source.exists() and source.read_text() == last:
                    if self.log:
                        self.log(f"ffmpeg exited ({self.ffmpeg.returncode}) without EXT-X-ENDLIST")
                    self.ended.set()
                    break
            time.sleep(0.1)

    def note_markers(self, playlist):
        known = {m["cue_out_msn"] for m in self.published}
        changed = False
        for s in playlist.segments:
            if self.rule.break_at(s.msn) and s.msn not in known:
                self.published.append({"cue_out_msn": s.msn, "duration": self.rule.segments * SEGMENT_SECONDS,
                                       "cue_in_msn": s.msn + self.rule.segments, "date": s.date_text,
                                       "cue_in_date": None})
                changed = True
        for m in self.published:
            if m["cue_in_date"] is None and (s := playlist.by_msn(m["cue_in_msn"])):
                m["cue_in_date"] = s.date_text
                changed = True
        if changed:
            write_atomically(self.origin / "markers.json", json.dumps(self.published, indent=1) + "\n")

    def wait_segments(self, count, timeout=60):
        """Waits until live.m3u8 lists at least `count` segments in all (msn >= count - 1)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            try:
                if parse((self.origin / "live.m3u8").read_text()).next_msn >= count:
                    return True
            except FileNotFoundError:
                pass
            time.sleep(0.1)
        return False

    def wait_ended(self, timeout=None):
        return self.ended.wait(timeout)

    def stop(self):
        if self.ffmpeg and self.ffmpeg.poll() is None:
            try:
                self.ffmpeg.stdin.write(b"q")  # ffmpeg finishes its last segment and ENDLIST
                self.ffmpeg.stdin.flush()
            except (BrokenPipeError, OSError):
                pass
            try:
                self.ffmpeg.wait(timeout=10)
            except subprocess.TimeoutExpired:
                self.ffmpeg.kill()
                self.ffmpeg.wait()
        if self.thread:
            self.thread.join(timeout=5)
        self.ended.set()
        if self.nginx:
            self.nginx.stop()

    def __enter__(self):
        return self.start()

    def __exit__(self, *exc):
        self.stop()

    def segments(self):
        """[(msn, path)] of every segment ffmpeg listed, in order (init.mp4 aside)."""
        playlist = parse((self.raw / "ffmpeg.m3u8").read_text())
        return [(s.msn, self.raw / s.uri) for s in playlist.segments]

    def init_segment(self):
        path = self.raw / "init.mp4"
        return path if path.exists() else None

    def markers(self):
        return list(self.published)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("folder", type=Path)
    parser.add_argument("--format", choices=["ts", "fmp4"], default="ts")
    parser.add_argument("--end-after", type=float, help="seconds of media, then EXT-X-ENDLIST")
    parser.add_argument("--window", type=int, default=6, help="segments in the published playlist")
    parser.add_argument("--break-every", type=int, default=12)
    parser.add_argument("--break-segments", type=int, default=8)
    parser.add_argument("--break-offset", type=int, default=6)
    parser.add_argument("--endlist-delay", type=float, default=0.0,
                        help="publish the last segment this long before EXT-X-ENDLIST (default: together, as ffmpeg)")
    parser.add_argument("--linger", type=float, help="after EXT-X-ENDLIST, serve this many seconds more "
                        "(default: until interrupted)")
    args = parser.parse_args()
    origin = LiveOrigin(args.folder, args.format, args.end_after, args.window, args.break_every,
                        args.break_segments, args.break_offset, log=lambda m: print(m, file=sys.stderr),
                        endlist_delay=args.endlist_delay)
    with origin:
        print(f"serving {origin.folder} at {origin.base}/ ; live playlist {origin.url}", flush=True)
        try:
            origin.wait_ended()
            print("ended (EXT-X-ENDLIST published); still serving", file=sys.stderr, flush=True)
            if args.linger is None:
                threading.Event().wait()
            time.sleep(args.linger)
        except KeyboardInterrupt:
            print("stopping", file=sys.stderr)
    print(json.dumps(origin.markers(), indent=1))


if __name__ == "__main__":
    main()
