// libFuzzer target: an output folder written over a previous one whose manifest
// (`.compositor-output`) is the input, in the folder itself or in a killed writer's hidden folder.
//
// Built by `Tests/Fuzz/run.sh manifest` against the instrumented library. An input is a flags byte
// and the manifest: see `OutputManifestFuzzHarness`, which the tests share to replay seeds and
// regressions. Its files live in a folder in /dev/shm (memory, no disk I/O), removed at exit. A
// crash, a hang, a file outside the output deleted (a manifest listing `../victim.txt` deleted it
// before issue 50), or a failed write that changed the folder (turned into a crash here) is a bug.
import CompositorCore
import CompositorTesting

// The fuzz target's own: without a folder to work in there is nothing to run.
private let scratch = FuzzScratch.makeFolder(named: "manifest-fuzz") ?? { fatalError("no folder in /dev/shm for manifest-fuzz") }()

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let outcome = OutputManifestFuzzHarness.run(Array(UnsafeBufferPointer(start: data, count: size)), scratch: scratch)
    if let first = outcome.broken.first { fatalError("manifest invariant broken: \(first)") }
    return 0
}
