/// A schedule encodes as the schedule file format (`ScheduleDocument` reads what it writes), with
/// every time as exact text (see `MediaTime`'s `Codable`):
///
/// ```json
/// { "content": [ { "id": "feature", "url": "/media/show.mp4", "start": "0", "end": "20.5" } ],
///   "breaks": [ { "id": "mid1", "at": "8.5", "policy": "once",
///                 "ads": [ { "id": "a1", "url": "/media/ad.mp4", "start": "0", "end": "1001/30000" } ] } ] }
/// ```
///
/// Other renditions of a source, when named, are `"renditions": { "show.mp4": ["show-360.mp4"] }`.
///
/// Decoding checks the schedule's rules as `Schedule(content:breaks:)` does; a broken one is
/// `DecodingError.dataCorrupted` with the rule's message. Keys are the file format's; the
/// defaults it allows may be left out.
extension Schedule: Codable {
    private enum Keys: String, CodingKey { case content, breaks, renditions }

    /// Reads a schedule and checks its rules.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` for a missing key, a bad time or location, or a broken rule.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let content = try container.decode([ContentClip].self, forKey: .content)
        let breaks = try container.decodeIfPresent([AdBreak].self, forKey: .breaks) ?? []
        do { self = try Schedule(content: content, breaks: breaks) } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: decoder.codingPath, debugDescription: error.description))
        }
        for (text, others) in try container.decodeIfPresent([String: [MediaLocation]].self, forKey: .renditions) ?? [:] {
            do { setRenditions(others, of: try MediaLocation(parsing: text)) } catch {
                throw DecodingError.dataCorrupted(DecodingError.Context(
                    codingPath: decoder.codingPath + [Keys.renditions], debugDescription: "\(quoted(text)): \(error)"))
            }
        }
    }

    /// Writes the schedule in the file format's shape.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(content, forKey: .content)
        try container.encode(breaks, forKey: .breaks)
        guard !renditions.isEmpty else { return }
        var byText: [String: [MediaLocation]] = [:]
        for (source, others) in renditions { byText[try source.documentText(codingPath: encoder.codingPath + [Keys.renditions])] = others }
        try container.encode(byText, forKey: .renditions)
    }
}

/// The keys a content clip and an ad share in the file format.
private enum ItemKeys: String, CodingKey { case id, url, variant, start, end }

private func decodeItem(_ decoder: any Decoder) throws -> (id: String, source: MediaLocation, start: MediaTime, end: MediaTime?) {
    let container = try decoder.container(keyedBy: ItemKeys.self)
    let source = try container.decode(MediaLocation.self, forKey: .url)
    return (try container.decode(String.self, forKey: .id),
            try container.decodeIfPresent(String.self, forKey: .variant).map { source.selectingVariant($0) } ?? source,
            try container.decodeIfPresent(MediaTime.self, forKey: .start) ?? .zero,
            try container.decodeIfPresent(MediaTime.self, forKey: .end))
}

private func encodeItem(_ encoder: any Encoder, id: String, source: MediaLocation, start: MediaTime, end: MediaTime?) throws {
    var container = encoder.container(keyedBy: ItemKeys.self)
    try container.encode(id, forKey: .id)
    try container.encode(try source.documentText(codingPath: encoder.codingPath + [ItemKeys.url]), forKey: .url)
    try container.encodeIfPresent(source.variant, forKey: .variant)
    try container.encode(start, forKey: .start)
    try container.encodeIfPresent(end, forKey: .end)
}

extension ContentClip: Codable {
    /// Reads `{"id", "url", "variant", "start", "end"}` (`start` 0 and `end` absent by default).
    ///
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        let item = try decodeItem(decoder)
        self.init(id: item.id, source: item.source, start: item.start, end: item.end)
    }

    /// Writes `{"id", "url", "variant", "start", "end"}`.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        try encodeItem(encoder, id: id, source: source, start: start, end: end)
    }
}

extension Ad: Codable {
    /// Reads `{"id", "url", "variant", "start", "end"}` (`start` 0 and `end` absent by default).
    ///
    /// - Parameter decoder: The decoder to read from.
    public init(from decoder: any Decoder) throws {
        let item = try decodeItem(decoder)
        self.init(id: item.id, source: item.source, start: item.start, end: item.end)
    }

    /// Writes `{"id", "url", "variant", "start", "end"}`.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        try encodeItem(encoder, id: id, source: source, start: start, end: end)
    }
}

extension AdBreak: Codable {
    private enum Keys: String, CodingKey { case id, at, ads, policy, resumeOffset, skippable, skippableAfter, seekWithinAds }

    /// Reads a break: `at` is `"preroll"`, `"postroll"` or a content time; `policy` `"sticky"`
    /// (the default) or `"once"`; `skippable: false` or `skippableAfter`, and `seekWithinAds`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError` for a bad value (`"at": "markers"` needs the playlist: read it
    ///   with `ScheduleDocument`).
    public init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: Keys.self)
        let placement: Placement
        switch try container.decode(String.self, forKey: .at) {
        case "preroll": placement = .preroll
        case "postroll": placement = .postroll
        default: placement = .midroll(at: try container.decode(MediaTime.self, forKey: .at))
        }
        var policy = BreakPolicy.sticky
        if let text = try container.decodeIfPresent(String.self, forKey: .policy) {
            guard let parsed = BreakPolicy(rawValue: text) else {
                throw DecodingError.dataCorruptedError(forKey: .policy, in: container, debugDescription: "expected \"sticky\" or \"once\", got \"\(text)\"")
            }
            policy = parsed
        }
        var restrictions = BreakRestrictions()
        if let seek = try container.decodeIfPresent(Bool.self, forKey: .seekWithinAds) { restrictions.allowsSeekingWithinAd = seek }
        let skippable = try container.decodeIfPresent(Bool.self, forKey: .skippable)
        if let delay = try container.decodeIfPresent(MediaTime.self, forKey: .skippableAfter) {
            guard skippable != false else {
                throw DecodingError.dataCorruptedError(forKey: .skippable, in: container, debugDescription: "\"skippable\": false contradicts \"skippableAfter\"")
            }
            restrictions.skipping = .after(delay)
        } else if skippable == false {
            restrictions.skipping = .never
        }
        self.init(
            id: try container.decode(String.self, forKey: .id), placement: placement, ads: try container.decode([Ad].self, forKey: .ads),
            policy: policy, resumeOffset: try container.decodeIfPresent(MediaTime.self, forKey: .resumeOffset) ?? .zero,
            restrictions: restrictions)
    }

    /// Writes the break in the file format's shape (defaults left out).
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(id, forKey: .id)
        switch placement {
        case .preroll: try container.encode("preroll", forKey: .at)
        case .postroll: try container.encode("postroll", forKey: .at)
        case .midroll(let time): try container.encode(time, forKey: .at)
        }
        try container.encode(ads, forKey: .ads)
        if policy != .sticky { try container.encode(policy.rawValue, forKey: .policy) }
        if resumeOffset != .zero { try container.encode(resumeOffset, forKey: .resumeOffset) }
        switch restrictions.skipping {
        case .never: try container.encode(false, forKey: .skippable)
        case .after(let delay) where delay != .zero: try container.encode(delay, forKey: .skippableAfter)
        case .after: break
        }
        if !restrictions.allowsSeekingWithinAd { try container.encode(false, forKey: .seekWithinAds) }
    }
}
