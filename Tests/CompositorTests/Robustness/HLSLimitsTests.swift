import Foundation
import Testing
import CompositorTestSupport
import CompositorHLSTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Limits that hold against playlists that lie: sizes and line lengths are bounded before
/// parsing (see also "HLS parse errors"), offsets and durations that leave 64 bits are typed
/// errors, and the file loader reads regular files only.
@Suite("HLS limits against lying playlists")
struct HLSLimitsTests {
    @Test("the default limits: 64 MiB per playlist, 64 KiB per line")
    func defaults() {
        #expect(HLSParseLimits.default.maximumPlaylistBytes == 64 << 20)
        #expect(HLSParseLimits.default.maximumLineBytes == 64 << 10)
    }

    /// R2: a 3 KB multivariant playlist naming one 62 MB variant 100 times parsed it 100 times.
    @Test("a variant named by many streams is read once")
    func sharedVariantReadOnce() throws {
        let reads = ResultBox<[String]>()
        reads.set([])
        let master = "#EXTM3U\n" + (0..<100).map { "#EXT-X-STREAM-INF:BANDWIDTH=\(1000 + $0)\nv.m3u8\n" }.joined()
        let files = ["/m/master.m3u8": master, "/m/v.m3u8": HLSTest.mediaText("#EXTINF:4,\na.ts\n#EXT-X-ENDLIST\n")]
        let loader = HLSPlaylistLoader(limits: .default) { url in
            reads.set(reads.get()! + [url])
            guard let text = files[url] else { throw HLSLoadError(path: url, reason: "no such playlist") }
            return Array(text.utf8)
        }
        let result = try HLSProbe.probe(url: "/m/master.m3u8", loader: loader)
        #expect(result.variants.count == 100)
        #expect(result.variants.allSatisfy { $0.duration == MediaTime(seconds: 4) && $0.segmentCount == 1 })
        #expect(reads.get()! == ["/m/master.m3u8", "/m/v.m3u8"])
    }

    @Test("a playlist one byte over the limit is refused, one at the limit is parsed")
    func sizeLimitBoundary() throws {
        let text = HLSTest.mediaText("#EXTINF:4,\na.ts\n")
        let size = text.utf8.count
        let exact = HLSPlaylistParser(limits: HLSParseLimits(maximumPlaylistBytes: size))
        #expect(throws: Never.self) { try exact.parse(Array(text.utf8), url: HLSTest.url) }
        let under = HLSPlaylistParser(limits: HLSParseLimits(maximumPlaylistBytes: size - 1))
        let error = #expect(throws: HLSParseError.self) { try under.parse(text, url: HLSTest.url) }
        #expect(error?.problem == .playlistTooLarge(bytes: size, limit: size - 1))
    }

    /// ```
    /// #EXT-X-BYTERANGE:1@18446744073709551614   bytes [2^64-2, 2^64-1)
    /// #EXT-X-BYTERANGE:5                        would be [2^64-1, 2^64+4): past 64 bits
    /// ```
    @Test("a byte range that continues past 64 bits is malformed, on its own line")
    func byteRangeContinuationOverflow() {
        let text = HLSTest.mediaText("""
            #EXTINF:4,
            #EXT-X-BYTERANGE:1@18446744073709551614
            a.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:5
            a.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:5
            a.ts

            """)
        let error = HLSTest.error(text)
        #expect(error?.line == 7)
        #expect(error?.lineText == "#EXT-X-BYTERANGE:5")
        #expect(error?.category == .malformed)
        #expect(error?.problem == .invalidTagValue(tag: "EXT-X-BYTERANGE", reason: "the range would end past byte \(UInt64.max)"))
    }

    @Test("a byte range that ends exactly at 2^64 - 1 continues nowhere, but is read")
    func byteRangeAtLimit() throws {
        let playlist = try HLSTest.media(HLSTest.mediaText("""
            #EXTINF:4,
            #EXT-X-BYTERANGE:1@18446744073709551613
            a.ts
            #EXTINF:4,
            #EXT-X-BYTERANGE:1
            a.ts

            """))
        #expect(playlist.segments[1].byteRange == HLSByteRange(length: 1, offset: UInt64.max - 1))
        #expect(playlist.segments[1].byteRange?.end == UInt64.max)
    }

    @Test("an explicit byte range past 64 bits is malformed")
    func explicitByteRangeOverflow() {
        let error = HLSTest.error(HLSTest.mediaText("#EXTINF:4,\n#EXT-X-BYTERANGE:2@18446744073709551615\na.ts\n"))
        #expect(error?.line == 4)
        #expect(error?.category == .malformed)
    }

    /// Durations are exact: their sum may not fit 64 bits, which probing reports as such.
    @Test("EXTINF durations whose sum leaves 64 bits: a typed overflow from the probe")
    func durationSumOverflow() throws {
        let big = Int64.max / 2 + 1
        let playlist = try HLSTest.media("""
            #EXTM3U
            #EXT-X-TARGETDURATION:\(big)
            #EXT-X-PLAYLIST-TYPE:VOD
            #EXTINF:\(big),
            a.ts
            #EXTINF:\(big),
            b.ts
            #EXT-X-ENDLIST
            """)
        #expect { try HLSProbe.naturalDuration(of: playlist) } throws: { error in
            guard case .durationOverflow(let url, _) = error as? HLSProbeError else { return false }
            return url == HLSTest.url
        }
    }

    @Test("an EXTINF too long for 64 bits is malformed, not 'unsupported precision'")
    func durationPast64Bits() {
        let error = HLSTest.error(HLSTest.mediaText("#EXTINF:99999999999999999999,\na.ts\n"))
        #expect(error?.line == 3)
        #expect(error?.category == .malformed)
        guard case .invalidTagValue(tag: "EXTINF", let reason)? = error?.problem else {
            Issue.record("\(String(describing: error))"); return
        }
        #expect(reason.contains("does not fit 64 bits"))
    }

    @Test("an EXTINF finer than nanoseconds reads, rounded to the nanosecond, its text kept")
    func durationTooPrecise() throws {
        let p = try HLSTest.media(HLSTest.mediaText("#EXTINF:1.0000000009,\na.ts\n"))
        #expect(p.segments[0].duration == MediaTime(value: 1_000_000_001, timescale: 1_000_000_000))
        #expect(p.segments[0].durationText == "1.0000000009")
    }

    /// Date-times are exact: nanoseconds since 1970 as an Int64 reach 2262-04-11T23:47:16.854775807Z.
    @Test("a date-time whose fraction cannot be exact in 64 bits is refused, naming the line", arguments: [
        "9999-12-31T23:59:59.000000001Z", "2262-04-11T23:47:16.854775809Z", "2262-04-11T23:47:16.854775807-00:01",
    ])
    func programDateTimePast64Bits(date: String) {
        let error = HLSTest.error(HLSTest.mediaText("#EXT-X-PROGRAM-DATE-TIME:\(date)\n#EXTINF:4,\na.ts\n"))
        #expect(error?.line == 3)
        guard case .invalidTagValue(tag: "EXT-X-PROGRAM-DATE-TIME", let reason)? = error?.problem else {
            Issue.record("\(String(describing: error))"); return
        }
        #expect(reason.contains("too far from 1970 to be exact in 64 bits"), "\(reason)")
    }

    @Test("date-times up to the last exact nanosecond, or with coarser fractions, are read", arguments: [
        "2262-04-11T23:47:16.854775807Z", "9999-12-31T23:59:59.5Z", "9999-12-31T23:59:59+14:00",
    ])
    func programDateTimeWithin64Bits(date: String) throws {
        let playlist = try HLSTest.media(HLSTest.mediaText("#EXT-X-PROGRAM-DATE-TIME:\(date)\n#EXTINF:4,\na.ts\n"))
        let parsed = try #require(playlist.segments[0].programDateTime)
        #expect(parsed.description.hasPrefix(String(date.prefix(19))))
    }

    @Test("the file loader refuses a FIFO instead of waiting for a writer")
    func loaderRefusesFIFO() throws {
        try Robust.withFIFO { path in
            let outcome = Robust.withDeadline(seconds: 10, unblock: { Robust.releaseFIFOReader(path) }) {
                Result { try HLSPlaylistLoader.fileSystem.load(path) }
            }
            #expect(throws: HLSLoadError(path: path, reason: "a FIFO, not a regular file")) { try outcome?.get() }
        }
    }

    @Test("the file loader refuses a device and a folder")
    func loaderRefusesSpecialFiles() throws {
        #expect(throws: HLSLoadError(path: "/dev/zero", reason: "a device, not a regular file")) {
            try HLSPlaylistLoader.fileSystem.load("/dev/zero")
        }
        let folder = try MP4Fixtures.makeScratchFolder("hls-folder")
        defer { MP4Fixtures.remove(folder) }
        #expect(throws: HLSLoadError.self) { try HLSPlaylistLoader.fileSystem.load(folder) }
    }
}
