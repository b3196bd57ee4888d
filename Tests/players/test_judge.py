#!/usr/bin/env python3
"""The player matrix's judge, on made-up playbacks (no player, no media): what a cell calls right.

    python3 Tests/players/test_judge.py

Two seconds of one 30 fps source, frame k scheduled at k/30 s:

    expected  0 1 2 3 4 5 6 7 8 9 ...
    every     0 1 2 3 4 5 6 7 8 9 ...   a player that hands back every frame
    sampled   0 1 2 3 4 . 6 7 8 9 ...   headless Firefox: one frame in six unseen, its own count whole

A player in real time (hls.js, dash.js, Shaka) also hands back when it showed each frame:

    media     0 ... 0.5  0.533 ...        1.0  1.033
    wall      0 ... 0.5  0.533+0.6 ...    1.0+0.6    a stall of 0.6 s after frame 15
"""

import sys
import unittest
from fractions import Fraction
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from matrix import STALL, Counted, SAMPLING_GAP, Shown, judge, longest_stall  # noqa: E402

FRAMES = 60
EXPECTED = [("a.mp4", k, Fraction(k, 30), False) for k in range(FRAMES)]
WHOLE = Counted(FRAMES, 0, 0)


def played(indices, late=lambda k: 0):
    """What a player hands back: frames `indices`, each at its time plus late(k)."""
    return [Shown(Fraction(k, 30) + late(k)) for k in indices], [("a.mp4", k) for k in indices]


def sampled(unseen=()):
    return [k for k in range(FRAMES) if k % 6 != 5 and k not in unseen]


class EveryFrame(unittest.TestCase):
    def test_all_frames_on_time(self):
        self.assertEqual(judge(EXPECTED, *played(range(FRAMES))), (True, "60/60"))

    def test_a_missing_frame(self):
        right, cell = judge(EXPECTED, *played([k for k in range(FRAMES) if k != 20]))
        self.assertFalse(right)
        self.assertIn("first missing at 0.67 s", cell)

    def test_a_constant_start_offset_is_not_late(self):
        right, cell = judge(EXPECTED, *played(range(FRAMES), late=lambda k: Fraction(1, 10)))
        self.assertTrue(right)
        self.assertIn("starts at +0.100 s", cell)

    def test_late_after_a_frame(self):
        right, cell = judge(EXPECTED, *played(range(FRAMES), late=lambda k: Fraction(1, 10) if k > 30 else 0))
        self.assertFalse(right)
        self.assertIn("off by up to +0.100 s", cell)


class Sampler(unittest.TestCase):
    def test_one_in_six_unseen_with_a_whole_count(self):
        self.assertEqual(judge(EXPECTED, *played(sampled()), WHOLE),
                         (True, "60/60 by its count (50 sampled, every one right, at most 1 in a row unseen)"))

    def test_the_most_frames_in_a_row_unseen(self):
        # Frame 11 is unseen anyway (one in six): these end at it.
        right, cell = judge(EXPECTED, *played(sampled(unseen=range(12 - SAMPLING_GAP, 11))), WHOLE)
        self.assertTrue(right)
        self.assertIn(f"at most {SAMPLING_GAP} in a row unseen", cell)
        right, cell = judge(EXPECTED, *played(sampled(unseen=range(11 - SAMPLING_GAP, 11))), WHOLE)
        self.assertFalse(right)
        self.assertIn(f"{SAMPLING_GAP + 1} frames in a row unseen at {(11 - SAMPLING_GAP) / 30:.2f} s", cell)

    def test_its_count_must_be_whole(self):
        for count in (Counted(FRAMES, 2, 0), Counted(FRAMES, 0, 1), Counted(FRAMES - 1, 0, 0)):
            right, cell = judge(EXPECTED, *played(sampled()), count)
            self.assertFalse(right)
            self.assertIn(str(count), cell)

    def test_pictures_out_of_order(self):
        indices = sampled()
        indices[3], indices[4] = indices[4], indices[3]
        right, cell = judge(EXPECTED, *played(indices), WHOLE)
        self.assertFalse(right)
        self.assertIn("1 not scheduled", cell)

    def test_one_wrong_picture_is_one_not_scheduled(self):
        # Of another source, or of this one out of place (not a jump that leaves the rest behind).
        for wrong in (("b.mp4", 10), ("a.mp4", 50)):
            with self.subTest(wrong=wrong):
                shown, found = played(sampled())
                found[10] = wrong
                right, cell = judge(EXPECTED, shown, found, WHOLE)
                self.assertFalse(right)
                self.assertIn("1 not scheduled", cell)

    def test_late_pictures(self):
        right, cell = judge(EXPECTED, *played(sampled(), late=lambda k: Fraction(1, 10) if k > 30 else 0), WHOLE)
        self.assertFalse(right)
        self.assertIn("off by up to", cell)

    def test_a_time_reported_past_the_next_one(self):
        shown, found = played(sampled())
        shown[10] = Shown(shown[10].time + Fraction(1, 5))
        right, cell = judge(EXPECTED, shown, found, WHOLE)
        self.assertTrue(right)
        self.assertIn("1 sample times out of order, not judged", cell)

    def test_a_slipped_first_report_does_not_shift_the_rest(self):
        shown, found = played(sampled())
        shown[0] = Shown(Fraction(1, 15))  # frame 0 reported at frame 2's time
        right, cell = judge(EXPECTED, shown, found, WHOLE)
        self.assertTrue(right, cell)
        self.assertNotIn("starts at", cell)


class PresentedBetweenCallbacks(unittest.TestCase):
    """A browser's presentedFrames counts a frame it presented between two callbacks."""

    @staticmethod
    def shown_without(missing, counted):
        shown, found = played([k for k in range(FRAMES) if k != missing])
        presented = 0
        for picture, (_, k) in zip(shown, found):
            presented += 2 if k == missing + 1 and counted else 1
            picture.presented = presented
        return shown, found

    def test_a_frame_presented_between_callbacks_is_shown(self):
        right, cell = judge(EXPECTED, *self.shown_without(20, counted=True))
        self.assertTrue(right, cell)
        self.assertEqual(cell, "60/60; 1 presented between callbacks")

    def test_a_frame_never_presented_is_missing(self):
        right, cell = judge(EXPECTED, *self.shown_without(20, counted=False))
        self.assertFalse(right)
        self.assertEqual(cell, "59/60; first missing at 0.67 s")


class Stalls(unittest.TestCase):
    """longest_stall: a wait between two pictures beyond what their media times say."""

    @staticmethod
    def shown(wait_after=15, wait=Fraction(0), skip=Fraction(0), rate=1):
        frames = []
        for k in range(FRAMES):
            media = Fraction(k, 30) + (skip if k > wait_after else 0)
            wall = Fraction(k, 30) / rate + (wait if k > wait_after else 0)
            frames.append(Shown(media, wall=wall))
        return frames

    def test_no_wait(self):
        self.assertIsNone(longest_stall(self.shown(), 1))

    def test_a_wait_over_the_bound_is_a_stall_where_it_began(self):
        self.assertEqual(longest_stall(self.shown(wait=Fraction(3, 5)), 1), (Fraction(3, 5), Fraction(15, 30)))

    def test_a_wait_at_the_bound_is_not(self):
        self.assertIsNone(longest_stall(self.shown(wait=STALL), 1))

    def test_skipping_forward_is_no_stall(self):
        self.assertIsNone(longest_stall(self.shown(skip=Fraction(2)), 1))

    def test_a_slowed_playback_is_measured_at_its_rate(self):
        self.assertIsNone(longest_stall(self.shown(rate=Fraction(1, 2)), Fraction(1, 2)))
        self.assertIsNotNone(longest_stall(self.shown(wait=Fraction(2), rate=Fraction(1, 2)), Fraction(1, 2)))


if __name__ == "__main__":
    unittest.main()
