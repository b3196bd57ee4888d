import Testing
import CompositorTestSupport
import CompositorCore
@testable import CompositorTS

/// The transport stream wire layer, byte by byte (ISO/IEC 13818-1, ISO/IEC 14496-3, ITU-T H.264).
@Suite("Transport stream wire layer")
struct TransportStreamWireTests {
    /// A 188-byte packet: header bytes, then `fill` to the end.
    static func packet(_ header: [UInt8], fill: UInt8 = 0xFF) -> [UInt8] {
        header + [UInt8](repeating: fill, count: 188 - header.count)
    }

    static func parse(_ bytes: [UInt8], at offset: UInt64 = 0) throws(WireFailure) -> TSPacket {
        try bytes.withUnsafeBytes { raw in Result { () throws(WireFailure) in try TSPacket(raw, at: offset) } }.get()
    }

    struct PacketCase: Sendable, CustomStringConvertible {
        let name: String
        let header: [UInt8]
        let pid: UInt16, start: Bool, counter: UInt8, payloadStart: Int, discontinuity: Bool
        var description: String { name }
    }

    @Test("packet headers", arguments: [
        PacketCase(name: "payload only, unit start", header: [0x47, 0x41, 0x00, 0x17], pid: 0x100, start: true, counter: 7, payloadStart: 4, discontinuity: false),
        PacketCase(name: "continuation", header: [0x47, 0x01, 0x01, 0x1A], pid: 0x101, start: false, counter: 10, payloadStart: 4, discontinuity: false),
        PacketCase(name: "adaptation field then payload", header: [0x47, 0x40, 0x00, 0x30, 0x07, 0x10], pid: 0, start: true, counter: 0, payloadStart: 12, discontinuity: false),
        PacketCase(name: "discontinuity indicator", header: [0x47, 0x41, 0x00, 0x31, 0x01, 0x80], pid: 0x100, start: true, counter: 1, payloadStart: 6, discontinuity: true),
        PacketCase(name: "adaptation field only", header: [0x47, 0x01, 0x00, 0x22, 0xB7, 0x00], pid: 0x100, start: false, counter: 2, payloadStart: 188, discontinuity: false),
    ])
    func packets(_ test: PacketCase) throws {
        let packet = try Self.parse(Self.packet(test.header))
        #expect(packet.pid == test.pid)
        #expect(packet.payloadUnitStart == test.start)
        #expect(packet.continuityCounter == test.counter)
        #expect(packet.payloadStart == test.payloadStart)
        #expect(packet.discontinuity == test.discontinuity)
        #expect(packet.hasPayload == (test.payloadStart < 188))
    }

    @Test("broken packets are malformed, with the byte offset")
    func brokenPackets() {
        #expect(throws: WireFailure.malformed("no sync byte (0x47) at the start of a packet (found 0x48)", at: 376)) {
            try Self.parse(Self.packet([0x48, 0x41, 0x00, 0x10]), at: 376)
        }
        #expect(throws: WireFailure.malformed("the packet's transport error indicator is set (a damaged packet)", at: 1)) {
            try Self.parse(Self.packet([0x47, 0xC1, 0x00, 0x10]))
        }
        #expect(throws: WireFailure.malformed("an adaptation field of 184 bytes runs past the packet's end", at: 4)) {
            try Self.parse(Self.packet([0x47, 0x41, 0x00, 0x30, 184]))
        }
        #expect(throws: WireFailure.malformed("a packet of 187 bytes; transport stream packets are 188", at: 0)) {
            try Array(Self.packet([0x47]).dropLast()).withUnsafeBytes { raw in
                Result { () throws(WireFailure) in try TSPacket(raw, at: 0) }
            }.get()
        }
    }

    /// PTS 0x1_2345_6789 (33 bits), DTS 90000, in their 5-byte forms ('0011' / '0001' prefixes).
    static let timestamps: [UInt8] = [0x00, 0x00, 0x01, 0xE0, 0x00, 0x00, 0x80, 0xC0, 0x0A,
                                      0x39, 0x8D, 0x15, 0xCF, 0x13,   // PTS
                                      0x11, 0x00, 0x05, 0xBF, 0x21]   // DTS

    @Test("PES headers: 33-bit timestamps, header length, unbounded video length")
    func pesHeaders() throws {
        let header = try Self.timestamps.withUnsafeBytes { raw in Result { () throws(WireFailure) in try PESHeader(raw, at: 0) } }.get()
        #expect(header.streamID == 0xE0)
        #expect(header.packetLength == nil)
        #expect(header.pts == 0x1_2345_6789)
        #expect(header.dts == 90000)
        #expect(header.headerLength == 19)

        var clearedMarker = Self.timestamps
        clearedMarker[9] &= 0xFE
        #expect(throws: WireFailure.malformed("a PES timestamp with a marker bit clear", at: 9)) {
            try clearedMarker.withUnsafeBytes { raw in Result { () throws(WireFailure) in try PESHeader(raw, at: 0) } }.get()
        }
    }

    @Test("timestamps unwrap across 2^33 and stay put when they go back a little")
    func unwrapping() {
        var clock = TimestampUnwrapper()
        let wrap: Int64 = 1 << 33
        #expect(clock.unwrap(UInt64(wrap - 3000)) == wrap - 3000)
        #expect(clock.unwrap(0) == wrap)              // wrapped: counts on
        #expect(clock.unwrap(3000) == wrap + 3000)
        #expect(clock.unwrap(0) == wrap)              // back a little (B-frames): not a wrap
        #expect(clock.unwrap(UInt64(wrap - 1500)) == wrap - 1500)  // back across the wrap
    }

    /// ADTS for AAC LC, 48 kHz, mono, a 15-byte frame with no CRC.
    static let adts: [UInt8] = [0xFF, 0xF1, 0x4C, 0x40, 0x01, 0xFF, 0xFC] + [UInt8](repeating: 0x21, count: 8)

    @Test("ADTS headers give the AudioSpecificConfig an esds carries")
    func adtsHeaders() throws {
        let header = try Self.adts.withUnsafeBytes { raw in Result { () throws(WireFailure) in try ADTSHeader(raw, at: 0) } }.get()
        #expect(header.audioObjectType == 2)
        #expect(header.sampleRate == 48000)
        #expect(header.channelConfiguration == 1)
        #expect(header.headerLength == 7)
        #expect(header.frameLength == 15)
        #expect(header.audioSpecificConfig == [0x11, 0x88])  // what ffmpeg writes for the fixtures

        let two = Self.adts + Self.adts
        let frames = try two.withUnsafeBytes { raw in Result { () throws(WireFailure) in try ADTSFrames.split(raw, at: 0) } }.get()
        #expect(frames.map(\.data) == [7..<15, 22..<30])

        #expect(throws: WireFailure.unsupported("an ADTS frame of 15 bytes continued in the next PES packet", at: 0)) {
            try Array(two.dropLast()).withUnsafeBytes { raw in Result { () throws(WireFailure) in try ADTSFrames.split(raw, at: 0) } }.get()
        }
        var pce = Self.adts
        pce[2] &= 0xFE; pce[3] &= 0x3F  // channel configuration 0
        #expect(throws: WireFailure.unsupported("ADTS channel configuration 0 (the layout is in a program config element)", at: 2)) {
            try pce.withUnsafeBytes { raw in Result { () throws(WireFailure) in try ADTSHeader(raw, at: 0) } }.get()
        }
    }

    /// The fixtures' SPS (High profile, level 1.0, 160x90: 10x6 macroblocks cropped by 6 lines).
    static let sps: [UInt8] = [0x67, 0x64, 0x00, 0x0A, 0xAC, 0xD9, 0x42, 0x8D, 0xF9, 0x30, 0x11, 0x00, 0x00, 0x03, 0x00,
                               0x01, 0x00, 0x00, 0x03, 0x00, 0x30, 0x0F, 0x12, 0x25, 0x96]
    static let pps: [UInt8] = [0x68, 0xEF, 0x86, 0x72, 0xC0]

    @Test("an access unit becomes a length-prefixed sample without AUD, SPS and PPS")
    func accessUnits() throws {
        //   00 00 00 01 | 09 F0 | 00 00 00 01 | SPS | 00 00 01 | PPS | 00 00 01 | 65 88 84 | 00 (trailing zero)
        let slice: [UInt8] = [0x65, 0x88, 0x84]
        let stream: [UInt8] = [0, 0, 0, 1, 0x09, 0xF0, 0, 0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps + [0, 0, 1] + slice + [0]
        try stream.withUnsafeBytes { raw in
            let unit = try Result { () throws(WireFailure) in try VideoAccessUnit(payload: raw, format: .h264, at: 0) }.get()
            #expect(unit.isRandomAccess)
            #expect(unit.sampleSize == 4 + 3)
            #expect(unit.parameterSets.map(\.type) == [7, 8])
            #expect(unit.parameterSets.map { Array(stream[$0.range]) } == [Self.sps, Self.pps])
            #expect(lengthPrefixedSample(unit.sampleUnits, in: raw) == [0, 0, 0, 3] + slice)
        }
        #expect(throws: WireFailure.malformed("2 bytes before the first start code of an access unit", at: 40)) {
            try ([0xAB, 0xCD, 0, 0, 1] + slice).withUnsafeBytes { raw in
                Result { () throws(WireFailure) in try VideoAccessUnit(payload: raw, format: .h264, at: 40) }
            }.get()
        }
        #expect(throws: WireFailure.malformed("a video PES packet without a picture", at: 0)) {
            try ([0, 0, 1, 0x09, 0xF0] as [UInt8]).withUnsafeBytes { raw in
                Result { () throws(WireFailure) in try VideoAccessUnit(payload: raw, format: .h264, at: 0) }
            }.get()
        }
    }

    /// Start codes are looked for eight bytes at a time, in words that overlap by one byte: the
    /// table puts them at each place in and across a word, and the random cases check the scan
    /// against a byte-by-byte one.
    ///
    /// ```
    /// word 0   |0 1 2 3 4 5 6 7|          word 1 starts at 7: |7 8 9 ... 14|
    /// cases     00 00 01 at 0, 5 (01 in the next word), 6 and 7 (zeros split), 13; 00 00 03 never
    /// ```
    @Test("start codes are found wherever they fall in the eight-byte words the scan reads", arguments: [
        (0, [0, 0, 1] + [UInt8](repeating: 0xAA, count: 20), Int?.some(0)),
        (0, [UInt8](repeating: 0xAA, count: 5) + [0, 0, 1] + [UInt8](repeating: 0xAA, count: 12), 5),
        (0, [UInt8](repeating: 0xAA, count: 6) + [0, 0, 1] + [UInt8](repeating: 0xAA, count: 12), 6),
        (0, [UInt8](repeating: 0xAA, count: 7) + [0, 0, 1] + [UInt8](repeating: 0xAA, count: 12), 7),
        (0, [UInt8](repeating: 0xAA, count: 13) + [0, 0, 1] + [UInt8](repeating: 0xAA, count: 12), 13),
        (0, [UInt8](repeating: 0xAA, count: 4) + [0, 0, 0, 1, 0xAA], 5),   // 00 00 00 01: the code is its last three
        (0, [0xAA, 0, 0, 3, 0, 0, 3, 1, 0, 0x01, 0, 0] + [UInt8](repeating: 0, count: 2), nil),
        (0, [0xAA, 0xAA, 0, 0], nil),
        (0, [0xAA, 0, 0, 1], 1),                                             // in the tail, past the last word
        (2, [0, 0, 1, 0xAA, 0, 0, 1, 0xAA, 0xAA, 0xAA, 0xAA], 4),           // from a later start
    ] as [(Int, [UInt8], Int?)])
    func startCodes(_ start: Int, _ bytes: [UInt8], _ expected: Int?) {
        #expect(bytes.withUnsafeBytes { AnnexB.startCode(in: $0, from: start) } == expected)
    }

    @Test("the word-at-a-time start code scan agrees with a byte-by-byte one on random streams")
    func startCodesAgainstReference() {
        var random = SeededGenerator(seed: 27)
        for round in 0..<2_000 {
            // Few distinct values, so zeros, pairs and start codes are common.
            let bytes = (0..<Int.random(in: 0..<64, using: &random)).map { _ in [0, 0, 0, 1, 3, 0xAA][Int.random(in: 0..<6, using: &random)] as UInt8 }
            let start = Int.random(in: 0...max(0, bytes.count), using: &random)
            let reference = (start..<max(start, bytes.count - 2)).first { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 1 }
            let found = bytes.withUnsafeBytes { AnnexB.startCode(in: $0, from: start) }
            #expect(found == reference, "round \(round): \(bytes) from \(start)")
            if found != reference { return }
        }
        // Long runs without a zero byte, as slice data has, with a few zeros, pairs and start codes
        // at any place in and across the words.
        for round in 0..<2_000 {
            var bytes = (0..<Int.random(in: 0..<400, using: &random)).map { _ in UInt8.random(in: 1...255, using: &random) }
            for _ in 0..<Int.random(in: 0...3, using: &random) where !bytes.isEmpty {
                let insert: [[UInt8]] = [[0], [0, 0], [0, 0, 1], [0, 0, 0, 1], [0, 0, 3]]
                bytes.insert(contentsOf: insert[Int.random(in: 0..<insert.count, using: &random)], at: Int.random(in: 0..<bytes.count, using: &random))
            }
            let start = Int.random(in: 0...max(0, bytes.count), using: &random)
            let reference = (start..<max(start, bytes.count - 2)).first { bytes[$0] == 0 && bytes[$0 + 1] == 0 && bytes[$0 + 2] == 1 }
            let found = bytes.withUnsafeBytes { AnnexB.startCode(in: $0, from: start) }
            #expect(found == reference, "sparse round \(round): \(bytes) from \(start)")
            if found != reference { return }
        }
    }

    @Test("emulation prevention bytes are removed before a parameter set is parsed")
    func emulationPrevention() {
        #expect(AnnexB.rbsp([0x67, 0x00, 0x00, 0x03, 0x01, 0x00, 0x00, 0x03]) == [0x67, 0x00, 0x00, 0x01, 0x00, 0x00])
    }

    @Test("sequence parameter sets: profile, chroma, bit depth, cropped size")
    func sequenceParameterSets() throws {
        let sps = try H264SequenceParameterSet(unit: Self.sps, at: 0)
        #expect(sps.profile == 100)
        #expect(sps.level == 10)
        #expect(sps.chromaFormat == 1)
        #expect(sps.bitDepthLuma == 8)
        #expect(sps.width == 160)
        #expect(sps.height == 90)
        #expect(throws: WireFailure.malformed("a sequence parameter set that ends before its frame size", at: 7)) {
            try H264SequenceParameterSet(unit: Array(Self.sps.prefix(8)), at: 7)
        }
    }

    @Test("PES packets are put together across packets and checked for lost ones")
    func assembly() throws {
        // A PES of 200 bytes (length field 194) on PID 0x100 in two packets.
        let pes: [UInt8] = [0, 0, 1, 0xC0, 0, 194, 0x80, 0x80, 5, 0x21, 0x00, 0x01, 0x00, 0x01] + [UInt8](repeating: 7, count: 186)
        let first = [0x47, 0x41, 0x00, 0x10] + pes.prefix(184)
        let rest = Array(pes.dropFirst(184))
        let stuffing = 184 - rest.count - 2
        let second = [0x47, 0x01, 0x00, 0x31, UInt8(stuffing + 1), 0x00] + [UInt8](repeating: 0xFF, count: stuffing) + rest
        var assembler = PESAssembler(pids: [0x100])
        func add(_ bytes: [UInt8], at offset: UInt64) throws -> PESPacket? {
            try bytes.withUnsafeBytes { raw in
                Result { () throws(WireFailure) in try assembler.add(TSPacket(raw, at: offset), bytes: raw, at: offset) }
            }.get()
        }
        #expect(try add(first, at: 0) == nil)
        let packet = try #require(try add(second, at: 188))
        #expect(packet.offset == 0)
        #expect(packet.header.pts == 0)
        #expect(packet.payload == [UInt8](repeating: 7, count: 186))

        var lost = second
        lost[3] = 0x33  // counter 3 after 0
        _ = try add(first, at: 376)
        #expect(throws: WireFailure.malformed("PID 0x100: continuity counter 3 after 0 (a packet is missing)", at: 567)) {
            _ = try add(lost, at: 564)
        }
    }
    /// The assembler takes a PES header off as soon as it is whole; one cut by a packet boundary
    /// waits for the rest.
    ///
    /// ```
    /// packet 1   [adaptation field, 180 bytes][00 00 01 E0]       4 bytes of the header
    /// packet 2   [.. header, 10 more ..][payload ...]             header whole here
    /// ```
    @Test("a PES header cut by a packet boundary, and one longer than its packet's stated length")
    func headerAcrossPackets() throws {
        func packet(pid: UInt16 = 0x100, start: Bool, counter: UInt8, _ payload: [UInt8]) -> [UInt8] {
            let stuffing = 184 - payload.count
            var bytes: [UInt8] = [0x47, (start ? 0x40 : 0) | UInt8(pid >> 8), UInt8(pid & 0xFF)]
            if stuffing == 0 { return bytes + [0x10 | counter] + payload }
            bytes.append(0x30 | counter)
            bytes.append(UInt8(stuffing - 1))
            if stuffing > 1 { bytes += [0x00] + [UInt8](repeating: 0xFF, count: stuffing - 2) }
            return bytes + payload
        }
        var assembler = PESAssembler(pids: [0x100])
        func add(_ bytes: [UInt8], at offset: UInt64) throws -> PESPacket? {
            try bytes.withUnsafeBytes { raw in
                Result { () throws(WireFailure) in try assembler.add(TSPacket(raw, at: offset), bytes: raw, at: offset) }
            }.get()
        }
        // Unbounded video PES, PTS + DTS (a header of 19 bytes).
        let header: [UInt8] = [0, 0, 1, 0xE0, 0, 0, 0x80, 0xC0, 10, 0x31, 0, 0x01, 0, 0x05, 0x11, 0, 0x01, 0, 0x03]
        let payload = (0..<300).map { UInt8($0 & 0xFF) }
        #expect(try add(packet(start: true, counter: 0, Array(header.prefix(4))), at: 0) == nil)
        #expect(try add(packet(start: false, counter: 1, Array(header.dropFirst(4)) + payload.prefix(169)), at: 188) == nil)
        #expect(try add(packet(start: false, counter: 2, Array(payload.dropFirst(169))), at: 376) == nil)
        let packets = try assembler.finish()
        #expect(packets.count == 1)
        #expect(packets.first?.header.pts == 2 && packets.first?.header.dts == 1)
        #expect(packets.first?.payload == payload)

        // A header cut short by the segment's end.
        _ = try add(packet(start: true, counter: 3, Array(header.prefix(12))), at: 564)
        #expect(throws: WireFailure.malformed("a PES header of 19 bytes runs past its packet", at: 564)) { try assembler.finish() }

        // A stated length (3 bytes after the length field) that ends inside the header.
        var short = header
        short[5] = 3
        #expect(throws: WireFailure.malformed("a PES header of 19 bytes runs past its packet", at: 752)) {
            try add(packet(start: true, counter: 4, short + payload.prefix(20)), at: 752)
        }
    }
}

extension PESPacket: Equatable {
    public static func == (a: PESPacket, b: PESPacket) -> Bool {
        a.pid == b.pid && a.offset == b.offset && a.header == b.header && a.payload == b.payload
    }
}
