#!/usr/bin/env python3
"""The DASH export's subtitles, shown by GStreamer: every cue where the composition shows it.

    python3 Tests/players/dash_subtitles.py [--players gstreamer3,gstreamer] [--require gstreamer3] [--work DIR]

ffmpeg packages 12 s of content with English subtitles as HLS (WebVTT segments of 2 s; the
script writes in the X-TIMESTAMP-MAP that ffmpeg 5.1 leaves out: its transport streams start at
1.4 s), with cues at 0.5-1.5, 3.5-4.5, 5-6 and 9-10 s; a schedule plays it with
Fixtures/hls/ts/ad1 at 5 s, and `CompositorDemo dash` exports it. Each player plays the MPD with
its text going to a sink of its own; each cue it shows is held, on the player's clock (running
time), to where timeline.json puts that stretch of the content, to the millisecond:

    composition  |C 0-5: "first" "across" |ad1 (no cues) |C 5-12: "second" "third" |

Prints one line per player and exits 1 when a required player shows a cue elsewhere, misses one,
shows one that is not there, or does not reach the end.
"""

import argparse
import json
import sys
import tempfile
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matrix  # noqa: E402

CUES = [(Fraction(1, 2), Fraction(3, 2), "first"), (Fraction(7, 2), Fraction(9, 2), "across"),
        (Fraction(5), Fraction(6), "second"), (Fraction(9), Fraction(10), "third")]


def srt_time(seconds):
    millis = int(seconds * 1000)
    return f"00:00:{millis // 1000:02d},{millis % 1000:03d}"


SRT = "".join(f"{n}\n{srt_time(a)} --> {srt_time(b)}\n{text}\n\n" for n, (a, b, text) in enumerate(CUES, 1))
ELEMENTS = {"gstreamer": "playbin", "gstreamer3": "playbin3"}
# WebVTT writes times to the millisecond.
TOLERANCE = Fraction(1, 1000)

def make_source(folder):
    """The content as ffmpeg packages it, the timestamp map written in; returns its master playlist."""
    folder.mkdir(parents=True)
    (folder / "cues.srt").write_text(SRT)
    matrix.run("ffmpeg", "-v", "error", "-y", "-f", "lavfi", "-i", "testsrc=size=160x90:rate=25:duration=12",
               "-f", "lavfi", "-i", "sine=frequency=440:duration=12:sample_rate=48000", "-i", folder / "cues.srt",
               "-map", "0:v", "-map", "1:a", "-map", "2:s", "-c:v", "libx264", "-pix_fmt", "yuv420p", "-g", "25",
               "-c:a", "aac", "-c:s", "webvtt", "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod",
               "-master_pl_name", "master.m3u8", "-var_stream_map", "v:0,a:0,s:0,sgroup:subs,language:en,name:v",
               "-hls_segment_filename", folder / "%v/s%d.ts", folder / "%v/index.m3u8")
    for segment in (folder / "v").glob("*.vtt"):
        text = segment.read_text()
        if "X-TIMESTAMP-MAP" in text:
            sys.exit(f"error: {segment} has a timestamp map already: this ffmpeg writes one, and the script's would be wrong")
        segment.write_text(text.replace("WEBVTT\n", "WEBVTT\nX-TIMESTAMP-MAP=MPEGTS:126000,LOCAL:00:00:00.000\n", 1))
    return folder / "master.m3u8"


def expected_cues(timeline, content):
    """Each cue's stretch of the composition: (start, end, text) in seconds, for every piece of `content`."""
    expected = []
    for piece in timeline["segments"]:
        if piece["url"] != str(content):
            continue
        source = (Fraction(piece["source"]["start"]), Fraction(piece["source"]["end"]))
        shift = Fraction(piece["composition"]["start"]) - source[0]
        for start, end, text in CUES:
            start, end = max(start, source[0]), min(end, source[1])
            if start < end:
                expected.append((start + shift, end + shift, text))
    return expected


def shown_cues(element, mpd, scratch):
    """The cues `element` shows: (start, end, text) in seconds of running time; how it stopped (None: ended)."""
    raw = scratch / f"{element}.txt"
    with matrix.served() as root:
        uri = f"{root}{mpd.resolve().as_posix()}"
        buffers, stopped = matrix.gstreamer_buffers(
            [element, f"uri={uri}", "video-sink=fakesink sync=false", "audio-sink=fakesink sync=false",
             f"text-sink=identity name=text silent=false ! filesink location={raw}"], "text", raw)
    shown = []
    for pts, end, (base, start, stop), data in buffers:
        if end <= start or pts >= stop:
            continue
        running = [Fraction(min(max(t, start), stop) - start + base, 10**9) for t in (pts, end)]
        shown.append((*running, data.decode(errors="replace").strip()))
    return shown, stopped


def same(shown, expected):
    """The same cues, each within TOLERANCE of where it belongs."""
    return len(shown) == len(expected) and all(
        a[2] == b[2] and abs(a[0] - b[0]) <= TOLERANCE and abs(a[1] - b[1]) <= TOLERANCE for a, b in zip(shown, expected))


def described(cues):
    return ", ".join(f"{float(start):.3f}-{float(end):.3f} {text!r}" for start, end, text in cues)


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--players", default="gstreamer3,gstreamer")
    parser.add_argument("--require", default="", help="players that must show every cue where it belongs")
    parser.add_argument("--work", type=Path, help="keep the source and the export in this folder")
    args = parser.parse_args()
    with tempfile.TemporaryDirectory(prefix="dash-subtitles-") as temporary:
        work = args.work or Path(temporary)
        demo = matrix.built_demo()
        content = make_source(work / "source")
        schedule = work / "schedule.json"
        schedule.write_text(json.dumps({
            "content": [{"id": "C", "url": str(content)}],
            "breaks": [{"id": "b", "at": 5, "ads": [{"id": "ad", "url": str(matrix.ROOT / "Fixtures/hls/ts/ad1/index.m3u8")}]}]}))
        output = work / "out"
        matrix.run(demo, "dash", schedule, "--output", output)
        timeline = json.loads((output / "timeline.json").read_text(), parse_float=Decimal)
        expected = expected_cues(timeline, content)
        print(f"expected: {described(expected)}")
        failed = []
        for player in args.players.split(","):
            shown, stopped = shown_cues(ELEMENTS[player], output / "stitched.mpd", work)
            verdict = "every cue where it belongs" if same(shown, expected) else f"shown {described(shown)}"
            print(f"{player}: {verdict}{f'; {stopped}' if stopped else ''}")
            if player in args.require.split(",") and (not same(shown, expected) or stopped):
                failed.append(player)
        if failed:
            sys.exit(f"error: {', '.join(failed)} did not show the subtitles where the composition has them")


if __name__ == "__main__":
    main()
