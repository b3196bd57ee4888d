// Benchmark harness: parses one playlist file repeatedly with this project's parser and prints the
// best wall-clock time. Built in release mode by Benchmarks/hls-parse/run.sh.
import Compositor
import CompositorHLS
import CompositorMP4
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func now() -> Double {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return Double(ts.tv_sec) + Double(ts.tv_nsec) / 1e9
}

func readFile(_ path: String) -> [UInt8] {
    guard let file = fopen(path, "rb") else { fatalError("cannot open \(path)") }
    defer { fclose(file) }
    var bytes: [UInt8] = []
    var chunk = [UInt8](repeating: 0, count: 1 << 16)
    while true {
        let n = fread(&chunk, 1, chunk.count, file)
        if n <= 0 { break }
        bytes += chunk[0..<n]
    }
    return bytes
}

let arguments = CommandLine.arguments
guard arguments.count >= 2 else { fatalError("usage: hls-parse-bench PLAYLIST [RUNS]") }
let bytes = readFile(arguments[1])
let runs = arguments.count > 2 ? Int(arguments[2]) ?? 10 : 10
let parser = HLSPlaylistParser()
var best = Double.infinity
var segments = 0
var total = MediaTime.zero
for _ in 0..<runs {
    let start = now()
    let playlist = try parser.parseMediaPlaylist(bytes, url: "https://cdn.example.com/live/1080p/index.m3u8")
    let elapsed = now() - start
    best = min(best, elapsed)
    segments = playlist.segments.count
    total = try playlist.totalDuration
}
print("segments=\(segments) duration=\(total) best_seconds=\(best)")
