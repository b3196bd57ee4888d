/// How an ad's media file is chosen: the rules, stated, which the app may change.
///
/// 1. Only files this library can play: progressive `video/mp4` (and `video/quicktime`,
///    `video/x-m4v`), or an HLS stream; never an interactive unit (an `apiFramework` of VPAID,
///    SIMID or MRAID; JavaScript, Flash).
/// 2. Only those the output takes: an `AVMutableComposition` and `render` need progressive MP4;
///    `hls` takes HLS (first: no packaging) or MP4.
/// 3. Then a file the content can be joined with: its codec's family (`avc1`, `hvc1`) matching the
///    content's, then an unstated codec, then another.
/// 4. Then within the app's limits (bitrate, picture size) before over them; among those, the
///    picture closest to the content's (or the largest, when the content's is not known), then the
///    highest bitrate.
/// 5. Ties in document order.
///
/// ```swift
/// var selection = MediaFileSelection(output: .progressiveMP4)
/// selection.maximumBitrate = 4_000            // kbit/s
/// selection.contentPictureSize = (1280, 720)
/// selection.rank(linear.mediaFiles).first      // the 720p H.264 MP4, if there is one
/// ```
public struct MediaFileSelection: Hashable, Sendable {
    /// What will play the ad.
    public enum Output: String, Hashable, Sendable {
        /// `AVMutableComposition`, `render`: progressive MP4 only.
        case progressiveMP4
        /// The stitched HLS export: HLS streams first, then MP4 (packaged).
        case hls
    }

    public var output: Output
    /// Files above this bitrate (kbit/s) rank after those within it.
    public var maximumBitrate: Int?
    /// Files larger than this picture rank after those within it.
    public var maximumWidth: Int?
    public var maximumHeight: Int?
    /// The content's picture size, which an ad's should match.
    public var contentWidth: Int?
    public var contentHeight: Int?
    /// The content's codec (RFC 6381, `avc1.64001f`): ads of its family rank first.
    public var contentCodec: String?

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - output: What will play the ad.
    ///   - maximumBitrate: Files above this bitrate (kbit/s) rank after those within it.
    ///   - maximumWidth: Files larger than this picture rank after those within it.
    ///   - maximumHeight: Files taller than this rank after those within it.
    ///   - contentWidth: The content's picture size, which an ad's should match.
    ///   - contentHeight: The content's picture height.
    ///   - contentCodec: The content's codec (RFC 6381, `avc1.64001f`): ads of its family rank first.
    public init(output: Output = .progressiveMP4, maximumBitrate: Int? = nil, maximumWidth: Int? = nil, maximumHeight: Int? = nil,
                contentWidth: Int? = nil, contentHeight: Int? = nil, contentCodec: String? = nil) {
        self.output = output
        self.maximumBitrate = maximumBitrate
        self.maximumWidth = maximumWidth
        self.maximumHeight = maximumHeight
        self.contentWidth = contentWidth
        self.contentHeight = contentHeight
        self.contentCodec = contentCodec
    }

    /// Whether `file` can play in this output at all (rules 1 and 2).
    ///
    /// - Parameter file: A media file of a VAST ad.
    /// - Returns: Whether it may be chosen.
    public func isPlayable(_ file: VASTMediaFile) -> Bool { formatRank(file) != nil }

    /// The playable files of `files`, best first.
    ///
    /// - Parameter files: An ad's media files, in document order.
    /// - Returns: Those that can play, ranked by the rules above.
    public func rank(_ files: [VASTMediaFile]) -> [VASTMediaFile] {
        files.enumerated().compactMap { index, file in formatRank(file).map { (key: sortKey(file, formatRank: $0, index: index), file: file) } }
            .sorted { $0.key.lexicographicallyPrecedes($1.key) }.map(\.file)
    }

    /// `apiFramework`s of interactive units (code, not video). Other values seen in the wild
    /// (`VAST` on a plain MP4 in IAB's VAST 3 samples) do not make a file unplayable.
    private static let interactiveFrameworks = ["VPAID", "SIMID", "MRAID"]
    private static let mp4Types: Set<String> = ["video/mp4", "video/quicktime", "video/x-m4v"]
    private static let hlsTypes: Set<String> = ["application/x-mpegurl", "application/vnd.apple.mpegurl", "audio/mpegurl", "audio/x-mpegurl"]

    /// 0 for the output's first choice, 1 for its second, nil for a file it cannot play.
    private func formatRank(_ file: VASTMediaFile) -> Int? {
        if let framework = file.apiFramework?.uppercased(), Self.interactiveFrameworks.contains(where: framework.contains) { return nil }
        let type = file.type.lowercased()
        let isMP4 = Self.mp4Types.contains(type) && file.delivery == .progressive
        let isHLS = Self.hlsTypes.contains(type)
        switch output {
        case .progressiveMP4: return isMP4 ? 0 : nil
        case .hls: return isHLS ? 0 : isMP4 ? 1 : nil
        }
    }

    private func sortKey(_ file: VASTMediaFile, formatRank: Int, index: Int) -> [Int] {
        let codecRank: Int
        switch (contentCodec.map(Self.family), file.codec.map(Self.family)) {
        case (let content?, let ad?): codecRank = content == ad ? 0 : 2
        default: codecRank = 1
        }
        // Values from the document are clamped, so no product or negation can overflow.
        let clamp = { (value: Int?) in Swift.min(Swift.max(value ?? 0, 0), 1 << 24) }
        let bitrate = clamp(file.bitrate ?? file.minBitrate), width = clamp(file.width), height = clamp(file.height)
        let overBitrate = maximumBitrate.map { bitrate > $0 } == true ? 1 : 0
        let overSize = maximumWidth.map { width > $0 } == true || maximumHeight.map { height > $0 } == true ? 1 : 0
        let sizeRank: Int
        if let contentWidth, let contentHeight {
            sizeRank = abs(width * height - clamp(contentWidth) * clamp(contentHeight))
        } else {
            sizeRank = -(width * height)
        }
        return [formatRank, codecRank, overBitrate + overSize, sizeRank, -clamp(file.bitrate ?? file.maxBitrate), index]
    }

    /// A codec's family: what precedes the first dot of an RFC 6381 string (`avc1.64001f` is
    /// `avc1`; `avc3` joins `avc1`, `hev1` joins `hvc1`), or the family a common name says
    /// (`H.264` and `AVC` are `avc1`; `H.265` and `HEVC` are `hvc1`, as ad servers write them).
    static func family(_ codec: String) -> String {
        let name = codec.lowercased().trimmingXMLSpace
        switch name {
        case "h.264", "h264", "avc", "x264": return "avc1"
        case "h.265", "h265", "hevc", "x265": return "hvc1"
        default: break
        }
        let family = name.split(separator: ".").first.map(String.init) ?? ""
        switch family {
        case "avc3": return "avc1"
        case "hev1": return "hvc1"
        default: return family
        }
    }
}
