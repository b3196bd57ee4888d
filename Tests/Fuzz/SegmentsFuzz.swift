// libFuzzer target: HLS media segments as a render reads them, MPEG-TS (packets, program tables,
// PES, H.264/HEVC Annex B, ADTS) and fragmented MP4 (init section, moof, mdat), then planned in
// both cut modes, rendered, and the render read back.
//
// Built by `Tests/Fuzz/run.sh segments` against the instrumented library. An input is five header
// bytes (the container, a discontinuity, two cuts) and the media: see `SegmentsFuzzHarness`, which
// the tests share to replay seeds and regressions. Its files live in a folder in /dev/shm (memory,
// no disk I/O), removed at exit. A crash, a hang (`-timeout`), an allocation over
// `-malloc_limit_mb`, or a render that does not read back (reported by the harness, turned into a
// crash here) is a bug.
import CompositorCore
import CompositorTesting

// The fuzz target's own: without a folder to work in there is nothing to run.
private let scratch = FuzzScratch.makeFolder(named: "segments-fuzz") ?? { fatalError("no folder in /dev/shm for segments-fuzz") }()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let outcome = SegmentsFuzzHarness.run(Array(UnsafeBufferPointer(start: data, count: size)), scratch: scratch)
    if let first = outcome.broken.first { fatalError("segments invariant broken: \(first)") }
    return 0
}
