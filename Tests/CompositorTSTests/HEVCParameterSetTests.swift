import Foundation
import Testing
import CompositorTestSupport
@testable import CompositorCore
@testable import CompositorTS

/// The HEVC parameter sets x265 writes for 320x240 Main at level 2 (from ffmpeg's TS output).
@Suite("HEVC parameter sets")
struct HEVCParameterSetTests {
    static let vps: [UInt8] = [0x40, 0x01, 0x0C, 0x01, 0xFF, 0xFF, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03,
                               0x00, 0x00, 0x03, 0x00, 0x3C, 0x95, 0x90, 0x09]
    static let sps: [UInt8] = [0x42, 0x01, 0x01, 0x01, 0x60, 0x00, 0x00, 0x03, 0x00, 0x90, 0x00, 0x00, 0x03, 0x00, 0x00, 0x03,
                               0x00, 0x3C, 0xA0, 0x0A, 0x08, 0x0F, 0x16, 0x59, 0x59, 0x12, 0x93, 0x0B, 0xC0, 0x5A, 0x02, 0x00,
                               0x00, 0x03, 0x00, 0x02, 0x00, 0x00, 0x03, 0x00, 0x32, 0x10]
    static let pps: [UInt8] = [0x44, 0x01, 0xC0, 0x73, 0xC1, 0x89]

    @Test("SPS: profile, tier and level bytes as hvcC copies them, sub-layers, chroma, bit depth, size")
    func sequenceParameterSet() throws {
        let sps = try HEVCSequenceParameterSet(unit: Self.sps, at: 0)
        // Emulation prevention bytes (00 00 03) removed: Main (1), compatible with Main and Main 10, level 2 (60).
        #expect(sps.profileTierLevel == [0x01, 0x60, 0x00, 0x00, 0x00, 0x90, 0x00, 0x00, 0x00, 0x00, 0x00, 0x3C])
        #expect(sps.profile == 1 && sps.level == 60)
        #expect(sps.id == 0 && sps.maxSubLayers == 1 && sps.temporalIDNesting)
        #expect(sps.chromaFormat == 1 && sps.bitDepthLuma == 8 && sps.bitDepthChroma == 8)
        #expect(sps.width == 320 && sps.height == 240)
        #expect(throws: WireFailure.malformed("an HEVC sequence parameter set that ends before its bit depths", at: 9)) {
            try HEVCSequenceParameterSet(unit: Array(Self.sps.prefix(20)), at: 9)
        }
        #expect(throws: WireFailure.malformed("an HEVC sequence parameter set too short to read", at: 9)) {
            try HEVCSequenceParameterSet(unit: Self.pps, at: 9)
        }
    }

    @Test("parameter set ids: VPS in 4 bits, SPS after the profile, PPS first")
    func ids() throws {
        #expect(try VideoCodingFormat.hevc.parameterSetID(Self.vps, type: 32, at: 0) == 0)
        #expect(try VideoCodingFormat.hevc.parameterSetID(Self.sps, type: 33, at: 0) == 0)
        #expect(try VideoCodingFormat.hevc.parameterSetID([0x44, 0x01, 0x20], type: 34, at: 0) == 3)  // ue '00100' = 3
        #expect(throws: WireFailure.malformed("a VPS too short for its id", at: 5)) {
            try VideoCodingFormat.hevc.parameterSetID([0x40, 0x01], type: 32, at: 5)
        }
    }

    @Test("an HEVC access unit: AUD and parameter sets out, IRAP pictures are random access points")
    func accessUnit() throws {
        let slice: [UInt8] = [0x2A, 0x01, 0xAF]  // CRA_NUT (21)
        let stream: [UInt8] = [0, 0, 0, 1, 0x46, 0x01, 0x50] + [0, 0, 1] + Self.vps + [0, 0, 1] + Self.sps + [0, 0, 1] + Self.pps
            + [0, 0, 1] + slice
        try stream.withUnsafeBytes { raw in
            let unit = try Result { () throws(WireFailure) in try VideoAccessUnit(payload: raw, format: .hevc, at: 0) }.get()
            #expect(unit.isRandomAccess)
            #expect(unit.parameterSets.map(\.type) == [32, 33, 34])
            #expect(unit.sampleSize == 4 + slice.count)
        }
        let trailing = try ([0, 0, 1, 0x02, 0x01, 0xD0] as [UInt8]).withUnsafeBytes { raw in  // TRAIL_R (1)
            try Result { () throws(WireFailure) in try VideoAccessUnit(payload: raw, format: .hevc, at: 0) }.get()
        }
        #expect(!trailing.isRandomAccess)
        #expect(throws: WireFailure.malformed("a NAL unit of 1 byte, shorter than its HEVC header", at: 7)) {
            try ([0, 0, 1, 0x26] as [UInt8]).withUnsafeBytes { raw in
                Result { () throws(WireFailure) in try VideoAccessUnit(payload: raw, format: .hevc, at: 7) }
            }.get()
        }
    }
}
