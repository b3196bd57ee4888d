#!/usr/bin/env python3
"""What timestamps GStreamer's hlsdemux2 hands on across a stitched fMP4 break.

    python3 Tests/live/gst_timestamps.py WORK/fmp4

WORK is a `live_test.py --formats fmp4 --work WORK` folder, kept. Its origin segments and the
stitched stream's ads are listed as a finished playlist (content msn 0-5, the ad1 break, content
from msn 13), served on 127.0.0.1, and played by `gst-launch-1.0 playbin3` with adaptivedemux2's
debug log. Prints, for each fragment downloaded, the presentation time of the first video buffer
hlsdemux2 hands to its track after it:

    origin/raw/seg00005.m4s   10.0
    out/ads/ad1-0.m4s          1.0      <- the ad's own timestamps, below the content's
    ...
    origin/raw/seg00013.m4s   26.0

Why it matters (LiveHLS.md, Players.md): adaptivedemux2's buffering level is the span of the
timestamps queued on a track; while the ad's timestamps sit below the content's already played,
the level does not grow, gst-launch keeps the pipeline paused for buffering, and the pictures wait
until the content's timestamps come back (the 12 s wait of playbin3 on live fMP4).
"""

import http.server
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
    raw, ads = work / "origin" / "raw", work / "out" / "ads"
    if not (raw / "init.mp4").exists() or not (ads / "ad1-init.mp4").exists():
        sys.exit(f"error: {work}: no fMP4 origin (origin/raw/init.mp4) or stitched ads (out/ads/ad1-init.mp4)")
    lines = ["#EXTM3U", "#EXT-X-VERSION:7", "#EXT-X-TARGETDURATION:2", '#EXT-X-MAP:URI="origin/raw/init.mp4"']
    lines += [f"#EXTINF:2.0,\norigin/raw/seg{n:05d}.m4s" for n in range(6)]
    lines += ["#EXT-X-DISCONTINUITY", '#EXT-X-MAP:URI="out/ads/ad1-init.mp4"']
    lines += [f"#EXTINF:2.0,\nout/ads/ad1-{n}.m4s" for n in range(5)]
    lines += ["#EXT-X-DISCONTINUITY", '#EXT-X-MAP:URI="origin/raw/init.mp4"']
    lines += [f"#EXTINF:2.0,\norigin/raw/seg{n:05d}.m4s" for n in range(13, 16)]
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
                print(f"{fragment:28} {int(hours) * 3600 + int(minutes) * 60 + float(seconds):6.1f}")
                fragment = None


if __name__ == "__main__":
    main()
