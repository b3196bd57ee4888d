#!/usr/bin/env bash
# Regenerates the committed MP4 fixtures with ffmpeg (tested with ffmpeg 5.1, libx264, native aac).
#
#   Fixtures/generate.sh            # writes the clips next to this script
#
# Every clip is synthetic (lavfi test sources and sine tones), so nothing here has a licence or a
# download. Determinism: -fflags +bitexact and -flags +bitexact keep the version strings and
# creation times out of the files, -map_metadata -1 drops inherited tags, -threads 1 keeps x264's
# output independent of the machine's core count, and -sc_threshold 0 keeps keyframes on the fixed
# grid given by -g (no scene-cut keyframes). The sources themselves have no randomness.
#
# What each clip is for (the stitcher tests rely on these properties):
#   content.mp4   20 s, testsrc2 + frame counter, 24 fps, H.264 High with B-frames (-bf 3),
#                 keyframe every 48 frames (2 s), AAC-LC 48 kHz stereo (1024 samples of priming,
#                 hidden by the edit list ffmpeg writes). moov after mdat (ffmpeg's default).
#   content2.mp4  16 s, testsrc (its own counter) + frame counter, 25 fps, H.264 with B-frames,
#                 keyframe every 48 frames (1.92 s), AAC-LC 48 kHz stereo, written with
#                 negative_cts_offsets (ctts version 1, signed composition offsets).
#   ad1.mp4       10 s, smptebars + frame counter, 30 fps, H.264 Main without B-frames, keyframe every
#                 30 frames, AAC-LC 44.1 kHz mono. moov first (+faststart).
#   ad2.mp4       29.97 fps (30000/1001), smptehdbars + counter, no B-frames, 6 s of video and
#                 7 s of audio (AAC-LC 44.1 kHz mono): the ad whose audio runs longer than its video.
#   bumper-video-only.mp4   2 s, 30 fps, no audio track at all.
#   jingle-audio-only.mp4   2 s of AAC-LC 48 kHz stereo, no video track at all.
#   mpeg4-part2.mp4         1 s of MPEG-4 Part 2 video (mp4v) + AAC: a different video codec, for the
#                           "two codecs in one track" error.
#   web-ad.mp4    6 s, smptebars + counter, 30 fps, H.264 Main without B-frames, keyframe every 30
#                 frames, AAC-LC 48 kHz stereo like content.mp4's: an ad the web-safe output can
#                 join with the content (one audio format; its own SPS/PPS, carried in-band).
set -euo pipefail
cd "$(dirname "$0")"

FFMPEG=${FFMPEG:-ffmpeg}
FONT=${FONT:-/usr/share/fonts/truetype/dejavu/DejaVuSansMono-Bold.ttf}
command -v "$FFMPEG" >/dev/null || { echo "error: ffmpeg not found" >&2; exit 1; }
FILTERS=$("$FFMPEG" -hide_banner -filters 2>/dev/null)
grep -q ' drawtext ' <<<"$FILTERS" ||
    { echo "error: this ffmpeg has no drawtext filter (needs --enable-libfreetype)" >&2; exit 1; }
[ -f "$FONT" ] || { echo "error: font $FONT not found (set FONT=/path/to/font.ttf)" >&2; exit 1; }

# A burnt-in, zero-padded frame number, so every frame of every clip hashes differently.
counter() { echo "drawtext=fontfile=$FONT:text='%{eif\\:n\\:d\\:5}':x=8:y=8:fontsize=24:fontcolor=white:box=1:boxcolor=black"; }

GLOBAL=(-hide_banner -v error -y)
OUT=(-fflags +bitexact -map_metadata -1 -threads 1)
X264=(-c:v libx264 -preset veryfast -pix_fmt yuv420p -sc_threshold 0 -crf 32 -flags:v +bitexact)
AAC=(-c:a aac -flags:a +bitexact)

# content.mp4: 24 fps, B-frames, GOP 48, AAC 48 kHz stereo.
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -i "testsrc2=size=320x180:rate=24,$(counter)" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t 20 "${X264[@]}" -profile:v high -bf 3 -g 48 -keyint_min 48 \
    "${AAC[@]}" -b:a 64k -ac 2 -ar 48000 \
    "${OUT[@]}" content.mp4

# content2.mp4: 25 fps, B-frames, GOP 48, signed ctts (version 1).
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -i "testsrc=size=320x180:rate=25,$(counter)" \
    -f lavfi -i "sine=frequency=550:sample_rate=48000" \
    -t 16 "${X264[@]}" -profile:v high -bf 2 -g 48 -keyint_min 48 \
    "${AAC[@]}" -b:a 64k -ac 2 -ar 48000 \
    -movflags +negative_cts_offsets \
    "${OUT[@]}" content2.mp4

# ad1.mp4: 30 fps, no B-frames, GOP 30, AAC 44.1 kHz mono, moov first.
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -i "smptebars=size=320x180:rate=30,$(counter)" \
    -f lavfi -i "sine=frequency=880:sample_rate=44100" \
    -t 10 "${X264[@]}" -profile:v main -bf 0 -g 30 -keyint_min 30 \
    "${AAC[@]}" -b:a 48k -ac 1 -ar 44100 \
    -movflags +faststart \
    "${OUT[@]}" ad1.mp4

# ad2.mp4: 29.97 fps, no B-frames, 6 s of video but 7 s of audio.
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -t 6 -i "smptehdbars=size=320x180:rate=30000/1001,$(counter)" \
    -f lavfi -t 7 -i "sine=frequency=660:sample_rate=44100" \
    "${X264[@]}" -profile:v main -bf 0 -g 30 -keyint_min 30 \
    "${AAC[@]}" -b:a 48k -ac 1 -ar 44100 \
    -movflags +faststart \
    "${OUT[@]}" ad2.mp4

# bumper-video-only.mp4: video and no audio track.
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -i "color=c=navy:size=320x180:rate=30,$(counter)" \
    -t 2 "${X264[@]}" -profile:v main -bf 0 -g 30 -keyint_min 30 -an \
    "${OUT[@]}" bumper-video-only.mp4

# jingle-audio-only.mp4: audio and no video track.
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -i "sine=frequency=330:sample_rate=48000" \
    -t 2 "${AAC[@]}" -b:a 64k -ac 2 -ar 48000 -vn \
    "${OUT[@]}" jingle-audio-only.mp4

# mpeg4-part2.mp4: MPEG-4 Part 2 video, a codec the H.264 track cannot take.
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -i "testsrc=size=320x180:rate=25" \
    -f lavfi -i "sine=frequency=440:sample_rate=48000" \
    -t 1 -c:v mpeg4 -q:v 10 -flags:v +bitexact "${AAC[@]}" -b:a 64k -ac 2 \
    "${OUT[@]}" mpeg4-part2.mp4

# web-ad.mp4: ad1's picture at 48 kHz stereo (the content's audio format).
"$FFMPEG" "${GLOBAL[@]}" \
    -f lavfi -i "smptebars=size=320x180:rate=30,$(counter)" \
    -f lavfi -i "sine=frequency=770:sample_rate=48000" \
    -t 6 "${X264[@]}" -profile:v main -bf 0 -g 30 -keyint_min 30 \
    "${AAC[@]}" -b:a 64k -ac 2 -ar 48000 \
    -movflags +faststart \
    "${OUT[@]}" web-ad.mp4

ls -l ./*.mp4

# The HLS fixtures (Fixtures/hls/), made from the clips above.
./generate-hls.sh
