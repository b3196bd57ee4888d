/// An XML element to write (a DASH manifest): attributes in the order given, then children, or
/// text content. Text is escaped as XML 1.0 has it (`&`, `<`, `>` and, in attributes, `"`).
///
/// ```swift
/// XMLTree("S", ["t": "0", "d": "90000"]).text   // <S t="0" d="90000"/>
/// XMLTree("BaseURL", content: "a.vtt").text     // <BaseURL>a.vtt</BaseURL>
/// ```
struct XMLTree: Sendable {
    let name: String
    var attributes: [(name: String, value: String)]
    var children: [XMLTree]
    /// Text content, written in place of children.
    var content: String?

    init(_ name: String, _ attributes: KeyValuePairs<String, String> = [:], _ children: [XMLTree] = []) {
        self.name = name
        self.attributes = attributes.map { ($0.key, $0.value) }
        self.children = children
    }

    init(_ name: String, content: String) {
        self.init(name)
        self.content = content
    }

    /// Adds `value` as attribute `name` when there is one.
    mutating func add(_ name: String, _ value: String?) {
        if let value { attributes.append((name, value)) }
    }

    /// The element, indented two spaces a level, one element a line.
    var text: String {
        var out = ""
        write(to: &out, depth: 0)
        return out
    }

    /// The document: the XML declaration, then the element.
    var document: String { "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n" + text }

    private func write(to out: inout String, depth: Int) {
        out += String(repeating: "  ", count: depth) + "<" + name
        for (key, value) in attributes { out += " \(key)=\"\(Self.escaped(value, inAttribute: true))\"" }
        if let content {
            out += ">" + Self.escaped(content, inAttribute: false) + "</\(name)>\n"
            return
        }
        guard !children.isEmpty else {
            out += "/>\n"
            return
        }
        out += ">\n"
        for child in children { child.write(to: &out, depth: depth + 1) }
        out += String(repeating: "  ", count: depth) + "</\(name)>\n"
    }

    static func escaped(_ text: String, inAttribute: Bool) -> String {
        var out = ""
        for character in text {
            switch character {
            case "&": out += "&amp;"
            case "<": out += "&lt;"
            case ">": out += "&gt;"
            case "\"" where inAttribute: out += "&quot;"
            default: out.append(character)
            }
        }
        return out
    }
}
