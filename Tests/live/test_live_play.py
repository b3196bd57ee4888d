#!/usr/bin/env python3
"""live_play's judge on made-up playbacks (synthetic identities, no player, no media).

    python3 Tests/live/test_live_play.py

Content: 60 frames a segment (msn m frame f is ordinal 60 m + f); a break replaces msn 6-13
(CUE-OUT on 6, CUE-IN on 14: 16 s) with ad1 (300 frames at 30 fps) then ad2 (120 frames at
29.97 fps): 14.004 s of ads, 1.996 s short of the span.
"""

import sys
import unittest
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from live_play import judge, lateness  # noqa: E402

SEGMENT = 60
LENGTHS = {"ad1": 300, "ad2": 120}
FRAME = {"ad1": Fraction(1, 30), "ad2": Fraction(1001, 30000)}
FRAMES = {m: SEGMENT for m in range(40)}
BREAKS = [(6, 14), (18, 26)]


def content(first_msn, last_msn, first_f=0, last_f=SEGMENT - 1):
    out = []
    for msn in range(first_msn, last_msn + 1):
        for f in range(first_f if msn == first_msn else 0, (last_f if msn == last_msn else SEGMENT - 1) + 1):
            out.append(("content", msn * SEGMENT + f, msn, f))
    return out


def ad(name, first=0, last=None):
    return [("ad", name, f) for f in range(first, (LENGTHS[name] - 1 if last is None else last) + 1)]


def verdict(found, breaks=BREAKS):
    return judge(found, ad_lengths=LENGTHS, breaks=breaks, ad_frame=FRAME, target=2, segment_frames=FRAMES)


GOOD = content(1, 5) + ad("ad1") + ad("ad2") + content(14, 17) + ad("ad1") + ad("ad2") + content(26, 30)


class Good(unittest.TestCase):
    def test_two_breaks_replaced(self):
        result = verdict(GOOD)
        self.assertEqual(result["problems"], [])
        self.assertEqual(result["counts"]["breaks_replaced"], 2)
        self.assertEqual(result["runs"][:3], ["content msn 1 f0 .. msn 5 f59 (300)", "ad1 f0..f299 (300)",
                                              "ad2 f0..f119 (120)"])

    def test_content_back_at_the_boundary_before_the_ads_end(self):
        # 14.004 s of ads in place of 14 s of content (msn 6-12): back at msn 13, 4 ms late.
        found = content(1, 5) + ad("ad1") + ad("ad2") + content(13, 17)
        self.assertEqual(verdict(found)["problems"], [])

    def test_content_only(self):
        self.assertTrue(judge(content(0, 11))["ok"])

    def test_joined_mid_ad(self):
        found = ad("ad1", 150) + ad("ad2") + content(14, 17)
        self.assertEqual(verdict(found)["problems"], [])


class Bad(unittest.TestCase):
    def test_garbage(self):
        found = list(GOOD)
        found[400] = None
        self.assertIn("unidentified", " ".join(verdict(found)["problems"]))

    def test_a_repeated_frame(self):
        found = GOOD[:100] + [GOOD[99]] + GOOD[100:]
        self.assertIn("shown again", " ".join(verdict(found)["problems"]))

    def test_content_gap_without_ads(self):
        found = content(1, 3) + content(4, 5, first_f=1)
        self.assertIn("skips 1 frames", " ".join(judge(found)["problems"]))

    def test_content_goes_back(self):
        found = content(1, 5) + content(4, 6)
        self.assertIn("goes back", " ".join(judge(found)["problems"]))

    def test_an_ad_not_from_its_first_frame(self):
        found = content(1, 5) + ad("ad1", 30) + ad("ad2") + content(14, 17)
        self.assertIn("does not start at frame 0", " ".join(verdict(found)["problems"]))

    def test_an_ad_cut_short(self):
        found = content(1, 5) + ad("ad1", 0, 239) + ad("ad2") + content(14, 17)
        problems = " ".join(verdict(found)["problems"])
        self.assertIn("does not end at frame 299", problems)
        self.assertIn("ads last 12.004 s in place of 16.000 s", problems)  # 4 s short: more than a segment

    def test_an_ad_missing_frames_inside(self):
        found = content(1, 5) + ad("ad1", 0, 99) + ad("ad1", 101) + ad("ad2") + content(14, 17)
        self.assertIn("does not start at frame 0", " ".join(verdict(found)["problems"]))

    def test_ads_too_long_for_the_span(self):
        found = content(1, 5) + ad("ad1") + ad("ad2") + ad("ad2") + content(14, 17)
        problems = " ".join(verdict(found)["problems"])
        self.assertIn("ads last 18.008 s in place of 16.000 s", problems)

    def test_returns_to_content_late(self):
        found = content(1, 5) + ad("ad1") + ad("ad2") + content(15, 17)
        self.assertIn("starts at msn 15 f0, not at the first frame of msn 7 to 14", " ".join(verdict(found)["problems"]))

    def test_leaves_content_early(self):
        found = content(1, 4) + ad("ad1") + ad("ad2") + content(14, 17)
        self.assertIn("not with msn 5", " ".join(verdict(found)["problems"]))

    def test_leaves_content_mid_segment(self):
        found = content(1, 5, last_f=29) + ad("ad1") + ad("ad2") + content(14, 17)
        self.assertIn("ends at msn 5 f29", " ".join(verdict(found)["problems"]))

    def test_a_break_played_through(self):
        found = content(1, 17)
        self.assertIn("played through", " ".join(verdict(found)["problems"]))

    def test_ads_at_no_break(self):
        found = content(1, 2) + ad("ad1") + ad("ad2") + content(11, 12)
        self.assertIn("at no break", " ".join(verdict(found, breaks=[])["problems"]))

    def test_nothing_shown(self):
        self.assertFalse(judge([])["ok"])


class Lateness(unittest.TestCase):
    def test_ahead_of_real_time_is_not_late(self):
        self.assertEqual(lateness([0.0] * 60 + [2.0] * 60, [Fraction(1, 30)] * 120), (0.0, None))

    def test_a_stall(self):
        worst, at = lateness([0.0] * 60 + [5.0] * 60, [Fraction(1, 30)] * 120)
        self.assertAlmostEqual(worst, 3.0)
        self.assertEqual(at, 60)


if __name__ == "__main__":
    unittest.main()
