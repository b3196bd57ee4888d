import Testing
import CompositorTestSupport
import CompositorHLSTestSupport
@testable import CompositorCore
@testable import CompositorHLS

/// Builds random, valid playlist models. Values are spelled as the parser reads them back (a whole
/// `DURATION` is a decimal integer, say), because that is what a parsed model holds.
struct HLSPlaylistGenerator {
    var rng: SeededGenerator
    let url: String

    init(seed: UInt64, url: String = "https://127.0.0.1/show/ep1/index.m3u8") {
        rng = SeededGenerator(seed: seed)
        self.url = url
    }

    mutating func chance(_ p: Double) -> Bool { Double.random(in: 0..<1, using: &rng) < p }
    mutating func int(_ range: ClosedRange<Int>) -> Int { Int.random(in: range, using: &rng) }
    mutating func pick<T>(_ items: [T]) -> T { items[int(0...(items.count - 1))] }

    static let unknownLines = [
        "# a comment", "#comment without space", "#EXT-X-VENDOR-TAG:1", "#EXT-X-BITRATE:800",
        "#EXT-X-PART:DURATION=0.5,URI=\"p.mp4\"", "## ünïcode comment", "#EXT-Y-OTHER",
    ]
    static let titles = ["Opening", "Act 1, scene 2", "ünïcode", "a=b", "#not a tag"]
    static let names = ["seg.ts", "a/b.ts", "../up/c.ts", "/abs/d.ts", "https://other.example/e.ts", "f.ts?token=x&y=1", "g.m4s"]
    static let cueValues: [String?] = [nil, "30", "DURATION=15.5", "ElapsedTime=4,Duration=30", "8/30"]
    static let cueInValues: [String?] = [nil, nil, "4,SpliceType=VOD_DAI", "ID=\"break-1\"", "SpliceType=LIVE_DAI"]
    static let trailing = ["# closing comment", "#EXT-X-CUE-IN", "#EXT-X-DISCONTINUITY", "#EXT-X-VENDOR:end"]

    mutating func decimal(maxSeconds: Int) -> MediaTime {
        let digits = int(0...6)
        var scale: Int64 = 1
        for _ in 0..<digits { scale *= 10 }
        return MediaTime(value: Int64(int(0...maxSeconds)) * scale + Int64(int(0...Int(scale - 1))), timescale: Int32(scale))
    }

    mutating func date() -> HLSDateTime {
        let seconds = MediaTime(value: Int64(int(0...2_000_000_000)) * 1000 + Int64(int(0...999)), timescale: 1000)
        return HLSDateTime(secondsSinceEpoch: seconds, utcOffsetMinutes: pick([0, 0, 60, -330, 540, nil]))
    }

    mutating func uri() -> String {
        var name = pick(Self.names)
        // A prefix on a URL would make `1234_https:` a scheme, which the reference policy refuses.
        if chance(0.5), !name.contains("://") { name = "\(int(0...9999))_" + name }
        return name
    }

    mutating func map() -> HLSMap {
        var list = HLSAttributeList()
        let uri = pick(["init.mp4", "../init/v1.mp4", "https://other.example/init.mp4"])
        list["URI"] = .quotedString(uri)
        if chance(0.4) { list["BYTERANGE"] = .quotedString("\(int(1...5000))@\(int(0...100))") }
        return HLSMap(attributes: list, resolvedURI: URIReference.resolve(uri, against: url))
    }

    mutating func key(format: String?) -> HLSKey {
        var list = HLSAttributeList()
        list["METHOD"] = .enumeratedString(pick(["AES-128", "SAMPLE-AES"]))
        // A DRM system's key (a KEYFORMAT other than identity) may have its own scheme (FairPlay's
        // skd:); an identity key is fetched as any resource is, so http(s) only (ReferencePolicy).
        let uri = pick(format.map { $0 == "identity" } == false
                       ? ["k1.key", "https://127.0.0.1/keys/k2", "skd://asset"] : ["k1.key", "https://127.0.0.1/keys/k2"])
        list["URI"] = .quotedString(uri)
        if chance(0.5) { list["IV"] = .hexadecimal(String(repeating: pick(["0", "A", "f"]), count: 32)) }
        if let format { list["KEYFORMAT"] = .quotedString(format) }
        return HLSKey(attributes: list, resolvedURI: URIReference.resolve(uri, against: url))
    }

    mutating func dateRange() -> HLSDateRange {
        var range = HLSDateRange(
            id: "dr-\(int(0...99))", class: chance(0.5) ? "com.example.ad" : nil, startDate: date(),
            duration: chance(0.7) ? decimal(maxSeconds: 60) : nil,
            clientAttributes: chance(0.5) ? [HLSAttribute("X-AD-ID", .quotedString("ad\(int(0...9))"))] : [])
        if chance(0.3) { range.attributes["SCTE35-OUT"] = .hexadecimal("FC30\(int(10...99))") }
        if chance(0.2) { range.attributes["X-SIGNED"] = .decimalFloat("-\(int(1...9)).5") }
        return range
    }

    mutating func mediaPlaylist() -> HLSMediaPlaylist {
        var segments: [HLSMediaSegment] = []
        var map: HLSMap?
        var keys: [HLSKey] = []
        let usesMaps = chance(0.4)
        var previousRangeEnd: (uri: String, end: UInt64)?
        for _ in 0..<int(0...40) {
            // Maps, once present, stay: HLS cannot say "no map" after a map.
            if usesMaps, map == nil || chance(0.15) { map = self.map() }
            if chance(0.15) {
                switch int(0...3) {
                case 0: keys = []
                case 1: keys = [key(format: nil)]
                case 2: keys = [key(format: nil), key(format: "com.apple.streamingkeydelivery")]
                default: keys = [key(format: "com.widevine")]
                }
            }
            let uri = self.uri()
            var range: HLSByteRange?
            if chance(0.3) {
                let offset = previousRangeEnd.map { $0.uri == uri && chance(0.5) ? $0.end : 0 } ?? UInt64(int(0...1000))
                range = HLSByteRange(length: UInt64(int(1...100_000)), offset: offset)
            }
            let resolved = URIReference.resolve(uri, against: url)
            previousRangeEnd = range.map { (uri, $0.end) }
            segments.append(HLSMediaSegment(
                duration: decimal(maxSeconds: 9), title: chance(0.3) ? pick(Self.titles) : nil, uri: uri,
                resolvedURI: resolved, byteRange: range, isDiscontinuity: chance(0.1), map: map, keys: keys,
                programDateTime: chance(0.15) ? date() : nil,
                dateRanges: chance(0.1) ? (0..<int(1...2)).map { _ in dateRange() } : [],
                isGap: chance(0.05), cueOut: chance(0.05) ? HLSCueTag(value: pick(Self.cueValues)) : nil,
                cueOutContinuation: chance(0.05) ? HLSCueTag(value: pick(Self.cueValues)) : nil, cueIn: chance(0.05) ? HLSCueTag(value: pick(Self.cueInValues)) : nil,
                unknownLines: chance(0.1) ? (0..<int(1...3)).map { _ in pick(Self.unknownLines) } : []))
        }
        let longest = segments.map(\.duration.roundedToNearestSecond).max() ?? 0
        var start: HLSStart?
        if chance(0.2) {
            var list = HLSAttributeList()
            list["TIME-OFFSET"] = chance(0.5) ? .decimalFloat("-\(int(0...20)).25") : .decimalInteger(UInt64(int(0...20)))
            if chance(0.5) { list["PRECISE"] = .enumeratedString(pick(["YES", "NO"])) }
            start = HLSStart(attributes: list)
        }
        return HLSMediaPlaylist(
            url: url, version: chance(0.7) ? Int64(int(3...7)) : nil, targetDuration: longest + Int64(int(0...2)),
            mediaSequence: chance(0.5) ? UInt64(int(0...100_000)) : nil,
            discontinuitySequence: chance(0.3) ? UInt64(int(0...50)) : nil,
            playlistType: chance(0.5) ? pick([.vod, .event]) : nil, hasEndList: chance(0.6),
            isIFramesOnly: chance(0.05), hasIndependentSegments: chance(0.3), start: start, segments: segments,
            headerLines: chance(0.3) ? (0..<int(1...3)).map { _ in pick(Self.unknownLines) } : [],
            trailingLines: !segments.isEmpty && chance(0.3) ? (0..<int(1...2)).map { _ in pick(Self.trailing) } : [])
    }

    mutating func multivariantPlaylist() -> HLSMultivariantPlaylist {
        var renditions: [HLSRendition] = []
        for index in 0..<int(0...3) {
            var list = HLSAttributeList()
            list["TYPE"] = .enumeratedString("AUDIO")
            list["GROUP-ID"] = .quotedString("aud")
            list["NAME"] = .quotedString("Track \(index)")
            if chance(0.5) { list["LANGUAGE"] = .quotedString(pick(["en", "fr", "de"])) }
            list["DEFAULT"] = .enumeratedString(index == 0 ? "YES" : "NO")
            var resolved: String?
            if chance(0.8) {
                let uri = "audio/\(index).m3u8"
                list["URI"] = .quotedString(uri)
                resolved = URIReference.resolve(uri, against: url)
            }
            renditions.append(HLSRendition(attributes: list, resolvedURI: resolved))
        }
        var variants: [HLSVariantStream] = []
        for index in 0..<int(0...5) {
            var list = HLSAttributeList()
            list["BANDWIDTH"] = .decimalInteger(UInt64(int(100_000...9_000_000)))
            if chance(0.5) { list["AVERAGE-BANDWIDTH"] = .decimalInteger(UInt64(int(100_000...9_000_000))) }
            if chance(0.7) { list["CODECS"] = .quotedString(pick(["avc1.64001f,mp4a.40.2", "hvc1.2.4.L123.B0"])) }
            if chance(0.7) { list["RESOLUTION"] = .resolution(width: UInt64(int(1...4000)), height: UInt64(int(1...3000))) }
            if chance(0.5) { list["FRAME-RATE"] = pick([.decimalFloat("29.970"), .decimalInteger(25)]) }
            if !renditions.isEmpty, chance(0.7) { list["AUDIO"] = .quotedString("aud") }
            let uri = pick(["v\(index)/index.m3u8", "https://other.example/v\(index).m3u8", "../v\(index).m3u8"])
            variants.append(HLSVariantStream(
                attributes: list, uri: uri, resolvedURI: URIReference.resolve(uri, against: url),
                leadingLines: chance(0.3) ? [pick(["# rung \(index)", "#EXT-X-VENDOR:\(index)"])] : []))
        }
        var iFrames: [HLSIFrameStream] = []
        for index in 0..<int(0...2) {
            var list = HLSAttributeList()
            list["BANDWIDTH"] = .decimalInteger(UInt64(int(10_000...900_000)))
            let uri = "iframes/\(index).m3u8"
            list["URI"] = .quotedString(uri)
            iFrames.append(HLSIFrameStream(attributes: list, resolvedURI: URIReference.resolve(uri, against: url)))
        }
        return HLSMultivariantPlaylist(
            url: url, version: chance(0.6) ? Int64(int(1...9)) : nil, hasIndependentSegments: chance(0.5),
            start: nil, renditions: renditions, variants: variants, iFrameStreams: iFrames,
            unknownLines: chance(0.4) ? [pick(["# generated", #"#EXT-X-SESSION-DATA:DATA-ID="t",VALUE="v""#])] : [])
    }
}

/// Where two media playlists first differ, short enough to read in a failure message.
func hlsFirstDifference(_ a: HLSMediaPlaylist, _ b: HLSMediaPlaylist) -> String {
    if a.segments.count != b.segments.count { return "\(a.segments.count) segments vs \(b.segments.count)" }
    if let i = a.segments.indices.first(where: { a.segments[$0] != b.segments[$0] }) {
        return "segment \(i): \(a.segments[i]) vs \(b.segments[i])"
    }
    var x = a, y = b
    x.segments = []
    y.segments = []
    return "playlist: \(x) vs \(y)"
}

@Suite("HLS round trips")
struct HLSRoundTripTests {
    static let seeds: [UInt64] = Array(1...600)

    @Test("write then parse gives back every generated media playlist (600 seeds)")
    func mediaPlaylists() throws {
        for seed in Self.seeds {
            var generator = HLSPlaylistGenerator(seed: seed)
            let playlist = generator.mediaPlaylist()
            let text = playlist.text
            let parsed: HLSMediaPlaylist
            do {
                parsed = try HLSTest.media(text, url: playlist.url)
            } catch {
                Issue.record("seed \(seed): \(error)\n\(text)")
                continue
            }
            #expect(parsed == playlist, "seed \(seed): \(hlsFirstDifference(parsed, playlist))\n\(text)")
            #expect(parsed.text == text, "seed \(seed)")
            if parsed != playlist { return }
        }
    }

    @Test("write then parse gives back every generated multivariant playlist (600 seeds)")
    func multivariantPlaylists() throws {
        for seed in Self.seeds {
            var generator = HLSPlaylistGenerator(seed: seed)
            let playlist = generator.multivariantPlaylist()
            guard !playlist.variants.isEmpty || !playlist.renditions.isEmpty || !playlist.iFrameStreams.isEmpty else { continue }
            let text = playlist.text
            let parsed: HLSMultivariantPlaylist
            do {
                parsed = try HLSTest.multivariant(text, url: playlist.url)
            } catch {
                Issue.record("seed \(seed): \(error)\n\(text)")
                continue
            }
            #expect(parsed == playlist, "seed \(seed)\n\(text)")
            if parsed != playlist { return }
        }
    }

    /// Text a packager might write: offsets left out, tags repeated, CRLF, blank lines, tags in
    /// other orders. Its canonical form must parse to the same model.
    @Test("parse, write, parse is an identity on non-canonical text (600 seeds)")
    func nonCanonicalText() throws {
        for seed in Self.seeds {
            var g = HLSPlaylistGenerator(seed: seed &* 7919)
            var lines = ["#EXTM3U"]
            if g.chance(0.5) { lines.append(g.pick(HLSPlaylistGenerator.unknownLines)) }
            var headerTags = ["#EXT-X-TARGETDURATION:10", "#EXT-X-VERSION:\(g.int(3...7))"]
            if g.chance(0.5) { headerTags.append("#EXT-X-MEDIA-SEQUENCE:\(g.int(0...99))") }
            if g.chance(0.5) { headerTags.append("#EXT-X-PLAYLIST-TYPE:VOD") }
            headerTags.shuffle(using: &g.rng)
            lines += headerTags
            var offset = 0
            for index in 0..<g.int(1...30) {
                var segmentLines: [String] = []
                if g.chance(0.2) { segmentLines.append("#EXT-X-MAP:URI=\"init.mp4\"") }  // repeated on purpose
                if g.chance(0.1) { segmentLines.append("#EXT-X-KEY:METHOD=AES-128,URI=\"k.key\"") }
                if g.chance(0.05) { segmentLines.append("#EXT-X-KEY:METHOD=NONE") }
                if g.chance(0.1) { segmentLines.append("#EXT-X-DISCONTINUITY") }
                if g.chance(0.1) { segmentLines.append(g.pick(HLSPlaylistGenerator.unknownLines)) }
                let length = g.int(1...999)
                if g.chance(0.5) {
                    segmentLines.append("#EXT-X-BYTERANGE:\(length)" + (index == 0 || g.chance(0.3) ? "@\(offset)" : ""))
                    offset += length
                } else {
                    segmentLines.append("#EXT-X-BYTERANGE:\(length)@0")
                    offset = length
                }
                segmentLines.shuffle(using: &g.rng)
                segmentLines.append("#EXTINF:\(g.pick(["9.009", "10", "4.5", "0.040000", "10.0"])),\(g.chance(0.2) ? "t" : "")")
                lines += segmentLines
                lines.append("all.ts")
                if g.chance(0.1) { lines.append("") }
            }
            if g.chance(0.5) { lines.append("#EXT-X-ENDLIST") }
            let text = lines.joined(separator: g.chance(0.3) ? "\r\n" : "\n")
            let first: HLSMediaPlaylist
            do {
                first = try HLSTest.media(text)
            } catch {
                Issue.record("seed \(seed): \(error)\n\(text)")
                continue
            }
            let second = try HLSTest.media(first.text)
            #expect(second == first, "seed \(seed): \(hlsFirstDifference(second, first))\n\(text)")
            #expect(second.text == first.text, "seed \(seed)")
        }
    }
}
