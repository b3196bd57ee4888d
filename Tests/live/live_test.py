#!/usr/bin/env python3
"""End to end: a live origin, `CompositorDemo live` stitching ads into it, the checker on the
stitched playlist and two players through it, judged.

    python3 Tests/live/live_test.py [--demo PATH] [--formats ts,fmp4] [--seconds 64] [--rerun-hung]
                                    [--form stitched|interstitials] [--work DIR] [--dry-run]

For each format (TS, then fMP4), in a temporary folder ROOT served by nginx on 127.0.0.1:PORT:

 1. live_origin.LiveOrigin(ROOT, format, end_after=--seconds): ffmpeg in real time, live.m3u8
    with CUE-OUT/CUE-IN at msn 6/14, 18/26 (16 s spans; see live_origin.py), EXT-X-ENDLIST after
    --seconds of media.
 2. ROOT/schedule.json:
      {"content": [{"id": "live", "url": "http://127.0.0.1:PORT/origin/live.m3u8"}],
       "breaks": [{"id": "ssai", "at": "markers",
                   "ads": [{"url": "/abs/Fixtures/ad1.mp4"}, {"url": "/abs/Fixtures/ad2.mp4", "end": 4}]}]}
    and, once live.m3u8 has 3 segments, runs
      DEMO live ROOT/schedule.json --output ROOT/out --duration (--seconds + 30)
    (DEMO: --demo, or CompositorDemo in `swift build --show-bin-path`; never built here).
 3. live_check.check(http://127.0.0.1:PORT/out/stitched.m3u8) reloads it every 0.5 s until
    EXT-X-ENDLIST, concurrently, and so do live_play's ffmpeg and GStreamer players (started
    once the stitched playlist has 3 segments).
 4. The players' pictures are identified against every origin segment's frames and the ads'
    (live_play.origin_index) and judged with the published breaks (markers.json): content in
    order, every break's segments replaced by ad1 (all 300 frames) then ad2 (its frames before
    4 s: 120), the content back at the cue-in segment's frame 0, to the last content frame.
    The stitched playlist seen across reloads is also held to the stitching rules: each ad and
    the return to content begin with EXT-X-DISCONTINUITY; content segments by absolute
    http://127.0.0.1 URL, ad segments by relative URL; the first ad segment dated with the
    cue-out segment's date, the return with at most one target duration's jump forward; one
    EXT-X-DATERANGE per break, its START-DATE the break's date.

--form interstitials runs `live --form interstitials`: the players (which do not play HLS
interstitials) are judged on the content alone, every picture in order; the playlist seen across
reloads is held to the interstitial rules instead (interstitial_problems): every segment the
origin's own, at its own msn; one EXT-X-DATERANGE of class com.apple.hls.interstitial per break,
its START-DATE the cue-out segment's date, its DURATION the ads' length (within the 16 s span);
its X-ASSET-LIST served by nginx lists ad1 and ad2, whose playlists ffmpeg decodes to exactly the
ads' frames (ad1's 300, ad2's before 4 s); the same list asked with _HLS_start_offset (a client
starting inside the break) is empty (`--join full`, the default; nginx serves N-joined.json).

--dry-run (until the command exists) skips 2: the checker and the players take the origin's own
live.m3u8, judged as content only (no ads expected), to the last content frame.

--rerun-hung runs a format once more when its only failed rows are players that stopped showing
pictures until the timeout (playbin3 did once in CI: README.md); both runs are printed, the
second counted.

Prints a summary table; exits 1 when a row failed. The whole run takes about 2 x (--seconds + 20) s.
"""

import argparse
import json
import shutil
import urllib.parse
import urllib.request
import subprocess
import sys
import tempfile
import threading
import time
from decimal import Decimal
from fractions import Fraction
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
sys.path.insert(0, str(HERE))
import live_check  # noqa: E402
import live_play  # noqa: E402
from live_origin import LiveOrigin  # noqa: E402

ADS = {"ad1": (ROOT / "Fixtures/ad1.mp4", None), "ad2": (ROOT / "Fixtures/ad2.mp4", 4)}


def demo_path(given):
    if given:
        return Path(given)
    out = subprocess.run(["swift", "build", "--show-bin-path"], cwd=ROOT, capture_output=True, text=True,
                         timeout=120)
    path = Path(out.stdout.strip()) / "CompositorDemo"
    if not path.exists():
        sys.exit(f"error: {path} not found: build CompositorDemo first, or give --demo PATH")
    return path


def schedule(origin_url):
    ads = []
    for name, (path, end) in ADS.items():
        ad = {"url": str(path)}
        if end is not None:
            ad["end"] = end
        ads.append(ad)
    return {"content": [{"id": "live", "url": origin_url}],
            "breaks": [{"id": "ssai", "at": "markers", "ads": ads}]}


def wait_for_segments(url, count, timeout):
    """Waits until the playlist at url lists at least count segments (or timeout)."""
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        try:
            if len(live_check.parse(live_check.fetch(url)).segments) >= count:
                return True
        except OSError:
            pass
        time.sleep(0.2)
    return False


def ad_lengths(index):
    """The frames each ad places: all, or those starting before its "end"."""
    lengths = {}
    for name, (path, end) in ADS.items():
        frames = live_play.framemd5(path)
        lengths[name] = len(frames) if end is None else sum(1 for t, _ in frames if t - frames[0][0] < end)
    return lengths


def stitched_problems(report, markers, origin_base, raw_extension):
    """What is wrong in the stitched playlist seen across reloads (live_check's report) against
    the stitching rules and the origin's published markers."""
    problems = []
    segments = report["segments"]
    if not segments:
        return ["no segment seen"]
    target = report["target_duration"] or 2
    prefix = f"{origin_base}/origin/raw/seg"

    def content_msn(uri):
        if uri.startswith(prefix):
            return int(uri[len(prefix):].split(".")[0])
        return None

    for s in segments:
        uri = s["uri"]
        if uri.startswith("http"):
            if content_msn(uri) is None:
                problems.append(f"stitched msn {s['msn']}: {uri} is no origin segment")
        elif uri.startswith("/") or "://" in uri:
            problems.append(f"stitched msn {s['msn']}: ad segment {uri} is not a relative URL")
    kinds = ["content" if content_msn(s["uri"]) is not None else "ad" for s in segments]
    for k in range(1, len(segments)):
        s, before = segments[k], segments[k - 1]
        if s["msn"] != before["msn"] + 1:
            continue  # not seen in a row
        if kinds[k] != kinds[k - 1] and not s["discontinuity"]:
            problems.append(f"stitched msn {s['msn']}: {kinds[k - 1]} -> {kinds[k]} without EXT-X-DISCONTINUITY")
    first_content = next((content_msn(s["uri"]) for s in segments if content_msn(s["uri"]) is not None), None)
    ranges = report["dateranges"]
    starts = []
    for ident, attributes in ranges.items():
        try:
            starts.append(live_check.parse_date(live_check.unquote(attributes["START-DATE"])))
        except (KeyError, ValueError):
            problems.append(f"EXT-X-DATERANGE {ident} without a START-DATE")
    covered = 0
    positions = {content_msn(s["uri"]): k for k, s in enumerate(segments) if content_msn(s["uri"]) is not None}
    for m in markers:
        out, back = m["cue_out_msn"], m["cue_in_msn"]
        if first_content is None or first_content > out - 1 or out - 1 not in positions:
            continue  # the stitched playlist began inside or after this break
        k_before = positions[out - 1]
        # Content comes back at a segment of the span (the boundary nearest the ads' end) or at its end.
        k_back = next((k for k in range(k_before + 1, len(segments)) if kinds[k] == "content"), None)
        if k_back is None:
            continue  # ended before its end
        covered += 1
        returned = content_msn(segments[k_back]["uri"])
        if not out < returned <= back:
            problems.append(f"break {out}-{back}: content comes back at msn {returned}, outside the span")
        inside = [msn for msn in range(out, returned) if msn in positions]
        if inside:
            problems.append(f"break {out}-{back}: replaced content msn {inside} still in the stitched playlist")
        ads = segments[k_before + 1:k_back]
        if not ads:
            problems.append(f"break {out}-{back}: no ad segment between msn {out - 1} and {returned}")
            continue
        date = live_check.parse_date(m["date"])
        first_ad = ads[0]
        # The stitched clock runs within a target duration of the content's (earlier breaks' doing).
        if first_ad["date"] is None or abs(live_check.parse_date(first_ad["date"]) - date) >= target:
            problems.append(f"break {out}-{back}: first ad segment dated {first_ad['date']}, the break at {m['date']}")
        back_segment = segments[k_back]
        if not back_segment["discontinuity"]:
            problems.append(f"break {out}-{back}: the return to content has no EXT-X-DISCONTINUITY")
        if not first_ad["discontinuity"]:
            problems.append(f"break {out}-{back}: the first ad has no EXT-X-DISCONTINUITY")
        ads_end = live_check.parse_date(ads[-1]["date"]) + Decimal(ads[-1]["duration"]) if ads[-1]["date"] else None
        back_date = live_check.parse_date(back_segment["date"]) if back_segment["date"] else None
        if ads_end is not None and back_date is not None and abs(back_date - ads_end) > Decimal("0.001"):
            problems.append(f"break {out}-{back}: the content's date {back_date - ads_end:+} s from the ads' end")
        ad_date = live_check.parse_date(first_ad["date"]) if first_ad["date"] else None
        if ad_date is not None and not any(abs(s - ad_date) <= Decimal("0.001") for s in starts):
            problems.append(f"break {out}-{back}: no EXT-X-DATERANGE starting with its first ad, at {first_ad['date']}")
    if len(ranges) < covered:
        problems.append(f"{len(ranges)} date ranges for {covered} breaks")
    return problems


INTERSTITIAL = "com.apple.hls.interstitial"


def interstitial_problems(report, markers, origin_base, stitched_url, index, lengths):
    """What is wrong in the interstitials form seen across reloads, against the origin's markers:
    the content untouched, each break an interstitial whose assets play the ads' frames."""
    problems = []
    prefix = f"{origin_base}/origin/raw/seg"
    for s in report["segments"]:
        uri = s["uri"]
        if not uri.startswith(prefix) or int(uri[len(prefix):].split(".")[0]) != s["msn"]:
            problems.append(f"msn {s['msn']}: {uri} is not the origin's segment {s['msn']}")
    ranges = {i: a for i, a in report["dateranges"].items() if live_check.unquote(a.get("CLASS", "")) == INTERSTITIAL}
    seen = {s["msn"] for s in report["segments"]}
    checked = 0
    for m in markers:
        ident = f"ssai-{m['cue_out_msn']}"
        if ident not in ranges:
            if m["cue_out_msn"] in seen and m["cue_out_msn"] - 1 in seen:
                problems.append(f"break {ident}: no interstitial, though its cue-out segment was in the playlist")
            continue
        a = ranges.pop(ident)
        start = live_check.parse_date(live_check.unquote(a["START-DATE"]))
        if start != live_check.parse_date(m["date"]):
            problems.append(f"{ident}: START-DATE {a['START-DATE']}, the cue-out segment's date {m['date']}")
        list_url = urllib.parse.urljoin(stitched_url, live_check.unquote(a.get("X-ASSET-LIST", '""')))
        try:
            assets = json.loads(urllib.request.urlopen(list_url, timeout=10).read())["ASSETS"]
            joined = json.loads(urllib.request.urlopen(list_url + "&_HLS_start_offset=3.5", timeout=10).read())["ASSETS"]
        except (OSError, ValueError, KeyError) as error:
            problems.append(f"{ident}: asset list {list_url}: {error}")
            continue
        if joined:
            problems.append(f"{ident}: a client joining under way (--join full) got {len(joined)} assets, not none")
        pod = sum(Decimal(str(asset["DURATION"])) for asset in assets)
        if Decimal(a.get("DURATION", "-1")) != min(pod, Decimal(m["duration"])):
            problems.append(f"{ident}: DURATION {a.get('DURATION')}, the ads play {pod} s of a {m['duration']} s span")
        names = []
        for asset in assets:
            frames = live_play.framemd5(urllib.parse.urljoin(list_url, asset["URI"]))
            found = index.identify([digest for _, digest in frames])
            name = found[0][1] if found and found[0] and found[0][0] == "ad" else None
            if name is None or found != [("ad", name, f) for f in range(lengths[name])]:
                problems.append(f"{ident}: asset {asset['URI']} does not decode to one ad's frames, in order")
            names.append(name)
        if names != list(ADS):
            problems.append(f"{ident}: assets {names}, expected {list(ADS)}")
        checked += 1
    problems += [f"interstitial {ident} for no published break" for ident in ranges]
    if not checked:
        problems.append("no interstitial checked")
    return problems, checked


def run_format(fmt, args, demo, work):
    """Runs one format end to end: its rows (format, check, ok, detail) and the players that
    stopped showing pictures until the timeout killed them."""
    rows, hung = [], set()
    root = work / fmt
    if root.exists():
        shutil.rmtree(root)
    root.mkdir(parents=True)
    started = time.monotonic()
    with LiveOrigin(root, format=fmt, end_after=args.seconds, endlist_delay=args.endlist_delay) as origin:
        target_url = origin.url if args.dry_run else f"{origin.base}/out/stitched.m3u8"
        demo_process, demo_log = None, root / "demo.log"
        if not origin.wait_segments(3, timeout=30):
            return [(fmt, "origin", False, "live.m3u8 never had 3 segments")], hung
        if not args.dry_run:
            (root / "schedule.json").write_text(json.dumps(schedule(origin.url), indent=1))
            command = [str(demo), "live", str(root / "schedule.json"), "--output", str(root / "out"),
                       "--duration", str(int(args.seconds + 30)), "--form", args.form]
            print(f"[{fmt}] {' '.join(command)}", file=sys.stderr)
            demo_process = subprocess.Popen(command, stdout=open(demo_log, "wb"), stderr=subprocess.STDOUT)
        results = {}
        timeout = args.seconds + 60
        checker = threading.Thread(target=lambda: results.__setitem__(
            "check", live_check.check(target_url, timeout=timeout, wait_first=30)))
        checker.start()
        if not wait_for_segments(target_url, 3, 40):
            print(f"[{fmt}] {target_url} has no 3 segments after 40 s", file=sys.stderr)
        players = []
        for name in args.players:
            scratch = root / f"play-{name}"
            scratch.mkdir()
            thread = threading.Thread(target=lambda n=name, s=scratch: results.__setitem__(
                n, live_play.PLAYERS[n](target_url, s, timeout)))
            thread.start()
            players.append(thread)
        print(f"[{fmt}] origin {origin.url}, checking and playing {target_url}", file=sys.stderr)
        origin.wait_ended(timeout=args.seconds + 40)
        checker.join()
        for thread in players:
            thread.join()
        if demo_process:
            try:
                demo_process.wait(timeout=30)
            except subprocess.TimeoutExpired:
                demo_process.kill()
                demo_process.wait()
        live_seconds = time.monotonic() - started

        # Judging
        index = live_play.origin_index(root, {name: path for name, (path, _) in ADS.items()})
        markers = origin.markers()
        report = results["check"]
        (root / "check.json").write_text(json.dumps(report, indent=1))
        if demo_process:
            rows.append((fmt, "demo exit", demo_process.returncode == 0,
                         f"exit {demo_process.returncode}" + ("" if demo_process.returncode == 0 else
                                                              ": " + demo_log.read_text()[-300:])))
        rows.append((fmt, "live_check", report["ok"],
                     f"{report['reloads']} reloads, {report['changes']} changes, {report['segments_seen']} segments "
                     f"({report['discontinuities_seen']} discontinuities), {len(report['dateranges'])} date ranges, "
                     f"longest unchanged {report['longest_unchanged']} s, {len(report['violations'])} violations"
                     + "".join(f"\n      reload {v['reload']} [{v['rule']}] {v['detail']}"
                               for v in report["violations"][:8])))
        lengths = ad_lengths(index)
        interstitials = args.form == "interstitials" and not args.dry_run
        if interstitials:
            problems, checked = interstitial_problems(report, markers, origin.base, target_url, index, lengths)
            rows.append((fmt, "interstitial rules", not problems,
                         f"{len(markers)} breaks published, {checked} interstitials checked"
                         + "".join(f"\n      {p}" for p in problems)))
        elif not args.dry_run:
            problems = stitched_problems(report, markers, origin.base, fmt)
            rows.append((fmt, "stitching rules", not problems,
                         f"{len(markers)} breaks published" + "".join(f"\n      {p}" for p in problems)))
        # The players of the interstitials form play the content alone: they know no interstitials.
        breaks = None if args.dry_run or interstitials else [(m["cue_out_msn"], m["cue_in_msn"]) for m in markers]
        for name in args.players:
            played = results[name]
            verdict = live_play.verdict(played, index, ad_lengths=lengths, breaks=breaks,
                                        target=report["target_duration"] or 2)
            found = index.identify(played["digests"])
            content = [w for w in found if w and w[0] == "content"]
            if (args.dry_run or interstitials) and verdict["counts"]["ads"]:
                verdict["problems"].append("ads in a stream whose content plays alone")
            if not content or content[-1][1] != index.content_frames - 1:
                verdict["problems"].append(f"did not play to the last content frame ({index.content_frames - 1})")
            if verdict["lateness"] > args.stall:
                verdict["problems"].append(f"stalled: up to {verdict['lateness']} s behind real time, at {verdict['lateness_at']}")
            if played["outcome"] == "timed out":
                hung.add(name)
                if played["log"]:
                    verdict["problems"].append("its warnings: " + played["log"][-400:].replace("\n", " | "))
            verdict["ok"] = not verdict["problems"]
            (root / f"play-{name}.json").write_text(json.dumps(verdict, indent=1))
            runs = verdict["runs"]
            shown = runs if len(runs) <= 12 else runs[:6] + [f"... {len(runs) - 12} more runs"] + runs[-6:]
            c = verdict["counts"]
            rows.append((fmt, name, verdict["ok"],
                         f"{c['identified']}/{c['pictures']} pictures identified ({c['content']} content, "
                         f"{c['ads']} ad), {c['runs']} runs, {c['breaks_replaced']} breaks replaced; "
                         f"{verdict['elapsed']} s wall for {verdict['media_seconds']} s media, lateness "
                         f"{verdict['lateness']} s" + "".join(f"\n      {r}" for r in shown)
                         + "".join(f"\n      ! {p}" for p in verdict["problems"][:8])))
        rows.append((fmt, "origin", index.collisions == 0,
                     f"{len(origin.segments())} segments, {index.content_frames} content frames indexed, "
                     f"{len(markers)} breaks published {[(m['cue_out_msn'], m['cue_in_msn']) for m in markers]}, "
                     f"{index.collisions} MD5 collisions; live part {live_seconds:.0f} s"))
    return rows, hung


def print_rows(rows, title=None):
    if title:
        print(f"\n{title}")
    print(f"\n| format | check | result | detail |\n|---|---|---|---|")
    for fmt, what, ok, detail in rows:
        first, *rest = detail.split("\n")
        print(f"| {fmt} | {what} | {'ok' if ok else 'FAILED'} | {first} |")
        for line in rest:
            print(f"|   |   |   | {line.strip()} |")


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--demo", help="the CompositorDemo executable (default: swift build --show-bin-path's)")
    parser.add_argument("--formats", default="ts,fmp4")
    parser.add_argument("--players", help="players for every format (default: ffmpeg,gstreamer,gstreamer3 for TS; "
                        "ffmpeg,gstreamer3 for fMP4: playbin's legacy hlsdemux stalls on live fMP4 after ~1 s)")
    parser.add_argument("--seconds", type=float, default=64, help="media seconds before EXT-X-ENDLIST")
    parser.add_argument("--stall", type=float, default=1.0, help="the most a player may fall behind real time (s)")
    parser.add_argument("--endlist-delay", type=float, default=2.0,
                        help="the origin publishes its last segment this long before EXT-X-ENDLIST (2; 0: "
                             "together, as ffmpeg does, which GStreamer's demuxers answer by skipping it)")
    parser.add_argument("--form", choices=["stitched", "interstitials"], default="stitched",
                        help="live's --form: ads in place of the content, or each break an HLS interstitial")
    parser.add_argument("--work", type=Path, help="keep everything here (default: a temporary folder, removed)")
    parser.add_argument("--dry-run", action="store_true", help="check and play the origin itself (no demo)")
    parser.add_argument("--rerun-hung", action="store_true",
                        help="run a format once more when its only failures are players that stopped showing "
                             "pictures until the timeout (both runs printed, the second counted)")
    args = parser.parse_args()
    chosen = args.players
    demo = None if args.dry_run else demo_path(args.demo)
    work = args.work or Path(tempfile.mkdtemp(prefix="live-test-"))
    work.mkdir(parents=True, exist_ok=True)
    start = time.monotonic()
    rows = []
    try:
        for fmt in [f for f in args.formats.split(",") if f]:
            default = "ffmpeg,gstreamer,gstreamer3" if fmt == "ts" else "ffmpeg,gstreamer3"
            args.players = [p for p in (chosen or default).split(",") if p]
            ran, hung = run_format(fmt, args, demo, work)
            failed = {what for _, what, ok, _ in ran if not ok}
            if args.rerun_hung and failed and failed <= hung:
                print_rows(ran, f"{fmt}: {', '.join(sorted(hung))} stopped showing pictures until the timeout, "
                                f"every other check right; run once more (this run not counted)")
                ran, _ = run_format(fmt, args, demo, work)
            rows += ran
    finally:
        if not args.work:
            shutil.rmtree(work, ignore_errors=True)
    print_rows(rows)
    print(f"\n{sum(1 for r in rows if r[2])}/{len(rows)} rows ok in {time.monotonic() - start:.0f} s"
          + (" (dry run: the origin's own playlist, no demo)" if args.dry_run else ""))
    sys.exit(0 if all(r[2] for r in rows) else 1)


if __name__ == "__main__":
    main()
