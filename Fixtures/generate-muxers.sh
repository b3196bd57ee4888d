#!/usr/bin/env bash
# Makes the MP4s "as people have them" that the stitcher's muxer table test reads
# (Tests/CompositorMP4Tests/MuxerFixtureTests.swift): files from a second muxer, GStreamer's
# mp4mux and qtmux, with x264, x265, AAC and MP3 from its own encoders, and ffmpeg's fragmented
# and CMAF output. Tested with GStreamer 1.22 and ffmpeg 5.1 (Debian 12):
#
#   apt-get install gstreamer1.0-tools gstreamer1.0-plugins-good gstreamer1.0-plugins-ugly \
#       gstreamer1.0-plugins-bad ffmpeg
#   Fixtures/generate-muxers.sh      # writes Fixtures/muxers/*
#
# Every clip is 3 s of a scrolling test pattern (a different picture every frame, so frame
# hashes tell frames apart) at 160x120, 24 fps, a keyframe every 24 frames, with a 440 Hz tone.
# GStreamer's muxers stamp a creation time, so a regenerated file differs in those bytes only.
#
#   gst-mp4mux-x264.mp4          mp4mux, x264 with B-frames, AAC (voaacenc)
#   gst-qtmux-x264.mov           qtmux (QuickTime), x264 with B-frames, AAC
#   gst-mp4mux-x264-mp3.mp4      mp4mux, x264, MP3 audio (lamemp3enc)
#   gst-mp4mux-x264-intra-refresh.mp4
#                                x264 intra refresh: one IDR, then P pictures flagged sync that
#                                are not decode starts
#   gst-mp4mux-x265-hvc1.mp4     x265 open GOP (CRA keyframes with leading pictures), hvc1
#   gst-mp4mux-x265-hev1.mp4     the same as hev1, parameter sets also in band at each keyframe
#   gst-mp4mux-fragmented.mp4    mp4mux fragmented (moof/traf/trun, 1 s fragments)
#   ffmpeg-fragmented.mp4        ffmpeg, empty moov + a fragment per keyframe, no sidx
#   ffmpeg-fragmented-sidx.mp4   the same with a global sidx
#   ffmpeg-cmaf.mp4              ffmpeg's CMAF flavour (+cmaf: default-base-is-moof, tfdt, styp-less)
#   ffmpeg-cmaf-global-sidx.mp4  the CMAF flavour with a global sidx (issue 50's wild-MP4 case)
set -euo pipefail
cd "$(dirname "$0")/muxers"
command -v gst-launch-1.0 >/dev/null || { echo "error: gst-launch-1.0 not found (gstreamer1.0-tools)" >&2; exit 1; }
command -v ffmpeg >/dev/null || { echo "error: ffmpeg not found" >&2; exit 1; }

VIDEO="videotestsrc num-buffers=72 pattern=smpte horizontal-speed=2 ! video/x-raw,format=I420,width=160,height=120,framerate=24/1"
AUDIO="audiotestsrc num-buffers=141 samplesperbuffer=1024 freq=440 volume=0.5 ! audio/x-raw,rate=48000,channels=2"
X264="x264enc key-int-max=24 bframes=2 bitrate=100 threads=1 ! h264parse"
X265="x265enc key-int-max=24 bitrate=100 option-string=open-gop=1:bframes=4:b-adapt=0:scenecut=0:pools=none:frame-threads=1:log-level=error"

gst() {  # gst OUTPUT VIDEO-ENCODER MUXER AUDIO-ENCODER
    gst-launch-1.0 -q $VIDEO ! $2 ! queue ! $3 name=mux ! filesink location="$1" $AUDIO ! $4 ! queue ! mux.
}
gst gst-mp4mux-x264.mp4 "$X264" mp4mux "voaacenc bitrate=32000 ! aacparse"
gst gst-qtmux-x264.mov "$X264" qtmux "voaacenc bitrate=32000 ! aacparse"
gst gst-mp4mux-x264-mp3.mp4 "$X264" mp4mux "lamemp3enc target=bitrate bitrate=32 ! mpegaudioparse"
gst gst-mp4mux-x264-intra-refresh.mp4 "x264enc key-int-max=24 intra-refresh=true bitrate=100 threads=1 ! h264parse" mp4mux "voaacenc bitrate=32000 ! aacparse"
gst gst-mp4mux-x265-hvc1.mp4 "$X265 ! h265parse ! video/x-h265,stream-format=hvc1" mp4mux "voaacenc bitrate=32000 ! aacparse"
gst gst-mp4mux-x265-hev1.mp4 "$X265 ! h265parse config-interval=-1 ! video/x-h265,stream-format=hev1" mp4mux "voaacenc bitrate=32000 ! aacparse"
gst gst-mp4mux-fragmented.mp4 "$X264" "mp4mux fragment-duration=1000" "voaacenc bitrate=32000 ! aacparse"

# ffmpeg's fragmented flavours, remuxed from GStreamer's plain file (the same samples).
remux() { ffmpeg -v error -y -i gst-mp4mux-x264.mp4 -c copy -fflags +bitexact -map_metadata -1 "$@"; }
remux -movflags +frag_keyframe+empty_moov+default_base_moof ffmpeg-fragmented.mp4
remux -movflags +frag_keyframe+empty_moov+default_base_moof+global_sidx ffmpeg-fragmented-sidx.mp4
remux -movflags +cmaf+frag_keyframe+empty_moov+default_base_moof ffmpeg-cmaf.mp4
remux -movflags +cmaf+global_sidx+frag_keyframe+empty_moov+default_base_moof ffmpeg-cmaf-global-sidx.mp4
ls -l
