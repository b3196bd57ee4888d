/// A location encodes as the text a schedule file names it by (its `url`): a `file:` URL for an
/// absolute path (every byte kept, escaped), the path itself for a relative one, a remote URL as
/// written; with a variant, an object `{"url": …, "variant": …}`. Decoding reads the text as
/// `init(parsing:)` does (a relative path stays relative: no folder is known to resolve it).
extension MediaLocation: Codable {
    private enum Keys: String, CodingKey { case url, variant }

    /// Reads a location from its text, or from `{"url", "variant"}`.
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` when the text names no source.
    public init(from decoder: any Decoder) throws {
        if let single = try? decoder.singleValueContainer(), let text = try? single.decode(String.self) {
            self = try Self.parse(text, codingPath: decoder.codingPath)
            return
        }
        let container = try decoder.container(keyedBy: Keys.self)
        self = try Self.parse(try container.decode(String.self, forKey: .url), codingPath: decoder.codingPath + [Keys.url])
            .selectingVariant(try container.decodeIfPresent(String.self, forKey: .variant))
    }

    /// Writes the location as its text (an object when it names a variant).
    ///
    /// - Parameter encoder: The encoder to write to.
    /// - Throws: `EncodingError.invalidValue` for a relative path that is not UTF-8 or would read
    ///   back as a URL (`c2:a.mp4`): give it as an absolute path.
    public func encode(to encoder: any Encoder) throws {
        let text = try documentText(codingPath: encoder.codingPath)
        guard let variant else {
            var container = encoder.singleValueContainer()
            try container.encode(text)
            return
        }
        var container = encoder.container(keyedBy: Keys.self)
        try container.encode(text, forKey: .url)
        try container.encode(variant, forKey: .variant)
    }

    /// The text that `init(parsing:)` reads back as this location (its variant aside).
    package func documentText(codingPath: [any CodingKey]) throws -> String {
        guard case .file(let path) = kind, !path.isAbsolute else { return url }
        guard let text = path.string, (try? MediaLocation(parsing: text))?.kind == kind else {
            throw EncodingError.invalidValue(self, EncodingError.Context(
                codingPath: codingPath, debugDescription: "the relative path \(description) would not read back as itself; make it absolute"))
        }
        return text
    }

    private static func parse(_ text: String, codingPath: [any CodingKey]) throws -> MediaLocation {
        do { return try MediaLocation(parsing: text) } catch {
            throw DecodingError.dataCorrupted(DecodingError.Context(codingPath: codingPath, debugDescription: error.description))
        }
    }
}
