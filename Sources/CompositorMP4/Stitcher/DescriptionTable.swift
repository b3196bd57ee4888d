import CompositorCore

/// A keyframe's parameter sets, carried in-band before its NAL units: a synthetic payload of
/// the layout and its length.
struct InBandParameterSets: Sendable, Equatable {
    let payload: Int
    let length: UInt32
}

extension StitchPlanner {
    /// The distinct sample descriptions of one output track, which source description maps to
    /// which, and where each came from. A track never mixes codecs: every description must have
    /// the codec identity of the first (`MP4CodecIdentity`: the sample-entry code and, for `mp4a`
    /// and `mp4v`, the object type in `esds`).
    struct DescriptionTable {
        /// Where a description was found: its file and track, for messages.
        typealias Origin = (file: String, trackPath: String, trackOffset: UInt64)

        let kind: TrackKind
        init(kind: TrackKind) { self.kind = kind }
        var descriptions: [MP4SampleDescription] = []
        /// Where each of `descriptions` was first found: its file and track, for messages.
        private(set) var origins: [Origin] = []
        private var indexBySource: [Int: [Int]] = [:]
        /// The output index of each distinct description, by its bytes: looked up once per source
        /// description (a track may have 65,536), so never by a search of the list.
        private var indexByBytes: [[UInt8]: Int] = [:]
        private var first: (codec: MP4CodecIdentity, file: String)?

        /// Registers every description of `track` (from source `source`), checking the codec.
        mutating func add(_ track: MP4Track, source: Int, file: String) throws(MP4Error) {
            guard indexBySource[source] == nil else { return }
            var indices: [Int] = []
            indices.reserveCapacity(track.sampleDescriptions.count)
            for description in track.sampleDescriptions {
                // Equal bytes are an equal codec: only a new description needs its codec checked.
                if let existing = indexByBytes[description.bytes] {
                    indices.append(existing)
                } else {
                    let codec = description.codecIdentity
                    if let first, first.codec != codec {
                        throw .codecMismatch(track: kind, codec: first.codec.description, file: first.file,
                                             otherCodec: codec.description, otherFile: file)
                    }
                    if first == nil { first = (codec, file) }
                    indexByBytes[description.bytes] = descriptions.count
                    indices.append(descriptions.count)
                    descriptions.append(description)
                    origins.append((file, track.boxPath, track.boxOffset))
                }
            }
            indexBySource[source] = indices
        }

        /// The parameter sets each description's keyframes carry in-band, once `mergeIntoOne` has
        /// given descriptions with different ones a single `avc3` / `hev1` entry: payloads, and
        /// each source's description's payload (by index into them).
        private(set) var inBandPayloads: [[UInt8]] = []
        private var inBandBySource: [Int: [InBandParameterSets?]] = [:]

        /// The output index of source `source`'s description `index`.
        func outputIndex(source: Int, description index: Int) -> Int { outputIndices(source: source)[index] }
        /// The output index of each of source `source`'s descriptions. The planner adds every
        /// piece's tracks before laying out, and only a piece's own tracks are looked up.
        func outputIndices(source: Int) -> [Int] { indexBySource[source]! }
        /// The in-band parameter sets of each of source `source`'s descriptions; empty when the
        /// track carries its parameter sets in its description only.
        func inBandParameterSets(source: Int) -> [InBandParameterSets?] { inBandBySource[source] ?? [] }

        /// Makes the track's descriptions one, as the web-safe output needs (browsers stop where a
        /// track changes description). Audio merges where the decoder configurations are equal.
        /// Video of one picture size and NAL length size merges into one entry; where the
        /// parameter sets differ it becomes `avc3` / `hev1` (of the H.264 description with the
        /// highest profile and level, else the first), and every keyframe of each source carries
        /// its own parameter sets in-band.
        mutating func mergeIntoOne() throws(MP4Error) {
            guard descriptions.count > 1 else { return }
            for index in descriptions.indices.dropFirst() where !Self.canShare(descriptions[0], descriptions[index]) {
                throw .formatMismatch(track: kind, format: Self.format(descriptions[0]), file: origins[0].file,
                                      otherFormat: Self.format(descriptions[index]), otherFile: origins[index].file)
            }
            var base = 0
            let parameterSets = descriptions.map(\.codec.parameterSetUnits)
            if kind == .video, parameterSets.contains(where: { $0 != parameterSets[0] }) {
                for index in descriptions.indices {
                    if case .avc(let config) = descriptions[index].codec, case .avc(let best) = descriptions[base].codec,
                       (config.profile, config.level) > (best.profile, best.level) {
                        base = index
                    }
                    inBandPayloads.append(try Self.lengthPrefixed(parameterSets[index], size: descriptions[index].codec.nalLengthSize ?? 4,
                                                                  origin: origins[index]))
                }
                var lengths: [UInt32] = []
                for (index, payload) in inBandPayloads.enumerated() {
                    guard let length = UInt32(exactly: payload.count) else {
                        throw .unsupported(file: origins[index].file, boxPath: origins[index].trackPath, offset: origins[index].trackOffset,
                                           reason: "parameter sets of \(payload.count) bytes, past the 4 GiB a sample can hold")
                    }
                    lengths.append(length)
                }
                inBandBySource = indexBySource.mapValues { $0.map { InBandParameterSets(payload: $0, length: lengths[$0]) } }
                descriptions[base] = try Self.carryingParameterSetsInBand(descriptions[base], origin: origins[base])
            }
            descriptions = [descriptions[base]]
            origins = [origins[base]]
            indexBySource = indexBySource.mapValues { $0.map { _ in 0 } }
        }

        /// Whether one description can stand for both (see `mergeIntoOne`).
        private static func canShare(_ a: MP4SampleDescription, _ b: MP4SampleDescription) -> Bool {
            switch (a.codec, b.codec) {
            case (.aac(let x), .aac(let y)): x.bytes == y.bytes
            case (.avc(let x), .avc(let y)): a.width == b.width && a.height == b.height && x.nalLengthSize == y.nalLengthSize
            case (.hevc(let x), .hevc(let y)): a.width == b.width && a.height == b.height && x.nalLengthSize == y.nalLengthSize
            default: false
            }
        }

        /// NAL units, each after its length in `size` bytes, as a sample holds them.
        private static func lengthPrefixed(_ units: [[UInt8]], size: Int,
                                           origin: Origin) throws(MP4Error) -> [UInt8] {
            var bytes: [UInt8] = []
            for unit in units {
                guard size == 4 || unit.count < 1 << (8 * size) else {
                    throw .unsupported(file: origin.file, boxPath: origin.trackPath, offset: origin.trackOffset, reason:
                        "a \(unit.count)-byte parameter set does not fit the track's \(size)-byte NAL unit lengths, so it cannot be carried in-band")
                }
                for shift in stride(from: 8 * (size - 1), through: 0, by: -8) { bytes.append(UInt8(truncatingIfNeeded: unit.count >> shift)) }
                bytes += unit
            }
            return bytes
        }

        /// `description` as `avc3` (from `avc1`) or `hev1` (from `hvc1`): the sample entry code that
        /// says parameter sets may come in-band, as they then do.
        private static func carryingParameterSetsInBand(
            _ description: MP4SampleDescription, origin: Origin
        ) throws(MP4Error) -> MP4SampleDescription {
            let renamed: FourCC = switch description.format {
            case "avc1": "avc3"
            case "hvc1": "hev1"
            default: description.format
            }
            var bytes = description.bytes
            // The entry's type follows its 32-bit size (also when that says a 64-bit size follows).
            bytes.replaceSubrange(4..<8, with: renamed.bytes)
            do {
                return try MP4SampleDescription(entry: ByteReader(bytes), handler: "vide")
            } catch {
                throw error.error(file: origin.file, boxPath: origin.trackPath + "/stsd")
            }
        }

        /// A description in a user's terms, for messages: "AAC-LC 44.1 kHz mono", "H.264 320x180".
        static func format(_ description: MP4SampleDescription) -> String {
            let size = description.width.flatMap { width in description.height.map { " \(width)x\($0)" } } ?? ""
            switch description.codec {
            case .aac(let config):
                let profile = switch config.objectType {
                case 2: "AAC-LC"
                case 5: "HE-AAC"
                case 29: "HE-AAC v2"
                default: "AAC (object type \(config.objectType))"
                }
                let channels = switch config.channelConfiguration {
                case 1: "mono"
                case 2: "stereo"
                default: "channel configuration \(config.channelConfiguration)"
                }
                let rate = config.sampleRate % 1000 == 0 ? "\(config.sampleRate / 1000)" : "\(Double(config.sampleRate) / 1000)"
                return "\(profile) \(rate) kHz \(channels)"
            case .avc(let config): return "H.264\(size) with \(config.nalLengthSize)-byte NAL unit lengths"
            case .hevc(let config): return "HEVC\(size) with \(config.nalLengthSize)-byte NAL unit lengths"
            case .other: return "\(description.codecIdentity)\(size) (sample entry \(description.bytes.count) bytes, unlike the other's)"
            }
        }
    }
}
