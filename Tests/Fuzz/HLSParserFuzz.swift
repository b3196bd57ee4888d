// libFuzzer target: the HLS playlist parser, and what is done with a playlist it accepted.
//
// Built by `Tests/Fuzz/run.sh hls` against the instrumented library. Whatever the bytes, parsing
// must return a playlist or throw an `HLSParseError`; a playlist that parsed must probe, write and
// stitch without trapping (typed errors are fine). A crash, a hang (`-timeout`) or an allocation
// over `-malloc_limit_mb` is a bug.
import Compositor
import CompositorHLS

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let url = "https://cdn.example/path/to/index.m3u8?token=1"
    let playlist: HLSPlaylist
    do { playlist = try HLSPlaylistParser().parse(bytes, url: url) } catch {
        _ = error.description
        _ = error.category
        return 0
    }
    switch playlist {
    case .multivariant(let multivariant):
        let text = HLSPlaylistWriter.write(multivariant)
        _ = try? HLSPlaylistParser().parse(text, url: url)
        let loader = HLSPlaylistLoader.inMemory([:])
        _ = try? HLSProbe.probe(playlist, loader: loader)
    case .media(let media):
        _ = try? media.totalDuration
        let text = HLSPlaylistWriter.write(media)
        _ = try? HLSPlaylistParser().parse(text, url: url)
        guard let duration = try? HLSProbe.naturalDuration(of: media), duration > .zero else { return 0 }
        let middle = MediaTime(value: duration.value / 2, timescale: duration.timescale)
        let pieces = [
            HLSStitchPiece(playlist: media, sourceRange: MediaTimeRange(start: .zero, end: duration), kind: .content,
                           plannedCompositionStart: .zero),
            HLSStitchPiece(playlist: media, sourceRange: MediaTimeRange(start: middle, end: duration), kind: .interstitial,
                           marker: HLSStitchMarker(id: "ad"), plannedCompositionStart: duration),
        ]
        for snapping in [HLSCutSnapping.nearest, .covering, .within] {
            if let result = try? HLSStitcher(outputURL: "https://cdn.example/out/stitched.m3u8", snapping: snapping).stitch(pieces) {
                _ = HLSPlaylistWriter.write(result.playlist)
            }
        }
    }
    return 0
}
