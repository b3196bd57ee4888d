#!/usr/bin/env python3
"""What ffmpeg, GStreamer and video.js do at DASH period boundaries, on an MPD made by another packager.

    python3 Tests/players/reference_periods.py [--players ffmpeg,gstreamer,gstreamer3,videojs] [--work DIR]

The player matrix finds, on the DASH export, that ffmpeg shows one period only and that GStreamer
shows the pictures of content with B-frames late by its reorder delay. To tell what the players do
from what the exporter writes, this script leaves the exporter out: ffmpeg's own DASH muxer
segments each fixture clip into a one-period MPD (`ffmpeg -c copy -f dash`, fragmented MP4, its
SegmentTimeline, and the edit list it writes to hide each track's first composition offset or
priming), and the script only joins those periods, unchanged, one after another into one MPD
(`start` each the sum of the durations before it). Each player plays it; pictures are identified
by MD5 against every frame ffmpeg decodes from the clips (matrix.py does the playing).

For each clip it prints the pictures shown of those it has, which are missing, and (players whose
pictures carry times) how late the clip's first picture is against its period's start, next to the
first picture's PTS - DTS in the clip: its reorder delay.
"""

import argparse
import re
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matrix  # noqa: E402

CLIPS = ["ad1", "content", "ad2"]


def one_period(clip, folder):
    """The clip as ffmpeg's DASH muxer writes it into folder: (its Period element, its duration)."""
    folder.mkdir(parents=True, exist_ok=True)
    matrix.run("ffmpeg", "-v", "error", "-y", "-i", matrix.ROOT / f"Fixtures/{clip}.mp4", "-c", "copy", "-map", "0",
               "-f", "dash", "-use_timeline", "1", "-use_template", "1", "-seg_duration", "2",
               "-init_seg_name", f"{clip}/init-$RepresentationID$.m4s",
               "-media_seg_name", f"{clip}/$RepresentationID$-$Number$.m4s", folder.parent / f"{clip}.mpd")
    text = (folder.parent / f"{clip}.mpd").read_text()
    duration = Fraction(re.search(r'mediaPresentationDuration="PT([\d.]+)S"', text).group(1))
    return re.search(r"<Period.*?</Period>", text, re.S).group(0), duration


def reorder_delay(clip):
    """PTS - DTS of the clip's first video packet, in seconds."""
    line = matrix.run("ffprobe", "-v", "error", "-select_streams", "v", "-show_packets", "-read_intervals", "%+#1",
                      "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0",
                      matrix.ROOT / f"Fixtures/{clip}.mp4").splitlines()[0]
    pts, dts = (Fraction(field) for field in line.split(",")[:2])
    return pts - dts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="ffmpeg,gstreamer,gstreamer3,videojs")
    parser.add_argument("--work", type=Path, help="keep the segments here (default: a temporary folder)")
    arguments = parser.parse_args()
    work = arguments.work or Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)

    periods, starts, start = [], [], Fraction(0)
    for index, clip in enumerate(CLIPS):
        period, duration = one_period(clip, work / clip)
        # Only its ID and start change: ffmpeg writes every period as id 0 at PT0.0S.
        period = re.sub(r'<Period id="[^"]*" start="[^"]*"', f'<Period id="{index + 1}" start="PT{float(start):.6f}S"', period)
        periods.append(period)
        starts.append(start)
        start += duration
    mpd = work / "joined.mpd"
    mpd.write_text('<?xml version="1.0" encoding="utf-8"?>\n'
                   '<MPD xmlns="urn:mpeg:dash:schema:mpd:2011" profiles="urn:mpeg:dash:profile:isoff-live:2011"'
                   f' type="static" mediaPresentationDuration="PT{float(start):.6f}S" minBufferTime="PT4.0S">\n'
                   + "\n".join(periods) + "\n</MPD>\n")

    frames = {clip: [digest for _, digest in matrix.framemd5(matrix.ROOT / f"Fixtures/{clip}.mp4")] for clip in CLIPS}
    urls = [f"Fixtures/{clip}.mp4" for clip in CLIPS]
    sources = matrix.SourceFrames()
    for url in urls:
        sources.load(url)
    print(f"{mpd}: {' | '.join(CLIPS)}, each a period written by ffmpeg's DASH muxer, joined unchanged")
    for player in arguments.players.split(","):
        scratch = Path(tempfile.mkdtemp(dir=work))
        shown, error = matrix.PLAYERS[player][2](mpd, scratch)[:2]
        # A browser hands back thumbnails: identified by likeness, as the matrix does.
        found = sources.identify(shown, urls)
        stretches = []
        for picture, who in zip(shown, found):
            clip, number = (Path(who[0]).stem, who[1]) if who else ("garbage", None)
            if not stretches or stretches[-1][0] != clip or number == 0:
                stretches.append((clip, []))
            stretches[-1][1].append((number, picture.time))
        timed = shown and shown[0].time is not None and player != "ffmpeg"
        print(f"\n{player}: {len(shown)} pictures" + (f", {error}" if error else ""), flush=True)
        for clip, pictures in stretches:
            numbers = [number for number, _ in pictures]
            if clip == "garbage":
                print(f"  {len(pictures)} pictures of no clip")
                continue
            line = matrix.clip_line(clip, numbers, len(frames[clip]))
            if timed and pictures[0][0] == 0:
                period = min(range(len(CLIPS)), key=lambda i: abs(starts[i] - pictures[0][1]))
                late = pictures[0][1] - shown[0].time - starts[period]
                line += (f"; first picture {float(late):+.3f} s against period {period + 1}'s start"
                         f" (its PTS - DTS: {float(reorder_delay(clip)):.3f} s)")
            print(line, flush=True)


if __name__ == "__main__":
    main()
