#!/usr/bin/env python3
"""An independent checker of a live HLS media playlist across reloads (the judge).

    python3 Tests/live/live_check.py URL [--timeout S] [--interval S] [--report FILE]

Written from RFC 8216bis (sections 4.4 and 6.2.1-6.2.2), not from the Swift code. It reloads URL
every --interval seconds (0.5) until the playlist carries EXT-X-ENDLIST or --timeout passes,
parses every load with a small media-playlist parser of its own (`parse`), and holds every load to
the previous one (`compare`, a pure function of two parsed loads) and to itself (`check_load`):

  sequence      EXT-X-MEDIA-SEQUENCE never decreases; it grows by exactly the segments that left
                the head; a media sequence number names the same segment (URI, EXTINF, EXT-X-MAP,
                EXT-X-DISCONTINUITY, program date time) in both loads; segments are only appended
                at the tail (the tail never shrinks); no segment leaves unseen.
  discontinuity EXT-X-DISCONTINUITY-SEQUENCE grows by exactly the EXT-X-DISCONTINUITY tags that
                left the window, so every segment keeps its discontinuity number.
  target        EXT-X-TARGETDURATION never changes; every EXTINF rounded to the nearest integer is
                at most the target duration; after a segment is removed the playlist still lasts
                at least three target durations (6.2.2).
  dates         each segment's EXT-X-PROGRAM-DATE-TIME is the previous one's plus its EXTINF
                (within 1 ms), except at an EXT-X-DISCONTINUITY, where it may jump forward by less
                than one target duration, never back; every segment has one (--allow-missing-dates
                turns this last rule off); a segment's date never changes between loads.
  dateranges    an EXT-X-DATERANGE is never removed while any of its dates (START-DATE to END-DATE,
                or START-DATE + DURATION) lies within the window's dates; an attribute of an ID
                never changes value (RFC 8216bis 4.4.5.1: later tags may add attributes).
  endlist       nothing changes after EXT-X-ENDLIST.
  stall         while live, the playlist changes at least once every 1.5 target durations (RFC
                8216bis 6.2.1's rule for a server). The checker sees a change only at its next
                reload, so an interval is known to within --interval: the rule fails beyond 1.5
                target durations plus --interval (the longest unchanged interval is reported
                either way).
  fetch         every reload after the first succeeds (HTTP 200, a playlist).

The report (JSON on stdout or --report) gives the reloads, every segment seen (by media sequence
number) and every violation with its reload number; the exit status is 1 on any violation or when
the playlist never ended within the timeout. As a library: `check(url, timeout)` returns the report.
"""

import argparse
import json
import re
import sys
import time
import urllib.error
import urllib.request
from datetime import datetime, timezone
from decimal import Decimal

DATE_TOLERANCE = Decimal("0.001")

# ---------------------------------------------------------------------------------------------
# Parsing


class Segment:
    __slots__ = ("msn", "uri", "duration", "discontinuity", "date", "date_text", "map", "cues",
                 "byterange", "gap", "number")

    def __init__(self, **fields):
        for name in self.__slots__:
            setattr(self, name, fields.get(name))

    def identity(self):
        """What must not change about a published segment between loads."""
        return (self.uri, self.duration, self.discontinuity, self.date, self.map, self.byterange)

    def as_json(self):
        return {"msn": self.msn, "uri": self.uri, "duration": str(self.duration),
                "discontinuity": self.discontinuity, "discontinuity_number": self.number,
                "date": self.date_text, "map": self.map, "cues": self.cues}


class Playlist:
    def __init__(self):
        self.target = None
        self.media_sequence = 0
        self.discontinuity_sequence = 0
        self.segments = []
        self.dateranges = {}  # ID -> {attribute: value} (the last tag with that ID in the load)
        self.daterange_list = []
        self.endlist = False
        self.playlist_type = None
        self.errors = []
        self.text = ""

    @property
    def first_msn(self):
        return self.media_sequence

    @property
    def next_msn(self):
        return self.media_sequence + len(self.segments)

    def by_msn(self, msn):
        index = msn - self.media_sequence
        return self.segments[index] if 0 <= index < len(self.segments) else None

    def duration(self):
        return sum((s.duration for s in self.segments), Decimal(0))

    def window_dates(self):
        """(first date, end of the last segment) or None when the segments carry no dates."""
        dated = [s for s in self.segments if s.date is not None]
        if not dated:
            return None
        return dated[0].date, dated[-1].date + dated[-1].duration


DATE = re.compile(r"^(\d{4})-(\d\d)-(\d\d)[Tt](\d\d):(\d\d):(\d\d)(\.\d+)?([Zz]|[+-]\d\d:?\d\d)?$")


def parse_date(text):
    """An ISO 8601 date (RFC 3339 or ffmpeg's +0000 zone) as Decimal seconds since the epoch."""
    m = DATE.match(text.strip())
    if not m:
        raise ValueError(f"not a date: {text!r}")
    y, mo, d, h, mi, s = (int(g) for g in m.groups()[:6])
    whole = datetime(y, mo, d, h, mi, s, tzinfo=timezone.utc).timestamp()
    value = Decimal(int(whole)) + (Decimal("0" + m.group(7)) if m.group(7) else 0)
    zone = m.group(8)
    if zone and zone not in "Zz":
        sign = -1 if zone[0] == "-" else 1
        digits = zone[1:].replace(":", "")
        value -= sign * (int(digits[:2]) * 3600 + int(digits[2:]) * 60)
    return value


ATTRIBUTE = re.compile(r'\s*([A-Z0-9-]+)=("[^"]*"|[^,]*)\s*(?:,|$)')


def parse_attributes(text):
    attributes = {}
    position = 0
    while position < len(text):
        m = ATTRIBUTE.match(text, position)
        if not m:
            raise ValueError(f"bad attribute list at {text[position:]!r}")
        attributes[m.group(1)] = m.group(2)
        position = m.end()
    return attributes


def unquote(value):
    return value[1:-1] if value and value.startswith('"') and value.endswith('"') else value


def parse(text):
    """A media playlist's text as a Playlist; what does not parse goes into playlist.errors."""
    playlist = Playlist()
    playlist.text = text
    lines = [line.strip() for line in text.splitlines()]
    if not lines or lines[0] != "#EXTM3U":
        playlist.errors.append("does not start with #EXTM3U")
    pending = {"discontinuity": False, "date": None, "date_text": None, "cues": [], "byterange": None,
               "gap": False, "duration": None}
    current_map = None
    number = None
    for line in lines[1:]:
        if not line:
            continue
        try:
            if line.startswith("#"):
                tag, _, value = line.partition(":")
                if tag == "#EXT-X-TARGETDURATION":
                    playlist.target = int(value)
                elif tag == "#EXT-X-MEDIA-SEQUENCE":
                    if playlist.segments:
                        playlist.errors.append("EXT-X-MEDIA-SEQUENCE after the first segment")
                    playlist.media_sequence = int(value)
                elif tag == "#EXT-X-DISCONTINUITY-SEQUENCE":
                    if playlist.segments:
                        playlist.errors.append("EXT-X-DISCONTINUITY-SEQUENCE after the first segment")
                    playlist.discontinuity_sequence = int(value)
                elif tag == "#EXTINF":
                    pending["duration"] = Decimal(value.split(",")[0].strip())
                elif tag == "#EXT-X-DISCONTINUITY":
                    pending["discontinuity"] = True
                elif tag == "#EXT-X-PROGRAM-DATE-TIME":
                    pending["date"] = parse_date(value)
                    pending["date_text"] = value.strip()
                elif tag == "#EXT-X-MAP":
                    attributes = parse_attributes(value)
                    current_map = unquote(attributes.get("URI")) + (
                        "@" + unquote(attributes["BYTERANGE"]) if "BYTERANGE" in attributes else "")
                elif tag == "#EXT-X-BYTERANGE":
                    pending["byterange"] = value
                elif tag == "#EXT-X-GAP":
                    pending["gap"] = True
                elif tag.startswith("#EXT-X-CUE") or tag == "#EXT-OATCLS-SCTE35":
                    pending["cues"].append(line[1:])
                elif tag == "#EXT-X-DATERANGE":
                    attributes = parse_attributes(value)
                    if "ID" not in attributes or "START-DATE" not in attributes:
                        playlist.errors.append(f"EXT-X-DATERANGE without ID or START-DATE: {line}")
                    else:
                        ident = unquote(attributes["ID"])
                        known = playlist.dateranges.setdefault(ident, {})
                        for name, value_ in attributes.items():
                            if name in known and known[name] != value_:
                                playlist.errors.append(f"EXT-X-DATERANGE {ident}: {name} is {known[name]} "
                                                       f"and {value_} in one playlist")
                            known[name] = value_
                        playlist.daterange_list.append(ident)
                elif tag == "#EXT-X-ENDLIST":
                    playlist.endlist = True
                elif tag == "#EXT-X-PLAYLIST-TYPE":
                    playlist.playlist_type = value
                elif tag == "#EXT-X-STREAM-INF":
                    playlist.errors.append("a multivariant playlist, not a media playlist")
                # Other tags (VERSION, INDEPENDENT-SEGMENTS, KEY, ...) are not checked here.
                continue
            # A URI line: the segment the pending tags describe.
            if pending["duration"] is None:
                playlist.errors.append(f"segment {line} without EXTINF")
                pending["duration"] = Decimal(0)
            if number is None:
                number = playlist.discontinuity_sequence
            if pending["discontinuity"]:
                number += 1
            playlist.segments.append(Segment(
                msn=playlist.media_sequence + len(playlist.segments), uri=line, map=current_map,
                number=number, **pending))
            pending = {"discontinuity": False, "date": None, "date_text": None, "cues": [],
                       "byterange": None, "gap": False, "duration": None}
        except (ValueError, TypeError, IndexError, ArithmeticError) as error:
            playlist.errors.append(f"{line}: {error}")
    if playlist.target is None:
        playlist.errors.append("no EXT-X-TARGETDURATION")
    return playlist


def daterange_span(attributes):
    """(start, end) dates of a date range's attributes (end = start when it gives no end)."""
    start = parse_date(unquote(attributes["START-DATE"]))
    if "END-DATE" in attributes:
        return start, parse_date(unquote(attributes["END-DATE"]))
    if "DURATION" in attributes:
        return start, start + Decimal(attributes["DURATION"])
    return start, start


# ---------------------------------------------------------------------------------------------
# Rules


def check_load(playlist, allow_missing_dates=False):
    """[(rule, detail)]: what is wrong within one load."""
    problems = [("parse", e) for e in playlist.errors]
    target = playlist.target
    if target is None:
        return problems
    for s in playlist.segments:
        # 4.4.3.1: the EXTINF duration, rounded to the nearest integer, <= the target duration.
        if int(s.duration + Decimal("0.5")) > target:
            problems.append(("target", f"msn {s.msn}: EXTINF {s.duration} rounds above the target duration {target}"))
    if not allow_missing_dates and any(s.date is not None for s in playlist.segments):
        for s in playlist.segments:
            if s.date is None:
                problems.append(("dates", f"msn {s.msn}: no EXT-X-PROGRAM-DATE-TIME"))
    for previous, s in zip(playlist.segments, playlist.segments[1:]):
        if previous.date is None or s.date is None:
            continue
        jump = s.date - (previous.date + previous.duration)
        if s.discontinuity:
            if jump < -DATE_TOLERANCE or jump >= target:
                problems.append(("dates", f"msn {s.msn}: date jumps {jump:+} s at a discontinuity "
                                          f"(allowed: 0 to < {target} s forward)"))
        elif abs(jump) > DATE_TOLERANCE:
            problems.append(("dates", f"msn {s.msn}: date {s.date_text} is {jump:+} s off msn {previous.msn}'s "
                                      f"{previous.date_text} + {previous.duration}"))
    return problems


def compare(previous, current):
    """[(rule, detail)]: what is wrong about `current` as the reload that followed `previous`
    (two parsed loads of the same URL). Pure: no clock, no network."""
    problems = []
    if previous.endlist:
        if current.text != previous.text:
            problems.append(("endlist", "the playlist changed after EXT-X-ENDLIST"))
        return problems
    if current.target != previous.target:
        problems.append(("target", f"EXT-X-TARGETDURATION changed from {previous.target} to {current.target}"))
    removed = current.media_sequence - previous.media_sequence
    if removed < 0:
        problems.append(("sequence", f"EXT-X-MEDIA-SEQUENCE decreased from {previous.media_sequence} "
                                     f"to {current.media_sequence}"))
        return problems
    if current.next_msn < previous.next_msn:
        problems.append(("sequence", f"the tail shrank: last msn {previous.next_msn - 1} -> {current.next_msn - 1}"))
    if removed > len(previous.segments):
        problems.append(("sequence", f"msn {previous.next_msn}..{current.media_sequence - 1} left the window unseen "
                                     f"(media sequence {previous.media_sequence} -> {current.media_sequence}, "
                                     f"{len(previous.segments)} segments before)"))
    else:
        # The discontinuity sequence counts the EXT-X-DISCONTINUITY tags that left the window.
        left = sum(1 for s in previous.segments[:removed] if s.discontinuity)
        expected = previous.discontinuity_sequence + left
        if current.discontinuity_sequence != expected:
            problems.append(("discontinuity", f"EXT-X-DISCONTINUITY-SEQUENCE is {current.discontinuity_sequence}, "
                                              f"expected {previous.discontinuity_sequence} + {left} "
                                              f"(discontinuities removed with msn {previous.media_sequence}.."
                                              f"{current.media_sequence - 1})"))
    for s in current.segments:
        before = previous.by_msn(s.msn)
        if before is None:
            continue
        if before.identity() != s.identity():
            changed = [name for name, a, b in zip(("URI", "EXTINF", "DISCONTINUITY", "PROGRAM-DATE-TIME", "MAP",
                                                    "BYTERANGE"), before.identity(), s.identity()) if a != b]
            problems.append(("sequence", f"msn {s.msn} changed between loads ({', '.join(changed)}): "
                                         f"{before.uri} -> {s.uri}"))
        elif before.number != s.number and removed <= len(previous.segments):
            problems.append(("discontinuity", f"msn {s.msn}: discontinuity number {before.number} -> {s.number}"))
    if removed > 0 and not current.endlist and current.target is not None:
        if current.duration() < 3 * current.target:
            problems.append(("target", f"a segment was removed leaving {current.duration()} s, "
                                       f"less than 3 target durations ({3 * current.target} s)"))
    # Date ranges: not removed while any of their dates is within the window's dates.
    window = current.window_dates()
    for ident, attributes in previous.dateranges.items():
        if ident in current.dateranges:
            continue
        try:
            start, end = daterange_span(attributes)
        except (ValueError, ArithmeticError):
            continue
        if window and start <= window[1] and end >= window[0]:
            problems.append(("dateranges", f"EXT-X-DATERANGE {ident} removed while its dates "
                                           f"({start}..{end}) are within the window's ({window[0]}..{window[1]})"))
    problems += daterange_conflicts(previous.dateranges, current)
    return problems


def daterange_conflicts(known, current):
    """[(rule, detail)]: attributes of current's date ranges whose value differs from `known`
    (ID -> attributes, as seen before)."""
    problems = []
    for ident, attributes in current.dateranges.items():
        before = known.get(ident)
        if before is None:
            continue
        for name, value in attributes.items():
            if name in before and before[name] != value:
                problems.append(("dateranges", f"EXT-X-DATERANGE {ident}: {name} changed from {before[name]} to {value}"))
    return problems


# ---------------------------------------------------------------------------------------------
# The run


class Checker:
    """Holds the loads of one URL as they come: feed(text, at) per successful reload."""

    def __init__(self, allow_missing_dates=False, stall_factor=Decimal("1.5"), resolution=0.0):
        self.allow_missing_dates = allow_missing_dates
        self.stall_factor = stall_factor
        # How late a change can be seen: the time between two reloads.
        self.resolution = resolution
        self.previous = None
        self.reloads = 0
        self.changes = 0
        self.violations = []
        self.segments = {}
        self.dateranges = {}
        self.last_change = None
        self.longest_unchanged = (0.0, None)
        self.first_at = None

    def violation(self, rule, detail, reload=None):
        self.violations.append({"reload": self.reloads if reload is None else reload, "rule": rule, "detail": detail})

    def feed(self, text, at):
        self.reloads += 1
        current = parse(text)
        if self.first_at is None:
            self.first_at = self.last_change = at
        for rule, detail in check_load(current, self.allow_missing_dates):
            # The same complaint in every load of the window is one violation: keep the first.
            if not any(v["rule"] == rule and v["detail"] == detail for v in self.violations):
                self.violation(rule, detail)
        if self.previous is not None:
            for rule, detail in compare(self.previous, current):
                self.violation(rule, detail)
            for rule, detail in daterange_conflicts(self.dateranges, current):
                if not any(v["detail"] == detail for v in self.violations):
                    self.violation(rule, detail)
        changed = self.previous is None or current.text != self.previous.text
        if changed:
            if self.previous is not None:
                self.changes += 1
            self.note_unchanged(at)
            self.last_change = at
        for s in current.segments:
            self.segments.setdefault(s.msn, s)
        for ident, attributes in current.dateranges.items():
            self.dateranges.setdefault(ident, {}).update(attributes)
        self.previous = current
        return current

    def note_unchanged(self, at):
        interval = at - self.last_change
        if interval > self.longest_unchanged[0]:
            self.longest_unchanged = (interval, self.reloads)

    def finish(self, at):
        """Called when the run stops: the stall rule over the run."""
        if self.previous is not None and not self.previous.endlist:
            self.note_unchanged(at)
        target = self.previous.target if self.previous else None
        if target:
            limit = float(self.stall_factor) * target
            interval, reload = self.longest_unchanged
            if interval > limit + self.resolution:
                self.violation("stall", f"unchanged for {interval:.2f} s (more than {limit:.1f} s = "
                                        f"{self.stall_factor} target durations, plus {self.resolution} s "
                                        f"between reloads) before reload {reload}", reload)

    def report(self, url, ended, elapsed, fetch_errors):
        segments = [self.segments[k].as_json() for k in sorted(self.segments)]
        return {
            "url": url, "ended": ended, "elapsed": round(elapsed, 3), "reloads": self.reloads,
            "changes": self.changes, "fetch_errors": fetch_errors,
            "target_duration": self.previous.target if self.previous else None,
            "segments_seen": len(segments),
            "discontinuities_seen": sum(1 for s in segments if s["discontinuity"]),
            "longest_unchanged": round(self.longest_unchanged[0], 3),
            "dateranges": self.dateranges, "segments": segments,
            "violations": self.violations, "ok": ended and not self.violations,
        }


def fetch(url, timeout=5):
    with urllib.request.urlopen(url, timeout=timeout) as response:
        return response.read().decode("utf-8")


def check(url, timeout=120.0, interval=0.5, allow_missing_dates=False, wait_first=None, stop=None,
          give_up=10.0):
    """Reloads url until EXT-X-ENDLIST (or timeout seconds, or stop() true) and returns the
    report. Until the first successful load (at most wait_first seconds, default: the timeout),
    failed fetches are waited out; after it, a failed fetch is a violation (one per streak of
    failures), and give_up seconds of nothing but failures end the run."""
    checker = Checker(allow_missing_dates=allow_missing_dates, resolution=interval)
    start = time.monotonic()
    wait_first = timeout if wait_first is None else wait_first
    fetch_errors = 0
    failing_since = None
    ended = False
    while True:
        now = time.monotonic()
        if now - start > timeout or (stop and stop()):
            break
        try:
            text = fetch(url)
        except (urllib.error.URLError, OSError, UnicodeDecodeError) as error:
            if checker.previous is not None:
                fetch_errors += 1
                if failing_since is None:
                    failing_since = now
                    checker.violation("fetch", f"reload after {checker.reloads}: {error}", checker.reloads)
                elif now - failing_since > give_up:
                    checker.violation("fetch", f"gave up after {give_up} s of failed reloads", checker.reloads)
                    break
            elif now - start > wait_first:
                checker.violation("fetch", f"never loaded: {error}", 0)
                break
            time.sleep(interval)
            continue
        failing_since = None
        playlist = checker.feed(text, time.monotonic() - start)
        if playlist.endlist:
            ended = True
            break
        time.sleep(max(0.0, interval - (time.monotonic() - now)))
    elapsed = time.monotonic() - start
    checker.finish(elapsed)
    report = checker.report(url, ended, elapsed, fetch_errors)
    if not ended:
        report["violations"].append({"reload": checker.reloads, "rule": "endlist",
                                     "detail": f"no EXT-X-ENDLIST within {timeout} s"})
        report["ok"] = False
    return report


def summary(report):
    line = (f"{report['url']}: {report['reloads']} reloads ({report['changes']} changes), "
            f"{report['segments_seen']} segments seen ({report['discontinuities_seen']} discontinuities), "
            f"{len(report['dateranges'])} date ranges, longest unchanged {report['longest_unchanged']} s, "
            f"{'ended' if report['ended'] else 'NOT ended'}, {len(report['violations'])} violations")
    for v in report["violations"][:20]:
        line += f"\n  reload {v['reload']}: [{v['rule']}] {v['detail']}"
    if len(report["violations"]) > 20:
        line += f"\n  ... {len(report['violations']) - 20} more"
    return line


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("url")
    parser.add_argument("--timeout", type=float, default=120)
    parser.add_argument("--interval", type=float, default=0.5)
    parser.add_argument("--allow-missing-dates", action="store_true")
    parser.add_argument("--report", help="write the JSON report here (default: stdout)")
    args = parser.parse_args()
    report = check(args.url, args.timeout, args.interval, args.allow_missing_dates)
    text = json.dumps(report, indent=1)
    if args.report:
        with open(args.report, "w") as f:
            f.write(text)
    else:
        print(text)
    print(summary(report), file=sys.stderr)
    sys.exit(0 if report["ok"] else 1)


if __name__ == "__main__":
    main()
