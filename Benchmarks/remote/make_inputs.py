#!/usr/bin/env python3
"""Writes the remote benchmark's schedules and playlists (Benchmarks/remote/run.sh).

    make_inputs.py render BASE FILE...            the 1 GB programme: FILE... interleaved in 25 s pieces
                                                  (cut 0.5 s past a keyframe, as Benchmarks/render does);
                                                  a schedule on stdout whose urls are BASE + FILE, and
                                                  with BASE "concat:" ffmpeg's concat list instead
    make_inputs.py probe BASE FILE...             one content clip per FILE, whole (no start or end)
    make_inputs.py hls-playlist SEGMENTS SECONDS N  a VOD media playlist of N entries of SECONDS each,
                                                  cycling through SEGMENTS (comma separated), with a
                                                  discontinuity at each return to the first
    make_inputs.py hls CONTENT AD LENGTH BREAKS   one content clip (the playlist CONTENT, LENGTH s) and
                                                  BREAKS mid-rolls evenly spread, each the whole AD
"""
import json
import sys

CUTS = [0, 25.5, 50.5, 75.5, 100.5, 125.5, 150.5, 175.5, 200.5, 225.5, 250]


def dump(document):
    json.dump(document, sys.stdout, indent=1)
    sys.stdout.write("\n")


def render(base, files):
    pieces = [(f, CUTS[k], CUTS[k + 1]) for k in range(10) for f in files]
    if base == "concat:":
        for f, start, end in pieces:
            print(f"file '{f}'\ninpoint {start}\noutpoint {end}")
        return
    dump({"content": [{"id": f"p{i}", "url": base + f, "start": start, "end": end}
                      for i, (f, start, end) in enumerate(pieces)]})


def probe(base, files):
    dump({"content": [{"id": f"c{i}", "url": base + f} for i, f in enumerate(files)]})


def hls_playlist(segments, seconds, count):
    segments = segments.split(",")
    lines = ["#EXTM3U", "#EXT-X-VERSION:3", f"#EXT-X-TARGETDURATION:{round(float(seconds))}",
             "#EXT-X-MEDIA-SEQUENCE:0", "#EXT-X-PLAYLIST-TYPE:VOD"]
    for i in range(int(count)):
        if i > 0 and i % len(segments) == 0:
            lines.append("#EXT-X-DISCONTINUITY")
        lines.append(f"#EXTINF:{float(seconds):.6f},")
        lines.append(segments[i % len(segments)])
    lines.append("#EXT-X-ENDLIST")
    print("\n".join(lines))


def hls(content, ad, length, breaks):
    length, breaks = float(length), int(breaks)
    dump({"content": [{"id": "day", "url": content, "start": 0, "end": length}],
          "breaks": [{"id": f"b{k}", "at": round(k * length / (breaks + 1), 3),
                      "ads": [{"id": f"a{k}", "url": ad}]} for k in range(1, breaks + 1)]})


if __name__ == "__main__":
    command, arguments = sys.argv[1], sys.argv[2:]
    if command == "render":
        render(arguments[0], arguments[1:])
    elif command == "probe":
        probe(arguments[0], arguments[1:])
    elif command == "hls-playlist":
        hls_playlist(*arguments)
    elif command == "hls":
        hls(*arguments)
    else:
        sys.exit(f"unknown command {command}")
