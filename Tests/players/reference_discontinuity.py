#!/usr/bin/env python3
"""What GStreamer, VLC, Chromium, hls.js and Shaka do at a switch of clips in MPEG-TS HLS made by another packager.

    python3 Tests/players/reference_discontinuity.py [--players gstreamer,vlc,chromium,hlsjs,shaka] [--unmarked] [--segments fmp4] [--work DIR]

The player matrix finds, on the stitched TS playlists with every piece packaged, that GStreamer
shows a piece's first pictures late after a marked switch and that VLC drops the last pictures of
a piece before one. To tell what the players do from what the stitcher writes, this script leaves
the stitcher out: ffmpeg's own HLS muxer segments the fixture clips (`ffmpeg -c copy -f hls`), a
playlist joins them with an EXT-X-DISCONTINUITY before each clip after the first (every clip
restarts its timestamps at 1.4 s, as ffmpeg writes them), and each player plays it. Pictures are
identified by MD5 against every frame ffmpeg decodes from the clips, or by likeness where a web
player hands back thumbnails (matrix.py does the playing and the identifying).

For each clip it prints the pictures shown of those it has, which are missing, and (players whose
pictures carry times: GStreamer, hls.js, Shaka) how late its first picture is against the clip's
start in the playlist, next to the first picture's PTS - DTS in its segment: its reorder delay.

With --unmarked the clips are joined as the stitcher's --unmarked-encoding-changes joins its
pieces: no tag, timestamps continuous (each clip segmented with `-output_ts_offset` at its start in
the playlist), so the only change at a switch is the clip's parameter sets. Chromium hands back
thumbnails, not decoded pictures, so for it the script prints how playback ended and how many
pictures it showed.

With --segments fmp4 ffmpeg's muxer writes fragmented MP4 segments (`-hls_segment_type fmp4`),
and each clip's init segment follows its discontinuity as an EXT-X-MAP: what a stitched fMP4
playlist of clips with different parameter sets is, packaged by someone else. (ffmpeg 5.1 as a
player skips every init segment after the first, "Found duplicated MOOV Atom", and decodes the
later clips with the first one's parameter sets.)
"""

import argparse
import re
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import matrix  # noqa: E402

CLIPS = ["ad1", "content", "ad1", "content2", "ad2"]


def segment(clip, folder, offset=None, fragmented=False):
    """The clip segmented by ffmpeg into folder (in fMP4 after folder/init.mp4 if fragmented), its
    timestamps moved by offset seconds if given: [(EXTINF seconds, segment path)]."""
    folder.mkdir(parents=True, exist_ok=True)
    moved = ["-output_ts_offset", str(float(offset))] if offset is not None else []
    kind = ["-hls_segment_type", "fmp4", "-hls_fmp4_init_filename", "init.mp4"] if fragmented else []
    matrix.run("ffmpeg", "-v", "error", "-y", "-i", matrix.ROOT / f"Fixtures/{clip}.mp4", "-c", "copy", *moved,
               "-f", "hls", "-hls_time", "2", "-hls_playlist_type", "vod", *kind,
               "-hls_segment_filename", folder / ("s%d.m4s" if fragmented else "s%d.ts"), folder / "index.m3u8")
    text = (folder / "index.m3u8").read_text()
    return [(Fraction(duration), folder / name) for duration, name in re.findall(r"#EXTINF:([0-9.]+),\n(\S+)", text)]


def reorder_delay(path):
    """PTS - DTS of the first video packet of a segment (a fragmented one read after its folder's
    init.mp4), in seconds."""
    if path.suffix == ".m4s":
        joined = path.with_suffix(".with-init.mp4")
        joined.write_bytes((path.parent / "init.mp4").read_bytes() + path.read_bytes())
        path = joined
    line = matrix.run("ffprobe", "-v", "error", "-select_streams", "v", "-show_packets", "-read_intervals", "%+#1",
                      "-show_entries", "packet=pts_time,dts_time", "-of", "csv=p=0", path).splitlines()[0]
    pts, dts = (Fraction(field) for field in line.split(",")[:2])
    return pts - dts


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--players", default="gstreamer,vlc")
    parser.add_argument("--unmarked", action="store_true",
                        help="no EXT-X-DISCONTINUITY: timestamps continue from clip to clip")
    parser.add_argument("--segments", choices=["ts", "fmp4"], default="ts",
                        help="the segments ffmpeg's muxer writes: MPEG-TS, or fragmented MP4 with an EXT-X-MAP per clip")
    parser.add_argument("--work", type=Path, help="keep the segments here (default: a temporary folder)")
    arguments = parser.parse_args()
    work = arguments.work or Path(tempfile.mkdtemp())
    work.mkdir(parents=True, exist_ok=True)

    fragmented = arguments.segments == "fmp4"
    lines = ["#EXTM3U", f"#EXT-X-VERSION:{7 if fragmented else 3}", "#EXT-X-TARGETDURATION:2", "#EXT-X-PLAYLIST-TYPE:VOD"]
    starts, start, segments = [], Fraction(0), {}
    for index, clip in enumerate(CLIPS):
        if arguments.unmarked:
            # Each place in the playlist its own segments, their timestamps starting where it starts.
            pieces = segments[clip] = segment(clip, work / f"{index}-{clip}", offset=start, fragmented=fragmented)
        else:
            pieces = segments[clip] = segments.get(clip) or segment(clip, work / clip, fragmented=fragmented)
            if index:
                lines.append("#EXT-X-DISCONTINUITY")
        if fragmented:
            lines.append(f'#EXT-X-MAP:URI="{(pieces[0][1].parent / "init.mp4").relative_to(work)}"')
        starts.append(start)
        for duration, path in pieces:
            lines += [f"#EXTINF:{float(duration):.6f},", str(path.relative_to(work))]
            start += duration
    playlist = work / "joined.m3u8"
    playlist.write_text("\n".join(lines + ["#EXT-X-ENDLIST", ""]))

    sources = matrix.SourceFrames()
    urls = [f"Fixtures/{clip}.mp4" for clip in segments]
    for url in urls:
        sources.load(url)
    frames = {clip: sources.digests[url] for clip, url in zip(segments, urls)}
    joins = "timestamps continuous, no tag" if arguments.unmarked else "a discontinuity before each but the first"
    print(f"{playlist}: {' | '.join(CLIPS)}, each segmented by ffmpeg into {arguments.segments}, {joins}")
    for player in arguments.players.split(","):
        scratch = Path(tempfile.mkdtemp(dir=work))
        shown, error = matrix.PLAYERS[player][2](playlist, scratch)[:2]
        if player == "chromium":
            print(f"\nchromium: {len(shown)} pictures, " + (error or "played to the end"))
            continue
        # The shown pictures in stretches of one clip each, in order (a clip's stretch ends where
        # a picture of another clip, or its own first one again, shows).
        # Pictures are told by their digests, or by likeness where a browser hands back thumbnails
        # (hls.js, Shaka); one a browser presents twice in a row is one picture.
        found = sources.identify(shown, urls)
        kept = [i for i in range(len(found)) if i == 0 or found[i] is None or found[i] != found[i - 1]]
        shown, found = [shown[i] for i in kept], [found[i] for i in kept]
        stretches = []
        for picture, who in zip(shown, found):
            clip, number = (Path(who[0]).stem, who[1]) if who else ("garbage", None)
            if not stretches or stretches[-1][0] != clip or number == 0:
                stretches.append((clip, []))
            stretches[-1][1].append((number, picture.time))
        offset = shown[0].time if shown and shown[0].time is not None else None
        print(f"\n{player}: {len(shown)} pictures" + (f", {error}" if error else "")
              + (f", the first at {float(offset):.3f} s (its start offset)" if offset is not None else ""))
        for index, (clip, pictures) in enumerate(stretches):
            numbers = [number for number, _ in pictures]
            if clip == "garbage":
                print(f"  {len(pictures)} pictures of no clip")
                continue
            line = matrix.clip_line(clip, numbers, len(frames[clip]))
            if offset is not None and index < len(starts) and pictures[0][0] == 0:
                late = pictures[0][1] - offset - starts[index]
                delay = reorder_delay(segments[clip][0][1])
                line += f"; first picture {float(late):+.3f} s against the playlist (its PTS - DTS: {float(delay):.3f} s)"
            print(line)


if __name__ == "__main__":
    main()
