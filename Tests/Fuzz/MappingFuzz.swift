// libFuzzer target: mapping queries, player positions and `simulate` scripts at arbitrary times,
// in arbitrary timescales, over a schedule (issue 13: times that share no timescale within Int32
// trapped in `MediaTime`'s `+` and `-`).
//
// Built by `Tests/Fuzz/run.sh mapping` against the instrumented library. An input is a schedule's
// JSON, a line `%%`, then requests, one a line (`content T`, `composition T`, `session T T ...`,
// `simulate SCRIPT`): see `MappingFuzzHarness`, which the tests share to replay seeds and
// regressions. A crash, a hang (`-timeout`), an allocation over `-malloc_limit_mb`, or an answer
// off the composition's grid or outside it (reported by the harness, turned into a crash here) is
// a bug.
import Compositor
import CompositorTesting

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let broken = MappingFuzzHarness.run(Array(UnsafeBufferPointer(start: data, count: size)))
    if let first = broken.first { fatalError("mapping invariant broken: \(first)") }
    return 0
}
