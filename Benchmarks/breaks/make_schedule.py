"""Writes a schedule of one content clip with BREAKS mid-rolls of one ad each, evenly spread.

    make_schedule.py CONTENT CONTENT_SECONDS AD AD_SECONDS BREAKS > schedule.json

Break k (1-based) is at content time k * CONTENT_SECONDS / (BREAKS + 1), as an exact rational
with timescale 1000 (so most cuts fall between frames and keyframes, as real ad markers do); each
plays the whole ad.
"""
import json
import sys

content, content_seconds, ad, ad_seconds, breaks = sys.argv[1], float(sys.argv[2]), sys.argv[3], float(sys.argv[4]), int(sys.argv[5])
ticks = int(content_seconds * 1000)
schedule = {
    "content": [{"id": "feature", "url": content, "start": 0, "end": content_seconds}],
    "breaks": [
        {"id": f"b{k}", "at": f"{k * ticks // (breaks + 1)}/1000",
         "ads": [{"id": f"a{k}", "url": ad, "start": 0, "end": ad_seconds}]}
        for k in range(1, breaks + 1)
    ],
}
json.dump(schedule, sys.stdout, separators=(",", ":"))
