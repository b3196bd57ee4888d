/// A time encodes as a string that says it exactly: seconds as a decimal when one exists
/// (`"8.5"`), else the rational in lowest terms (`"1001/30000"`), as `description` writes it. A
/// JSON number would go through `Double` in Foundation's coders, which cannot hold `0.1` exactly,
/// so a number is not accepted when decoding either: only text, parsed as `init(parsing:)` does.
///
/// ```swift
/// try JSONEncoder().encode(MediaTime(value: 1001, timescale: 30000))   // "\"1001/30000\""
/// ```
extension MediaTime: Codable {
    /// Reads a time from its text (`"8.5"`, `"1001/30000"`).
    ///
    /// - Parameter decoder: The decoder to read from.
    /// - Throws: `DecodingError.dataCorrupted` naming the text and why it is not a time.
    public init(from decoder: any Decoder) throws {
        let container = try decoder.singleValueContainer()
        let text = try container.decode(String.self)
        do { self = try MediaTime(parsing: text) } catch {
            throw DecodingError.dataCorruptedError(in: container, debugDescription: error.description)
        }
    }

    /// Writes the time as its exact text.
    ///
    /// - Parameter encoder: The encoder to write to.
    public func encode(to encoder: any Encoder) throws {
        var container = encoder.singleValueContainer()
        try container.encode(description)
    }
}
