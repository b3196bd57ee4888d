import Testing
@testable import Compositor
@testable import CompositorCore

/// What a packaged source's files are called: its file's name, or for a playlist its folder's.
@Suite("Packaged sources: file names")
struct PackagedSourceNameTests {
    @Test("a source's files take its file name, a playlist's its folder's, each made unique", arguments: [
        (["/m/ad1.mp4", "/m/ad1.mp4", "/n/ad1.mp4"], ["ad1", "ad1-2", "ad1-3"]),
        (["/hls/content/index.m3u8", "/hls/ad1/index.m3u8", "/other/content/prog_index.m3u8"], ["content", "ad1", "content-2"]),
        (["/index.m3u8", "index.m3u8", "v1.2/index.m3u8", "/m/a b.mp4"], ["index", "index-2", "v1_2", "a_b"]),
    ])
    func names(paths: [String], stems: [String]) {
        var taken: Set<String> = []
        #expect(paths.map { HLSPackagedSource.stem(for: MediaLocation(FilePath($0)), taken: &taken) } == stems)
    }
}
