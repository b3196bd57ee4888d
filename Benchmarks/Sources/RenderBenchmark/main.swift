// The render benchmark's driver: stitches the pieces listed in a plan file with MP4Stitcher.
// Built in release mode by Benchmarks/render/run.sh.
//
//   render-bench PLAN OUTPUT [sample|keyframe]
//
// PLAN has one piece per line: `PATH START END` (times in seconds, exact decimals or value/timescale).

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif
import Compositor
import CompositorHLS
import CompositorIO
import CompositorMP4
// No Foundation: loading it made start-up 5 ms longer (8.7 ms against 3.6, 50 runs without
// arguments), a fifteenth of a sample-heavy render.

func fail(_ message: String) -> Never {
    var text = "error: \(message)\n"
    text.withUTF8 { _ = write(2, $0.baseAddress, $0.count) }
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else { fail("usage: render-bench PLAN OUTPUT [sample|keyframe]") }
guard let planBytes = try? ReadableFile(path: FilePath(arguments[1])).readAll(limit: 1 << 24) else { fail("cannot read \(arguments[1])") }
let planText = String(decoding: planBytes, as: UTF8.self)
var pieces: [MP4StitchPiece] = []
for line in planText.split(separator: "\n") where !line.isEmpty {
    let fields = line.split(separator: " ")
    guard fields.count == 3, let start = try? MediaTime(parsing: fields[1]), let end = try? MediaTime(parsing: fields[2]) else {
        fail("bad plan line: \(line)")
    }
    pieces.append(MP4StitchPiece(path: FilePath(String(fields[0])), range: MediaTimeRange(start: start, end: end)))
}
let mode: MP4CutMode = arguments.count > 3 && arguments[3] == "keyframe" ? .keyframeAligned : .sampleAccurate

let clock = ContinuousClock()
let started = clock.now
do {
    let stitcher = MP4Stitcher(pieces: pieces, cutMode: mode)
    let plan = try stitcher.plan()
    let planned = clock.now
    try stitcher.write(plan, to: FilePath(arguments[2]))
    let written = clock.now
    var usage = rusage()
    #if canImport(Glibc)
    getrusage(RUSAGE_SELF.rawValue, &usage)
    #else
    getrusage(RUSAGE_SELF, &usage)
    #endif
    print("pieces=\(pieces.count) duration=\(plan.duration) bytes=\(plan.outputSize) plan=\(planned - started) write=\(written - planned) maxrss_kib=\(usage.ru_maxrss)")
} catch {
    fail("\(error)")
}
