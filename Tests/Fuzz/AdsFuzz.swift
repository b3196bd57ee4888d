// libFuzzer target: the ad readers (XML through Foundation's XMLParser, VAST 2-4.3, VMAP 1.0) and
// what reads their values: media file ranking, offsets against durations, macro expansion.
//
// Built by `Tests/Fuzz/run.sh vast` against the instrumented library. Whatever the bytes, reading
// must return a document or throw a `VASTError` with a code; everything after must not trap.
import Compositor

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    let macros = BeaconMacros(cacheBusting: "12345678", timestamp: "2026-11-27T00:00:00.000Z", contentPlayhead: MediaTime(seconds: 5),
                              adPlayhead: MediaTime(value: 1001, timescale: 30000), assetURI: "http://127.0.0.1/a b", breakPosition: 2,
                              errorCode: .noAdsAfterWrapper)
    let durations = [MediaTime(seconds: 15), MediaTime(value: 1001, timescale: 30000), MediaTime(value: Int64.max / 2, timescale: 1)]
    do {
        let document = try VASTDocument(parsing: bytes)
        _ = document.pod
        _ = document.buffet
        for ad in document.ads {
            for url in ad.impressions + ad.errors { _ = macros.expand(url) }
            guard let linear = ad.linear else { continue }
            for output in [MediaFileSelection.Output.progressiveMP4, .hls] {
                _ = MediaFileSelection(output: output, maximumBitrate: 2000, contentWidth: 1280, contentHeight: 720, contentCodec: "avc1.64001f")
                    .rank(linear.mediaFiles)
            }
            for tracking in linear.tracking {
                _ = macros.expand(tracking.url)
                if case .progress(let offset) = tracking.event { for duration in durations { _ = offset.time(inAdOf: duration) } }
            }
            if let skip = linear.skipOffset { for duration in durations + [linear.duration].compactMap({ $0 }) { _ = skip.time(inAdOf: duration) } }
        }
    } catch {
        _ = error.description
    }
    do {
        let vmap = try VMAPDocument(parsing: bytes)
        for adBreak in vmap.breaks {
            if case .fraction(let basisPoints) = adBreak.timeOffset {
                for duration in durations { _ = VASTOffset.fraction(basisPoints: basisPoints).time(inAdOf: duration) }
            }
            for urls in adBreak.tracking.values { for url in urls { _ = macros.expand(url) } }
        }
    } catch {
        _ = error.description
    }
    return 0
}
