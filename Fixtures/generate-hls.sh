#!/usr/bin/env bash
# Regenerates the committed HLS fixtures under Fixtures/hls/ from the MP4 fixtures beside this script
# (tested with ffmpeg 5.1, libx264, native aac). Called at the end of generate.sh; runs on its own too:
#
#   Fixtures/generate-hls.sh
#
# Everything is re-encoded (small, low resolution, short), with the same determinism flags as
# generate.sh: bitexact muxers and codecs, no inherited metadata, one x264 thread, no scene-cut
# keyframes. Every playlist is VOD (EXT-X-PLAYLIST-TYPE:VOD and EXT-X-ENDLIST).
#
# Segment lengths are deliberately unequal: keyframes are forced at irregular times and -hls_time is
# tiny, so every forced keyframe starts a segment. The times are chosen so each EXTINF is an exact
# decimal (multiples of 1/8 s at 24 fps, 1/25 s at 25 fps, 1/10 s at 30 fps): the playlists' exact
# durations are then the media's, and tests can compare them with decoded frames without rounding.
#
#   hls/ts/      MPEG-TS segments, mixed frame rates, B-frames in the content, AAC 48 kHz mono.
#     content/   content.mp4 [0, 12), 160x90, 24 fps:  1.5 .75 1.75 1.125 1.375 1.5 1.375 .625 1.25 .75
#     content2/  content2.mp4 [3, 11), 160x90, 25 fps: .8 1.2 .6 1.6 .8 1.4 .8 .8
#     ad1/       ad1.mp4 [0, 4), 160x90, 30 fps:       1.3 .7 1.1 .9
#     ad2/       ad2.mp4 [0, 3), 160x90, 30 fps (from 29.97): .6 1.2 .6 .6
#   hls/fmp4/    the same four clips as fragmented MP4 (EXT-X-MAP init.mp4, .m4s segments).
#                ffmpeg's HLS demuxer (5.1) feeds all fMP4 segments of a playlist to one MP4 demuxer:
#                it keeps the first init section it sees (later ones are skipped as duplicate moov)
#                and drops fragments whose decode time goes backwards. So that ffmpeg can judge a
#                stitched fMP4 playlist, these four share one encoding setup (25 fps, 160x90, same
#                x264 and AAC settings: byte-identical init sections) and their fragments' decode
#                times (tfdt; -output_ts_offset with movflags frag_discont, so the offset lands in
#                tfdt rather than in an edit list) start at increasing times: ad1 at 0 s, content
#                at 100 s, ad2 at 200 s, content2 at 300 s. A schedule that uses them in that order decodes in ffmpeg; players that
#                follow RFC 8216 (AVFoundation, hls.js) need neither.
#     content/   1.2 .8 1.6 .8 1.6 1.6 .8 1.6 .8 1.2     (12 s)
#     content2/  .8 1.2 .6 1.6 .8 1.4 .8 .8              (8 s)
#     ad1/       1.2 .8 1.2 .8                           (4 s)
#     ad2/       .6 1.2 .6 .6                            (3 s)
#   hls/multivariant/   MPEG-TS, each behind a multivariant playlist (master.m3u8) whose BANDWIDTH
#                is the variant's peak segment bit rate (RFC 8216 4.3.4.2), computed below.
#     content/   content.mp4 [0, 12), 24 fps, the ts/content keyframes: hi/ 320x180, lo/ 160x90
#     ad1/       ad1.mp4 [0, 4), 30 fps, the ts/ad1 keyframes, listed low first: lo/ 160x90, hi/ 320x180
set -euo pipefail
cd "$(dirname "$0")"

FFMPEG=${FFMPEG:-ffmpeg}
command -v "$FFMPEG" >/dev/null || { echo "error: ffmpeg not found" >&2; exit 1; }

GLOBAL=(-hide_banner -v error -y)
OUT=(-fflags +bitexact -map_metadata -1 -threads 1)
X264=(-c:v libx264 -preset veryfast -pix_fmt yuv420p -sc_threshold 0 -g 1000 -flags:v +bitexact)
AAC=(-c:a aac -flags:a +bitexact -b:a 32k -ac 1 -ar 48000)
# -hls_time far below every segment: each forced keyframe starts a segment.
HLS=(-f hls -hls_time 0.05 -hls_playlist_type vod -hls_flags independent_segments)

rm -rf hls
mkdir -p hls/ts hls/fmp4 hls/multivariant

# ts NAME INPUT START DURATION FPS KEYFRAMES [extra ffmpeg options]
ts() {
    local name=$1 input=$2 start=$3 duration=$4 fps=$5 keys=$6
    shift 6
    mkdir -p "hls/ts/$name"
    "$FFMPEG" "${GLOBAL[@]}" -ss "$start" -i "$input" -t "$duration" \
        -vf "scale=160:90,fps=$fps" "${X264[@]}" -crf 32 -force_key_frames "$keys" "$@" "${AAC[@]}" \
        "${OUT[@]}" "${HLS[@]}" -hls_segment_filename "hls/ts/$name/seg%d.ts" "hls/ts/$name/index.m3u8"
}
ts content  content.mp4  0 12 24 0,1.5,2.25,4,5.125,6.5,8,9.375,10,11.25 -bf 3
ts content2 content2.mp4 3  8 25 0,0.8,2,2.6,4.2,5,6.4,7.2 -bf 2
ts ad1      ad1.mp4      0  4 30 0,1.3,2,3.1 -bf 0
ts ad2      ad2.mp4      0  3 30 0,0.6,1.8,2.4 -bf 0

# fmp4 NAME INPUT START DURATION OFFSET KEYFRAMES
fmp4() {
    local name=$1 input=$2 start=$3 duration=$4 offset=$5 keys=$6
    mkdir -p "hls/fmp4/$name"
    "$FFMPEG" "${GLOBAL[@]}" -ss "$start" -i "$input" -t "$duration" \
        -vf "scale=160:90,fps=25" "${X264[@]}" -crf 32 -bf 2 -force_key_frames "$keys" "${AAC[@]}" \
        -output_ts_offset "$offset" "${OUT[@]}" "${HLS[@]}" \
        -hls_segment_type fmp4 -hls_fmp4_init_filename init.mp4 -hls_segment_options movflags=+frag_discont \
        -hls_segment_filename "hls/fmp4/$name/seg%d.m4s" "hls/fmp4/$name/index.m3u8"
}
fmp4 ad1      ad1.mp4      0  4   0 0,1.2,2,3.2
fmp4 content  content.mp4  0 12 100 0,1.2,2,3.6,4.4,6,7.6,8.4,10,10.8
fmp4 ad2      ad2.mp4      0  3 200 0,0.6,1.8,2.4
fmp4 content2 content2.mp4 3  8 300 0,0.8,2,2.6,4.2,5,6.4,7.2

# peak_bandwidth PLAYLIST: the largest segment bit rate, bits per second, rounded up.
peak_bandwidth() {
    local folder
    folder=$(dirname "$1")
    awk -v folder="$folder" '
        /^#EXTINF:/ { sub(/^#EXTINF:/, ""); sub(/,.*/, ""); duration = $0; next }
        /^[^#]/ {
            command = "wc -c < \"" folder "/" $0 "\""; command | getline bytes; close(command)
            rate = bytes * 8 / duration
            if (rate > peak) peak = rate
        }
        END { printf "%d\n", (peak == int(peak)) ? peak : int(peak) + 1 }' "$1"
}

# rate INDEX SPEC: x264 rate control for output video stream INDEX: "crf=N" (constant quality) or
# "cbr=RATE" (constant bit rate, padded with filler so the peak is real: a static picture such as
# colour bars would otherwise cost next to nothing at any size).
rate() {
    case $2 in
        crf=*) echo "-crf:v:$1 ${2#crf=}" ;;
        cbr=*) local r=${2#cbr=}
               echo "-b:v:$1 $r -minrate:v:$1 $r -maxrate:v:$1 $r -bufsize:v:$1 $r -x264-params:v:$1 nal-hrd=cbr" ;;
    esac
}

# multivariant NAME INPUT DURATION FPS KEYFRAMES FIRST FIRST_RATE SECOND SECOND_RATE: two variants
# (hi 320x180, lo 160x90) listed in the order given, with BANDWIDTH rewritten to the measured peaks.
multivariant() {
    local name=$1 input=$2 duration=$3 fps=$4 keys=$5 first=$6 second=$8
    local dir=hls/multivariant/$name
    mkdir -p "$dir"
    local -A size=([hi]=320:180 [lo]=160:90)
    # shellcheck disable=SC2046 # the rate options are words on purpose
    "$FFMPEG" "${GLOBAL[@]}" -i "$input" -t "$duration" \
        -filter_complex "[0:v]fps=$fps,split=2[a][b];[a]scale=${size[$first]}[v0];[b]scale=${size[$second]}[v1]" \
        -map "[v0]" -map 0:a -map "[v1]" -map 0:a \
        "${X264[@]}" $(rate 0 "$7") $(rate 1 "$9") -bf 2 -force_key_frames "$keys" "${AAC[@]}" \
        "${OUT[@]}" "${HLS[@]}" -var_stream_map "v:0,a:0,name:$first v:1,a:1,name:$second" \
        -master_pl_name master.m3u8 -hls_segment_filename "$dir/%v/seg%d.ts" "$dir/%v/index.m3u8"
    # ffmpeg declares the encoders' nominal rates (none for CRF video); replace them with the peaks.
    local master=$dir/master.m3u8 variant line
    local -a lines=()
    while IFS= read -r line; do
        if [[ $line == "#EXT-X-STREAM-INF:"* ]]; then
            IFS= read -r variant
            line=$(sed -E "s/BANDWIDTH=[0-9]+/BANDWIDTH=$(peak_bandwidth "$dir/$variant")/" <<<"$line")
            lines+=("$line" "$variant")
        elif [[ -n $line ]]; then
            lines+=("$line")
        fi
    done <"$master"
    printf '%s\n' "${lines[@]}" >"$master"
}
# Content hi ~250 kbit/s, lo ~120 kbit/s; the ad lo ~100 kbit/s, hi ~260 kbit/s (listed low first):
# nearest in bandwidth pairs hi-hi and lo-lo although the lists run in opposite orders.
multivariant content content.mp4 12 24 0,1.5,2.25,4,5.125,6.5,8,9.375,10,11.25 hi crf=30 lo crf=34
multivariant ad1     ad1.mp4      4 30 0,1.3,2,3.1 lo crf=34 hi cbr=180k

du -sh hls
find hls -name '*.m3u8' | sort
