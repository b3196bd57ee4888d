import CompositorCore
import CompositorIO
import CompositorMP4
import CompositorTestSupport
import Foundation

extension FFmpeg {
    /// When each stream ends as ffprobe reports it, keyed by codec type (`video`, `audio`): its
    /// start time plus its duration, or its duration alone when its edit list starts with an empty
    /// edit and has more than one media edit after it (mov.c then counts the duration from 0, the
    /// empty edit included, as well as the start time at the first frame after it; with a single
    /// media edit it leaves the empty edit out of the duration).
    package func streamEnds(_ path: String) async throws -> [String: MediaTime] {
        let output = try await ChildProcess.run(ffprobe, ["-v", "error", "-show_entries", "stream=codec_type,start_pts,duration_ts,time_base",
                                                        "-of", "compact=p=0", path])
        let movie = try? MP4Reader.read(path: FilePath(path))
        guard output.status == 0 else { throw FFmpegFailure(message: output.stderr) }
        var result: [String: MediaTime] = [:]
        for line in output.stdout.split(separator: "\n") {
            let fields = Dictionary(uniqueKeysWithValues: line.split(separator: "|").compactMap { field -> (String, String)? in
                let pair = field.split(separator: "=", maxSplits: 1).map(String.init)
                return pair.count == 2 ? (pair[0], pair[1]) : nil
            })
            let base = (fields["time_base"] ?? "").split(separator: "/")
            guard let kind = fields["codec_type"], let start = Int64(fields["start_pts"] ?? ""),
                  let ticks = Int64(fields["duration_ts"] ?? ""), base.count == 2,
                  let num = Int64(base[0]), let den = Int32(base[1]) else { continue }
            let track = kind == "video" ? movie?.videoTrack : movie?.audioTrack
            let startsEmpty = (track?.editList?.first?.isEmpty ?? false) && (track?.editList?.count ?? 0) > 2
            result[kind] = MediaTime(value: ((startsEmpty ? 0 : start) + ticks) * num, timescale: den)
        }
        return result
    }
}
