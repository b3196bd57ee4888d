#!/usr/bin/env python3
"""A/V offset at each join: where players put each piece's sound against its picture.

    python3 Tests/players/av_offset.py [--players ffmpeg,gstreamer,mpv] [--outputs mp4-sample,...]
                                       [--work DIR]

Each output (the player matrix's, made the same way) is played by each player, which hands back
the pictures it shows (identified as the matrix identifies them) and the sound it plays, both on
the player's own clock:

    ffmpeg     every decoded audio frame at its presentation time (the edit lists applied).
    gstreamer  playbin, the audio sink's input at running time, clipped to its segments.
    mpv        its PCM output, in the same run as the pictures, from the first picture's time.

Every source of the demo plays a tone of its own (Fixtures/generate.sh: 330-880 Hz, none shared
by neighbours) or none. At each join, the picture's switch is when the player shows the next
piece's first frame; the sound's switch is where the played tone changes, found by the lengths of
its half-waves (a half-wave within 4% of the tone's is that tone; less than 1% of full level is
silence), at the point that best separates the two tones. AAC's overlapping frames blur a switch
over at most one frame (21-23 ms); the point is read to about a millisecond where the switch is
clean.

A cell gives, for each join, the sound's switch minus the picture's (positive: sound late), and
"-" where the player did not show the join. VLC hands back neither picture times nor a clocked
sound, so it has no column; the browsers stop at the sample-accurate MP4's first join (see the
matrix).
"""

import argparse
import re
import shutil
import subprocess
import sys
import tempfile
from fractions import Fraction
from pathlib import Path

import matrix
from matrix import ROOT, OUTPUTS, Sound, SourceFrames, built_demo, expected_frames, matched_frames, run

TONE_TOLERANCE = 0.04
SILENCE = 0.01


def play_ffmpeg(path, scratch, sound):
    """ffmpeg's pictures, and every audio frame it decodes placed at its presentation time."""
    import numpy
    raw = scratch / "sound.f32"
    log = subprocess.run(["ffmpeg", "-hide_banner", "-y", "-i", str(path), "-map", "0:a:0", "-af",
                          f"aresample={sound.rate},aformat=sample_fmts=flt:channel_layouts=mono,ashowinfo",
                          "-f", "f32le", str(raw)], check=True, capture_output=True, text=True, timeout=600).stderr
    samples = numpy.fromfile(raw, numpy.float32)
    position = 0
    for line in log.splitlines():
        if m := re.search(r"Parsed_ashowinfo.* pts:(-?\d+) .*nb_samples:(\d+)", line):
            count = int(m.group(2))
            sound.place(Fraction(int(m.group(1)), sound.rate), samples[position:position + count])
            position += count
    return matrix.play_ffmpeg(path, scratch)


PLAYERS = {
    "ffmpeg": ("ffmpeg", play_ffmpeg),
    "gstreamer": ("GStreamer", matrix.play_gstreamer),
    "mpv": ("mpv", matrix.play_mpv),
}


def tone(url, start):
    """The frequency of the tone a source plays from `start` (s), or None when it has no sound."""
    import numpy
    raw = run("ffprobe", "-v", "error", "-select_streams", "a", "-show_entries", "stream=index",
              "-of", "csv=p=0", ROOT / url)
    if not raw.strip():
        return None
    data = subprocess.run(["ffmpeg", "-v", "error", "-ss", str(float(start) + 0.1), "-i", str(ROOT / url),
                           "-t", "0.5", "-map", "0:a:0", "-ac", "1", "-ar", str(Sound.rate),
                           "-f", "f32le", "-"], check=True, capture_output=True).stdout
    halves = half_waves(numpy.frombuffer(data, numpy.float32))
    return float(1 / (2 * numpy.median(halves[1]))) if len(halves[1]) else None


def half_waves(samples):
    """(middles, lengths) of the half-waves between zero crossings, in seconds."""
    import numpy
    sign = numpy.signbit(samples)
    crossings = numpy.nonzero(sign[1:] != sign[:-1])[0]
    # Where between the two samples the signal crosses zero (linear; a sign flip of zero at zero).
    a, b = samples[crossings], samples[crossings + 1]
    with numpy.errstate(divide="ignore", invalid="ignore"):
        fraction = numpy.nan_to_num(a / (a - b))
    at = (crossings + fraction) / Sound.rate
    return (at[1:] + at[:-1]) / 2, numpy.diff(at)


def sound_switch(sound, before, after, around, reach):
    """When the played sound changes from the tone `before` to `after` (None: silence), looking
    `reach` s either side of `around`; None when neither is heard there."""
    import numpy
    lo = max(0, round((around - reach) * Sound.rate))
    hi = min(len(sound.samples), round((around + reach) * Sound.rate))
    samples = sound.samples[lo:hi].astype(numpy.float64)
    if len(samples) < Sound.rate // 100:
        return None
    # Per millisecond: silent or not, and the tone of the half-wave whose middle is in it.
    step = Sound.rate // 1000
    count = len(samples) // step
    blocks = samples[:count * step].reshape(count, step)
    level = numpy.sqrt((blocks ** 2).mean(axis=1))
    silent = level < SILENCE * numpy.percentile(numpy.abs(samples), 99.9)
    middles, lengths = half_waves(samples)
    frequency = numpy.full(count, numpy.nan)
    index = numpy.clip((middles * 1000).astype(int), 0, count - 1)
    with numpy.errstate(divide="ignore"):
        frequency[index] = 1 / (2 * lengths)

    def heard(tone):
        if tone is None:
            return silent
        return ~silent & (numpy.abs(frequency - tone) < TONE_TOLERANCE * tone)

    first, second = heard(before), heard(after)
    if not first.any() or not second.any():
        return None
    # The split with the most of the first tone before it and of the second after it.
    score = numpy.concatenate([[0], numpy.cumsum(first)]) + \
        numpy.concatenate([numpy.cumsum(second[::-1])[::-1], [0]])
    split = int(score.argmax())
    return Fraction(lo + split * step, Sound.rate)


def expected_by_piece(timeline, sources):
    """The composition's expected frames (see `matrix.expected_frames`), and each one's piece."""
    expected, piece_of = [], []
    for number, piece in enumerate(timeline["segments"]):
        frames = expected_frames({"segments": [piece]}, sources)
        expected += frames
        piece_of += [number] * len(frames)
    return expected, piece_of


def picture_switches(expected, piece_of, pieces, shown, found):
    """For each piece after the first: the time the player showed its first scheduled frame, minus
    that frame's composition time (None when it did not show the piece)."""
    shifts = {}
    for a, b in matched_frames(expected, found):
        if not expected[a][3] and shown[b].time is not None and piece_of[a] not in shifts:
            shifts[piece_of[a]] = shown[b].time - expected[a][2]
    return [shifts.get(number) for number in range(1, pieces)]


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--players", default=",".join(PLAYERS))
    parser.add_argument("--outputs", default="mp4-sample")
    parser.add_argument("--work", type=Path, help="keep the outputs here (default: a temporary folder)")
    args = parser.parse_args()
    players = [p for p in args.players.split(",") if p]
    if unknown := [p for p in players if p not in PLAYERS]:
        sys.exit(f"error: unknown player {unknown} (known: {', '.join(PLAYERS)})")
    outputs = [o for o in OUTPUTS if o.name in args.outputs.split(",")]
    if not outputs:
        sys.exit(f"error: no output named {args.outputs!r} (known: {', '.join(o.name for o in OUTPUTS)})")

    demo = built_demo()
    work = args.work or Path(tempfile.mkdtemp(prefix="av-offset-"))
    work.mkdir(parents=True, exist_ok=True)
    sources = SourceFrames()
    for output in outputs:
        made = work / output.name
        output.make(demo, made)
        timeline = output.timeline(demo, made)
        pieces = timeline["segments"]
        # Each source plays one tone: read once per source, where its first piece starts.
        tone_of = {}
        for p in pieces:
            if p["url"] not in tone_of:
                tone_of[p["url"]] = tone(p["url"], Fraction(p["source"]["start"]))
        tones = [tone_of[p["url"]] for p in pieces]
        expected, piece_of = expected_by_piece(timeline, sources)
        urls = sorted({p["url"] for p in pieces})
        columns = []
        for name in players:
            scratch = Path(tempfile.mkdtemp(prefix=f"{name}-", dir=work))
            sound = Sound()
            shown, _ = PLAYERS[name][1](output.played(made), scratch, sound)
            found = sources.identify(shown, urls)
            cells = []
            for number, shift in enumerate(picture_switches(expected, piece_of, len(pieces), shown, found), start=1):
                before, after = tones[number - 1], tones[number]
                at = Fraction(pieces[number]["composition"]["start"])
                if shift is None:
                    cells.append("not shown")
                    continue
                if before == after or (before and after and abs(before - after) < TONE_TOLERANCE * before):
                    cells.append("same tone")
                    continue
                # Half the shorter neighbouring piece: the search stays between this join's neighbours.
                reach = min(at - Fraction(pieces[number - 1]["composition"]["start"]),
                            Fraction(pieces[number]["composition"]["end"]) - at) / 2
                switch = sound_switch(sound, before, after, at + shift, reach)
                cells.append("not heard" if switch is None else f"{float(switch - at - shift) * 1000:+.0f} ms"
                             f" (picture {float(shift) * 1000:+.0f} ms)")
            columns.append(cells)
            shutil.rmtree(scratch)
        print(f"\n{output.label}: sound's switch minus picture's at each join (picture: its switch "
              "against the composition)\n")
        print("| join | " + " | ".join(PLAYERS[p][0] for p in players) + " |")
        print("|---|" + "---|" * len(players))
        for number in range(1, len(pieces)):
            at = float(Fraction(pieces[number]["composition"]["start"]))
            join = f"{at:.3f} s: {Path(pieces[number - 1]['url']).name} -> {Path(pieces[number]['url']).name}"
            print(f"| {join} | " + " | ".join(column[number - 1] for column in columns) + " |")


if __name__ == "__main__":
    main()
