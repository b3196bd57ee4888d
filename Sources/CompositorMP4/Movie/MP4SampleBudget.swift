import CompositorCore

/// A bound on the samples expanded into tables, checked against each movie's declared counts
/// before any table is built. One budget can span several movies, as a render's sources do: three
/// sources of 50 million samples each were each within the reader's limit, and together took a
/// render to 3.7 GB.
package struct MP4SampleBudget: Sendable, Equatable {
    /// The most samples all reads charged to this budget may expand together.
    package let limit: Int
    package private(set) var used = 0
    /// What the limit is, for a refusal: "this reader expands".
    let name: String
    /// Where the samples already charged are: "in the tracks before".
    let earlier: String

    package init(limit: Int, name: String, earlier: String) {
        self.limit = max(0, limit)
        self.name = name
        self.earlier = earlier
    }

    /// One movie's read: the reader's own limit.
    package static var movie: MP4SampleBudget {
        MP4SampleBudget(limit: MP4Reader.sampleCountLimit, name: "this reader expands", earlier: "in the tracks before")
    }

    /// A render's reads together: about `bytes` of memory at `bytesPerSample` each (a sample's
    /// tables in the reader and its entries in the plan; measured at about 190 bytes).
    package static func render(bytes: Int = renderBytes, bytesPerSample: Int = 192) -> MP4SampleBudget {
        MP4SampleBudget(limit: bytes / max(1, bytesPerSample),
                        name: "a render reads (its memory budget is \(bytes >> 20) MiB at about \(bytesPerSample) bytes a sample)",
                        earlier: "in the tracks and sources before")
    }

    /// The default memory budget of a render: 2 GiB.
    package static let renderBytes = 2 << 30

    /// Takes `count` samples of `box` (a `stsz`, `stz2` or `trun`) in `file`, or throws when that would pass the limit.
    mutating func charge(_ count: Int, box: MP4Box, file: String) throws(MP4Error) {
        if let refusal = take(count) { throw .unsupported(file: file, boxPath: box.path, offset: box.header.offset, reason: refusal) }
    }

    /// Takes the `count` samples a transport stream source (named `file`) holds, or throws when
    /// that would pass the limit.
    mutating func charge(_ count: Int, file: String) throws(MP4Error) {
        if let refusal = take(count) { throw .unsupportedStream(file: file, offset: 0, reason: refusal) }
    }

    /// Takes the samples of a movie read before (a source catalog's), or throws when that would
    /// pass the limit.
    mutating func charge(_ movie: MP4Movie) throws(MP4Error) {
        let count = movie.tracks.reduce(0) { $0 &+ $1.samples.count }
        if let refusal = take(count) { throw .unsupported(file: movie.path.description, boxPath: "moov", offset: 0, reason: refusal) }
    }

    /// Takes `count` samples; when that would pass the limit, takes none and says why.
    private mutating func take(_ count: Int) -> String? {
        let (total, overflow) = used.addingReportingOverflow(count)
        guard !overflow, total <= limit else {
            return "\(count) samples\(used > 0 ? " (and \(used) \(earlier))" : ""), more than the \(limit) \(name)"
        }
        used = total
        return nil
    }
}
