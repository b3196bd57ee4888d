import Foundation
import Testing
@testable import Compositor
@testable import CompositorCore
@testable import CompositorIO

/// A path is bytes: a name that is not UTF-8 is written and read under exactly that name.
@Suite("Paths that are not UTF-8")
struct NonUTF8PathTests {
    @Test("a render to a non-UTF-8 name lands under those bytes, and the file reads back")
    func renderToLatin1Name() throws {
        let folder = try MP4Fixtures.makeScratchFolder("latin1")
        defer { MP4Fixtures.remove(folder) }
        let name: [UInt8] = Array("caf".utf8) + [0xE9] + Array(".mp4".utf8)   // "café.mp4" in Latin-1
        let output = FilePath(bytes: Array(folder.utf8) + [UInt8(ascii: "/")] + name)
        var schedule = Schedule()
        try schedule.appendContentClip(ContentClip(id: "c", source: MediaLocation(FilePath(MP4Fixtures.ad1))))
        let composition = try Composition(schedule: schedule, naturalDurations: [
            MediaLocation(FilePath(MP4Fixtures.ad1)): try SourceProbe.probe(MediaLocation(FilePath(MP4Fixtures.ad1))).naturalDuration,
        ])
        try CompositionRenderer.render(composition, to: output)
        #expect(folderEntries(FilePath(folder)) == [name])
        #expect(try SourceProbe.probe(MediaLocation(output)).naturalDuration == composition.duration)
    }

    @Test("a schedule's file: URL can name such a file by its escapes")
    func scheduleNamesLatin1File() throws {
        let location = try MediaLocation(parsing: "file:///tmp/caf%E9.mp4")
        #expect(location.filePath?.bytes == Array("/tmp/caf".utf8) + [0xE9] + Array(".mp4".utf8))
        #expect(location.description == "/tmp/caf\\xE9.mp4")
    }
}

/// The atomic folder writer writes only inside its folder.
@Suite("Atomic output folder")
struct AtomicOutputFolderTests {
    @Test("a file name that would leave the folder is refused before anything is written", arguments: ["..", ".", "", "a/b", "x\u{0}"])
    func refusesEscapingNames(name: String) throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-names")
        defer { MP4Fixtures.remove(scratch) }
        let target = FilePath(scratch + "/out")
        #expect(throws: FileError.self) {
            try AtomicOutputFolder.write([("ok.txt", [1]), (name, [2])], to: target, isReplaceable: { _ in true })
        }
        #expect(MP4Fixtures.listing(scratch).isEmpty)
    }

    @Test("the folder appears with every file, and replaces an earlier one it may replace")
    func writesAndReplaces() throws {
        let scratch = try MP4Fixtures.makeScratchFolder("folder-write")
        defer { MP4Fixtures.remove(scratch) }
        let target = FilePath(scratch + "/out")
        try AtomicOutputFolder.write([("a.txt", [1]), ("b.txt", [2])], to: target, isReplaceable: { _ in false })
        #expect(MP4Fixtures.listing(scratch + "/out") == ["a.txt", "b.txt"])
        try AtomicOutputFolder.write([("a.txt", [3])], to: target, isReplaceable: { ["a.txt", "b.txt"].contains($0) })
        #expect(MP4Fixtures.listing(scratch + "/out") == ["a.txt"])
        #expect(try MP4Fixtures.bytes(scratch + "/out/a.txt") == [3])
        #expect(MP4Fixtures.listing(scratch) == ["out"])
    }
}
