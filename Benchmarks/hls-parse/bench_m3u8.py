#!/usr/bin/env python3
"""Parses one playlist with the Python m3u8 package and prints the best of several runs."""
import sys
import time
from importlib.metadata import version

import m3u8

path = sys.argv[1]
runs = int(sys.argv[2]) if len(sys.argv) > 2 else 5
with open(path, encoding="utf-8") as f:
    text = f.read()
best = float("inf")
segments = 0
for _ in range(runs):
    start = time.perf_counter()
    playlist = m3u8.loads(text, uri="https://cdn.example.com/live/1080p/index.m3u8")
    best = min(best, time.perf_counter() - start)
    segments = len(playlist.segments)
print(f"segments={segments} m3u8={version('m3u8')} best_seconds={best}")
