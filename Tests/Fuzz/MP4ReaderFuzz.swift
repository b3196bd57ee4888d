// libFuzzer target: the MP4 reader and what a player does with what it read.
//
// Built by `Tests/Fuzz/run.sh mp4` against the instrumented library. The input becomes the whole
// file: it is written to an unlinked file in /dev/shm (memory, no disk I/O) and read through
// `/proc/self/fd/N`, so `MP4Reader.read(path:)` runs unchanged.
// Whatever the bytes, the reader must return a movie or throw an `MP4Error`: a crash, a hang
// (`-timeout`) or an allocation over `-malloc_limit_mb` is a bug.
import Compositor
import CompositorMP4
import Glibc

nonisolated(unsafe) private var memoryFile: Int32 = -1

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    if memoryFile < 0 {
        var template = Array("/dev/shm/mp4-fuzz-input-XXXXXX".utf8CString)
        memoryFile = template.withUnsafeMutableBufferPointer { mkstemp($0.baseAddress!) }
        precondition(memoryFile >= 0, "mkstemp in /dev/shm failed")
        template.withUnsafeBufferPointer { _ = unlink($0.baseAddress!) }
    }
    precondition(ftruncate(memoryFile, 0) == 0)
    var written = 0
    while written < size {
        let n = pwrite(memoryFile, data + written, size - written, off_t(written))
        precondition(n > 0, "pwrite failed")
        written += n
    }
    let path = "/proc/self/fd/\(memoryFile)"

    let movie: MP4Movie
    do { movie = try MP4Reader.read(path: FilePath(path)) } catch { _ = error.description; return 0 }

    // What probing and planning do with a movie that was read: every derived value must be
    // computable without trapping.
    let probe = movie.summary
    _ = probe.naturalDuration
    for track in movie.tracks {
        _ = track.presentationDuration
        _ = track.priming
        let samples = track.samples
        for index in 0..<samples.count {
            _ = samples.compositionTime(index)
            _ = samples.isSync(index)
        }
        _ = samples.decodeEnd
    }
    // Stitch plans: the whole movie followed by its second half (so piece boundaries add up), in
    // both cut modes. Typed errors are fine; traps are not. (A plan of the whole movie alone takes
    // no branch this one does not: its first piece is that plan; each plan reads the file again.)
    //
    // Only for movies of at most `planSampleLimit` samples: a plan costs about 200 bytes and, under
    // the sanitizers, some 10 µs per sample, and inputs reach 4 MiB, which is 4 million one-byte
    // samples: about 24 s and 0.8 GB for the two plans of one input. Such a movie takes the same branches
    // as one of a quarter of a million samples (four times the most a 64 KiB input could have);
    // its cost is linear in the samples, and not what the fuzzer looks for.
    let planSampleLimit = 1 << 18
    guard movie.tracks.reduce(0, { $0 + $1.samples.count }) <= planSampleLimit else { return 0 }
    let natural = movie.naturalDuration
    guard natural > .zero else { return 0 }
    let whole = MP4StitchPiece(path: FilePath(path), range: MediaTimeRange(start: .zero, end: natural))
    let middle = MediaTime(value: natural.value / 2, timescale: natural.timescale)
    let pieces = middle > .zero
        ? [whole, MP4StitchPiece(path: FilePath(path), range: MediaTimeRange(start: middle, end: natural))]
        : [whole]
    for mode in MP4CutMode.allCases {
        do {
            let plan = try MP4Stitcher(pieces: pieces, cutMode: mode).plan()
            _ = plan.outputSize
        } catch {
            _ = error.description
        }
    }
    return 0
}
