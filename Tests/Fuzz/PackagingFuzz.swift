// libFuzzer target: an MP4 file packaged into HLS segments, MPEG-TS (Annex B with in-band
// parameter sets, ADTS) and fragmented MP4 (init segment, moof, mdat), and the segments read back.
//
// Built by `Tests/Fuzz/run.sh packaging` against the instrumented library. An input is the MP4
// file: see `PackagingFuzzHarness`, which the tests share to replay seeds and regressions. Its
// files live in a folder in /dev/shm (memory, no disk I/O), removed at exit. A crash, a hang
// (`-timeout`), an allocation over `-malloc_limit_mb`, or segments that do not read back
// (reported by the harness, turned into a crash here) is a bug.
import CompositorCore
import CompositorTesting

// The fuzz target's own: without a folder to work in there is nothing to run.
private let scratch = FuzzScratch.makeFolder(named: "packaging-fuzz") ?? { fatalError("no folder in /dev/shm for packaging-fuzz") }()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let outcome = PackagingFuzzHarness.run(Array(UnsafeBufferPointer(start: data, count: size)), scratch: scratch)
    if let first = outcome.broken.first { fatalError("packaging invariant broken: \(first)") }
    return 0
}
