import Foundation
import Testing
import CompositorTestSupport
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
        try MP4Exporter.render(composition, to: output)
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
