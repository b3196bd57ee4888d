import CompositorCore

/// Something about a stitched MP4 that is valid but may not play as the user expects: not an
/// error, a note to pass on.
public enum MP4StitchDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// H.264 of a profile many hardware decoders lack (High 10, High 4:2:2, High 4:4:4): Apple's
    /// and most phones' decoders play only 8-bit 4:2:0 H.264, so the output may not play there.
    case hardwareDecoding(file: String, profile: String)
    /// The sources' pictures differ in size: players rescale at each join, or show the change.
    case pictureSizesDiffer([SourceValue])
    /// The sources' frame rates differ (by each one's most common frame duration): motion changes
    /// pace at the joins, and some players stutter.
    case frameRatesDiffer([SourceValue])

    /// A source's file and its value (`"320x180"`, `"29.97"`).
    public struct SourceValue: Hashable, Sendable {
        public let file: String
        public let value: String
    }

    public var description: String {
        func listed(_ values: [SourceValue], unit: String) -> String {
            values.map { "\($0.file) \($0.value)\(unit)" }.joined(separator: ", ")
        }
        switch self {
        case .hardwareDecoding(let file, let profile):
            return "\(file) has H.264 \(profile) video, which many hardware decoders (Apple's among them) cannot play: "
                + "the output may not play there"
        case .pictureSizesDiffer(let sizes):
            return "the sources differ in picture size (players rescale at the joins or show the change): \(listed(sizes, unit: ""))"
        case .frameRatesDiffer(let rates):
            return "the sources differ in frame rate (motion changes pace at the joins): \(listed(rates, unit: " fps"))"
        }
    }

    /// The notes for the video of `sources` (each file once, in order of first use): each
    /// hardware-unfriendly profile, then every source's size and frame rate where they differ.
    static func notes(for sources: [(file: String, track: MP4Track)]) -> [MP4StitchDiagnostic] {
        var notes: [MP4StitchDiagnostic] = []
        var sizes: [SourceValue] = []
        var rates: [SourceValue] = []
        for (file, track) in sources {
            for description in track.sampleDescriptions {
                guard case .avc(let configuration) = description.codec, let profile = highProfileName(configuration.profile) else { continue }
                notes.append(.hardwareDecoding(file: file, profile: profile))
                break
            }
            if let description = track.sampleDescriptions.first, let width = description.width, let height = description.height {
                sizes.append(SourceValue(file: file, value: "\(width)x\(height)"))
            }
            if let rate = commonFrameRate(of: track) { rates.append(SourceValue(file: file, value: shown(rate))) }
        }
        if Set(sizes.map(\.value)).count > 1 { notes.append(.pictureSizesDiffer(sizes)) }
        if Set(rates.map(\.value)).count > 1 { notes.append(.frameRatesDiffer(rates)) }
        return notes
    }

    /// The profiles (by `profile_idc`) beyond 8-bit 4:2:0.
    private static func highProfileName(_ profile: UInt8) -> String? {
        switch profile {
        case 110: "High 10"
        case 122: "High 4:2:2"
        case 244: "High 4:4:4 Predictive"
        case 44: "CAVLC 4:4:4 Intra"
        default: nil
        }
    }

    /// Frames per second by the most common sample duration; `nil` for fewer than two samples.
    private static func commonFrameRate(of track: MP4Track) -> MediaTime? {
        let decodeTimes = track.samples.decodeTimes
        guard decodeTimes.count > 1 else { return nil }
        // Counted by runs of one duration (a regular track has a handful), the last sample left
        // out: its duration is often cut short.
        var counts: [UInt32: Int] = [:]
        var remaining = decodeTimes.count - 1
        for run in decodeTimes.durationRuns where remaining > 0 {
            let counted = min(run.count, remaining)
            remaining -= counted
            if run.duration > 0 { counts[run.duration, default: 0] += counted }
        }
        // The most frequent, the shortest of equals.
        let most = counts.max { $0.value < $1.value || ($0.value == $1.value && $0.key > $1.key) }
        guard let common = most?.key, common <= UInt32(Int32.max) else { return nil }
        return MediaTime(value: Int64(track.timescale), timescale: Int32(common)).reduced
    }

    /// "25", "29.97" (to two decimals when not whole).
    private static func shown(_ rate: MediaTime) -> String {
        if let exact = rate.exactDecimalString, exact.count <= 6 { return exact }
        let hundredths = (rate.value * 100 + Int64(rate.timescale) / 2) / Int64(rate.timescale)
        return "\(hundredths / 100).\(hundredths % 100 < 10 ? "0" : "")\(hundredths % 100)"
    }
}
