import CompositorCore

extension VMAPDocument {
    /// Reads a VMAP 1.0 document. Its inline VAST (`VASTAdData`) is read as `VASTDocument` is.
    ///
    /// - Parameters:
    ///   - bytes: The document.
    ///   - source: Its URL or path, named in errors.
    ///   - limits: Bounds on its size, element count and depth.
    /// - Throws: `VASTError` with code 100 (not XML, or refused) or 101 (not VMAP, or a break without
    ///   a readable `timeOffset`), naming the line.
    public init(parsing bytes: [UInt8], source: String? = nil, limits: XMLReadLimits = .default) throws(VASTError) {
        let root: XMLNode
        do { root = try XMLTree.parse(bytes, limits: limits) } catch {
            throw VASTError(code: .xmlParsing, document: source, line: error.line, reason: error.reason)
        }
        guard root.name == "VMAP" else {
            throw VASTError(code: .schemaValidation, document: source, line: root.line, reason: "the root element is <\(root.name)>, not <vmap:VMAP>")
        }
        var diagnostics: [VASTDiagnostic] = []
        var breaks: [VMAPBreak] = []
        for node in root.all("AdBreak") {
            if let adBreak = try Self.adBreak(node, source: source, diagnostics: &diagnostics) { breaks.append(adBreak) }
        }
        self.init(version: root.attributes["version"] ?? "", breaks: breaks, diagnostics: diagnostics)
    }

    private static func adBreak(_ node: XMLNode, source: String?, diagnostics: inout [VASTDiagnostic]) throws(VASTError) -> VMAPBreak? {
        let id = node.attributes["breakId"]
        let name = id.map { "break \(quoted($0))" } ?? "a break"
        let types = (node.attributes["breakType"] ?? "linear").split(separator: ",").map { String($0).trimmingXMLSpace }
        guard types.contains("linear") else {
            diagnostics.append(VASTDiagnostic(line: node.line, message: "\(name) is \(types.joined(separator: ", ")), not linear: left out"))
            return nil
        }
        guard let offsetText = node.attributes["timeOffset"], let timeOffset = VMAPTimeOffset(parsing: offsetText) else {
            throw VASTError(code: .schemaValidation, document: source, line: node.line,
                            reason: "\(name): timeOffset \(quoted(node.attributes["timeOffset"] ?? "")) is not start, end, HH:MM:SS(.mmm), n% or #n")
        }
        var repeatAfter: MediaTime?
        if let text = node.attributes["repeatAfter"] {
            guard let time = VASTTime.parse(text), time > .zero else {
                throw VASTError(code: .schemaValidation, document: source, line: node.line, reason: "\(name): repeatAfter \(quoted(text)) is not a positive HH:MM:SS(.mmm)")
            }
            repeatAfter = time
        }
        var tracking: [VMAPBreakEvent: [String]] = [:]
        for event in node.first("TrackingEvents")?.all("Tracking") ?? [] where !event.text.isEmpty {
            guard let kind = event.attributes["event"].flatMap(VMAPBreakEvent.init(rawValue:)) else {
                diagnostics.append(VASTDiagnostic(line: event.line, message: "\(name): tracking event \(quoted(event.attributes["event"] ?? "")) left out"))
                continue
            }
            tracking[kind, default: []].append(event.text)
        }
        return VMAPBreak(id: id, timeOffset: timeOffset, repeatAfter: repeatAfter,
                         source: try adSource(node.first("AdSource"), name: name, source: source, diagnostics: &diagnostics),
                         tracking: tracking, line: node.line)
    }

    private static func adSource(_ node: XMLNode?, name: String, source: String?, diagnostics: inout [VASTDiagnostic]) throws(VASTError) -> VMAPAdSource? {
        guard let node else { return nil }
        let ads: VMAPAdSource.Ads
        if let data = node.first("VASTAdData") {
            guard let vast = data.first("VAST") else {
                throw VASTError(code: .schemaValidation, document: source, line: data.line, reason: "\(name): VASTAdData without a <VAST> element")
            }
            var reader = VASTReader(source: source)
            ads = .inline(try reader.document(vast))
        } else if let uri = node.text(of: "AdTagURI") {
            ads = .adTagURI(uri)
        } else {
            let what = node.first("CustomAdData") != nil ? "CustomAdData (an ad format this library does not read)" : "no VASTAdData or AdTagURI"
            diagnostics.append(VASTDiagnostic(line: node.line, message: "\(name): its AdSource has \(what): the break has no ads"))
            return nil
        }
        return VMAPAdSource(id: node.attributes["id"], allowMultipleAds: node.attributes["allowMultipleAds"].map(VASTReader.bool) ?? true,
                            followRedirects: node.attributes["followRedirects"].map(VASTReader.bool) ?? true, ads: ads)
    }
}
