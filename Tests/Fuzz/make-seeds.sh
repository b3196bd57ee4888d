#!/usr/bin/env bash
# How the committed MP4 seeds in Tests/Fuzz/seeds/mp4 were made (needs ffmpeg and python3): tiny
# complete clips (a few KiB: B-frames and ctts, edit lists, audio only, video only with moov at the
# end, MPEG-4 part 2), the ftyp+moov of two fixtures (their samples then lie past the end of the
# file, which the reader must report), and a 2.4 MB audio clip whose stsd holds the most sample
# descriptions a track may have (65,536; its chunk uses the last), so that inputs of megabytes and
# description counts past the limit are a mutation away. HLS and schedule seeds are hand-written
# text files.
set -euo pipefail
cd "$(dirname "$0")/../.."
dir=Tests/Fuzz/seeds/mp4
F="ffmpeg -hide_banner -loglevel error -y"
$F -f lavfi -i testsrc=size=32x32:rate=10 -f lavfi -i sine=frequency=440:sample_rate=8000 -t 0.6 \
  -c:v libx264 -preset ultrafast -bf 2 -g 4 -x264-params keyint=4:min-keyint=4:scenecut=0 \
  -c:a aac -b:a 8k -ac 1 -movflags +faststart "$dir/av-bframes.mp4"
$F -f lavfi -i testsrc=size=32x32:rate=10 -t 0.5 -c:v libx264 -preset ultrafast -g 3 "$dir/video-only.mp4"
$F -f lavfi -i sine=frequency=440:sample_rate=8000 -t 0.4 -c:a aac -b:a 8k -ac 1 -movflags +faststart "$dir/audio-only.mp4"
$F -f lavfi -i testsrc=size=32x32:rate=10 -t 0.4 -c:v mpeg4 -g 2 -movflags +faststart "$dir/mpeg4-part2.mp4"
$F -f lavfi -i testsrc=size=32x32:rate=10 -f lavfi -i sine=frequency=440:sample_rate=8000 -t 0.5 \
  -c:v libx264 -preset ultrafast -c:a aac -b:a 8k -ac 1 -movflags +faststart -use_editlist 0 "$dir/av-noeditlist.mp4"
cp Fixtures/bumper-video-only.mp4 "$dir/"
moov_only() {
  python3 - "$1" "$2" <<'PY'
import struct, sys
data = open(sys.argv[1], 'rb').read()
out, offset = b'', 0
while offset < len(data):
    size, kind = struct.unpack('>I4s', data[offset:offset + 8])
    if kind in (b'ftyp', b'moov'):
        out += data[offset:offset + size]
    offset += size
open(sys.argv[2], 'wb').write(out)
PY
}
moov_only Fixtures/ad2.mp4 "$dir/ad2-moov-only.mp4"
moov_only Fixtures/jingle-audio-only.mp4 "$dir/jingle-moov-only.mp4"
# 65,536 identical 36-byte 'mp4a' entries (no esds: nothing needs AAC), ten 16-byte samples.
python3 - "$dir/many-descriptions.mp4" <<'PY'
import struct, sys
def box(kind, payload): return struct.pack('>I4s', 8 + len(payload), kind) + payload
def full(kind, payload, version=0, flags=0): return box(kind, struct.pack('>I', version << 24 | flags) + payload)
count, samples, size, delta, rate = 65536, 10, 16, 1024, 44100
entry = box(b'mp4a', bytes(6) + struct.pack('>H', 1) + bytes(8) + struct.pack('>HHHHI', 1, 16, 0, 0, rate << 16))
ftyp = box(b'ftyp', b'isom' + struct.pack('>I', 512) + b'isommp41')
def moov(chunk_offset):
    duration = samples * delta
    stbl = box(b'stbl',
        full(b'stsd', struct.pack('>I', count) + entry * count)
        + full(b'stts', struct.pack('>III', 1, samples, delta))
        + full(b'stsc', struct.pack('>IIII', 1, 1, samples, count))
        + full(b'stsz', struct.pack('>II', size, samples))
        + full(b'stco', struct.pack('>II', 1, chunk_offset)))
    mdia = box(b'mdia',
        full(b'mdhd', struct.pack('>IIIIHH', 0, 0, rate, duration, 0x55C4, 0))
        + full(b'hdlr', struct.pack('>I4s12s', 0, b'soun', bytes(12)) + b'many\0')
        + box(b'minf', full(b'smhd', bytes(4)) + stbl))
    identity = struct.pack('>9I', 0x10000, 0, 0, 0, 0x10000, 0, 0, 0, 0x40000000)
    tkhd = full(b'tkhd', struct.pack('>IIIII', 0, 0, 1, 0, duration * 1000 // rate) + bytes(8)
                + struct.pack('>hhHH', 0, 0, 0x100, 0) + identity + struct.pack('>II', 0, 0), flags=3)
    mvhd = full(b'mvhd', struct.pack('>IIII', 0, 0, 1000, duration * 1000 // rate) + struct.pack('>IH', 0x10000, 0x100)
                + bytes(10) + identity + bytes(24) + struct.pack('>I', 2))
    return box(b'moov', mvhd + box(b'trak', tkhd + mdia))
head = ftyp + moov(0)
data = ftyp + moov(len(head) + 8) + box(b'mdat', bytes(range(samples * size)))
open(sys.argv[1], 'wb').write(data)
PY
