#!/usr/bin/env bash
# How the committed MP4 seeds in Tests/Fuzz/seeds/mp4 were made (needs ffmpeg and python3): tiny
# complete clips (a few KiB: B-frames and ctts, edit lists, audio only, video only with moov at the
# end, MPEG-4 part 2), plus the ftyp+moov of two fixtures (their samples then lie past the end of
# the file, which the reader must report). HLS and schedule seeds are hand-written text files.
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
