#!/usr/bin/env python3
"""What timestamps GStreamer's hlsdemux2 hands on across a stitched fMP4 break.

    python3 Tests/live/gst_timestamps.py WORK/fmp4

WORK is a `live_test.py --formats fmp4 --work WORK` folder, kept. The last break whose ads are
still on disk (out/breaks/BREAK/, out/live-decisions.json) is listed as a finished playlist with
the six origin segments before it and three after its return, served on 127.0.0.1, and played by
`gst-launch-1.0 playbin3` with adaptivedemux2's debug log. Prints, for each fragment downloaded,
the presentation time of the first video buffer hlsdemux2 hands to its track after it:

    origin/raw/seg00017.m4s           34.0
    out/breaks/ssai-18/0-ad1-0.m4s    36.0    <- the ads go on from the content's clock
    ...
    origin/raw/seg00026.m4s           52.0

Why it matters (LiveHLS.md, Players.md): adaptivedemux2's buffering level is the span of the
timestamps queued on a track. Ads that kept their own timestamps (from 0, below the content's
already played) kept the level from growing, gst-launch kept the pipeline paused for buffering,
and the pictures waited until the content's timestamps came back: the 12 s wait playbin3 had on
live fMP4 before the stitcher put each break's ads on the content's clock (`LiveAdClock`).
"""

import http.server
import json
import os
import re
import subprocess
import sys
import tempfile
import threading
from functools import partial
from pathlib import Path


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    work = Path(sys.argv[1])
    raw, out = work / "origin" / "raw", work / "out"
    decisions = json.loads((out / "live-decisions.json").read_text()) if (out / "live-decisions.json").exists() else {}
    kept = [b for b in decisions.get("breaks", []) if b.get("return") and (out / "breaks" / b["id"]).is_dir()]
    if not (raw / "init.mp4").exists() or not kept:
        sys.exit(f"error: {work}: no fMP4 origin (origin/raw/init.mp4) or no break's ads left in out/breaks")
    item = kept[-1]
    start, back = item["start"], item["return"][0]

    def order(path):  # K-STEM-N.m4s: by place in the pod, then segment number
        place, rest = path.stem.split("-", 1)
        stem, number = rest.rsplit("-", 1)
        return int(place), int(number), stem

    lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", '#EXT-X-MAP:URI="origin/raw/init.mp4"']
    lines += [f"#EXTINF:2.0,\norigin/raw/seg{n:05d}.m4s" for n in range(max(0, start - 6), start)]
    previous = None
    for path in sorted((out / "breaks" / item["id"]).glob("*.m4s"), key=order):
        place, _, stem = order(path)
        if place != previous:
            lines += ["#EXT-X-DISCONTINUITY", f'#EXT-X-MAP:URI="out/ads/{stem}-init.mp4"']
            previous = place
        lines += [f"#EXTINF:2.0,\nout/breaks/{item['id']}/{path.name}"]
    lines += ["#EXT-X-DISCONTINUITY", '#EXT-X-MAP:URI="origin/raw/init.mp4"']
    lines += [f"#EXTINF:2.0,\norigin/raw/seg{n:05d}.m4s" for n in range(back, back + 3)]
    (work / "gst-timestamps.m3u8").write_text("\n".join(lines + ["#EXT-X-ENDLIST"]) + "\n")

    class Quiet(http.server.SimpleHTTPRequestHandler):
        def log_message(self, *args):
            pass

    handler = partial(Quiet, directory=str(work))
    server = http.server.ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    with tempfile.TemporaryDirectory() as scratch:
        log = Path(scratch) / "gst.log"
        env = dict(os.environ, GST_DEBUG="adaptivedemux2:5", GST_DEBUG_FILE=str(log), GST_DEBUG_NO_COLOR="1")
        subprocess.run(["gst-launch-1.0", "playbin3", f"uri=http://127.0.0.1:{server.server_port}/gst-timestamps.m3u8",
                        "audio-sink=fakesink sync=false", "video-sink=fakesink sync=false"],
                       env=env, capture_output=True, timeout=120)
        server.shutdown()
        fragment = None
        for line in log.read_text(errors="replace").splitlines():
            if m := re.search(r"Downloading fragment uri: http://127\.0\.0\.1:\d+/([^,]+),", line):
                fragment = m.group(1)
            elif fragment and (m := re.search(r"main-video-\d+> buffer buffer: \S+, pts (\d+):(\d+):([\d.]+)", line)):
                hours, minutes, seconds = m.groups()
                print(f"{fragment:34} {int(hours) * 3600 + int(minutes) * 60 + float(seconds):6.1f}")
                fragment = None


if __name__ == "__main__":
    main()
