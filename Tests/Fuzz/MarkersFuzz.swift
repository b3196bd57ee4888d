// libFuzzer target: a media playlist's cue markers (EXT-X-CUE-OUT/-CONT/-IN, SCTE35-OUT date
// ranges) read as break spans, and the spans placed as breaks replacing them.
//
// Built by `Tests/Fuzz/run.sh markers` against the instrumented library. An input is a playlist's
// text: see `MarkersFuzzHarness`, which the tests share to replay seeds and regressions. A crash
// (a marker that clamps to nothing reached a precondition before issue 50), a hang (`-timeout`),
// an allocation over `-malloc_limit_mb`, or a span that breaks the harness's rules (turned into a
// crash here) is a bug.
import CompositorTesting

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let outcome = MarkersFuzzHarness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    if let first = outcome.broken.first { fatalError("markers invariant broken: \(first)") }
    return 0
}
