// Benchmark harness: one reload of the live stitcher over a 6-hour DVR window. Built in release mode
// by Benchmarks/live/run.sh.
//
// The stream: 6 hours of 2-second segments (10,800), absolute http://127.0.0.1 URIs and an
// EXT-X-PROGRAM-DATE-TIME on every segment (ffmpeg's `-hls_base_url` and `program_date_time`),
// TS (or fMP4 with EXT-X-MAP), and 100 breaks, one every 3.6 minutes (108 segments), 30-90 s long,
// each marked with EXT-X-CUE-OUT:DURATION, EXT-X-CUE-OUT-CONT on the segments inside it and
// EXT-X-CUE-IN after it. Each break plays a pod of 2 or 3 of six packaged ads (10-30 s, ad
// playlists of 2-second segments, `ads/adN-K.ts`, resolved to file:///…/out/ads/).
//
// First the whole stream is replayed as a live stitcher sees it, one new segment per reload from
// the first (10,800 reloads, a window growing to 3,600 segments, then sliding): requests from the
// window's markers, `LiveDecisions.advanced`, `LiveStitcher.playlist`, `.text`. Then, with the
// decisions of the reload before the last (all 100 breaks decided), one reload step (the last
// segment arrives) is timed for windows of 60, 600 and 3,600 segments at the end of the 6 hours,
// best of many runs, and split into its phases; each against two floors measured on the same
// bytes (a memcpy, and writing them to a file), and against a control: the same window with no
// breaks at all.
//
//   LiveBenchmark [--runs N] [--format ts|fmp4] [--write-stitched PATH] [--write-content PATH]
//
// --runs N: runs of the 3,600-segment window (default 200); smaller windows get proportionally more.
// --write-stitched PATH: the 3,600-segment stitched playlist, as the timed step writes it.
// --replay-window N: the window of the replay (default 3600); the decisions are the same for any
//   window (each reload sees one new segment), so 60 gives them in a few seconds (for profiling).
// --windows LIST: the windows timed (default 60,600,3600).
// --profile SECONDS: after the replay, only repeat the step at the first window for that long (for
//   `perf record`), then exit.
import Compositor
import CompositorHLS
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

func now() -> UInt64 {
    var ts = timespec()
    clock_gettime(CLOCK_MONOTONIC, &ts)
    return UInt64(ts.tv_sec) * 1_000_000_000 + UInt64(ts.tv_nsec)
}

// MARK: arguments

var runs3600 = 200
var format = "ts"
var stitchedPath: String?
var contentPath: String?
var replayWindow = 3600
var windows = [60, 600, 3600]
var profileSeconds: Double?
do {
    var arguments = CommandLine.arguments.dropFirst()
    while let argument = arguments.popFirst() {
        switch argument {
        case "--runs": runs3600 = arguments.popFirst().flatMap { Int($0) } ?? runs3600
        case "--format": format = arguments.popFirst() ?? format
        case "--write-stitched": stitchedPath = arguments.popFirst()
        case "--write-content": contentPath = arguments.popFirst()
        case "--replay-window": replayWindow = arguments.popFirst().flatMap { Int($0) } ?? replayWindow
        case "--profile": profileSeconds = arguments.popFirst().flatMap { Double($0) }
        case "--windows": windows = (arguments.popFirst() ?? "").split(separator: ",").compactMap { Int($0) }
        default: fatalError("usage: LiveBenchmark [--runs N] [--format ts|fmp4] [--write-stitched PATH] [--write-content PATH] [--replay-window N] [--windows 60,600,3600] [--profile SECONDS]")
        }
    }
    guard format == "ts" || format == "fmp4" else { fatalError("--format ts or fmp4") }
}
let fmp4 = format == "fmp4"
let suffix = fmp4 ? "m4s" : "ts"

// MARK: the stream

let segmentCount = 10_800                  // 6 hours of 2 s segments
let breakCount = 100
let breakEvery = segmentCount / breakCount // 108 segments: 3.6 minutes
let epoch = MediaTime(seconds: 1_790_000_000)
let two = MediaTime(seconds: 2)
let contentBase = "http://127.0.0.1:8080/live/"
let contentURL = contentBase + "index.m3u8"
let outputFolder = "file:///var/lib/compositor/live/out/"
let outputURL = outputFolder + "stitched.m3u8"

/// Deterministic pseudo-random numbers (a fixed LCG), so every run stitches the same stream.
struct Random {
    var state: UInt64 = 0x9E37_79B9_7F4A_7C15
    mutating func next(_ upper: Int) -> Int {
        state = state &* 6_364_136_223_846_793_005 &+ 1_442_695_040_888_963_407
        return Int((state >> 33) % UInt64(upper))
    }
}
var random = Random()

// The breaks: break k starts at segment 54 + 108 k, lasts 30, 40, ..., 90 s.
var cueOuts: [Int: MediaTime] = [:]
var breakSpans: [(start: Int, segments: Int)] = []
for k in 0..<breakCount {
    let start = breakEvery / 2 + k * breakEvery
    let seconds = 30 + 10 * random.next(7)
    cueOuts[start] = MediaTime(seconds: Int64(seconds))
    breakSpans.append((start, seconds / 2))
}
var insideBreak: [Int: (elapsed: MediaTime, duration: MediaTime)] = [:]
var cueIns: Set<Int> = []
for (start, length) in breakSpans {
    for n in start + 1 ..< start + length { insideBreak[n] = (MediaTime(seconds: Int64(2 * (n - start))), MediaTime(seconds: Int64(2 * length))) }
    cueIns.insert(start + length)
}

let contentMap = HLSMap(attributes: HLSAttributeList([HLSAttribute("URI", .quotedString(contentBase + "init.mp4"))]), resolvedURI: contentBase + "init.mp4")
let allSegments: [HLSMediaSegment] = (0..<segmentCount).map { n in
    let uri = contentBase + "seg\(n).\(suffix)"
    return HLSMediaSegment(
        duration: two, uri: uri, resolvedURI: uri, map: fmp4 ? contentMap : nil,
        programDateTime: HLSDateTime(secondsSinceEpoch: epoch + MediaTime(seconds: Int64(2 * n))),
        cueOut: cueOuts[n].map { HLSCueTag(value: "DURATION=\($0.wholeSeconds(rounding: .down))") },
        cueOutContinuation: insideBreak[n].map {
            HLSCueTag(value: "ElapsedTime=\($0.elapsed.wholeSeconds(rounding: .down)),Duration=\($0.duration.wholeSeconds(rounding: .down))")
        },
        cueIn: cueIns.contains(n) ? HLSCueTag(value: nil) : nil)
}
let plainSegments = allSegments.map { segment in
    var segment = segment
    segment.cueOut = nil
    segment.cueOutContinuation = nil
    segment.cueIn = nil
    return segment
}

/// The content playlist once segments up to `last` are published, `window` at most.
func contentWindow(through last: Int, window: Int, segments: [HLSMediaSegment] = allSegments) -> HLSMediaPlaylist {
    let first = max(0, last + 1 - window)
    return HLSMediaPlaylist(url: contentURL, version: fmp4 ? 7 : 3, targetDuration: 2, mediaSequence: UInt64(first),
                            segments: Array(segments[first...last]))
}

// The ads: six, 10 to 30 s, each a VOD playlist of 2 s segments (the last one shorter when the ad is
// not a whole number of them) packaged into the content's format.
let adLengths: [Int64] = [15_000, 30_000, 20_000, 10_000, 25_000, 15_000]
let ads: [LiveAd] = adLengths.enumerated().map { index, milliseconds in
    let name = "ad\(index + 1)"
    var segments: [HLSMediaSegment] = []
    var left = milliseconds, k = 0
    let map = HLSMap(attributes: HLSAttributeList([HLSAttribute("URI", .quotedString("ads/\(name)-init.mp4"))]),
                     resolvedURI: outputFolder + "ads/\(name)-init.mp4")
    while left > 0 {
        let length = min(2000, left)
        segments.append(HLSMediaSegment(duration: MediaTime(value: length, timescale: 1000), uri: "ads/\(name)-\(k).\(suffix)",
                                        resolvedURI: outputFolder + "ads/\(name)-\(k).\(suffix)", map: fmp4 ? map : nil))
        left -= length
        k += 1
    }
    return LiveAd(id: name, playlist: HLSMediaPlaylist(url: outputFolder + "\(name).m3u8", targetDuration: 2, playlistType: .vod,
                                                       hasEndList: true, segments: segments))
}
/// The pod of the break at `sequence`: 2 or 3 ads, chosen from the sequence number.
func pod(_ sequence: UInt64) -> [LiveAd] {
    let n = Int(sequence / UInt64(breakEvery))
    let count = 2 + n % 2
    return (0..<count).map { ads[(n * 5 + $0 * 7) % ads.count] }
}

/// What the live stitcher asks for at a reload: a break at each marker among the new segments
/// (as `LiveHLSStitching` does for a schedule of marker breaks).
func requests(for content: HLSMediaPlaylist, decisions: LiveDecisions) -> [LiveBreakRequest] {
    let firstNew = decisions.lastSequence.map { $0 + 1 } ?? (content.mediaSequence ?? 0)
    return content.liveMarkedBreaks.filter { $0.sequence >= firstNew }.map { marked in
        LiveBreakRequest(id: "ssai-\(marked.sequence)", startSequence: marked.sequence, duration: marked.duration,
                         ads: pod(marked.sequence), elapsed: marked.elapsed)
    }
}

/// One reload: the step a live stitcher takes when the content has one new segment.
@inline(never)
func reload(_ content: HLSMediaPlaylist, _ decisions: LiveDecisions) throws -> (LiveDecisions, [UInt8]) {
    let advanced = try decisions.advanced(by: content, requests: requests(for: content, decisions: decisions))
    let stitched = try LiveStitcher.playlist(content: content, decisions: advanced, url: outputURL, removingCueTags: true)
    return (advanced, Array(stitched.text.utf8))
}

func format(_ nanoseconds: Double) -> String {
    if nanoseconds >= 1e9 { return String(format: "%.2f s", nanoseconds / 1e9) }
    if nanoseconds >= 1e6 { return String(format: "%.2f ms", nanoseconds / 1e6) }
    return String(format: "%.1f us", nanoseconds / 1e3)
}

func pad(_ text: String, _ width: Int) -> String { String(repeating: " ", count: max(0, width - text.count)) + text }

func writeFile(_ path: String, _ bytes: [UInt8]) {
    guard let file = fopen(path, "wb") else { fatalError("cannot write \(path)") }
    _ = bytes.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
    fclose(file)
}

// MARK: the replay

print("stream: \(segmentCount) segments of 2 s (\(format)), \(breakCount) breaks (30-90 s, pods of 2-3 of \(ads.count) ads), DVR window 3600 segments")
/// Replays the stream of `segments` reload by reload from its start: the decisions after the last
/// reload and after the one before it, and the bytes written in all.
func replay(_ segments: [HLSMediaSegment], window: Int) throws -> (last: LiveDecisions, before: LiveDecisions, bytes: Int) {
    var decisions = LiveDecisions(), before = LiveDecisions(), bytes = 0
    for last in 0..<segmentCount {
        if last == segmentCount - 1 { before = decisions }
        let (advanced, written) = try reload(contentWindow(through: last, window: window, segments: segments), decisions)
        decisions = advanced
        bytes += written.count
    }
    return (decisions, before, bytes)
}
let replayStart = now()
let (decisions, before, replayBytes) = try replay(allSegments, window: replayWindow)
let replayTime = Double(now() - replayStart)
let decided = decisions.breaks.filter { !$0.isOpen && $0.marksReturn }.count
print("replay: \(segmentCount) reloads from the stream's start (window growing to \(replayWindow), then sliding), one new segment each: "
      + "\(format(replayTime)), \(format(replayTime / Double(segmentCount))) per reload on average, "
      + String(format: "%.0f MB written", Double(replayBytes) / 1e6))
print("       \(decisions.breaks.count) breaks decided, \(decided) of them over with ads played")
guard decisions.breaks.count == breakCount else { fatalError("expected \(breakCount) breaks, decided \(decisions.breaks.count)") }

// MARK: one reload step, timed

/// Best and mean of `runs` runs of `body`, in nanoseconds.
@inline(never)
func time(_ runs: Int, _ body: () throws -> Int) rethrows -> (best: Double, mean: Double) {
    var best = UInt64.max, total: UInt64 = 0
    var sink = 0
    for _ in 0..<runs {
        let start = now()
        sink &+= try body()
        let elapsed = now() - start
        best = min(best, elapsed)
        total += elapsed
    }
    if sink == 42 { print("") }
    return (Double(best), Double(total) / Double(runs))
}

if let profileSeconds, let window = windows.first {
    let content = contentWindow(through: segmentCount - 1, window: window)
    let end = now() + UInt64(profileSeconds * 1e9)
    var steps = 0
    while now() < end { _ = try reload(content, before); steps += 1 }
    print("profile: \(steps) steps at \(window) segments")
    exit(0)
}

let scratch = "/tmp/live-bench-\(getpid()).m3u8"
defer { unlink(scratch); unlink(scratch + ".tmp") }

struct Row {
    var window: Int, bytes: Int, step: (best: Double, mean: Double)
    var markers: Double, advance: Double, stitch: Double, text: Double, parse: Double
    var memcpy: Double, write: Double
    var plainBytes: Int, plain: Double
    var recentBreaks: Int, recentBytes: Int, recent: Double
    var breaksInWindow: Int
}
var rows: [Row] = []
for window in windows {
    let runs = max(20, runs3600 * 3600 / window)
    let content = contentWindow(through: segmentCount - 1, window: window)
    let (_, bytes) = try reload(content, before)
    if window == 3600, let stitchedPath { writeFile(stitchedPath, bytes) }
    let contentText = Array(content.text.utf8)
    if window == 3600, let contentPath { writeFile(contentPath, contentText) }

    // The whole step, and its phases on their own.
    let step = try time(runs) { try reload(content, before).1.count }
    let markers = time(runs) { requests(for: content, decisions: before).count }.best
    let asked = requests(for: content, decisions: before)
    let advance = try time(runs) { try before.advanced(by: content, requests: asked).breaks.count }.best
    let advanced = try before.advanced(by: content, requests: asked)
    let stitch = try time(runs) { try LiveStitcher.playlist(content: content, decisions: advanced, url: outputURL, removingCueTags: true).segments.count }.best
    let stitched = try LiveStitcher.playlist(content: content, decisions: advanced, url: outputURL, removingCueTags: true)
    let text = time(runs) { Array(stitched.text.utf8).count }.best
    // What a real reload also pays: parsing the content playlist it loaded.
    let parse = try time(max(20, runs / 2)) { try HLSMediaPlaylist(parsing: contentText, url: contentURL).segments.count }.best

    // The floors: the same bytes copied in memory, and written to a file and renamed over the
    // served one (what LiveHLSStitching does with each new playlist), no fsync.
    var destination = [UInt8](repeating: 0, count: bytes.count)
    let copy = time(runs) {
        destination.withUnsafeMutableBytes { to in bytes.withUnsafeBytes { from in _ = memcpy(to.baseAddress!, from.baseAddress!, from.count) } }
        return Int(destination[destination.count / 2])
    }.best
    let write = time(runs) {
        let fd = open(scratch + ".tmp", O_WRONLY | O_CREAT | O_TRUNC, 0o644)
        let written = bytes.withUnsafeBytes { Glibc.write(fd, $0.baseAddress, $0.count) }
        close(fd)
        rename(scratch + ".tmp", scratch)
        return written
    }.best

    // The control: the same window of a stream without breaks (no markers, no decisions but the
    // segments taken).
    let plainContent = contentWindow(through: segmentCount - 1, window: window, segments: plainSegments)
    let plainBefore = try LiveDecisions().advanced(by: contentWindow(through: segmentCount - 2, window: window, segments: plainSegments), requests: [])
    let (_, plainBytes) = try reload(plainContent, plainBefore)
    let plain = try time(runs) { try reload(plainContent, plainBefore).1.count }.best

    // The other control: the same window of a stream whose earlier breaks were never marked (cue
    // tags only from 60 segments before the window: a break lasts at most 45), so only the breaks
    // near the window are decided: the cost of the stream's history of breaks.
    let cutoff = segmentCount - window - 60
    let recentSegments = allSegments.enumerated().map { n, segment in
        guard n < cutoff else { return segment }
        return plainSegments[n]
    }
    let recentBefore = try replay(recentSegments, window: 60).before
    let recentContent = contentWindow(through: segmentCount - 1, window: window, segments: recentSegments)
    let (_, recentBytes) = try reload(recentContent, recentBefore)
    let recent = try time(runs) { try reload(recentContent, recentBefore).1.count }.best

    let first = UInt64(segmentCount - window)
    let inWindow = before.breaks.filter { $0.startSequence + UInt64($0.replaced.count) > first }.count
    rows.append(Row(window: window, bytes: bytes.count, step: step, markers: markers, advance: advance, stitch: stitch, text: text,
                    parse: parse, memcpy: copy, write: write, plainBytes: plainBytes.count, plain: plain,
                    recentBreaks: recentBefore.breaks.count, recentBytes: recentBytes.count, recent: recent, breaksInWindow: inWindow))
}

print("")
print("one reload step at the end of the 6 hours (the last segment arrives; 100 breaks decided): markers -> requests, advanced, playlist, text -> bytes")
print("  segments  breaks in window      bytes   best step   ns/byte   playlists/s (1/best, 1/mean)")
for row in rows {
    print(String(format: "  %8d  %16d  %9d  ", row.window, row.breaksInWindow, row.bytes) + pad(format(row.step.best), 10)
          + String(format: "  %8.2f   %.0f, %.0f", row.step.best / Double(row.bytes), 1e9 / row.step.best, 1e9 / row.step.mean))
}
print("")
print("phases (best of each alone), ns/byte:")
print("  segments   markers   advanced   playlist   text+bytes  | parse content*  memcpy floor  write+rename floor | no-breaks control")
for row in rows {
    let b = Double(row.bytes)
    print(String(format: "  %8d   %7.2f   %8.2f   %8.2f   %10.2f  | %14.2f  %12.3f  %18.2f | %.2f (%d bytes, ",
                 row.window, row.markers / b, row.advance / b, row.stitch / b, row.text / b, row.parse / b,
                 row.memcpy / b, row.write / b, row.plain / Double(row.plainBytes), row.plainBytes) + format(row.plain) + ")")
}
print("  * parsing the content window (not part of the timed step; a real reload also does it), per stitched byte")
print("")
print("the same window with only the breaks near it decided (earlier breaks never marked) against all 100 decided:")
print("  segments  breaks decided      bytes   best step   ns/byte  | with 100 decided: ns/byte   ratio")
for row in rows {
    let recent = row.recent / Double(row.recentBytes), all = row.step.best / Double(row.bytes)
    print(String(format: "  %8d  %14d  %9d  ", row.window, row.recentBreaks, row.recentBytes) + pad(format(row.recent), 10)
          + String(format: "  %8.2f  | %25.2f   %.2f", recent, all, all / recent))
}
guard let small = rows.first(where: { $0.window == 60 }), let large = rows.first(where: { $0.window == 3600 }) else { exit(0) }
let growth = (large.step.best / Double(large.bytes)) / (small.step.best / Double(small.bytes))
print("")
print(String(format: "ns/byte at 3600 / ns/byte at 60 = %.2f (1.00: time per byte does not grow with the window)", growth))
print(String(format: "step / memcpy at 3600 = %.0fx, step / write+rename at 3600 = %.1fx", large.step.best / large.memcpy, large.step.best / large.write))
// For run.sh.
print(String(format: "RESULT rate3600_best=%.1f rate3600_mean=%.1f rate60_best=%.1f bytes3600=%d", 1e9 / large.step.best, 1e9 / large.step.mean,
             1e9 / small.step.best, large.bytes))
