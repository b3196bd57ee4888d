import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import CompositorCore
@testable import CompositorIO
@testable import CompositorMP4

/// Bad input: every failure is a typed `MP4Error` that names the file and says why, nothing
/// crashes, and a failed stitch leaves no output and no temporary file behind.
@Suite("MP4 bad input")
struct MP4BadInputTests {
    /// Stitching `source` (its first second) must fail with an error about `source`, and leave
    /// the output folder as it was.
    static func expectStitchFails(_ source: String, sourceLocation: SourceLocation = #_sourceLocation) throws -> MP4Error? {
        let folder = try MP4Fixtures.makeScratchFolder("out")
        defer { MP4Fixtures.remove(folder) }
        var caught: MP4Error?
        do {
            try MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "1"), piece(source, "0", "1")]).stitch(to: FilePath(folder + "/out.mp4"))
            Issue.record("stitching \(source) succeeded", sourceLocation: sourceLocation)
        } catch {
            caught = error
            #expect(error.file == source, "\(error)", sourceLocation: sourceLocation)
            #expect(error.description.contains(source), sourceLocation: sourceLocation)
        }
        #expect(MP4Fixtures.listing(folder).isEmpty, "left behind: \(MP4Fixtures.listing(folder))", sourceLocation: sourceLocation)
        return caught
    }

    @Test("a missing file")
    func missingFile() throws {
        let path = MP4Fixtures.path("missing.mp4")
        #expect(throws: MP4Error.fileNotFound(file: path)) { try MP4Reader.read(path: FilePath(path)) }
        _ = try Self.expectStitchFails(path)
    }

    @Test("a file that is not an MP4", arguments: ["demo.json", "generate.sh"])
    func notMP4(name: String) throws {
        let path = MP4Fixtures.path(name)
        #expect { try MP4Reader.read(path: FilePath(path)) } throws: { error in
            guard case .notMP4(let file, _) = error as? MP4Error else { return false }
            return file == path
        }
        _ = try Self.expectStitchFails(path)
    }

    @Test("truncated at every box boundary", arguments: [MP4Fixtures.content, MP4Fixtures.ad1])
    func truncated(fixture: String) throws {
        let bytes = try MP4Fixtures.bytes(fixture)
        let boundaries = Set(MP4Bytes.boxes(in: bytes).flatMap { [$0.start, $0.end] }).filter { $0 < bytes.count }.sorted()
        #expect(boundaries.count > 40)
        let folder = try MP4Fixtures.makeScratchFolder("truncated")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/truncated.mp4"
        for length in boundaries {
            try MP4Fixtures.write(Array(bytes[0..<length]), to: path)
            do {
                _ = try MP4Reader.read(path: FilePath(path))
                Issue.record("read a copy cut at byte \(length) without error")
            } catch {
                #expect(error.file == path)
                switch error {
                case .malformed, .notMP4: break
                default: Issue.record("cut at \(length): \(error)")
                }
            }
        }
        // And the stitcher refuses one, leaving nothing behind.
        try MP4Fixtures.write(Array(bytes[0..<boundaries[boundaries.count / 2]]), to: path)
        _ = try Self.expectStitchFails(path)
    }

    @Test("no moov box")
    func noMovie() throws {
        let bytes = try MP4Fixtures.bytes(MP4Fixtures.content)
        let kept = MP4Bytes.boxes(in: bytes).filter { !$0.path.contains("/") && $0.path != "moov" }
        let folder = try MP4Fixtures.makeScratchFolder("nomoov")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/nomoov.mp4"
        try MP4Fixtures.write(kept.flatMap { bytes[$0.start..<$0.end] }, to: path)
        let error = try Self.expectStitchFails(path)
        guard case .malformed(_, _, _, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(reason.contains("no moov"))
    }

    @Test("a box size past the end of the file")
    func sizePastEnd() throws {
        var bytes = try MP4Fixtures.bytes(MP4Fixtures.ad1)
        let mdat = try #require(MP4Bytes.boxes(in: bytes).first { $0.path == "mdat" })
        let lie = UInt32(bytes.count - mdat.start + 1000)
        bytes.replaceSubrange(mdat.start..<mdat.start + 4, with: [UInt8(lie >> 24), UInt8(lie >> 16 & 0xFF), UInt8(lie >> 8 & 0xFF), UInt8(lie & 0xFF)])
        let folder = try MP4Fixtures.makeScratchFolder("size")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/lying-size.mp4"
        try MP4Fixtures.write(bytes, to: path)
        let error = try Self.expectStitchFails(path)
        guard case .malformed(_, _, let offset, let reason)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(offset == UInt64(mdat.start))
        #expect(reason.contains("past the end"))
    }

    @Test("an absurd sample count", arguments: ["stsz", "stts", "stco"])
    func absurdCount(box: String) throws {
        var bytes = try MP4Fixtures.bytes(MP4Fixtures.ad1)
        let table = try #require(MP4Bytes.boxes(in: bytes).first { $0.path.hasSuffix("trak/mdia/minf/stbl/" + box) })
        // The count follows version/flags (and, in stsz, the constant size).
        let countOffset = table.start + 8 + 4 + (box == "stsz" ? 4 : 0)
        bytes.replaceSubrange(countOffset..<countOffset + 4, with: [0xFF, 0xFF, 0xFF, 0xF0])
        let folder = try MP4Fixtures.makeScratchFolder("count")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/absurd-\(box).mp4"
        try MP4Fixtures.write(bytes, to: path)
        let error = try Self.expectStitchFails(path)
        guard case .malformed(_, let boxPath, _, _)? = error else { Issue.record("\(String(describing: error))"); return }
        #expect(boxPath == "moov/trak[0]/mdia/minf/stbl/" + box)
    }

    @Test("two video codecs in one track name both files")
    func twoCodecs() throws {
        let folder = try MP4Fixtures.makeScratchFolder("codecs")
        defer { MP4Fixtures.remove(folder) }
        let stitcher = MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "1"), piece(MP4Fixtures.mpeg4Video, "0", "1")])
        #expect(throws: MP4Error.codecMismatch(track: .video, codec: "H.264 (avc1)", file: MP4Fixtures.content,
                                               otherCodec: "MPEG-4 Part 2 (mp4v, object type 0x20)", otherFile: MP4Fixtures.mpeg4Video)) {
            try stitcher.stitch(to: FilePath(folder + "/out.mp4"))
        }
        #expect(MP4Fixtures.listing(folder).isEmpty)
    }

    @Test("a missing output folder")
    func missingOutputFolder() {
        let folder = "/nonexistent-\(UUID().uuidString)/deeper"
        #expect(throws: MP4Error.missingOutputFolder(path: folder)) {
            try MP4Stitcher(pieces: [piece(MP4Fixtures.content, "0", "1")]).stitch(to: FilePath(folder + "/out.mp4"))
        }
    }

    @Test("pieces the source cannot give", arguments: [("0", "0"), ("5", "21"), ("-1", "2")])
    func invalidRanges(start: String, end: String) throws {
        let range = MediaTimeRange(start: try MediaTime(parsing: start), end: try MediaTime(parsing: end))
        #expect { try MP4Stitcher(pieces: [MP4StitchPiece(path: FilePath(MP4Fixtures.content), range: range)]).plan() } throws: { error in
            guard case .invalidPiece(0, MP4Fixtures.content, _) = error as? MP4Error else { return false }
            return true
        }
    }

    @Test("the output may not replace a source")
    func outputIsSource() throws {
        let folder = try MP4Fixtures.makeScratchFolder("self")
        defer { MP4Fixtures.remove(folder) }
        let path = folder + "/clip.mp4"
        let original = try MP4Fixtures.bytes(MP4Fixtures.ad1)
        try MP4Fixtures.write(original, to: path)
        #expect(throws: MP4Error.self) { try MP4Stitcher(pieces: [piece(path, "0", "1")]).stitch(to: FilePath(path)) }
        #expect(try MP4Fixtures.bytes(path) == original)
        #expect(MP4Fixtures.listing(folder) == ["clip.mp4"])
    }
}
