#!/usr/bin/env python3
"""The player matrix: the demo's outputs played by real players, every shown frame identified.

    python3 Tests/players/matrix.py [--players ffmpeg,gstreamer,mpv,vlc] [--outputs NAME,...]
                                    [--require NAME,...] [--work DIR] [--details]

Each output kind of the demo is made with CompositorDemo (built by `swift build`), then played by
each player, which hands back every picture it shows, with the time it shows it at:

    ffmpeg     ffmpeg -fps_mode passthrough: the decoder the unit tests judge with. Its times are
               the file's presentation times (for a playlist, the segments' own: not a clock).
    gstreamer  playbin into a raw sink (gst-launch-1.0); times are running times, the segments the
               demuxer pushed applied, as a sink shows them.
    mpv        mpv --vo=image --untimed, times from its time-pos at each drawn frame (a Lua script).
    vlc        VLC's yuv video output, in real time, no times (order and identity only). VLC will
               not run as root; as root the script runs it as $VLC_USER (default: nobody).
    gstreamer3 the same with playbin3 (adaptivedemux2's HLS and DASH demuxers).
    chromium   headless, on a page served on 127.0.0.1 (player.html): every frame it presents
    firefox    (requestVideoFrameCallback) as a thumbnail with its media time, at half speed.
               Headless Firefox hands back a sample of the frames (SAMPLING), judged with its own
               count of them.
    videojs    video.js 7 (PyPI js.videojs 7.5.5, served from its package) in headless Chromium,
               on the same page: its VHS plays DASH and HLS by Media Source Extensions.
    hlsjs      hls.js 1.6, dash.js 5.1 and Shaka Player 5.0, the web's reference players, built in
    dashjs     ../shared/players (skipped, saying so, where that is absent), on the same page at
    shaka      1x, as viewers play them: besides the pictures, a wait between two pictures over
               0.5 s beyond what their times say is a stall (STALL), and a fatal error of the
               player's ends the playback. hls.js opens HLS only, dash.js DASH only; hls.js also
               plays `hls --interstitials` (the `hls-interstitials` output), timed on its
               integrated timeline of content and ads.

The DASH outputs (`dash`, `dash-hls`, ...; not run unless named) are played over HTTP on 127.0.0.1,
GStreamer's too (from a file: URI its DASH demuxers stay at "buffering 0%").

A shown picture is identified by its MD5 against every decoded frame of the output's sources
(H.264 decoding is bit-exact, and ffmpeg, GStreamer's avdec and VLC all decode with libavcodec).
mpv hands back RGB pictures, so those are matched by likeness instead: the nearest source frame in
a 160x90 grey thumbnail, decided by the burnt-in frame counter's corner (numpy). A picture that
matches nothing is "garbage" (decoded from the wrong parameter sets, or a broken reference).

The expected frames come from the composition the output was written with (`timeline --json
[--cut keyframe]`, or the stitched playlist's timeline.json): a piece [s, e) of a source shows the
frame on screen at s, then every frame that starts inside it, each at its composition time. A
frame on screen at s for less than half its duration may be shown or not.

A cell reads "N/N" when every expected frame is shown, in order, nothing else is, and each is on
time: within one frame of its composition time after the player's own start offset (which the
cell gives when it is not zero). Otherwise it says what went wrong. The exit status is 1 when a
cell of an output named by --require is not right.
"""

import argparse
import contextlib
import difflib
import hashlib
import http.server
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import time
import urllib.parse
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
THUMB_W, THUMB_H = 160, 90
# The burnt-in counter (Fixtures/generate.sh: drawtext at 8,8, 24 px, five digits), in the thumbnail.
COUNTER = (slice(2, 20), slice(2, 44))
# A picture is the nearest source frame when it is on average this close to it, in standard
# deviations of the frame's grey levels: players' RGB renditions of the right frame come to 0.1-0.2,
# other sources' frames (and pictures decoded wrong) to 0.7 and more.
LIKENESS = 0.4
# Scores closer than this to the best are frames a thumbnail cannot tell apart (identify_by_likeness).
LIKENESS_TIE = 0.005


# ---------------------------------------------------------------------------------------------
# Outputs


class Output:
    """One output kind: how the demo makes it, what a player opens, and its composition."""

    def __init__(self, name, label, schedule, kind, extra=()):
        self.name, self.label, self.schedule, self.kind, self.extra = name, label, schedule, kind, extra

    def make(self, demo, path):
        """Makes the output at path, replacing what is there."""
        if path.is_dir():
            shutil.rmtree(path)
        elif path.exists():
            path.unlink()
        if self.kind != "file":
            command = {"mp4": "render", "hls": "hls", "dash": "dash"}[self.kind]
            # {folder}: where the output is served (the server serves the file system from its root).
            extra = [urllib.parse.quote(path.resolve().as_posix()) + "/" if a == "{folder}" else a for a in self.extra]
            run(demo, command, self.schedule, "--output", path, *extra)

    def played(self, path):
        return {"mp4": path, "hls": path / "stitched.m3u8", "dash": path / "stitched.mpd", "file": ROOT / self.schedule}[self.kind]

    def timeline(self, demo, path):
        if self.kind == "file":
            # The file as it is: one piece, all of it (its length is its last frame's end).
            return {"segments": [{"url": self.schedule, "source": {"start": 0, "end": 10**6},
                                  "composition": {"start": 0, "end": 10**6}}]}
        if self.kind == "mp4":
            text = run(demo, "timeline", self.schedule, "--json", *self.extra)
        else:
            text = (path / "timeline.json").read_text()
        return json.loads(text, parse_float=Decimal)


OUTPUTS = [
    Output("control", "control: Fixtures/web-ad.mp4 as it is", "Fixtures/web-ad.mp4", "file"),
    Output("control-hls", "control: Fixtures/hls/fmp4/content/index.m3u8 as it is",
           "Fixtures/hls/fmp4/content/index.m3u8", "file"),
    Output("control-hls-ts", "control: Fixtures/hls/ts/content/index.m3u8 as it is",
           "Fixtures/hls/ts/content/index.m3u8", "file"),
    Output("mp4-web", "MP4, web-safe (`--cut web`)", "Fixtures/demo-web.json", "mp4", ("--cut", "web")),
    Output("mp4-sample", "MP4, sample-accurate cuts (the default)", "Fixtures/demo.json", "mp4",
           ("--cut", "sample")),
    Output("mp4-keyframe", "MP4, keyframe-aligned cuts", "Fixtures/demo.json", "mp4",
           ("--cut", "keyframe")),
    Output("hls-mp4", "stitched HLS of MP4 sources, TS (demo.json)", "Fixtures/demo.json", "hls"),
    Output("hls-mp4-fmp4", "stitched HLS of MP4 sources, fMP4 (demo.json, `--segments fmp4`)", "Fixtures/demo.json", "hls",
           ("--segments", "fmp4")),
    Output("hls-mp4-fmp4-every", "stitched HLS of MP4 sources, fMP4, every piece packaged (demo.json)", "Fixtures/demo.json", "hls",
           ("--segments", "fmp4", "--package-every-piece")),
    Output("hls-ts", "stitched HLS, TS", "Fixtures/demo-hls.json", "hls"),
    Output("hls-fmp4", "stitched HLS, fMP4", "Fixtures/demo-hls-fmp4.json", "hls"),
    Output("hls-packaged-ts", "stitched HLS, TS content + MP4 ads packaged",
           "Fixtures/seed-scenario.json", "hls"),
    Output("hls-ts-every", "stitched HLS, TS, every piece packaged", "Fixtures/demo-hls.json", "hls",
           ("--package-every-piece",)),
    Output("hls-ts-every-unmarked", "stitched HLS, TS, every piece packaged, encoding changes unmarked",
           "Fixtures/demo-hls.json", "hls", ("--package-every-piece", "--unmarked-encoding-changes")),
    Output("hls-fmp4-every", "stitched HLS, fMP4, every piece packaged", "Fixtures/demo-hls-fmp4.json", "hls",
           ("--package-every-piece",)),
    Output("hls-packaged-ts-every", "stitched HLS, TS content + MP4 ads, every piece packaged",
           "Fixtures/seed-scenario.json", "hls", ("--package-every-piece",)),
    Output("hls-packaged-ts-every-unmarked", "stitched HLS, TS content + MP4 ads, every piece packaged, encoding changes unmarked",
           "Fixtures/seed-scenario.json", "hls", ("--package-every-piece", "--unmarked-encoding-changes")),
    Output("hls-mp4-every-unmarked", "stitched HLS of MP4 sources, TS, every piece packaged, encoding changes unmarked (demo.json)",
           "Fixtures/demo.json", "hls", ("--package-every-piece", "--unmarked-encoding-changes")),
    Output("hls-multivariant", "stitched HLS of multivariant sources", "Fixtures/demo-hls-multivariant.json", "hls"),
    # hls.js 1.6 resolves relative asset URIs against the page's address, not the playlist's
    # (Players.md): the asset URIs are written under where the output is served.
    Output("hls-interstitials", "HLS interstitials (`hls --interstitials --asset-base-url`)", "Fixtures/demo.json", "hls",
           ("--interstitials", "--asset-base-url", "{folder}")),
    Output("dash", "DASH, one period per piece (`dash`)", "Fixtures/demo.json", "dash"),
    Output("dash-hls", "DASH of HLS sources (`dash`)", "Fixtures/demo-hls.json", "dash"),
    Output("dash-multivariant", "DASH of multivariant HLS sources, a representation per variant (`dash`)",
           "Fixtures/demo-hls-multivariant.json", "dash"),
    Output("dash-hls-fmp4", "DASH of fMP4 HLS sources (`dash`)", "Fixtures/demo-hls-fmp4.json", "dash"),
    Output("dash-packaged", "DASH of HLS content and MP4 ads (`dash`)", "Fixtures/seed-scenario.json", "dash"),
    Output("dash-web", "DASH of the web-safe schedule (`dash`)", "Fixtures/demo-web.json", "dash"),
]


def built_demo():
    """The path of CompositorDemo, built (debug) if it needs to be."""
    run("swift", "build", "--product", "CompositorDemo", timeout=1800)
    return Path(run("swift", "build", "--show-bin-path").strip()) / "CompositorDemo"


def run(*command, cwd=ROOT, timeout=600):
    return subprocess.run([str(c) for c in command], cwd=cwd, check=True, capture_output=True,
                          text=True, timeout=timeout).stdout


# ---------------------------------------------------------------------------------------------
# Frames


class Shown:
    """A picture a player showed: when (None when the player gives no clock), and what."""

    __slots__ = ("time", "digest", "thumb", "wall", "presented")

    def __init__(self, time, digest=None, thumb=None, wall=None, presented=None):
        # wall: the wall-clock time a player playing in real time showed it at (its stalls);
        # presented: how many frames a browser had presented with it (presented_between).
        self.time, self.digest, self.thumb, self.wall, self.presented = time, digest, thumb, wall, presented


class Sound:
    """What a player played, as mono samples on its clock: `place` puts a stretch at a time (a
    later stretch over an earlier one replaces it); what nothing was placed at is silence."""

    rate = 48000

    def __init__(self):
        import numpy
        self.samples = numpy.zeros(0, numpy.float32)

    def place(self, time, chunk):
        import numpy
        start = max(0, round(time * self.rate))
        chunk = chunk[max(0, -round(time * self.rate)):]
        end = start + len(chunk)
        if end > len(self.samples):
            grown = numpy.zeros(max(end, 2 * len(self.samples)), numpy.float32)
            grown[:len(self.samples)] = self.samples
            self.samples = grown
        self.samples[start:end] = chunk


def framemd5(path):
    """(presentation time, MD5) of every frame ffmpeg decodes from path, in presentation order."""
    text = run("ffmpeg", "-v", "error", "-i", path, "-map", "0:v:0", "-fps_mode", "passthrough",
               "-autoscale", "0", "-pix_fmt", "yuv420p", "-f", "framemd5", "-")
    base, frames = None, []
    for line in text.splitlines():
        if line.startswith("#tb 0:"):
            num, den = line.split(":")[1].strip().split("/")
            base = Fraction(int(num), int(den))
        elif line and not line.startswith("#"):
            fields = [f.strip() for f in line.split(",")]
            frames.append((int(fields[2]) * base, fields[5]))
    return frames


def thumbnails(*input_args):
    """Every frame of an input as a 160x90 grey picture (numpy, frames x 90 x 160)."""
    import numpy
    raw = subprocess.run(["ffmpeg", "-v", "error", *map(str, input_args), "-map", "0:v:0",
                          "-fps_mode", "passthrough", "-s", f"{THUMB_W}x{THUMB_H}",
                          "-pix_fmt", "gray", "-f", "rawvideo", "-"],
                         check=True, capture_output=True).stdout
    return numpy.frombuffer(raw, numpy.uint8).reshape(-1, THUMB_H, THUMB_W).astype(numpy.int16)


class SourceFrames:
    """The frames of each source at their source times (time zero as the library reads it)."""

    def __init__(self):
        self.times, self.digests, self.thumbs, self.likenesses = {}, {}, {}, {}
        # A multivariant playlist's other variants: their frames, one for one with its own.
        self.variant_digests, self.variant_paths = {}, {}

    def load(self, url):
        if url in self.times:
            return
        frames = framemd5(ROOT / url)
        zero = min(t for t, _ in frames) if url.endswith(".m3u8") and frames else 0
        # A playlist's time zero is its earliest video frame (Compositor.docc/MP4Output.md, HLS sources in a render).
        self.times[url] = [t - zero for t, _ in frames]
        self.digests[url] = [d for _, d in frames]
        # A DASH player may show any variant's picture of a frame (a representation each, keyframes aligned).
        lines = (ROOT / url).read_text().splitlines() if url.endswith(".m3u8") else []
        variants = [uri for tag, uri in zip(lines, lines[1:]) if tag.startswith("#EXT-X-STREAM-INF")]
        self.variant_digests[url], self.variant_paths[url] = [], []
        for variant in variants:
            path = (ROOT / url).parent / variant
            digests = [d for _, d in framemd5(path)]
            if len(digests) != len(frames):
                sys.exit(f"error: {url}: variant {variant} has {len(digests)} frames, the playlist {len(frames)}")
            self.variant_digests[url].append(digests)
            self.variant_paths[url].append(str(path.relative_to(ROOT)))

    def thumbnails(self, url):
        if url not in self.thumbs:
            self.thumbs[url] = thumbnails("-i", ROOT / url)
        return self.thumbs[url]

    def identify(self, shown, urls):
        """(url, frame index) of each shown picture among the urls' frames, None for garbage."""
        exact = {}
        for url in urls:
            for digests in [self.digests[url]] + self.variant_digests[url]:
                for index, digest in enumerate(digests):
                    exact.setdefault(digest, (url, index))
        found = [exact.get(s.digest) if s.digest else None for s in shown]
        if any(s.thumb is not None for s in shown):
            found = self.identify_by_likeness(shown, urls, found)
        return found

    def likeness(self, url):
        """Each frame of url as the likeness test compares it (see `normalised`)."""
        if url not in self.likenesses:
            self.likenesses[url] = normalised(self.thumbnails(url))
        return self.likenesses[url]

    def identify_by_likeness(self, shown, urls, found):
        import numpy
        for position, picture in enumerate(shown):
            if picture.thumb is None or found[position]:
                continue
            whole, corner = normalised(picture.thumb[numpy.newaxis])
            best = None
            previous = found[position - 1] if position else None
            # Any variant of a multivariant source may be on screen (a DASH representation each).
            for url, source in ((url, source) for url in urls for source in [url] + self.variant_paths[url]):
                wholes, corners = self.likeness(source)
                distance = numpy.abs(wholes - whole).mean(axis=(1, 2))
                score = distance + numpy.abs(corners - corner).mean(axis=(1, 2))
                index = int(score.argmin())
                # Frames a thumbnail cannot tell apart (demo-hls-fmp4's content has pairs, 86 and
                # 87 among them, whose scores differ by under 0.002): the first after the picture
                # before is the one shown, as a player shows each frame once, in order.
                if previous and previous[0] == url:
                    ties = numpy.flatnonzero(score <= score[index] + LIKENESS_TIE)
                    after = ties[ties > previous[1]]
                    if len(after):
                        index = int(after.min())
                if distance[index] < LIKENESS and (best is None or score[index] < best[0]):
                    best = (score[index], (url, index))
            found[position] = best[1] if best else None
        return found


def normalised(thumbs):
    """Grey thumbnails (frames x 90 x 160) as two pictures each, with each frame's brightness and
    contrast taken out (players convert to RGB by matrices and ranges of their own): the whole at
    80x45, and the counter's corner at full size."""
    import numpy
    pictures = thumbs.astype(numpy.float32)
    mean = pictures.mean(axis=(1, 2), keepdims=True)
    deviation = pictures.std(axis=(1, 2), keepdims=True) + 1
    pictures = (pictures - mean) / deviation
    whole = pictures.reshape(-1, THUMB_H // 2, 2, THUMB_W // 2, 2).mean(axis=(2, 4))
    return whole, pictures[:, COUNTER[0], COUNTER[1]]


def expected_frames(timeline, sources):
    """[(url, frame index, composition time, optional)] for every frame the composition shows."""
    expected = []
    for piece in timeline["segments"]:
        url = piece["url"]
        sources.load(url)
        times = sources.times[url]
        start, end = (Fraction(piece["source"][k]) for k in ("start", "end"))
        at = Fraction(piece["composition"]["start"])
        first = max([i for i, t in enumerate(times) if t <= start], default=0)
        for index in range(first, len(times)):
            if times[index] >= end:
                break
            shown_for = (times[index + 1] if index + 1 < len(times) else end) - start
            whole = (times[index + 1] - times[index]) if index + 1 < len(times) else shown_for
            optional = times[index] < start and shown_for * 2 < whole
            expected.append((url, index, at + max(times[index] - start, 0), optional))
    return expected


# ---------------------------------------------------------------------------------------------
# Players: each plays a path into (the list of Shown, None or how playback stopped early), using
# a scratch folder of its own.


def play_ffmpeg(path, scratch):
    timed = path.suffix not in (".m3u8", ".mpd")
    return [Shown(t if timed else None, d) for t, d in framemd5(path)], None


GST_BYTES = re.compile(r"\((\d+) bytes,")
GST_PTS = re.compile(r"pts: (\d+):(\d\d):(\d\d)\.(\d{9})")
GST_DURATION = re.compile(r"duration: (\d+):(\d\d):(\d\d)\.(\d{9})")
GST_SEGMENT = re.compile(r"base=\(guint64\)(\d+).*?start=\(guint64\)(\d+).*?stop=\(guint64\)(\d+)")


def nanoseconds(match):
    h, m, s, ns = (int(g) for g in match.groups())
    return ((h * 60 + m) * 60 + s) * 10**9 + ns


# The longest a gst-launch-1.0 run may take: every output here plays in about a minute.
GSTREAMER_TIMEOUT = 240


def gstreamer_buffers(command, element, raw):
    """Runs gst-launch-1.0 `command` and reads back what the identity named `element` passed to the
    filesink writing `raw`: ([(pts, end, (base, start, stop), bytes)] per buffer, in ns, with the
    segment it was sent in; how it stopped, None when it ended)."""
    try:
        log, stopped = subprocess.run(["gst-launch-1.0", "-v", *command], capture_output=True, text=True,
                                      timeout=GSTREAMER_TIMEOUT).stdout, None
    except subprocess.TimeoutExpired as timeout:
        # A stalled pipeline: what it showed until then, and that it stalled.
        output = timeout.stdout or b""
        log = output.decode(errors="replace") if isinstance(output, bytes) else output
        stopped = f"stalled: no end in {GSTREAMER_TIMEOUT} s"
    segment = (0, 0, 2**64 - 1)
    buffers = []
    with open(raw, "rb") as data:
        for line in log.splitlines():
            if f"{element}: last-message" not in line:
                continue
            if "GstEventSegment" in line and (m := GST_SEGMENT.search(line)):
                segment = tuple(int(g) for g in m.groups())
            elif "chain" in line and (m := GST_PTS.search(line)):
                pts = nanoseconds(m)
                end = pts + (nanoseconds(d) if (d := GST_DURATION.search(line)) else 0)
                buffers.append((pts, end, segment, data.read(int(GST_BYTES.search(line).group(1)))))
        # gst-launch drops property notifications when two identities report at once: one at a time.
        if data.read(1) and not stopped:
            sys.exit(f"error: gst-launch-1.0 reported fewer buffers of {element} than it wrote")
    return buffers, stopped


class QuietFiles(http.server.SimpleHTTPRequestHandler):
    """Serves the whole file system (on 127.0.0.1 only): a stitched manifest refers to its sources'
    segments where they are."""

    extensions_map = {**http.server.SimpleHTTPRequestHandler.extensions_map,
                      ".m3u8": "application/vnd.apple.mpegurl", ".mpd": "application/dash+xml", ".ts": "video/mp2t",
                      ".m4s": "video/iso.segment", ".mp4": "video/mp4", "": "video/mp4"}

    def __init__(self, *args, **kwargs):
        super().__init__(*args, directory="/", **kwargs)

    def log_message(self, *args):
        pass


@contextlib.contextmanager
def served(handler=QuietFiles, session=None):
    """An HTTP server on 127.0.0.1 with `handler` while the block runs: yields its root URL
    (no trailing slash), for absolute paths."""
    import threading
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    server.session = session
    threading.Thread(target=server.serve_forever, daemon=True).start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}"
    finally:
        server.shutdown()
        server.server_close()


def videojs_folder():
    """Where video.js 7 is: PyPI's js.videojs (`pip install js.videojs==7.5.5`, as .ci/run does)."""
    try:
        import js.videojs
    except ImportError:
        sys.exit("error: video.js not found: pip install js.videojs==7.5.5 (player videojs)")
    return Path(js.videojs.__file__).parent / "resources"


def play_gstreamer(path, scratch, sound=None, element="playbin"):
    """The pictures playbin (or `element`: playbin3) shows; with `sound` (a Sound), also what it
    plays (a second run)."""
    if path.suffix != ".mpd":
        return gstreamer_pictures(f"uri={path.resolve().as_uri()}", scratch, sound, element)
    # dashdemux from a file: URI stays at "buffering 0%" (Players.md, DASH): an MPD over HTTP.
    with served() as root:
        return gstreamer_pictures(f"uri={root}{urllib.parse.quote(path.resolve().as_posix())}", scratch, sound, element)


def gstreamer_pictures(uri, scratch, sound, element):
    raw = scratch / "frames.i420"
    sink = f"videoconvert ! video/x-raw,format=I420 ! identity name=video silent=false ! filesink location={raw}"
    def running_time(pts, base, start):
        """When a sink presents the part of a buffer inside its segment."""
        return Fraction(max(pts, start) - start + base, 10**9)

    pictures = []
    buffers, stopped = gstreamer_buffers([element, uri, "audio-sink=fakesink", f"video-sink={sink}"], "video", raw)
    for pts, end, (base, start, stop), picture in buffers:
        # A sink shows a buffer that reaches into the segment.
        if end > start and pts < stop:
            pictures.append(Shown(running_time(pts, base, start), hashlib.md5(picture).hexdigest()))
    if sound:
        import numpy
        raw = scratch / "sound.f32"
        sink = (f"audioconvert ! audioresample ! audio/x-raw,format=F32LE,channels=1,rate={sound.rate}"
                f" ! identity name=audio silent=false ! filesink location={raw}")
        for pts, end, (base, start, stop), data in gstreamer_buffers(
                [element, uri, "video-sink=fakesink", f"audio-sink={sink}"], "audio", raw)[0]:
            chunk = numpy.frombuffer(data, numpy.float32)
            # A sink plays the part of a buffer inside its segment.
            skip = max(0, (start - pts) * sound.rate // 10**9)
            keep = max(0, min(len(chunk), (stop - pts) * sound.rate // 10**9))
            if skip < keep:
                sound.place(running_time(pts, base, start), chunk[skip:keep])
    return pictures, stopped


MPV_TICKS = """
local log = io.open(mp.get_opt("ticks"), "w")
mp.register_event("tick", function()
    local position = mp.get_property("time-pos")
    if position then log:write(position, "\\n"); log:flush() end
end)
"""


def play_mpv(path, scratch, sound=None):
    """The pictures mpv draws; with `sound` (a Sound), also what it plays. mpv writes its sound
    through its PCM output as it would play it; its initial audio sync (on by default) starts that
    sound at the first picture's time, by silence or by cutting."""
    script, ticks, pcm = scratch / "ticks.lua", scratch / "ticks.txt", scratch / "sound.f32"
    script.write_text(MPV_TICKS)
    audio = ["--no-audio", "--untimed"]
    if sound:
        audio = ["--ao=pcm", f"--ao-pcm-file={pcm}", "--ao-pcm-waveheader=no", "--audio-format=float",
                 "--audio-channels=mono", f"--audio-samplerate={sound.rate}"]
    subprocess.run(["mpv", "--no-config", "--really-quiet", *audio, "--vo=image",
                    "--vo-image-format=png", "--vo-image-png-compression=1",
                    f"--vo-image-outdir={scratch}", f"--script={script}",
                    f"--script-opts=ticks={ticks}", str(path.resolve())],
                   capture_output=True, timeout=600)
    pngs = sorted(scratch.glob("*.png"))
    if not pngs:
        return [], "showed nothing"
    thumbs = thumbnails("-framerate", "1", "-i", scratch / "%08d.png")
    times = [Fraction(line) for line in ticks.read_text().split()] if ticks.exists() else []
    times += [None] * (len(thumbs) - len(times))
    if sound and times and times[0] is not None:
        import numpy
        sound.place(times[0], numpy.fromfile(pcm, numpy.float32))
    return [Shown(time, thumb=thumb) for time, thumb in zip(times, thumbs)], None


def play_vlc(path, scratch):
    # VLC's yuv output opens its file anew each time the video output restarts (a new format, a
    # discontinuity), which would keep only the last stretch: a FIFO, read stretch by stretch.
    import threading
    fifo = scratch / "frames.y4m"
    os.mkfifo(fifo)
    stretches, finished = [], threading.Event()

    def read():
        while True:
            with open(fifo, "rb") as stream:
                data = stream.read()
            if finished.is_set():
                return
            stretches.append(data)

    reader = threading.Thread(target=read)
    reader.start()
    command = ["cvlc", "-q", "--play-and-exit", "--no-audio", "--no-video-title-show", "--no-osd",
               "--vout=yuv", f"--yuv-file={fifo}", "--yuv-chroma=I420", str(path.resolve())]
    if os.geteuid() == 0:
        os.chmod(scratch, 0o777)
        os.chmod(fifo, 0o666)
        command = ["runuser", "-u", os.environ.get("VLC_USER", "nobody"), "--", *command]
    try:
        subprocess.run(command, capture_output=True, timeout=600)
    finally:
        finished.set()
        with open(fifo, "wb"):  # releases the reader waiting for the next stretch
            pass
        reader.join()
    pictures = []
    for data in stretches:
        # YUV4MPEG2: a header line naming the size (W320 H180), then "FRAME\n" before each picture.
        if b"\n" not in data:
            continue
        header = data[:data.index(b"\n")].decode()
        size = int(re.search(r" W(\d+)", header).group(1)) * int(re.search(r" H(\d+)", header).group(1)) * 3 // 2
        position = len(header) + 1
        while (start := data.find(b"\n", position) + 1) and start + size <= len(data):
            pictures.append(Shown(None, hashlib.md5(data[start:start + size]).hexdigest()))
            position = start + size
    return pictures, None if pictures else "showed nothing"


# The web's reference players, built (../shared/players: hls.js, dash.js, Shaka Player).
SHARED_PLAYERS = ROOT.parent / "shared" / "players"


class BrowserPage(QuietFiles):
    """Serves files, player.html, video.js (/videojs/) and the shared web players (/players/), and
    takes the frames the page posts."""

    def translate_path(self, path):
        path = path.split("?")[0]
        if path == "/player.html":
            return str(Path(__file__).with_name("player.html"))
        if path.startswith("/videojs/"):
            return str(videojs_folder() / path[len("/videojs/"):])
        if path.startswith("/players/"):
            return str(SHARED_PLAYERS / path[len("/players/"):])
        return super().translate_path(path)

    def do_POST(self):
        body = self.rfile.read(int(self.headers.get("Content-Length", 0)))
        session = self.server.session
        session["last"] = time.monotonic()
        if self.path == "/frame":
            import numpy
            thumb = numpy.frombuffer(body, numpy.uint8).reshape(THUMB_H, THUMB_W).astype(numpy.int16)
            at = Fraction(Decimal(self.headers["X-Media-Time"]))
            wall = Fraction(Decimal(self.headers["X-Wall-Time"]))
            presented = int(self.headers["X-Presented"])
            session["frames"].append((int(self.headers["X-Sequence"]), Shown(at, thumb=thumb, wall=wall, presented=presented)))
        else:
            session["outcome"] = body.decode()
            session["done"].set()
        self.send_response(204)
        self.end_headers()


BROWSERS = {
    "chromium": ["chromium", "--headless=new", "--no-sandbox", "--disable-gpu", "--mute-audio",
                 "--autoplay-policy=no-user-gesture-required", "--no-first-run",
                 # Native HLS (HlsManifestDemuxer), off by default in Chromium 156 on Linux.
                 "--enable-features=BuiltInHlsPlayer,CanPlayHls,kBuiltInHlsMP4"],
    "firefox": ["firefox-esr", "--headless", "--no-remote"],
}


BROWSER_RATE = 0.5
# The web's reference players (../shared/players), played as viewers play them: at 1x, judged
# for stalls too (STALL).
REAL_TIME = {"hlsjs", "dashjs", "shaka"}
# What a player opens, where it is not everything: its cells for other outputs read "-".
OPENS = {"hlsjs": {".m3u8"}, "dashjs": {".mpd"}}
# Players that play HLS interstitials here: others play the content alone (an output of kind
# "hls" with --interstitials is theirs only). Not Shaka yet: it plays them through its ad
# manager (initInterstitial), which player.html does not set up.
INTERSTITIALS = {"hlsjs"}
# Players that hand back a sample of the pictures they present, not every one: headless Firefox
# calls requestVideoFrameCallback on a 40 ms step of media time, whatever the playback rate or
# layout.frame_rate (the control row: 150 of Fixtures/web-ad.mp4's 180 frames at 30 fps, while its
# own count says 180 presented, none dropped). Their cells are judged by sampled_pairs and the
# player's own count.
SAMPLING = {"firefox"}
# The most frames in a row a sample may miss: a step comes late now and then (two 24 fps frames
# unseen), while a picture decoded wrong would stay wrong to the next keyframe, a second or more
# into every fixture clip, so it cannot hide between samples.
SAMPLING_GAP = 3


class Counted:
    """A browser's own count of a playback (getVideoPlaybackQuality)."""

    def __init__(self, frames, dropped, corrupt):
        self.frames, self.dropped, self.corrupt = frames, dropped, corrupt

    def __str__(self):
        return f"its count: {self.frames} frames, {self.dropped} dropped, {self.corrupt} corrupt"


# The longest a player may go without showing a picture, over what the pictures' times say
# (issue 67: "no stall over 0.5 s"), in a player playing in real time.
STALL = Fraction(1, 2)


def play_in_browser(browser, path, scratch, engine=None):
    """Plays path in a headless browser, slowed (BROWSER_RATE) so that its compositor, without a
    GPU, presents every frame (Chromium does; Firefox samples: SAMPLING); with `engine`, through a
    web player (player.html: video.js, hls.js, dash.js, Shaka; their DASH and HLS by Media Source
    Extensions) instead of the browser's own player, the reference players at 1x (REAL_TIME).
    Returns the frames, how playback stopped (None when it ended), and the browser's own Counted
    frames (None if not ended)."""
    import threading
    rate = 1 if engine in REAL_TIME else BROWSER_RATE
    session = {"frames": [], "outcome": "stopped: nothing for 60 s", "done": threading.Event(), "last": time.monotonic()}
    with served(BrowserPage, session) as root:
        url = (f"{root}/player.html?rate={rate}&src={urllib.parse.quote(path.resolve().as_posix())}"
               + (f"&engine={engine}" if engine else ""))
        profile = scratch / "profile"
        profile.mkdir()
        if browser == "firefox":
            # Headless Firefox refreshes at its default rate; a faster one presents every frame.
            (profile / "user.js").write_text('user_pref("layout.frame_rate", 240);\n'
                                             'user_pref("media.autoplay.default", 0);\n')
        extra = [f"--user-data-dir={profile}"] if browser == "chromium" else ["--profile", str(profile)]
        process = subprocess.Popen(BROWSERS[browser] + extra + [url], stdout=subprocess.DEVNULL,
                                   stderr=subprocess.DEVNULL)
        try:
            while not session["done"].wait(timeout=5):
                if time.monotonic() - session["last"] > 60:
                    break
        finally:
            process.terminate()
            process.wait(timeout=30)
    frames = [shown for _, shown in sorted(session["frames"], key=lambda f: f[0])]
    outcome = session["outcome"]
    problems = []
    if engine in REAL_TIME and (stall := longest_stall(frames, rate)):
        problems.append(f"stalled {float(stall[0]):.2f} s at {float(stall[1]):.2f} s")
    if m := re.match(r"ended at [\d.]+; frames (\d+), dropped (\d+), corrupt (\d+)", outcome):
        return frames, "; ".join(problems) or None, Counted(*map(int, m.groups()))
    # "error at 4.877964: 3 PipelineStatus::PIPELINE_ERROR_DECODE: ...": the MediaError code.
    if m := re.match(r"error at ([\d.]+): (\d) ", outcome):
        kind = {"1": "aborted", "2": "network error", "3": "decode error", "4": "not supported"}
        problems.append(f"{kind.get(m.group(2), 'error')} at {float(m.group(1)):.2f} s")
    elif outcome.startswith("play() refused: NotSupportedError"):
        problems.append("not supported")
    else:
        problems.append(outcome[:160])
    return frames, "; ".join(problems), None


def longest_stall(frames, rate):
    """(how long, at what time) of the longest wait between two pictures beyond what their times
    say, when over STALL; None otherwise. A player that skips forward waits less, not more."""
    worst = None
    for before, after in zip(frames, frames[1:]):
        waited = (after.wall - before.wall) * rate - (after.time - before.time)
        if waited > STALL and (worst is None or waited > worst[0]):
            worst = (waited, before.time)
    return worst


PLAYERS = {
    "ffmpeg": ("ffmpeg", "ffmpeg", play_ffmpeg),
    "gstreamer": ("GStreamer", "gst-launch-1.0", play_gstreamer),
    "gstreamer3": ("GStreamer playbin3", "gst-launch-1.0",
                   lambda path, scratch, sound=None: play_gstreamer(path, scratch, sound, "playbin3")),
    "mpv": ("mpv", "mpv", play_mpv),
    "vlc": ("VLC", "cvlc", play_vlc),
    "chromium": ("Chromium", "chromium", lambda path, scratch: play_in_browser("chromium", path, scratch)),
    "videojs": ("video.js 7 (Chromium)", "chromium", lambda path, scratch: play_in_browser("chromium", path, scratch, "videojs")),
    "hlsjs": ("hls.js 1.6 (Chromium)", "chromium", lambda path, scratch: play_in_browser("chromium", path, scratch, "hlsjs")),
    "dashjs": ("dash.js 5.1 (Chromium)", "chromium", lambda path, scratch: play_in_browser("chromium", path, scratch, "dashjs")),
    "shaka": ("Shaka Player 5.0 (Chromium)", "chromium", lambda path, scratch: play_in_browser("chromium", path, scratch, "shaka")),
    "firefox": ("Firefox ESR", "firefox-esr", lambda path, scratch: play_in_browser("firefox", path, scratch)),
}


# ---------------------------------------------------------------------------------------------
# Judging


def matched_frames(expected, found):
    """[(a, b)]: expected frame a was shown as picture b, the longest run of them in order."""
    wanted = [(url, index) for url, index, _, _ in expected]
    matcher = difflib.SequenceMatcher(None, wanted, found, autojunk=False)
    return [(block.a + k, block.b + k) for block in matcher.get_matching_blocks() for k in range(block.size)]


def sampled_pairs(expected, found):
    """[(a, b)]: picture b is expected frame a, taken in order, each within a few frames past the
    last one matched (a sampling player skips some; judge counts them), so that one picture out of
    place is one not scheduled, not a jump that leaves the rest of the playback behind."""
    pairs, next_a = [], 0
    window = 4 * SAMPLING_GAP
    for b, who in enumerate(found):
        a = next((a for a in range(next_a, min(next_a + window, len(expected))) if expected[a][:2] == who), None)
        if a is not None:
            pairs.append((a, b))
            next_a = a + 1
    return pairs


def times_in_order(timed, shown):
    """The pairs of timed whose reported time is not past the next one's. A sampling browser now
    and then reports a sample's time past the next one's (its pictures in order, their times
    not): such a time is its own slip, not the file's."""
    return [(a, b) for k, (a, b) in enumerate(timed)
            if k + 1 == len(timed) or shown[b].time <= shown[timed[k + 1][1]].time]


def longest_unseen(expected, seen):
    """(length, start time): the longest stretch of required expected frames not in seen."""
    longest, run, longest_from = 0, 0, None
    for a, e in enumerate(expected):
        if e[3]:
            continue
        run = 0 if a in seen else run + 1
        if run > longest:
            longest, longest_from = run, expected[a - run + 1][2]
    return longest, longest_from


def presented_between(expected, shown, pairs):
    """The expected frames between two pictures handed back one after the other, where the
    browser says it presented that many frames between them (requestVideoFrameCallback's
    presentedFrames, for "frames missed between callbacks"): shown, though no callback handed
    them back. A frame the player never gave the browser is not counted there."""
    between = set()
    for (a1, b1), (a2, b2) in zip(pairs, pairs[1:]):
        before, after = shown[b1].presented, shown[b2].presented
        if b2 == b1 + 1 and a2 > a1 + 1 and before is not None and after is not None and after - before - 1 >= a2 - a1 - 1:
            between.update(range(a1 + 1, a2))
    return between


def judge(expected, shown, found, counted=None):
    """(right, cell): what a player showed against what the composition says. With the player's
    own count (`counted`, from a SAMPLING player), every picture handed back must be right and
    on time, no more than SAMPLING_GAP frames in a row unseen, and the count must be every
    expected frame, none dropped or corrupt."""
    if not shown:
        return False, "nothing shown"
    optional = {(url, index) for url, index, _, extra in expected if extra}
    pairs = sampled_pairs(expected, found) if counted else matched_frames(expected, found)
    required = sum(1 for e in expected if not e[3])
    matched = sum(1 for a, _ in pairs if not expected[a][3])
    garbage = found.count(None)
    paired = {b for _, b in pairs}
    shown_expected = {a for a, _ in pairs}
    extra = sum(1 for b, who in enumerate(found)
                if who is not None and b not in paired and who not in optional)
    problems = []
    if garbage:
        problems.append(f"{garbage} garbage")
    if extra:
        problems.append(f"{extra} not scheduled")
    timed = [(a, b) for a, b in pairs if shown[b].time is not None]
    misreported = 0
    if counted:
        kept = times_in_order(timed, shown)
        misreported, timed = len(timed) - len(kept), kept
    late = [(shown[b].time - expected[a][2], a) for a, b in timed]
    on_time = True
    if late:
        # The start offset: the first picture's, or for a sampler (whose first report may slip
        # too) the middle one of all.
        offset = sorted(x for x, _ in late)[len(late) // 2] if counted else late[0][0]
        worst, where = max(late, key=lambda x: abs(x[0] - offset))
        # One frame of the slowest source (24 fps), plus mpv's millisecond clock.
        if abs(worst - offset) > Fraction(1, 24) + Fraction(1, 500):
            on_time = False
            problems.append(f"off by up to {float(worst - offset):+.3f} s "
                            f"(at {float(expected[where][2]):.2f} s)")
        if round(offset, 3):
            problems.append(f"starts at {float(offset):+.3f} s")
    if counted:
        longest, longest_from = longest_unseen(expected, shown_expected)
        if longest > SAMPLING_GAP:
            problems.append(f"{longest} frames in a row unseen at {float(longest_from):.2f} s")
        miscounted = counted.dropped or counted.corrupt or not required <= counted.frames <= len(expected)
        if miscounted:
            problems.append(str(counted))
        right = longest <= SAMPLING_GAP and not miscounted and not garbage and not extra and on_time
        slips = f"; {misreported} sample times out of order, not judged" if misreported else ""
        summary = (f"{counted.frames}/{required} by its count ({matched} sampled, every one right, "
                   f"at most {longest} in a row unseen{slips})") if right else f"{matched}/{required} sampled{slips}"
        return right, summary + ("; " + ", ".join(problems) if problems else "")
    if matched < required and (between := presented_between(expected, shown, pairs) - shown_expected):
        shown_expected |= between
        uncaught = sum(1 for a in between if not expected[a][3])
        matched += uncaught
        problems.append(f"{uncaught} presented between callbacks")
    if matched < required:
        first = next(e for a, e in enumerate(expected) if not e[3] and a not in shown_expected)
        problems.append(f"first missing at {float(first[2]):.2f} s")
    right = matched == required and not garbage and not extra and on_time
    return right, f"{matched}/{required}" + ("; " + ", ".join(problems) if problems else "")


def clip_line(clip, numbers, count):
    """How much of a clip of `count` frames a stretch of shown frame `numbers` has:
    "  ad1       298/300 shown, missing 3...4"."""
    missing = sorted(set(range(count)) - set(numbers))
    line = f"  {clip:9} {len(set(numbers))}/{count} shown"
    if missing:
        line += f", missing {missing[0]}" + (f"...{missing[-1]}" if len(missing) > 1 else "")
    return line


def describe(shown, found, expected=None):
    """The shown pictures as runs, one line each: "  5.000 s: Fixtures/content.mp4 0-203 (204)";
    with `expected`, how late the run's first and last pictures are against their composition
    times, after the first picture's offset: "  ... (204), +0.000 to +0.083 s"."""
    lateness = {}
    if expected:
        pairs = matched_frames(expected, found)
        late = {b: shown[b].time - expected[a][2] for a, b in pairs if shown[b].time is not None}
        if late:
            offset = late[min(late)]
            lateness = {b: x - offset for b, x in late.items()}
    runs = []
    for b, (picture, who) in enumerate(zip(shown, found)):
        url, index = who or ("garbage", None)
        last = runs[-1] if runs else None
        if last and last[1] == url and (index is None or index == last[3] + 1):
            last[3], last[4], last[6] = index, last[4] + 1, b
        else:
            runs.append([picture.time, url, index, index, 1, b, b])
    lines = []
    for time, url, first, last, count, b1, b2 in runs:
        at = f"{float(time):8.3f} s" if time is not None else "       - "
        frames = f" {first}-{last}" if first is not None else ""
        late = (f", {float(lateness[b1]):+.3f} to {float(lateness[b2]):+.3f} s"
                if b1 in lateness and b2 in lateness else "")
        lines.append(f"  {at}: {url}{frames} ({count}){late}")
    return "\n".join(lines)


def main():
    global BROWSER_RATE
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", default=",".join(p for p in PLAYERS if p not in REAL_TIME))
    # DASH only when asked: no player here plays it through yet (Players.md, DASH).
    parser.add_argument("--outputs", default=",".join(o.name for o in OUTPUTS if o.kind != "dash"))
    parser.add_argument("--require", default="", help="outputs whose cells must all be right")
    parser.add_argument("--work", type=Path, help="keep the outputs here (default: a temporary folder)")
    parser.add_argument("--details", action="store_true", help="print what each wrong cell showed")
    parser.add_argument("--browser-rate", type=float, default=BROWSER_RATE,
                        help="playback rate in the browsers (default 0.5; slower if frames go missing)")
    args = parser.parse_args()
    BROWSER_RATE = args.browser_rate

    players = [p for p in args.players.split(",") if p]
    for name in players:
        if name not in PLAYERS:
            sys.exit(f"error: unknown player {name!r} (known: {', '.join(PLAYERS)})")
        if not shutil.which(PLAYERS[name][1]):
            sys.exit(f"error: {PLAYERS[name][1]} not found (player {name})")
    if missing := [name for name in players if name in REAL_TIME and not SHARED_PLAYERS.is_dir()]:
        print(f"skipped: {', '.join(missing)}: {SHARED_PLAYERS} is absent (the built web players)")
        players = [name for name in players if name not in missing]
        if not players:
            return
    names = [n for n in args.outputs.split(",") if n]
    unknown = set(names) - {o.name for o in OUTPUTS}
    if unknown:
        sys.exit(f"error: unknown output {sorted(unknown)} (known: {', '.join(o.name for o in OUTPUTS)})")
    outputs = [o for o in OUTPUTS if o.name in names]
    required = set(filter(None, args.require.split(",")))

    demo = built_demo()
    work = args.work or Path(tempfile.mkdtemp(prefix="player-matrix-"))
    work.mkdir(parents=True, exist_ok=True)
    if os.geteuid() == 0:
        os.chmod(work, 0o755)  # VLC runs as another user (play_vlc): it must reach the outputs
    sources = SourceFrames()
    rows, wrong = [], []
    for output in outputs:
        made = work / output.name
        output.make(demo, made)
        expected = expected_frames(output.timeline(demo, made), sources)
        urls = sorted({url for url, *_ in expected})
        row = [output.label]
        for name in players:
            played = output.played(made)
            if played.suffix not in OPENS.get(name, {played.suffix}) or (
                    "--interstitials" in output.extra and name not in INTERSTITIALS):
                row.append("-")
                continue
            scratch = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=work))
            # A browser also gives its own count of frames, which judges a sampling one.
            shown, stopped, *count = PLAYERS[name][2](played, scratch)
            counted = count[0] if name in SAMPLING else None
            found = sources.identify(shown, urls)
            # A picture reported twice in a row (a browser's compositor presenting it again) is
            # one shown frame.
            kept = [i for i in range(len(found)) if i == 0 or found[i] is None or found[i] != found[i - 1]]
            shown, found = [shown[i] for i in kept], [found[i] for i in kept]
            right, cell = judge(expected, shown, found, counted)
            if not right and count and count[0] and count[0].dropped and not counted:
                # Pictures the browser decoded and did not present (its compositor late on this
                # machine), against pictures the player never gave it.
                cell += f"; the browser dropped {count[0].dropped}"
            if stopped:
                right, cell = False, f"{cell}; {stopped}"
            row.append(cell if right else f"**x** {cell}")
            if not right:
                if output.name in required:
                    wrong.append(f"{output.name} in {name}: {cell}")
                if args.details:
                    print(f"{output.name} in {name}: {cell}\n{describe(shown, found, expected)}", file=sys.stderr)
            shutil.rmtree(scratch)
        rows.append(row)

    header = ["output"] + [PLAYERS[p][0] for p in players]
    print("| " + " | ".join(header) + " |")
    print("|" + "---|" * len(header))
    for row in rows:
        print("| " + " | ".join(row) + " |")
    if wrong:
        print("\nnot right, where every cell must be:\n  " + "\n  ".join(wrong))
        sys.exit(1)


if __name__ == "__main__":
    main()
