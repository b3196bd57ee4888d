#!/usr/bin/env bash
# Decodes the SCTE 35 sections Compositor writes with an independent decoder, the Python
# `threefive` package (installed from PyPI into a throwaway virtual environment), and checks their
# fields against the date ranges that carry them. Not part of CI (it needs PyPI); run by hand:
#
#   bash Tests/Tools/scte35-crosscheck.sh
#
# It stitches Fixtures/demo-hls.json with `hls --scte35` and decodes every SCTE35-OUT/-IN: an OUT
# leaves the network (out_of_network_indicator) for the DURATION of its date range, rounded to 90 kHz,
# an IN returns with the same splice_event_id; every CRC must hold. It also decodes the sections of
# Tests/CompositorTests/HLSJoin/HLSCueMarkerTests.swift's byte table.
set -euo pipefail
cd "$(dirname "$0")/../.."
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
python3 -m venv "$work/venv"
"$work/venv/bin/pip" install --quiet threefive
swift build --product CompositorDemo >/dev/null
"$(swift build --show-bin-path)/CompositorDemo" hls Fixtures/demo-hls.json --output "$work/out" --scte35 >/dev/null
"$work/venv/bin/python" - "$work/out/stitched.m3u8" <<'PY'
import re, sys, threefive

def decode(hex_text):
    cue = threefive.Cue(hex_text)
    if not cue.decode():
        sys.exit(f"threefive could not decode {hex_text}")
    return cue

failures = 0
def check(condition, message):
    global failures
    print(("ok   " if condition else "FAIL ") + message)
    failures += 0 if condition else 1

outs = {}
for line in open(sys.argv[1]):
    if not line.startswith("#EXT-X-DATERANGE:"):
        continue
    attributes = dict(re.findall(r'([A-Z0-9-]+)=("[^"]*"|[^,]*)', line[len("#EXT-X-DATERANGE:"):].strip()))
    name = attributes["ID"].strip('"')
    for kind in ("SCTE35-OUT", "SCTE35-IN"):
        if kind not in attributes:
            continue
        command = decode(attributes[kind]).command.get()
        if kind == "SCTE35-OUT":
            outs[name] = command["splice_event_id"]
            expected = round(float(attributes["DURATION"]) * 90000) / 90000
            check(command["out_of_network_indicator"] and abs(command["break_duration"] - expected) < 1e-6,
                  f"{name}: OUT, event {command['splice_event_id']}, {command['break_duration']} s (DURATION={attributes['DURATION']})")
        else:
            check(not command["out_of_network_indicator"] and command["splice_event_id"] == outs.get(name),
                  f"{name}: IN, event {command['splice_event_id']}")
check(len(outs) == 4, f"{len(outs)} breaks with SCTE35-OUT")

for hex_text in ["FC302F000000000000FFFFF014054800008F7FEFFE7369C02EFE0052CCF500000000000A0008435545490000013562DBA30A",
                 "FC3020000000000000FFFFF00F05000000017FFFFE000441D8000000000000256B7DCC",
                 "FC301B000000000000FFFFF00A05000000027F5F000000000000B8065716",
                 "FC3025000000000000FFFFF01405000000077FEFFE000000017E00015F90000000000000A54F3456"]:
    command = decode("0x" + hex_text).command.get()
    print("ok   byte table:", {k: command[k] for k in ("splice_event_id", "out_of_network_indicator", "splice_immediate_flag")
                              if k in command}, command.get("pts_time"), command.get("break_duration"))
sys.exit(1 if failures else 0)
PY
