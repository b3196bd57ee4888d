#!/usr/bin/env python3
"""How Linux's copy_file_range speed depends on where a copy lands (issue 17).

    python3 Benchmarks/render/copy_phase.py FILE [REPS]

Copies FILE (a large, cached file: a render benchmark source, say) into new unnamed files in
FILE's folder three ways, each REPS times (default 7) in turn, and prints the fastest of each:

  phase + 64 KiB steps   output at the source's offset modulo 4 KiB, the first call ending on a
                         64 KiB boundary of the output (what the stitcher does)
  phase only             the same offsets, one call
  other phase            the output 1,000 bytes further on modulo 4 KiB, one call

The copies are cut as a render's are: 5,156,205-byte ranges starting 48 bytes in, 520,000 bytes
apart in the output (where a render writes an ad). No fsync: this is the copying alone.
"""
import os
import sys
import time

RANGE = 5_156_205
GAP = 520_000


def copy(source, folder, shift, split):
    out = os.open(folder, os.O_WRONLY | os.O_TMPFILE, 0o644)
    size = os.fstat(source).st_size
    start = time.perf_counter()
    offset, position = 48, 0
    while offset + RANGE <= size:
        position += GAP
        position += (offset + shift - position) % 4096
        done = 0
        if split:
            head = (-position) % 65536
            while done < head:
                done += os.copy_file_range(source, out, head - done, offset + done, position + done)
        while done < RANGE:
            done += os.copy_file_range(source, out, RANGE - done, offset + done, position + done)
        offset += RANGE
        position += RANGE
    elapsed = time.perf_counter() - start
    os.close(out)
    return elapsed, offset - 48


def main():
    path = sys.argv[1]
    reps = int(sys.argv[2]) if len(sys.argv) > 2 else 7
    source = os.open(path, os.O_RDONLY)
    folder = os.path.dirname(os.path.abspath(path))
    with open(path, "rb") as f:  # into the page cache
        while f.read(1 << 24):
            pass
    ways = {"phase + 64 KiB steps": (0, True), "phase only": (0, False), "other phase": (1000, False)}
    best = {name: float("inf") for name in ways}
    copied = 0
    for _ in range(reps):
        for name, (shift, split) in ways.items():
            elapsed, copied = copy(source, folder, shift, split)
            best[name] = min(best[name], elapsed)
    print(f"{copied / 1e6:.0f} MB in {RANGE:,}-byte copies, fastest of {reps}:")
    for name, elapsed in best.items():
        print(f"  {name:22} {elapsed * 1000:6.1f} ms  {copied / elapsed / 1e9:5.2f} GB/s")
    print(f"  other phase / phase + 64 KiB steps = {best['other phase'] / best['phase + 64 KiB steps']:.2f}x")


if __name__ == "__main__":
    main()
