#!/usr/bin/env python3
"""Writes a 24-hour VOD media playlist: 2 s segments (43,200 of them) with the tags a real
packager and ad-insertion pipeline leave behind: an fMP4 init section, hourly key rotation,
a program date-time every minute, and a 90 s ad break every 15 minutes marked with
EXT-X-DATERANGE, EXT-X-CUE-OUT / -CONT / -IN and discontinuities."""
import datetime
import sys

SEGMENTS = 43_200
out = sys.stdout
start = datetime.datetime(2024, 5, 1, 0, 0, 0, tzinfo=datetime.timezone.utc)
lines = [
    "#EXTM3U",
    "#EXT-X-VERSION:7",
    "#EXT-X-TARGETDURATION:2",
    "#EXT-X-MEDIA-SEQUENCE:0",
    "#EXT-X-PLAYLIST-TYPE:VOD",
    "#EXT-X-INDEPENDENT-SEGMENTS",
    '#EXT-X-MAP:URI="init-video-1080p.mp4"',
]
break_every = 450      # 15 minutes of 2 s segments
break_length = 45      # 90 s
for i in range(SEGMENTS):
    t = i * 2
    if i % 1800 == 0:
        lines.append(f'#EXT-X-KEY:METHOD=SAMPLE-AES,URI="skd://keys.example.com/key-{i // 1800:02d}",KEYFORMAT="com.apple.streamingkeydelivery",KEYFORMATVERSIONS="1"')
    position = i % break_every
    if i > 0 and position == 0:
        lines.append("#EXT-X-DISCONTINUITY")
        stamp = (start + datetime.timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.append(f'#EXT-X-DATERANGE:ID="break-{i // break_every}",CLASS="com.example.ad",START-DATE="{stamp}",DURATION=90.0,PLANNED-DURATION=90,X-AD-ID="ad-{i:06d}"')
        lines.append("#EXT-X-CUE-OUT:90")
    elif 0 < position < break_length and i >= break_every:
        lines.append(f"#EXT-X-CUE-OUT-CONT:ElapsedTime={position * 2},Duration=90")
    elif position == break_length and i >= break_every:
        lines.append("#EXT-X-CUE-IN")
        lines.append("#EXT-X-DISCONTINUITY")
    if i % 30 == 0:
        stamp = (start + datetime.timedelta(seconds=t)).strftime("%Y-%m-%dT%H:%M:%S.000Z")
        lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{stamp}")
    lines.append("#EXTINF:2.000000,")
    lines.append(f"video/1080p/segment_{i:06d}.m4s")
lines.append("#EXT-X-ENDLIST")
out.write("\n".join(lines) + "\n")
