import CompositorCore
import CompositorIO

/// The sources a write copies from, opened when first needed and at most `limit` at once (the
/// least recently used is closed first), so a render of 10,000 sources stays within a
/// 1,024-descriptor limit.
///
/// The plan was made from one version of each file. Each is checked against that version when it
/// is opened (a file renamed into its place, or resized, or touched since) and again when it is
/// closed (modified in place while being copied), so a write never mixes bytes of two versions.
struct SourceFiles {
    private let sources: [(path: FilePath, version: FileVersion)]
    private let limit: Int
    private var open: [Int: ReadableFile] = [:]
    /// Indices of the open files, least recently used first.
    private var recent: [Int] = []

    init(_ sources: [(path: FilePath, version: FileVersion)], limit: Int = 32) {
        self.sources = sources
        self.limit = max(1, limit)
    }

    /// Source `index`, open and checked.
    mutating func file(_ index: Int) throws(FileError) -> ReadableFile {
        if let file = open[index] {
            if recent.last != index, let position = recent.firstIndex(of: index) {
                recent.remove(at: position)
                recent.append(index)
            }
            return file
        }
        if open.count >= limit, let oldest = recent.first {
            recent.removeFirst()
            try open.removeValue(forKey: oldest)?.checkUnchanged()
        }
        let source = sources[index]
        let file = try ReadableFile(path: source.path, expecting: source.version)
        open[index] = file
        recent.append(index)
        return file
    }

    /// Checks and closes every file still open.
    mutating func closeAll() throws(FileError) {
        defer { open = [:]; recent = [] }
        for index in recent { try open[index]?.checkUnchanged() }
    }
}
