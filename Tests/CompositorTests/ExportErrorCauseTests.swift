import Testing
@testable import Compositor
@testable import CompositorMP4

/// Every export error has a cause a caller can match without taking its detail apart, and says
/// which item, playlist, folder or underlying error it is about.
@Suite("Export error causes")
struct ExportErrorCauseTests {
    static let range = MediaTimeRange(start: .zero, end: MediaTime(seconds: 4))
    static let scheduleError = ScheduleError.noContent
    static let mp4Error = MP4Error.fileNotFound(file: "/media/ad.mp4")

    struct HLSCase: CustomTestStringConvertible, Sendable {
        let detail: HLSExportError.Detail
        let cause: HLSExportError.Cause
        let item: String?
        let url: String?
        var testDescription: String { cause.description }
    }

    static let hlsCases: [HLSCase] = [
        HLSCase(detail: .unreadable(url: "http://127.0.0.1/a.m3u8", reason: "HTTP 404"), cause: .unreadable, item: nil, url: "http://127.0.0.1/a.m3u8"),
        HLSCase(detail: .malformed(url: "/a.m3u8", reason: "line 3"), cause: .malformed, item: nil, url: "/a.m3u8"),
        HLSCase(detail: .unsupported(url: "/live.m3u8", reason: "live"), cause: .unsupported, item: nil, url: "/live.m3u8"),
        HLSCase(detail: .snapsToNothing(item: "C", url: "/c.m3u8", requested: range, snapped: range), cause: .snapsToNothing, item: "C", url: "/c.m3u8"),
        HLSCase(detail: .noSuchVariant(url: "/m.m3u8", name: "720p", known: "480p"), cause: .noSuchVariant, item: nil, url: "/m.m3u8"),
        HLSCase(detail: .mixedSegmentFormats(item: "ad", url: "/ad.m3u8", format: "fMP4", previousItem: "C", previousURL: "/c.m3u8",
                                             previousFormat: "MPEG-TS"), cause: .mixedSegmentFormats, item: "ad", url: "/ad.m3u8"),
        HLSCase(detail: .variantsDisagree(item: "C", variantURL: "/v1.m3u8", range: range, firstVariantURL: "/v0.m3u8", firstRange: range),
                cause: .variantsDisagree, item: "C", url: "/v1.m3u8"),
        HLSCase(detail: .schedule(scheduleError), cause: .invalidSchedule, item: nil, url: nil),
        HLSCase(detail: .snapping(scheduleError), cause: .snapping, item: nil, url: nil),
        HLSCase(detail: .planDisagrees(item: "C", playlist: range, composition: range), cause: .planDisagrees, item: "C", url: nil),
        HLSCase(detail: .unwritableID("b\"1"), cause: .unwritableID, item: "b\"1", url: nil),
        HLSCase(detail: .packaging(item: "ad", mp4Error), cause: .packaging, item: "ad", url: nil),
        HLSCase(detail: .cannotWrite(folder: "/out", reason: "holds other files"), cause: .cannotWrite, item: nil, url: nil),
        HLSCase(detail: .stitch(item: "mid1", reason: "why"), cause: .stitch, item: "mid1", url: nil),
        HLSCase(detail: .stitch(item: nil, reason: "why"), cause: .stitch, item: nil, url: nil),
        HLSCase(detail: .cancelled(folder: "/out"), cause: .cancelled, item: nil, url: nil),
    ]

    @Test("HLS export errors: cause, item and playlist of each", arguments: hlsCases)
    func hls(_ testCase: HLSCase) {
        let error = HLSExportError(testCase.detail)
        #expect(error.cause == testCase.cause)
        #expect(error.item == testCase.item)
        #expect(error.url == testCase.url)
        #expect(error.description == testCase.detail.description)
        let hasUnderlying = error.scheduleError != nil || error.mp4Error != nil || error.folder != nil
        #expect(hasUnderlying == [.invalidSchedule, .snapping, .packaging, .cannotWrite, .cancelled].contains(testCase.cause))
    }

    @Test("the HLS causes are fifteen, each its own")
    func distinctHLSCauses() {
        #expect(Set(Self.hlsCases.map(\.cause)).count == 15)
        #expect(Set(Self.hlsCases.map(\.cause.description)).count == 15)
    }

    @Test("MP4 export errors: cause, item and the underlying error of each")
    func mp4() {
        let transport = HTTPTransportError(url: "http://127.0.0.1/a.mp4", problem: .status(404))
        let playlist = HLSExportError(.unsupported(url: "/live.m3u8", reason: "live"))
        let cases: [(MP4ExportError.Detail, MP4ExportError.Cause, String?)] = [
            (.mp4(Self.mp4Error), .mp4, nil),
            (.snapping(Self.scheduleError), .snapping, nil),
            (.planDisagrees(piece: 0, item: "C", plan: Self.range, composition: Self.range), .planDisagrees, "C"),
            (.remoteSource(item: "ad", MediaLocation(remoteURL: "http://127.0.0.1/a.mp4"), loadFailure: nil), .remoteSource, "ad"),
            (.transport(transport), .transport, nil),
            (.playlist(item: "C", playlist), .playlist, "C"),
        ]
        for (detail, cause, item) in cases {
            let error = MP4ExportError(detail)
            #expect(error.cause == cause && error.item == item, "\(detail)")
        }
        #expect(Set(cases.map(\.1)).count == cases.count)
        #expect(MP4ExportError(.mp4(Self.mp4Error)).mp4Error == Self.mp4Error)
        #expect(MP4ExportError(.transport(transport)).transportError == transport)
        #expect(MP4ExportError(.playlist(item: "C", playlist)).playlistError == playlist)
        #expect(MP4ExportError(.snapping(Self.scheduleError)).scheduleError == Self.scheduleError)
        #expect(MP4ExportError(.mp4(.cancelled(file: "/out.mp4"))).mp4Error?.isCancellation == true)
    }
}
