// Benchmark harness for VAST: resolving a pod behind wrapper chains over HTTP, and reading a large
// document. Built in release mode by Benchmarks/ads/run.sh.
//
//   AdsBenchmark resolve URL RUNS   times `VASTResolver(transport: DefaultHTTPTransport()).resolve(url:)`
//                                   RUNS times (one resolver, so connections are kept alive between
//                                   runs, as an app's are); each run must resolve 5 ads, sequence 1..5,
//                                   each behind 5 wrappers, with no error.
//                                   Prints "best_seconds=X median_seconds=Y ads=5".
//   AdsBenchmark budget URL RUNS    times the same pod's resolution with the default options (the
//                                   3 s ad decision budget) when one slot's chain stalls: each run
//                                   must resolve the 4 other ads and owe 301 for the fifth.
//                                   Prints "best_seconds=X median_seconds=Y worst_seconds=Z budget_seconds=B ads=4".
//   AdsBenchmark parse FILE RUNS    reads FILE once, then times `VASTDocument(parsing:limits:)` RUNS
//                                   times; also times Foundation's XMLParser alone over the same bytes
//                                   with a delegate that does nothing (the floor of a reader built on
//                                   it). Prints "best_seconds=X ads=N media_files=M tracking=T
//                                   impressions=I xmlparser_seconds=Z".
import Compositor
import Foundation
#if canImport(FoundationXML)
import FoundationXML
#endif

func fail(_ message: String) -> Never {
    FileHandle.standardError.write(Data("AdsBenchmark: \(message)\n".utf8))
    exit(1)
}

func seconds(_ duration: Duration) -> Double {
    let (s, attoseconds) = duration.components
    return Double(s) + Double(attoseconds) / 1e18
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    return sorted.count % 2 == 1 ? sorted[sorted.count / 2] : (sorted[sorted.count / 2 - 1] + sorted[sorted.count / 2]) / 2
}

/// Checks one resolution of the benchmark's pod: 5 ads in sequence 1...5, each the InLine `adN`
/// reached through 5 wrappers, its media file `…/media/adN.mp4`, and no error.
func check(_ resolution: VASTResolution, run: Int) {
    if !resolution.errors.isEmpty {
        fail("run \(run): \(resolution.errors.count) error(s): " + resolution.errors.map { "\($0.error)" }.joined(separator: "; "))
    }
    guard resolution.ads.count == 5 else { fail("run \(run): \(resolution.ads.count) ads resolved, not 5") }
    for (index, ad) in resolution.ads.enumerated() {
        let n = index + 1
        guard ad.sequence == n, ad.id == "ad\(n)", ad.wrappers.count == 5, ad.mediaFile.url.hasSuffix("/media/ad\(n).mp4") else {
            fail("run \(run): slot \(n) is ad \(ad.id ?? "-") (sequence \(ad.sequence.map(String.init) ?? "-"), \(ad.wrappers.count) wrappers, \(ad.mediaFile.url))")
        }
    }
}

/// Resolves `url` `runs` times with one resolver (connections kept alive between runs, as an
/// app's are), each resolution checked by `check`: the seconds each took.
func timedResolutions(url: String, runs: Int, check: (VASTResolution, Int) -> Void) async -> (times: [Double], resolver: VASTResolver) {
    let resolver = VASTResolver(transport: DefaultHTTPTransport())
    var times: [Double] = []
    let clock = ContinuousClock()
    for run in 1...runs {
        var resolution: VASTResolution?
        let elapsed = await clock.measure { resolution = await resolver.resolve(url: url) }
        check(resolution!, run)
        times.append(seconds(elapsed))
    }
    return (times, resolver)
}

func resolve(url: String, runs: Int) async {
    let (times, _) = await timedResolutions(url: url, runs: runs) { check($0, run: $1) }
    print("best_seconds=\(times.min()!) median_seconds=\(median(times)) ads=5")
}

/// The pod of `resolve` with slot 5's chain stalled: the budget decides when the resolution ends.
func budget(url: String, runs: Int) async {
    let (times, resolver) = await timedResolutions(url: url, runs: runs) { resolved, run in
        guard resolved.ads.map(\.sequence) == [1, 2, 3, 4], resolved.errors.map(\.error.code) == [.wrapperTimeout] else {
            fail("run \(run): ads \(resolved.ads.map { $0.id ?? "-" }), errors \(resolved.errors.map { "\($0.error)" })")
        }
    }
    print("best_seconds=\(times.min()!) median_seconds=\(median(times)) worst_seconds=\(times.max()!)"
          + " budget_seconds=\(seconds(resolver.options.totalTimeout)) ads=4")
}

/// A delegate that does nothing: what XMLParser costs by itself.
final class NothingDelegate: NSObject, XMLParserDelegate {}

func parse(path: String, runs: Int) {
    guard let data = FileManager.default.contents(atPath: path) else { fail("cannot read \(path)") }
    let bytes = [UInt8](data)
    let limits = XMLReadLimits(maximumBytes: max(bytes.count, 4 << 20), maximumElements: 10_000_000, maximumDepth: 64)
    let clock = ContinuousClock()
    var best = Double.infinity
    var document: VASTDocument?
    for _ in 0..<runs {
        var parsed: VASTDocument?
        let elapsed = clock.measure {
            do { parsed = try VASTDocument(parsing: bytes, limits: limits) } catch { fail("\(path): \(error)") }
        }
        best = min(best, seconds(elapsed))
        document = parsed
    }
    var floor = Double.infinity
    for _ in 0..<runs {
        let delegate = NothingDelegate()
        var ok = false
        let elapsed = clock.measure {
            let parser = XMLParser(data: Data(bytes))
            parser.shouldProcessNamespaces = false
            parser.shouldResolveExternalEntities = false
            parser.delegate = delegate
            ok = parser.parse()
        }
        guard ok else { fail("\(path): XMLParser failed") }
        floor = min(floor, seconds(elapsed))
    }
    let ads = document!.ads
    let linears = ads.compactMap(\.linear)
    print("best_seconds=\(best) ads=\(ads.count) media_files=\(linears.map(\.mediaFiles.count).reduce(0, +))"
          + " tracking=\(linears.map(\.tracking.count).reduce(0, +)) impressions=\(ads.map(\.impressions.count).reduce(0, +))"
          + " xmlparser_seconds=\(floor)")
}

let arguments = CommandLine.arguments
guard arguments.count == 4, let runs = Int(arguments[3]), runs > 0 else {
    fail("usage: AdsBenchmark resolve URL RUNS | AdsBenchmark budget URL RUNS | AdsBenchmark parse FILE RUNS")
}
switch arguments[1] {
case "resolve": await resolve(url: arguments[2], runs: runs)
case "budget": await budget(url: arguments[2], runs: runs)
case "parse": parse(path: arguments[2], runs: runs)
default: fail("unknown mode \(arguments[1]): resolve, budget or parse")
}
