#!/usr/bin/env bash
# How the committed MP4 seeds in Tests/Fuzz/seeds/mp4 were made (needs ffmpeg and python3): tiny
# complete clips (a few KiB: B-frames and ctts, edit lists, audio only, video only with moov at the
# end, MPEG-4 part 2), the ftyp+moov of two fixtures (their samples then lie past the end of the
# file, which the reader must report), and a 2.4 MB audio clip whose stsd holds the most sample
# descriptions a track may have (65,536; its chunk uses the last), so that inputs of megabytes and
# description counts past the limit are a mutation away. HLS and schedule seeds are hand-written
# text files. The segments seeds come last.
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

# Segments seeds (the `segments` target, see SegmentsFuzzHarness): five header bytes (flags, cut 1,
# cut 2), then the media, cut where ffmpeg's HLS muxer cut it. MPEG-TS with H.264 (B-frames) and
# AAC, with HEVC, video only, audio only, and two encodes after a discontinuity; fragmented MP4 with
# its init section.
dir=Tests/Fuzz/seeds/segments
mkdir -p "$dir"
work=$(mktemp -d)
trap 'rm -rf "$work"' EXIT
hls() {  # NAME SEGMENT_TYPE INPUT_AND_CODEC_ARGUMENTS...
  local name=$1 type=$2; shift 2
  mkdir -p "$work/$name"
  $F "$@" -f hls -hls_time 0.4 -hls_playlist_type vod -hls_segment_type "$type" \
    -hls_fmp4_init_filename init.mp4 -hls_segment_filename "$work/$name/s%d.seg" "$work/$name/index.m3u8"
}
video=(-f lavfi -i testsrc=size=64x64:rate=10)
audio=(-f lavfi -i sine=frequency=440:sample_rate=8000)
h264=(-c:v libx264 -preset ultrafast -bf 2 -x264-params keyint=4:min-keyint=4:scenecut=0)
hls ts-h264-aac mpegts "${video[@]}" "${audio[@]}" -t 0.8 "${h264[@]}" -c:a aac -b:a 8k -ac 1
hls ts-hevc-aac mpegts "${video[@]}" "${audio[@]}" -t 0.8 -c:v libx265 -preset ultrafast \
  -x265-params keyint=4:min-keyint=4:scenecut=0:log-level=error -c:a aac -b:a 8k -ac 1
hls ts-video-only mpegts "${video[@]}" -t 0.4 "${h264[@]}"
hls ts-audio-only mpegts "${audio[@]}" -t 0.4 -c:a aac -b:a 8k -ac 1
hls ts-second-encode mpegts -f lavfi -i testsrc2=size=64x64:rate=10 "${audio[@]}" -t 0.4 "${h264[@]}" -c:a aac -b:a 8k -ac 1
hls fmp4-h264-aac fmp4 "${video[@]}" "${audio[@]}" -t 0.8 "${h264[@]}" -c:a aac -b:a 8k -ac 1
python3 - "$work" "$dir" <<'PY'
import os, struct, sys
work, out = sys.argv[1], sys.argv[2]
def read(name, file): return open(os.path.join(work, name, file), 'rb').read()
def seed(name, flags, parts):
    media = b''.join(parts)
    cuts = [0, 0]
    if flags & 1:   # init, segment 1, segment 2
        cuts = [len(parts[0]), len(parts[0]) + len(parts[1])] if len(parts) > 2 else [len(parts[0]), 0]
    elif len(parts) > 1:
        cuts = [len(parts[0]), 0]
    assert len(media) <= 65536 and all(c < 65536 for c in cuts), (name, len(media), cuts)
    open(os.path.join(out, name + '.bin'), 'wb').write(struct.pack('>BHH', flags, *cuts) + media)
seed('ts-h264-aac', 0, [read('ts-h264-aac', 's0.seg'), read('ts-h264-aac', 's1.seg')])
seed('ts-hevc-aac', 0, [read('ts-hevc-aac', 's0.seg'), read('ts-hevc-aac', 's1.seg')])
seed('ts-video-only', 0, [read('ts-video-only', 's0.seg')])
seed('ts-audio-only', 0, [read('ts-audio-only', 's0.seg')])
seed('ts-discontinuity', 2, [read('ts-h264-aac', 's0.seg'), read('ts-second-encode', 's0.seg')])
seed('fmp4-h264-aac', 1, [read('fmp4-h264-aac', 'init.mp4'), read('fmp4-h264-aac', 's0.seg'), read('fmp4-h264-aac', 's1.seg')])
PY

# Packaging seeds (the `packaging` target: an MP4 file packaged into segments): the MP4 seeds with
# video or audio to package, and a clip of HEVC with AAC.
dir=Tests/Fuzz/seeds/packaging
mkdir -p "$dir"
cp Tests/Fuzz/seeds/mp4/{av-bframes,av-noeditlist,video-only,audio-only}.mp4 "$dir/"
$F "${video[@]}" "${audio[@]}" -t 0.8 -c:v libx265 -preset ultrafast -x265-params keyint=4:min-keyint=4:scenecut=0:log-level=error \
  -tag:v hvc1 -c:a aac -b:a 8k -ac 1 -movflags +faststart "$dir/hevc-aac.mp4"
