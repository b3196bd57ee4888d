import Testing
@testable import CompositorCore

@Suite("SortedTimes: exact search over tick or rational keys")
struct SortedTimesTests {
    /// Key sets: even, clustered, duplicated, one key, none, and one that needs exact (non-tick) keys.
    static let keySets: [(String, [MediaTime])] = [
        ("even", (0..<200).map { MediaTime(value: Int64($0) * 1001, timescale: 30000) }),
        ("clustered", [0, 1, 2, 3, 4, 5, 1_000_000, 1_000_001, 9_000_000].map { MediaTime(value: $0, timescale: 1000) }),
        ("duplicates", [0, 0, 5, 5, 5, 7, 7, 20].map { MediaTime(seconds: $0) }),
        ("one", [MediaTime(seconds: 3)]),
        ("none", []),
        // Coprime timescales whose lcm does not fit Int32: searched as exact rationals.
        ("exact", [MediaTime(value: 1, timescale: 2_147_483_647), MediaTime(value: 1, timescale: 2_147_483_629), MediaTime(seconds: 1)]),
    ]

    @Test("agrees with a linear scan at every key, a tick either side, and far outside", arguments: keySets)
    func agrees(name: String, keys: [MediaTime]) {
        let index = SortedTimes(keys)
        let tick = MediaTime(value: 1, timescale: 90000)
        var probes = [MediaTime(seconds: -1_000_000), MediaTime(seconds: 1_000_000), .zero,
                      MediaTime(value: Int64.max, timescale: 1), MediaTime(value: Int64.min + 1, timescale: 1)]
        for key in keys { probes += [key] + [try? key.subtracting(tick), try? key.adding(tick)].compactMap { $0 } }
        for probe in probes {
            #expect(index.firstIndex(after: probe) == (keys.firstIndex { $0 > probe } ?? keys.count), "\(name) after \(probe)")
            #expect(index.firstIndex(atOrAfter: probe) == (keys.firstIndex { $0 >= probe } ?? keys.count), "\(name) at \(probe)")
        }
    }
}
