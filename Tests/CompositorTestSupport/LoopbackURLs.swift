/// Third-party documents (IAB's VAST samples) name real hosts; before a test uses one, every absolute
/// URL in it is moved to the loopback, keeping the host as the first path segment so the URLs stay
/// distinct: `https://example.com/track/x` becomes `http://127.0.0.1:8080/example.com/track/x` for the
/// base `http://127.0.0.1:8080`. Other schemes keep theirs (`rtsp://127.0.0.1/host/...`); URLs nested
/// in another's query are rewritten too.
package enum LoopbackURLs {
    /// `text` with every `scheme://host[:port]` replaced as above.
    package static func rewrite(_ text: String, base: String = "http://127.0.0.1") -> String {
        let bytes = Array(text.utf8)
        let separator = Array("://".utf8)
        var result: [UInt8] = []
        result.reserveCapacity(bytes.count)
        var i = 0
        while i < bytes.count {
            guard i + 3 <= bytes.count, bytes[i..<i + 3].elementsEqual(separator) else { result.append(bytes[i]); i += 1; continue }
            // The scheme: the letters, digits, `+`, `-` and `.` just before, starting with a letter.
            var schemeStart = result.count
            while schemeStart > 0, isSchemeByte(result[schemeStart - 1]) { schemeStart -= 1 }
            while schemeStart < result.count, !isLetter(result[schemeStart]) { schemeStart += 1 }
            let scheme = String(decoding: result[schemeStart...], as: UTF8.self).lowercased()
            var hostEnd = i + 3
            while hostEnd < bytes.count, isHostByte(bytes[hostEnd]) { hostEnd += 1 }
            guard !scheme.isEmpty, hostEnd > i + 3 else { result.append(bytes[i]); i += 1; continue }
            result.removeSubrange(schemeStart...)
            let prefix = scheme == "http" || scheme == "https" ? base : scheme + "://127.0.0.1"
            result += Array(prefix.utf8) + [UInt8(ascii: "/")] + bytes[(i + 3)..<hostEnd]
            i = hostEnd
        }
        return String(decoding: result, as: UTF8.self)
    }

    private static func isLetter(_ byte: UInt8) -> Bool { (byte | 0x20) >= UInt8(ascii: "a") && (byte | 0x20) <= UInt8(ascii: "z") }
    private static func isDigit(_ byte: UInt8) -> Bool { byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9") }
    private static func isSchemeByte(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) || "+-.".utf8.contains(byte) }
    /// A host, a port and user information: letters, digits, `.`, `-`, `:`, `@`, `[`, `]`, `_`.
    private static func isHostByte(_ byte: UInt8) -> Bool { isLetter(byte) || isDigit(byte) || ".-:@[]_".utf8.contains(byte) }
}
