import Testing
@testable import Compositor
@testable import CompositorDemo
import CompositorHLS

/// Options are checked when they are made: what does not go together never reaches a stitch.
@Suite("HLS export options")
struct HLSExportOptionsTests {
    struct Refusal: CustomTestStringConvertible, Sendable {
        let name: String
        let make: @Sendable () throws(HLSExportOptionsError) -> HLSExportOptions
        let cause: HLSExportOptionsError.Cause
        let options: [String]
        var testDescription: String { name }
    }

    static let refusals: [Refusal] = [
        Refusal(name: "a program date-time that is not ISO 8601", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(programDateTime: "yesterday") }, cause: .invalidProgramDateTime, options: ["programDateTime"]),
        Refusal(name: "a program date-time in month 13", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(programDateTime: "2026-13-01T00:00:00Z") }, cause: .invalidProgramDateTime, options: ["programDateTime"]),
        Refusal(name: "an empty marker class", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(markerClass: "") }, cause: .unwritableMarkerClass, options: ["markerClass"]),
        Refusal(name: "a marker class with a quote", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(markerClass: "ad\"s") }, cause: .unwritableMarkerClass, options: ["markerClass"]),
        Refusal(name: "a marker class with a line break", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(markerClass: "ad\n#EXT-X-ENDLIST") }, cause: .unwritableMarkerClass, options: ["markerClass"]),
        Refusal(name: "encoding changes unmarked, pieces listed as they are", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(marksEncodingChanges: false) },
            cause: .unmarkedEncodingChangesNeedEveryPiece, options: ["marksEncodingChanges", "packagesEveryPiece"]),
        Refusal(name: "an asset base that is a relative path", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(assetBaseURL: "shows/42/") }, cause: .invalidAssetBaseURL, options: ["assetBaseURL"]),
        Refusal(name: "an asset base without its closing slash", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(assetBaseURL: "http://127.0.0.1:8080/shows/42") }, cause: .invalidAssetBaseURL, options: ["assetBaseURL"]),
        Refusal(name: "an asset base of another scheme", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(assetBaseURL: "ftp://127.0.0.1/") }, cause: .invalidAssetBaseURL, options: ["assetBaseURL"]),
        Refusal(name: "an asset base with a query", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(assetBaseURL: "/shows/?token=1/") }, cause: .invalidAssetBaseURL, options: ["assetBaseURL"]),
        Refusal(name: "an asset base with a quote", make: { () throws(HLSExportOptionsError) in
            try HLSExportOptions(assetBaseURL: "/a\"b/") }, cause: .invalidAssetBaseURL, options: ["assetBaseURL"]),
    ]

    @Test("options that cannot be written or do not go together are refused with a cause and the options named", arguments: refusals)
    func refused(_ refusal: Refusal) {
        #expect(throws: HLSExportOptionsError.self) { try refusal.make() }
        do {
            _ = try refusal.make()
        } catch {
            #expect(error.cause == refusal.cause)
            #expect(error.options == refusal.options)
            #expect(error.description.hasPrefix(refusal.options.joined(separator: " and ") + ": "))
        }
    }

    @Test("every option at its default is the default value; options that go together are kept as given")
    func accepted() throws {
        #expect(try HLSExportOptions() == .default)
        let options = try HLSExportOptions(
            programDateTime: "2026-11-27T06:00:00.5+01:00", markerClass: "com.example.break", snapping: .within,
            breakSnapping: ["mid1": .next], cueMarkers: [.cueTags, .scte35], segmentContainer: .fragmentedMP4,
            packagesEveryPiece: true, marksEncodingChanges: false)
        #expect(options.programDateTime == "2026-11-27T06:00:00.5+01:00")
        #expect(options.breakSnapping == ["mid1": .next] && options.snapping == .within)
        #expect(options.packagesEveryPiece && !options.marksEncodingChanges)
        #expect(HLSExporter(outputURL: "/out/stitched.m3u8", options: options).options == options)
    }

    @Test("causes compare by what they are and print their names")
    func causes() {
        #expect(HLSExportOptionsError.Cause.invalidProgramDateTime != .unwritableMarkerClass)
        #expect(HLSExportOptionsError.Cause.unmarkedEncodingChangesNeedEveryPiece.description == "unmarkedEncodingChangesNeedEveryPiece")
    }

    // MARK: The command line parses into the options, then checks them together

    static func options(_ arguments: [String]) throws(DemoError) -> HLSCommand.Options {
        var parsed = Arguments(arguments.map { Array($0.utf8) })
        let options = try HLSCommand.Options.parse(&parsed)
        try options.validate()
        return options
    }

    @Test("hls's options: each rule between them is a usage error naming the flags", arguments: [
        (["--restrict-jumps"], "--restrict-jumps applies to --interstitials only"),
        (["--asset-base-url", "/out/"], "--asset-base-url applies to --interstitials only"),
        (["--interstitials", "--asset-base-url", "out/"],
         "--asset-base-url: 'out/' is not where a folder is served: give an http or https URL, or a path from the server's root (/shows/42/), ending in '/', without a query, a fragment, spaces or quotes"),
        (["--interstitials", "--cue-tags"], "--cue-tags and --scte35 mark the ads in the playlist; with --interstitials there are none"),
        (["--interstitials", "--package-every-piece"], "--package-every-piece makes one stream of every piece; with --interstitials each ad keeps its own"),
        (["--unmarked-encoding-changes"], "--unmarked-encoding-changes needs --package-every-piece: pieces listed as they are jump in timestamps at every switch"),
        (["--snap", "sideways"], "--snap: expected nearest, next, previous, covering, within, got 'sideways'"),
        (["--snap-break", "mid1"], "--snap-break expects BREAK=RULE, got 'mid1'"),
        (["--snap-break", "mid1=next", "--snap-break", "mid1=previous"], "--snap-break gives break 'mid1' two rules"),
        (["--segments", "mkv"], "--segments: expected ts or fmp4, got 'mkv'"),
        (["--scte35", "extra.json"], "unexpected argument 'extra.json'"),
    ])
    func usageErrors(_ extra: [String], message: String) {
        do {
            _ = try Self.options(["schedule.json", "--output", "out"] + extra)
            Issue.record("accepted \(extra)")
        } catch {
            guard case .usage(let text) = error else { Issue.record("not a usage error: \(error)"); return }
            #expect(text == message)
        }
    }

    @Test("hls's options become the export's: every flag to its option")
    func exportOptions() throws {
        let options = try Self.options([
            "s.json", "--output", "out", "--snap", "previous", "--snap-break", "b=1=next", "--cue-tags", "--segments", "fmp4",
            "--package-every-piece", "--unmarked-encoding-changes",
        ])
        #expect(options.schedule == FilePath("s.json") && options.output == FilePath("out") && options.layout == .spliced)
        let export = try options.exportOptions()
        #expect(export == (try HLSExportOptions(
            snapping: .previous, breakSnapping: ["b=1": .next], cueMarkers: [.cueTags], segmentContainer: .fragmentedMP4,
            packagesEveryPiece: true, marksEncodingChanges: false)))
        let interstitials = try Self.options(["s.json", "--output", "out", "--interstitials", "--restrict-jumps"])
        #expect(interstitials.layout == .interstitials(restrictingJumps: true))
        #expect(try interstitials.exportOptions() == .default)
        let served = try Self.options(["s.json", "--output", "out", "--interstitials", "--asset-base-url", "http://127.0.0.1:8080/show/"])
        #expect(try served.exportOptions() == (try HLSExportOptions(assetBaseURL: "http://127.0.0.1:8080/show/")))
    }
}
