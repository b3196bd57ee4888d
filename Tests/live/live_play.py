#!/usr/bin/env python3
"""Players through a live HLS stream, every shown picture identified.

    python3 Tests/live/live_play.py URL --origin FOLDER [--ad NAME=PATH ...]
                                    [--players ffmpeg,gstreamer] [--timeout S] [--markers]

FOLDER is a live_origin.py folder (its origin/raw/ffmpeg.m3u8 lists every content segment, all
kept). Each player plays URL live, until EXT-X-ENDLIST ends the stream (or --timeout):

    ffmpeg     ffmpeg -i URL -f framemd5: its HLS demuxer reloads the live playlist, starting 3
               segments from the end (-live_start_index -3, its default); the lines are read as
               they come, so each picture has the wall time it was decoded at.
    gstreamer  gst-launch-1.0 playbin (decodebin2: the legacy hlsdemux) into videoconvert ! I420 ! identity ! filesink (the
               approach of Tests/players/matrix.py), both sinks sync=false (an audio sink synced
               to the clock stalls playbin on a live fMP4 stream after one second); identity's
               messages, read line by line, time each picture.
    gstreamer3 the same with playbin3 (decodebin3: hlsdemux2, adaptivedemux2).

A picture is identified by the MD5 of its I420 bytes against every frame decoded from every
origin segment (decoded one by one, in msn order: each starts with an IDR frame, so the frames are
those of the continuous stream) -> (msn, frame index, pts, content ordinal), and every frame of
each ad fixture -> (ad, frame number). H.264 decoding is bit-exact, and both players decode with
libavcodec.

`judge` (a pure function of the identified sequence) reports the pictures as runs
(`content msn 12 f0 .. msn 19 f59 (480)`, `ad1 f0..f299 (300)`) and asserts:

  - no unidentified picture (garbage), no content picture shown twice, no picture twice in a row;
  - content strictly increasing, without a gap except where ads replace it;
  - each ad run contiguous, from frame 0 (unless it is the very first run: joined mid-ad) to its
    last frame (ad_lengths: the frames the schedule places), unless the stream ends in it;
  - with `breaks` (cue-out msn, cue-in msn): the ads replace exactly those segments (the content
    before them ends with msn cue-out - 1, the content after starts with msn cue-in frame 0),
    every break inside the played content is replaced, and the ads last no longer than the span
    and fall short of it by less than one target duration.

`lateness` gives, from the wall times, how far the pictures fell behind a real-time clock started
at the first picture (what a player showing the first picture at once would have stalled for).
"""

import argparse
import hashlib
import json
import os
import re
import shutil
import subprocess
import sys
import tempfile
import threading
import time
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "players"))
from live_check import parse  # noqa: E402
from matrix import framemd5  # noqa: E402  (each frame's presentation time and MD5, as the matrix reads them)

CONTENT_FRAME = Fraction(1, 30)

# ---------------------------------------------------------------------------------------------
# The index


class Index:
    """MD5 -> identity of every frame a stream may show: ("content", ordinal, msn, f) and
    ("ad", name, f)."""

    def __init__(self):
        self.by_md5 = {}
        self.ad_lengths = {}
        self.ad_frame = {}
        self.content_frames = 0
        self.first_ordinal = {}  # msn -> ordinal of its frame 0
        self.segment_frames = {}  # msn -> frames
        self.collisions = 0

    def add(self, digest, identity):
        if digest in self.by_md5:
            self.collisions += 1
        else:
            self.by_md5[digest] = identity

    def add_content(self, segments, init=None):
        """segments: [(msn, path)] in msn order; init: the EXT-X-MAP file (fMP4)."""
        with tempfile.TemporaryDirectory() as scratch:
            for msn, path in segments:
                source = path
                if init:
                    source = Path(scratch) / "joined.mp4"
                    source.write_bytes(Path(init).read_bytes() + Path(path).read_bytes())
                frames = framemd5(source)
                self.first_ordinal[msn] = self.content_frames
                self.segment_frames[msn] = len(frames)
                for f, (pts, digest) in enumerate(frames):
                    self.add(digest, ("content", self.content_frames, msn, f))
                    self.content_frames += 1

    def add_ad(self, name, path):
        frames = framemd5(path)
        self.ad_lengths[name] = len(frames)
        if len(frames) > 1:
            self.ad_frame[name] = (frames[-1][0] - frames[0][0]) / (len(frames) - 1)
        for f, (pts, digest) in enumerate(frames):
            self.add(digest, ("ad", name, f))

    def identify(self, digests):
        return [self.by_md5.get(d) for d in digests]


def origin_index(folder, ads):
    """The Index of a live_origin.py folder's segments and the ads ({name: path})."""
    raw = Path(folder) / "origin" / "raw"
    playlist = parse((raw / "ffmpeg.m3u8").read_text())
    index = Index()
    init = raw / "init.mp4"
    index.add_content([(s.msn, raw / s.uri) for s in playlist.segments], init if init.exists() else None)
    for name, path in ads.items():
        index.add_ad(name, path)
    return index


# ---------------------------------------------------------------------------------------------
# Judging (pure)


def runs_of(found):
    """[[kind, name, first, last, count, position]]: maximal runs of consecutive frames
    (content by ordinal, an ad by frame number, garbage as one run)."""
    runs = []
    for position, who in enumerate(found):
        last = runs[-1] if runs else None
        if who is None:
            if last and last[0] == "garbage":
                last[4] += 1
                continue
            runs.append(["garbage", None, None, None, 1, position])
            continue
        kind, name, number = (who[0], None, who[1]) if who[0] == "content" else (who[0], who[1], who[2])
        if last and last[0] == kind and last[1] == name and number == last[3] + 1:
            last[3] = number
            last[4] += 1
        else:
            runs.append([kind, name, number, number, 1, position])
    return runs


def describe_run(run, found):
    kind, name, first, last, count, position = run
    if kind == "garbage":
        return f"garbage ({count})"
    if kind == "content":
        a, b = found[position], found[position + count - 1]
        return f"content msn {a[2]} f{a[3]} .. msn {b[2]} f{b[3]} ({count})"
    return f"{name} f{first}..f{last} ({count})"


def judge(found, ad_lengths=None, breaks=None, ad_frame=None, target=2, segment_frames=None):
    """A verdict on a player's identified pictures (found: identities or None), as a dict:
    ok, problems, runs (text), counts. ad_lengths: {ad: frames it places}; breaks: [(cue-out
    msn, cue-in msn)]; ad_frame: {ad: frame duration} (for the fill rule); segment_frames:
    {msn: frames} (where the content before a break must end)."""
    problems = []
    runs = runs_of(found)
    garbage = found.count(None)
    if not found:
        problems.append("nothing shown")
    if garbage:
        first = next(i for i, w in enumerate(found) if w is None)
        problems.append(f"{garbage} unidentified pictures (the first at picture {first})")
    seen, repeated = set(), []
    for position, who in enumerate(found):
        if who is None:
            continue
        # A content frame is shown once in all; an ad's frames once in each play of it (a frame
        # repeated inside a play breaks its run).
        if (who[0] == "content" and who in seen) or (position and found[position - 1] == who):
            repeated.append(position)
        seen.add(who)
    if repeated:
        problems.append(f"{len(repeated)} pictures shown again (the first at picture {repeated[0]}: {found[repeated[0]]})")

    # Content in order; ads between content runs.
    groups = []  # [previous content run, [ad runs], next content run]
    previous_content, ads_since = None, []
    for k, run in enumerate(runs):
        kind, name, first, last, count, position = run
        if kind == "content":
            if previous_content is not None:
                if first <= previous_content[3]:
                    problems.append(f"content goes back: {describe_run(previous_content, found)} then "
                                    f"{describe_run(run, found)}")
                elif not ads_since and first != previous_content[3] + 1:
                    problems.append(f"content skips {first - previous_content[3] - 1} frames without ads: "
                                    f"{describe_run(previous_content, found)} then {describe_run(run, found)}")
            if ads_since:
                groups.append((previous_content, ads_since, run))
            previous_content, ads_since = run, []
        elif kind == "ad":
            if first != 0 and k != 0:
                problems.append(f"{describe_run(run, found)} does not start at frame 0")
            ends_stream = k == len(runs) - 1
            if ad_lengths and name in ad_lengths and last != ad_lengths[name] - 1 and not ends_stream:
                problems.append(f"{describe_run(run, found)} does not end at frame {ad_lengths[name] - 1}")
            ads_since.append(run)
    if ads_since:
        groups.append((previous_content, ads_since, None))

    if breaks is not None:
        content = [w for w in found if w and w[0] == "content"]
        if content:
            first_msn, last_msn = content[0][2], content[-1][2]
            placed = {}
            for before, ads, after in groups:
                if before is None or after is None:
                    continue  # joined in, or ended in, a break: not judged
                b, a = found[before[5] + before[4] - 1], found[after[5]]
                brk = next(((o, i) for o, i in breaks if o == b[2] + 1 or i == a[2]), None)
                if brk is None:
                    problems.append(f"ads between {describe_run(before, found)} and {describe_run(after, found)} "
                                    f"at no break")
                    continue
                placed[brk] = True
                out, back = brk
                last_frame = (segment_frames or {}).get(out - 1)
                if b[2] != out - 1 or (last_frame is not None and b[3] != last_frame - 1):
                    problems.append(f"break {out}-{back}: the content before it ends at msn {b[2]} f{b[3]}, "
                                    f"not with msn {out - 1}")
                # Content comes back at a segment of the span's (or at its end), from its first frame.
                if not (out < a[2] <= back) or a[3] != 0:
                    problems.append(f"break {out}-{back}: the content after it starts at msn {a[2]} f{a[3]}, "
                                    f"not at the first frame of msn {out + 1} to {back}")
                elif ad_frame:
                    # ... at one of the two boundaries around the ads' end: the ads and the content
                    # they replace differ by less than a segment either way.
                    played = sum(r[4] * ad_frame.get(r[1], CONTENT_FRAME) for r in ads)
                    replaced = sum((segment_frames or {}).get(m, 60) for m in range(out, a[2])) * CONTENT_FRAME
                    if abs(played - replaced) >= target:
                        problems.append(f"break {out}-{back}: ads last {float(played):.3f} s in place of "
                                        f"{float(replaced):.3f} s of content (msn {out} to {a[2] - 1}); "
                                        f"allowed: less than {target} s apart")
            for out, back in breaks:
                if first_msn < out and back <= last_msn and (out, back) not in placed:
                    problems.append(f"break {out}-{back} was played through as content (no ads)")
    counts = {"pictures": len(found), "identified": len(found) - garbage,
              "content": sum(1 for w in found if w and w[0] == "content"),
              "ads": sum(1 for w in found if w and w[0] == "ad"), "runs": len(runs),
              "breaks_replaced": len([g for g in groups if g[0] is not None and g[2] is not None])}
    return {"ok": not problems, "problems": problems, "runs": [describe_run(r, found) for r in runs],
            "counts": counts}


def lateness(arrivals, durations):
    """(worst, at): the most a picture arrived after a real-time clock started at the first
    picture's arrival (arrival_k - arrival_0 - media time before k), in seconds, and its
    position. arrivals: wall times; durations: each picture's media duration."""
    if not arrivals:
        return 0.0, None
    worst, at, media = 0.0, None, 0.0
    for k, arrived in enumerate(arrivals):
        late = arrived - arrivals[0] - media
        if late > worst:
            worst, at = late, k
        media += float(durations[k])
    return worst, at


def durations_of(found, index):
    return [index.ad_frame.get(w[1], CONTENT_FRAME) if w and w[0] == "ad" else CONTENT_FRAME for w in found]


# ---------------------------------------------------------------------------------------------
# Players: each returns {"digests", "arrivals", "outcome", "elapsed"}


def play_ffmpeg(url, scratch=None, timeout=180):
    start = time.monotonic()
    process = subprocess.Popen(["ffmpeg", "-v", "error", "-i", url, "-map", "0:v:0", "-fps_mode", "passthrough",
                                "-autoscale", "0", "-pix_fmt", "yuv420p", "-flush_packets", "1", "-f", "framemd5", "-"],
                               stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True)
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    digests, arrivals = [], []
    for line in process.stdout:
        if line.startswith("#") or not line.strip():
            continue
        arrivals.append(time.monotonic() - start)
        digests.append(line.rsplit(",", 1)[1].strip())
    errors = process.stderr.read()
    code = process.wait()
    timer.cancel()
    timed_out = time.monotonic() - start >= timeout
    outcome = "timed out" if timed_out else (None if code == 0 else f"exit {code}: {errors.strip()[-300:]}")
    return {"digests": digests, "arrivals": arrivals, "outcome": outcome, "elapsed": time.monotonic() - start,
            "log": errors[-2000:]}


GST_CHAIN = re.compile(r"video: last-message = chain .*?\((\d+) bytes,")


def play_gstreamer(url, scratch, timeout=180, element="playbin"):
    scratch = Path(scratch)
    raw = scratch / "frames.i420"
    sink = f"videoconvert ! video/x-raw,format=I420 ! identity name=video silent=false ! filesink location={raw}"
    command = ["gst-launch-1.0", "-v", element, f"uri={url}", "audio-sink=fakesink sync=false",
               f"video-sink={sink}"]
    if shutil.which("stdbuf"):
        command = ["stdbuf", "-oL"] + command  # identity's messages as they happen
    start = time.monotonic()
    process = subprocess.Popen(command, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True, errors="replace")
    timer = threading.Timer(timeout, process.kill)
    timer.start()
    sizes, arrivals, errors = [], [], []
    for line in process.stdout:
        if m := GST_CHAIN.search(line):
            sizes.append(int(m.group(1)))
            arrivals.append(time.monotonic() - start)
        elif line.startswith(("ERROR", "WARNING")):
            errors.append(line.strip())
    code = process.wait()
    timer.cancel()
    digests = []
    if raw.exists():
        with open(raw, "rb") as data:
            for size in sizes:
                picture = data.read(size)
                if len(picture) < size:
                    break  # a player killed mid-write leaves its last picture short: not a picture
                digests.append(hashlib.md5(picture).hexdigest())
        raw.unlink()
    arrivals = arrivals[:len(digests)]
    timed_out = time.monotonic() - start >= timeout
    outcome = "timed out" if timed_out else (None if code == 0 and not errors else
                                             f"exit {code}: {' | '.join(errors)[-300:]}")
    return {"digests": digests, "arrivals": arrivals, "outcome": outcome, "elapsed": time.monotonic() - start,
            "log": "\n".join(errors)[-2000:]}


PLAYERS = {"ffmpeg": play_ffmpeg, "gstreamer": play_gstreamer,
           "gstreamer3": lambda url, scratch, timeout=180: play_gstreamer(url, scratch, timeout, "playbin3")}


def verdict(played, index, **judging):
    """The judge's dict for one player's run, with its lateness and outcome."""
    found = index.identify(played["digests"])
    result = judge(found, ad_lengths=judging.pop("ad_lengths", index.ad_lengths), ad_frame=index.ad_frame,
                   segment_frames=index.segment_frames, **judging)
    worst, at = lateness(played["arrivals"], durations_of(found, index))
    result["lateness"] = round(worst, 3)
    # Where: the picture most behind, as the runs name pictures.
    result["lateness_at"] = None if at is None else f"picture {at}" + (f" ({found[at][0]} {found[at][1:4]})" if found[at] else "")
    result["elapsed"] = round(played["elapsed"], 3)
    result["media_seconds"] = round(float(sum(durations_of(found, index))), 3)
    result["outcome"] = played["outcome"]
    if played["outcome"]:
        result["ok"] = False
        result["problems"].append(f"playback: {played['outcome']}")
    return result


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--origin", type=Path, required=True, help="the live_origin.py folder")
    parser.add_argument("--ad", action="append", default=[], help="NAME=PATH of an ad fixture (repeatable)")
    parser.add_argument("--players", default="ffmpeg,gstreamer")
    parser.add_argument("--timeout", type=float, default=180)
    parser.add_argument("--markers", action="store_true", help="judge the breaks of origin/markers.json")
    parser.add_argument("--stall", type=float, default=1.0, help="the most lateness allowed (s)")
    args = parser.parse_args()
    players = [p for p in args.players.split(",") if p]
    results = {}
    threads = []
    scratch = Path(tempfile.mkdtemp(prefix="live-play-"))
    for name in players:
        (scratch / name).mkdir()
        thread = threading.Thread(target=lambda n=name: results.__setitem__(n, PLAYERS[n](args.url, scratch / n,
                                                                                          args.timeout)))
        thread.start()
        threads.append(thread)
    for thread in threads:
        thread.join()
    shutil.rmtree(scratch)
    index = origin_index(args.origin, dict(a.split("=", 1) for a in args.ad))
    breaks = None
    if args.markers:
        markers = json.loads((args.origin / "origin" / "markers.json").read_text())
        breaks = [(m["cue_out_msn"], m["cue_in_msn"]) for m in markers]
    failed = False
    for name in players:
        result = verdict(results[name], index, breaks=breaks)
        if result["lateness"] > args.stall:
            result["ok"] = False
            result["problems"].append(f"stalled: {result['lateness']} s behind real time")
        failed |= not result["ok"]
        print(f"{name}: {'ok' if result['ok'] else 'NOT ok'}; {result['counts']}; lateness {result['lateness']} s;"
              f" {result['elapsed']} s for {result['media_seconds']} s of media")
        for line in result["runs"]:
            print("    " + line)
        for line in result["problems"]:
            print("  ! " + line)
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()
