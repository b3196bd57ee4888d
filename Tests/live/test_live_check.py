#!/usr/bin/env python3
"""live_check's rules on synthetic reloads (no server, no ffmpeg): each good sequence passes, and
one bad reload per rule is caught.

    python3 Tests/live/test_live_check.py
"""

import sys
import unittest
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_check import Checker, check_load, compare, parse  # noqa: E402

T0 = 1_000_000  # seconds past 00:00:00 on the 12th of January 1970


def date(seconds):
    s = T0 + seconds
    return f"1970-01-12T{int(s // 3600) % 24:02d}:{int(s // 60) % 60:02d}:{s % 60:06.3f}Z"


def playlist(first, count, target=2, disc_seq=0, discontinuities=(), dates=True, endlist=False,
             duration=2.0, jumps=None, uris=None, dateranges=(), extra=None):
    """A live playlist of segments first..first+count-1, each `duration` long and dated from
    segment 0 at T0 (plus `jumps`: {msn: extra seconds from then on})."""
    lines = ["#EXTM3U", f"#EXT-X-TARGETDURATION:{target}", f"#EXT-X-MEDIA-SEQUENCE:{first}"]
    if disc_seq:
        lines.append(f"#EXT-X-DISCONTINUITY-SEQUENCE:{disc_seq}")
    lines += list(dateranges)
    for msn in range(first, first + count):
        if msn in discontinuities:
            lines.append("#EXT-X-DISCONTINUITY")
        if dates:
            shift = sum(v for k, v in (jumps or {}).items() if k <= msn)
            lines.append(f"#EXT-X-PROGRAM-DATE-TIME:{date(msn * duration + shift)}")
        lines.append(f"#EXTINF:{(extra or {}).get(msn, duration)},")
        lines.append((uris or {}).get(msn, f"seg{msn}.ts"))
    if endlist:
        lines.append("#EXT-X-ENDLIST")
    return "\n".join(lines) + "\n"


def rules(before, after):
    return {rule for rule, _ in compare(parse(before), parse(after))}


def load_rules(text):
    return {rule for rule, _ in check_load(parse(text))}


class GoodSequences(unittest.TestCase):
    def test_a_sliding_window(self):
        checker = Checker()
        loads = [playlist(0, 1), playlist(0, 2), playlist(0, 3), playlist(0, 4), playlist(1, 4), playlist(2, 4),
                 playlist(2, 4), playlist(3, 4, endlist=True), playlist(3, 4, endlist=True)]
        for k, text in enumerate(loads):
            checker.feed(text, k * 1.0)
        checker.finish(len(loads) * 1.0)
        self.assertEqual(checker.violations, [])
        self.assertEqual(sorted(checker.segments), list(range(7)))

    def test_discontinuities_leaving_the_window(self):
        before = playlist(10, 4, discontinuities={11, 12}, jumps={11: 0.5})
        after = playlist(12, 4, disc_seq=1, discontinuities={12}, jumps={11: 0.5})
        self.assertEqual(rules(before, after), set())
        self.assertEqual(load_rules(before), set())

    def test_an_ad_break_with_a_date_range(self):
        rng = f'#EXT-X-DATERANGE:ID="ssai-1",CLASS="com.compositor.ad-break",START-DATE="{date(8)}",DURATION=6.0'
        before = playlist(2, 4, discontinuities={4}, dateranges=[rng])
        after = playlist(3, 4, discontinuities={4}, dateranges=[rng])
        self.assertEqual(rules(before, after), set())

    def test_a_date_range_removed_once_past(self):
        rng = f'#EXT-X-DATERANGE:ID="ssai-1",START-DATE="{date(0)}",DURATION=2.0'
        self.assertEqual(rules(playlist(0, 4, dateranges=[rng]), playlist(2, 4)), set())

    def test_a_date_range_gaining_an_attribute(self):
        a = f'#EXT-X-DATERANGE:ID="x",START-DATE="{date(4)}"'
        b = f'#EXT-X-DATERANGE:ID="x",START-DATE="{date(4)}",END-DATE="{date(8)}"'
        self.assertEqual(rules(playlist(0, 4, dateranges=[a]), playlist(0, 5, dateranges=[b])), set())


class BadReloads(unittest.TestCase):
    def test_media_sequence_decreases(self):
        self.assertIn("sequence", rules(playlist(3, 4), playlist(2, 5)))

    def test_a_segment_changes_its_uri(self):
        self.assertIn("sequence", rules(playlist(0, 4), playlist(0, 5, uris={2: "other.ts"})))

    def test_a_segment_changes_its_duration(self):
        self.assertIn("sequence", rules(playlist(0, 4), playlist(0, 5, extra={3: 1.5})))

    def test_a_segment_changes_its_date(self):
        self.assertIn("sequence", rules(playlist(0, 4), playlist(0, 5, jumps={2: 0.2}, discontinuities={2})))

    def test_a_segment_inserted_in_the_middle(self):
        # Media sequence kept, but what was msn 2 is now msn 3: the same number, another segment.
        after = playlist(0, 5, uris={2: "new.ts", 3: "seg2.ts", 4: "seg3.ts"})
        self.assertIn("sequence", rules(playlist(0, 4), after))

    def test_the_tail_shrinks(self):
        self.assertIn("sequence", rules(playlist(0, 5), playlist(0, 4)))

    def test_segments_leave_unseen(self):
        self.assertIn("sequence", rules(playlist(0, 4), playlist(6, 4)))

    def test_discontinuity_sequence_not_advanced(self):
        before = playlist(10, 4, discontinuities={11})
        self.assertIn("discontinuity", rules(before, playlist(12, 4)))

    def test_discontinuity_sequence_advanced_without_a_discontinuity_leaving(self):
        self.assertIn("discontinuity", rules(playlist(10, 4), playlist(11, 4, disc_seq=1)))

    def test_target_duration_changes(self):
        self.assertIn("target", rules(playlist(0, 4), playlist(0, 5, target=3)))

    def test_extinf_above_the_target(self):
        self.assertIn("target", load_rules(playlist(0, 4, extra={2: 2.6})))
        self.assertEqual(load_rules(playlist(0, 4, extra={2: 2.4}, jumps={3: 0.4})) - {"dates"}, set())

    def test_window_below_three_target_durations_after_a_removal(self):
        self.assertIn("target", rules(playlist(0, 3), playlist(1, 2, target=2)))
        # Short at the start, before anything is removed: allowed.
        self.assertEqual(rules(playlist(0, 1), playlist(0, 2)), set())

    def test_changed_after_endlist(self):
        self.assertIn("endlist", rules(playlist(0, 4, endlist=True), playlist(0, 5, endlist=True)))
        self.assertIn("endlist", rules(playlist(0, 4, endlist=True), playlist(0, 4)))

    def test_date_not_continuous(self):
        self.assertIn("dates", load_rules(playlist(0, 4, jumps={2: 0.01})))

    def test_date_back_at_a_discontinuity(self):
        self.assertIn("dates", load_rules(playlist(0, 4, jumps={2: -0.5}, discontinuities={2})))

    def test_date_forward_a_target_duration_at_a_discontinuity(self):
        self.assertIn("dates", load_rules(playlist(0, 4, jumps={2: 2.0}, discontinuities={2})))
        self.assertEqual(load_rules(playlist(0, 4, jumps={2: 1.99}, discontinuities={2})), set())

    def test_a_segment_without_a_date(self):
        text = playlist(0, 4).replace(f"#EXT-X-PROGRAM-DATE-TIME:{date(4)}\n", "")
        self.assertIn("dates", load_rules(text))

    def test_date_range_removed_while_in_the_window(self):
        rng = f'#EXT-X-DATERANGE:ID="ssai-1",START-DATE="{date(4)}",DURATION=6.0'
        self.assertIn("dateranges", rules(playlist(0, 6, dateranges=[rng]), playlist(1, 6)))

    def test_date_range_changes_an_attribute(self):
        a = f'#EXT-X-DATERANGE:ID="ssai-1",START-DATE="{date(4)}",DURATION=6.0'
        b = f'#EXT-X-DATERANGE:ID="ssai-1",START-DATE="{date(4)}",DURATION=8.0'
        self.assertIn("dateranges", rules(playlist(0, 6, dateranges=[a]), playlist(0, 7, dateranges=[b])))

    def test_date_range_changes_an_attribute_after_leaving_and_coming_back(self):
        a = f'#EXT-X-DATERANGE:ID="r",START-DATE="{date(40)}",DURATION=6.0'
        b = f'#EXT-X-DATERANGE:ID="r",START-DATE="{date(40)}",DURATION=7.0'
        checker = Checker()
        for k, text in enumerate([playlist(0, 4, dateranges=[a]), playlist(0, 5), playlist(0, 6, dateranges=[b])]):
            checker.feed(text, k * 0.5)
        self.assertIn("dateranges", {v["rule"] for v in checker.violations})

    def test_a_stall(self):
        checker = Checker()
        checker.feed(playlist(0, 4), 0.0)
        checker.feed(playlist(0, 4), 2.0)
        checker.feed(playlist(0, 5), 3.5)  # unchanged for 3.5 s > 1.5 x 2 s
        checker.finish(3.6)
        self.assertEqual([v["rule"] for v in checker.violations], ["stall"])

    def test_no_stall_at_the_pace_of_segments(self):
        checker = Checker()
        for k in range(6):
            checker.feed(playlist(0, 4 + k), 2.0 * k)
        checker.finish(11.0)
        self.assertEqual(checker.violations, [])

    def test_a_parse_error_is_reported(self):
        self.assertIn("parse", load_rules("#EXTM3U\n#EXT-X-TARGETDURATION:2\nseg.ts\n"))
        self.assertIn("parse", load_rules("#EXT-X-TARGETDURATION:2\n#EXTINF:2,\nseg.ts\n"))


class Parsing(unittest.TestCase):
    def test_ffmpeg_dates_and_maps(self):
        text = ("#EXTM3U\n#EXT-X-VERSION:7\n#EXT-X-TARGETDURATION:2\n#EXT-X-MEDIA-SEQUENCE:5\n"
                '#EXT-X-MAP:URI="init.mp4"\n#EXTINF:2.000000,\n#EXT-X-PROGRAM-DATE-TIME:2026-11-27T12:48:25.180+0000\n'
                "seg5.m4s\n#EXT-X-CUE-OUT:DURATION=16\n#EXTINF:2.000000,\n"
                "#EXT-X-PROGRAM-DATE-TIME:2026-11-27T13:48:27.180+0100\nseg6.m4s\n")
        p = parse(text)
        self.assertEqual(p.errors, [])
        self.assertEqual([s.msn for s in p.segments], [5, 6])
        self.assertEqual(p.segments[1].date - p.segments[0].date, 2)
        self.assertEqual(p.segments[1].map, "init.mp4")
        self.assertEqual(p.segments[1].cues, ["EXT-X-CUE-OUT:DURATION=16"])
        self.assertEqual(check_load(p), [])


if __name__ == "__main__":
    unittest.main()
