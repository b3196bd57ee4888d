internal import Foundation
#if canImport(FoundationXML)
internal import FoundationXML
#endif

/// An element of an ad server's XML document: its local name (namespace prefix dropped), attributes,
/// text (CDATA included, trimmed) and child elements, with the line it starts on.
///
/// VAST and VMAP documents are small trees read once, so they are read whole into this tree by
/// Foundation's `XMLParser` and then walked by the readers, which keeps each reader a plain function
/// of a value.
struct XMLNode: Sendable {
    var name: String
    var attributes: [String: String]
    var text: String
    var children: [XMLNode]
    var line: Int

    /// The children named `name`, in document order.
    func all(_ name: String) -> [XMLNode] { children.filter { $0.name == name } }

    /// The first child named `name`.
    func first(_ name: String) -> XMLNode? { children.first { $0.name == name } }

    /// The trimmed text of the first child named `name`, or nil when there is none or it is empty.
    func text(of name: String) -> String? {
        guard let text = first(name)?.text, !text.isEmpty else { return nil }
        return text
    }
}

/// Bounds on what an XML document may make the reader do.
public struct XMLReadLimits: Hashable, Sendable {
    /// The largest document read, in bytes.
    public var maximumBytes: Int
    /// The most elements a document may have.
    public var maximumElements: Int
    /// The deepest nesting of elements.
    public var maximumDepth: Int

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - maximumBytes: The largest document read, in bytes.
    ///   - maximumElements: The most elements a document may have.
    ///   - maximumDepth: The deepest nesting of elements.
    public init(maximumBytes: Int = 4 << 20, maximumElements: Int = 200_000, maximumDepth: Int = 64) {
        self.maximumBytes = maximumBytes
        self.maximumElements = maximumElements
        self.maximumDepth = maximumDepth
    }

    public static let `default` = XMLReadLimits()
}

/// Why a document is not XML this library reads.
struct XMLTreeError: Error, Hashable, Sendable {
    enum Kind: Hashable, Sendable {
        /// Not well-formed XML (the parser's message).
        case malformed
        /// Well-formed, but past a limit or using a feature that is refused (entity declarations).
        case refused
    }

    var kind: Kind
    var line: Int?
    var reason: String
}

enum XMLTree {
    /// Reads `bytes` into its root element.
    ///
    /// Entity declarations are refused before parsing: no VAST or VMAP document needs a DTD, and an
    /// internal entity is how a small document expands into gigabytes. External entities are never
    /// resolved (`XMLParser`'s default), so a document never makes the reader open a file or a URL.
    static func parse(_ bytes: [UInt8], limits: XMLReadLimits) throws(XMLTreeError) -> XMLNode {
        guard bytes.count <= limits.maximumBytes else {
            throw XMLTreeError(kind: .refused, line: nil, reason: "the document is \(bytes.count) bytes, more than the limit of \(limits.maximumBytes)")
        }
        // Foundation's XMLParser on Linux traps on a name that is not UTF-8 (a fuzzed byte in an
        // element name crashed it), so no such byte reaches it: ad documents are UTF-8.
        if let offset = firstInvalidUTF8Offset(in: bytes) {
            throw XMLTreeError(kind: .malformed, line: lineOf(offset, in: bytes), reason: "not UTF-8 at byte \(offset) (ad documents are read as UTF-8)")
        }
        // What the entity check below and the limits read must be what the parser reads: UTF-8.
        // A document in UTF-16 or UTF-32 without a byte order mark is valid UTF-8 byte by byte
        // (`<` is 00 3C), and one declaring UTF-7 spells `<` `+ADw-`; XMLParser decodes both (XML
        // 1.0 Appendix F), so an entity declaration would pass unseen.
        if let offset = firstNUL(in: bytes) {
            throw XMLTreeError(kind: .malformed, line: lineOf(offset, in: bytes),
                               reason: "a NUL byte at byte \(offset), which XML does not allow (a document in UTF-16 or UTF-32? ad documents are read as UTF-8)")
        }
        if let declared = declaredEncoding(in: bytes), !Self.readsAsUTF8(declared) {
            throw XMLTreeError(kind: .refused, line: 1,
                               reason: "the document declares the encoding '\(declared)': ad documents are read as UTF-8 (or an encoding that writes ASCII as ASCII)")
        }
        let refused = refusedMarkup(in: bytes)
        if let line = refused.entityDeclaration {
            throw XMLTreeError(kind: .refused, line: line, reason: "an entity declaration (<!ENTITY): ad documents need none, and they are not expanded")
        }
        if let line = refused.instructionWithoutData {
            throw XMLTreeError(kind: .refused, line: line, reason: "a processing instruction without data (<?name?>), which this reader does not take")
        }
        let parser = XMLParser(data: Data(bytes))
        parser.shouldProcessNamespaces = false
        parser.shouldResolveExternalEntities = false
        let builder = Builder(limits: limits)
        parser.delegate = builder
        let parsed = parser.parse()
        if let refusal = builder.refusal { throw refusal }
        guard parsed, let root = builder.root else {
            let message = parser.parserError.map { Self.message(of: $0) } ?? "no root element"
            throw XMLTreeError(kind: .malformed, line: parser.lineNumber > 0 ? parser.lineNumber : nil, reason: message)
        }
        return root
    }

    /// The offset of the first NUL byte, found with `memchr` (a byte-by-byte scan costs a
    /// millisecond on a 1 MB document).
    private static func firstNUL(in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, let found = memchr(base, 0, buffer.count) else { return nil }
            return base.distance(to: found.assumingMemoryBound(to: UInt8.self))
        }
    }

    /// The 1-based line of the byte at `offset`.
    private static func lineOf(_ offset: Int, in bytes: [UInt8]) -> Int {
        1 + bytes[..<offset].reduce(0) { $0 + ($1 == UInt8(ascii: "\n") ? 1 : 0) }
    }

    /// The `encoding` of the XML declaration the document starts with (after a UTF-8 byte order
    /// mark), or nil when it declares none.
    static func declaredEncoding(in bytes: [UInt8]) -> String? {
        var start = 0
        if bytes.starts(with: [0xEF, 0xBB, 0xBF]) { start = 3 }
        let opening = Array("<?xml".utf8)
        guard bytes[start...].starts(with: opening) else { return nil }
        // The declaration is short; a document whose first 1 KiB has no `?>` declares nothing readable.
        let head = bytes[start..<min(bytes.count, start + 1024)]
        guard let close = head.indices.first(where: { head[$0] == UInt8(ascii: "?") && $0 + 1 < head.endIndex && head[$0 + 1] == UInt8(ascii: ">") })
        else { return nil }
        let declaration = String(decoding: head[..<close], as: UTF8.self)
        guard let name = declaration.range(of: "encoding") else { return nil }
        var rest = declaration[name.upperBound...].drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard rest.first == "=" else { return nil }
        rest = rest.dropFirst().drop { $0 == " " || $0 == "\t" || $0 == "\r" || $0 == "\n" }
        guard let quote = rest.first, quote == "\"" || quote == "'" else { return nil }
        let value = rest.dropFirst().prefix { $0 != quote }
        return String(value.prefix(40))
    }

    /// Whether a declared encoding writes the document's ASCII as ASCII, so the bytes checked are
    /// the characters parsed: UTF-8, US-ASCII, ISO 8859-n and the Windows code pages 1250-1258.
    static func readsAsUTF8(_ encoding: String) -> Bool {
        let name = encoding.lowercased().replacingOccurrences(of: "_", with: "-")
        if ["utf-8", "utf8", "us-ascii", "ascii", "latin1", "latin-1"].contains(name) { return true }
        if name.hasPrefix("iso-8859-") || name.hasPrefix("iso8859-") { return Int(name.split(separator: "-").last ?? "").map { (1...16).contains($0) } ?? false }
        if name.hasPrefix("windows-125"), name.count == 12, let digit = name.last?.wholeNumberValue { return digit <= 8 }
        return false
    }

    /// The offset of the first byte that is not part of well-formed UTF-8 (RFC 3629: no overlong
    /// forms, no surrogates, nothing past U+10FFFF), or nil. ASCII is skipped eight bytes at a time.
    static func firstInvalidUTF8Offset(in bytes: [UInt8]) -> Int? {
        bytes.withUnsafeBytes { raw -> Int? in
            let count = raw.count
            var i = 0
            while i < count {
                if i + 8 <= count, raw.loadUnaligned(fromByteOffset: i, as: UInt64.self) & 0x8080_8080_8080_8080 == 0 {
                    i += 8
                    continue
                }
                let lead = raw[i]
                if lead < 0x80 { i += 1; continue }
                let length: Int, lowest: UInt32
                switch lead {
                case 0xC2...0xDF: (length, lowest) = (2, 0x80)
                case 0xE0...0xEF: (length, lowest) = (3, 0x800)
                case 0xF0...0xF4: (length, lowest) = (4, 0x10000)
                default: return i
                }
                guard i + length <= count else { return i }
                var scalar = UInt32(lead) & (0xFF >> (length + 1))
                for k in 1..<length {
                    let byte = raw[i + k]
                    guard byte & 0xC0 == 0x80 else { return i }
                    scalar = scalar << 6 | UInt32(byte & 0x3F)
                }
                guard scalar >= lowest, scalar <= 0x10FFFF, !(0xD800...0xDFFF).contains(scalar) else { return i }
                i += length
            }
            return nil
        }
    }

    private static func message(of error: any Error) -> String {
        let code = (error as NSError).code
        return "not well-formed XML (XMLParser error \(code))"
    }

    /// The lines of the first markup the reader refuses, found in one pass over the document's
    /// `<`s (each found with `memchr`; lines are counted only for what is found):
    /// - `entityDeclaration`: `<!ENTITY`. No ad document needs a DTD, and an internal entity is
    ///   how a small document expands into gigabytes (byte by byte, this scan took 0.55 ms of the
    ///   1 MB document of `Benchmarks/ads`).
    /// - `instructionWithoutData`: `<?name?>`, a target with only white space before `?>`.
    ///   Foundation's XMLParser on Linux reads a processing instruction's data with strlen, and
    ///   libxml2 hands it none there: a null pointer, a crash (the fuzz target's, from `<?xml?>`).
    ///   Ad documents need no processing instruction but the XML declaration.
    private static func refusedMarkup(in bytes: [UInt8]) -> (entityDeclaration: Int?, instructionWithoutData: Int?) {
        let entity = Array("<!ENTITY".utf8)
        func isSpace(_ byte: UInt8) -> Bool { byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
        var instruction: Int?
        let entityAt = bytes.withUnsafeBufferPointer { buffer -> Int? in
            guard let base = buffer.baseAddress, buffer.count >= 2 else { return nil }
            var i = 0
            while i + 1 < buffer.count {
                guard let found = memchr(base + i, Int32(UInt8(ascii: "<")), buffer.count - 1 - i) else { return nil }
                i = base.distance(to: found.assumingMemoryBound(to: UInt8.self))
                if i + entity.count <= buffer.count, memcmp(base + i, entity, entity.count) == 0 { return i }
                if instruction == nil, buffer[i + 1] == UInt8(ascii: "?") {
                    var j = i + 2
                    while j < buffer.count, !isSpace(buffer[j]), buffer[j] != UInt8(ascii: "?") { j += 1 }
                    while j < buffer.count, isSpace(buffer[j]) { j += 1 }
                    if j + 1 < buffer.count, buffer[j] == UInt8(ascii: "?"), buffer[j + 1] == UInt8(ascii: ">") { instruction = i }
                }
                i += 1
            }
            return nil
        }
        return (entityAt.map { lineOf($0, in: bytes) }, instruction.map { lineOf($0, in: bytes) })
    }

    /// Builds the tree from `XMLParser`'s events, counting elements and depth as they open.
    ///
    /// `stack` and `elements`, touched at every event, are not checked for exclusive access at run
    /// time: only the parser's callbacks touch them, one at a time on the parsing thread, and never
    /// while another access is open (the checks took 0.7 ms of the 1 MB document of `Benchmarks/ads`).
    private final class Builder: NSObject, XMLParserDelegate {
        let limits: XMLReadLimits
        @exclusivity(unchecked) var stack: [XMLNode] = []
        var root: XMLNode?
        @exclusivity(unchecked) var elements = 0
        var refusal: XMLTreeError?

        init(limits: XMLReadLimits) { self.limits = limits }

        func parser(_ parser: XMLParser, didStartElement elementName: String, namespaceURI: String?,
                    qualifiedName qName: String?, attributes attributeDict: [String: String] = [:]) {
            elements += 1
            if elements > limits.maximumElements || stack.count >= limits.maximumDepth {
                let what = elements > limits.maximumElements ? "more than \(limits.maximumElements) elements" : "elements nested deeper than \(limits.maximumDepth)"
                refusal = XMLTreeError(kind: .refused, line: parser.lineNumber, reason: "the document has \(what)")
                parser.abortParsing()
                return
            }
            // A name without a colon byte (every VAST and VMAP name) is its own local name; the
            // Character-wise search (1.35 ms of the 1 MB document of Benchmarks/ads) runs only for
            // names that have one.
            let local = !elementName.utf8.contains(UInt8(ascii: ":")) ? elementName
                : elementName.lastIndex(of: ":").map { String(elementName[elementName.index(after: $0)...]) } ?? elementName
            stack.append(XMLNode(name: local, attributes: attributeDict, text: "", children: [], line: parser.lineNumber))
        }

        func parser(_ parser: XMLParser, foundCharacters string: String) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += string
        }

        func parser(_ parser: XMLParser, foundCDATA CDATABlock: Data) {
            guard !stack.isEmpty else { return }
            stack[stack.count - 1].text += String(decoding: CDATABlock, as: UTF8.self)
        }

        func parser(_ parser: XMLParser, didEndElement elementName: String, namespaceURI: String?, qualifiedName qName: String?) {
            guard var node = stack.popLast() else { return }
            node.text = XMLTree.trimmed(node.text)
            if stack.isEmpty { root = node } else { stack[stack.count - 1].children.append(node) }
        }
    }

    /// `text` without leading and trailing XML whitespace (space, tab, CR, LF).
    ///
    /// Trimmed over UTF-8 bytes; the result is the Character-wise trim's (`characterwiseTrimmed`),
    /// which runs instead where the two could differ: where a non-ASCII scalar touches whitespace that
    /// would be removed (a space followed by a combining mark is one Character, not whitespace).
    /// Character-wise only, the trims took 2.3 ms of the 1 MB document of `Benchmarks/ads` (12.8 ms).
    static func trimmed(_ text: String) -> String {
        let bytewise = text.utf8.withContiguousStorageIfAvailable { bytes -> String? in
            let isSpace = { (byte: UInt8) in byte == 0x20 || byte == 0x09 || byte == 0x0A || byte == 0x0D }
            var start = 0
            var end = bytes.count
            while start < end, isSpace(bytes[start]) { start += 1 }
            if start == end { return "" }
            while isSpace(bytes[end - 1]) { end -= 1 }
            if start == 0, end == bytes.count { return text }
            if start > 0, bytes[start] >= 0x80 { return nil }
            if end < bytes.count, bytes[end - 1] >= 0x80 { return nil }
            return String(decoding: UnsafeBufferPointer(rebasing: bytes[start..<end]), as: UTF8.self)
        }
        if let bytewise, let bytewise { return bytewise }
        return characterwiseTrimmed(text)
    }

    private static func characterwiseTrimmed(_ text: String) -> String {
        let isSpace: (Character) -> Bool = { $0 == " " || $0 == "\t" || $0 == "\n" || $0 == "\r" || $0 == "\r\n" }
        guard let first = text.firstIndex(where: { !isSpace($0) }), let last = text.lastIndex(where: { !isSpace($0) }) else { return "" }
        return String(text[first...last])
    }
}
