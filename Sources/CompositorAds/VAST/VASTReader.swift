import CompositorCore

extension VASTDocument {
    /// Reads a VAST document (2.0 to 4.3).
    ///
    /// ```swift
    /// let document = try VASTDocument(parsing: Array(xml.utf8), source: "https://ads.example/vast")
    /// document.pod.first?.linear?.duration  // 15 s, exact
    /// ```
    ///
    /// - Parameters:
    ///   - bytes: The document.
    ///   - source: Its URL or path, named in errors.
    ///   - limits: Bounds on its size, element count and depth.
    /// - Throws: `VASTError` with code 100 (not XML, or refused), 101 (not VAST) or 102 (VAST 1).
    public init(parsing bytes: [UInt8], source: String? = nil, limits: XMLReadLimits = .default) throws(VASTError) {
        let root: XMLNode
        do { root = try XMLTree.parse(bytes, limits: limits) } catch {
            throw VASTError(code: .xmlParsing, document: source, line: error.line, reason: error.reason)
        }
        var reader = VASTReader(source: source)
        self = try reader.document(root)
    }
}

/// Walks a VAST element tree into `VASTDocument`, keeping what it leaves out as diagnostics.
struct VASTReader {
    let source: String?
    private var diagnostics: [VASTDiagnostic] = []

    init(source: String?) { self.source = source }

    private func schemaError(_ node: XMLNode, _ reason: String) -> VASTError {
        VASTError(code: .schemaValidation, document: source, line: node.line, reason: reason)
    }

    mutating func document(_ root: XMLNode) throws(VASTError) -> VASTDocument {
        if root.name == "VideoAdServingTemplate" {
            throw VASTError(code: .versionNotSupported, document: source, line: root.line, reason: "a VAST 1 document (VideoAdServingTemplate); VAST 2.0 to 4.3 are read")
        }
        guard root.name == "VAST" else { throw schemaError(root, "the root element is <\(root.name)>, not <VAST>") }
        guard let version = root.attributes["version"] else { throw schemaError(root, "<VAST> has no version attribute") }
        guard let major = version.split(separator: ".").first.flatMap({ Int($0) }), (2...4).contains(major) else {
            throw VASTError(code: .versionNotSupported, document: source, line: root.line, reason: "VAST version \(quoted(version)); 2.0 to 4.3 are read")
        }
        var ads: [VASTAd] = []
        for node in root.all("Ad") {
            do {
                if let ad = try ad(node) { ads.append(ad) }
            } catch {
                // One ad wrong is that ad's error alone (101), fired to its own Error URLs if it is reached.
                let part = node.first("InLine") ?? node.first("Wrapper")
                ads.append(VASTAd(id: node.attributes["id"], sequence: sequence(of: node), kind: .malformed(error),
                                  errors: part.map { urls($0, "Error") } ?? [], linear: nil, line: node.line))
            }
        }
        return VASTDocument(version: version, ads: ads, errors: urls(root, "Error"), diagnostics: diagnostics)
    }

    /// The `sequence` attribute, nil when absent or not a number.
    private func sequence(of node: XMLNode) -> Int? {
        node.attributes["sequence"].flatMap { Int($0) }.flatMap { $0 >= 0 ? $0 : nil }
    }

    private mutating func ad(_ node: XMLNode) throws(VASTError) -> VASTAd? {
        let sequence = sequence(of: node)
        if let text = node.attributes["sequence"], sequence == nil {
            note(node, "Ad sequence \(quoted(text)) is not a number; the ad is taken as stand-alone")
        }
        let isConditional = node.attributes["conditionalAd"].map(Self.bool) ?? false
        if let inline = node.first("InLine") {
            let linear = try self.linear(in: inline, isInline: true)
            if linear == nil { note(inline, "ad \(quoted(node.attributes["id"] ?? "")) has no Linear creative (non-linear or companion only): it is kept out of breaks") }
            return VASTAd(id: node.attributes["id"], sequence: sequence, isConditional: isConditional, adSystem: inline.text(of: "AdSystem"),
                          title: inline.text(of: "AdTitle"), kind: .inline, impressions: urls(inline, "Impression"),
                          errors: urls(inline, "Error"), linear: linear, verifications: verifications(in: inline), line: node.line)
        }
        if let wrapperNode = node.first("Wrapper") {
            let tag = wrapperNode.text(of: "VASTAdTagURI") ?? wrapperNode.first("VASTAdTagURL")?.text(of: "URL")
            guard let tag else { throw schemaError(wrapperNode, "a Wrapper without VASTAdTagURI") }
            let wrapper = VASTWrapper(
                adTagURI: tag, followAdditionalWrappers: wrapperNode.attributes["followAdditionalWrappers"].map(Self.bool) ?? true,
                allowMultipleAds: wrapperNode.attributes["allowMultipleAds"].map(Self.bool) ?? false,
                fallbackOnNoAd: wrapperNode.attributes["fallbackOnNoAd"].map(Self.bool))
            return VASTAd(id: node.attributes["id"], sequence: sequence, isConditional: isConditional, adSystem: wrapperNode.text(of: "AdSystem"),
                          kind: .wrapper(wrapper), impressions: urls(wrapperNode, "Impression"), errors: urls(wrapperNode, "Error"),
                          linear: try linear(in: wrapperNode, isInline: false), verifications: verifications(in: wrapperNode), line: node.line)
        }
        note(node, "an Ad with neither InLine nor Wrapper is left out")
        return nil
    }

    /// The first `Linear` creative of `parent`'s `Creatives`.
    private mutating func linear(in parent: XMLNode, isInline: Bool) throws(VASTError) -> VASTLinear? {
        for creative in parent.first("Creatives")?.all("Creative") ?? [] {
            guard let node = creative.first("Linear") else { continue }
            var duration: MediaTime?
            if let durationNode = node.first("Duration"), !durationNode.text.isEmpty {
                let text = durationNode.text
                guard let time = VASTTime.parse(text) else { throw schemaError(durationNode, "Duration \(quoted(text)) is not HH:MM:SS or HH:MM:SS.mmm") }
                // An ad that lasts nothing cannot play, and its quartiles would all fall at once.
                guard time > .zero else { throw schemaError(durationNode, "Duration \(quoted(text)) is 0: a linear ad lasts some time") }
                duration = time
            } else if isInline {
                throw schemaError(node, "an InLine Linear without Duration")
            }
            var skipOffset: VASTOffset?
            if let text = node.attributes["skipoffset"] {
                skipOffset = VASTOffset(parsing: text)
                if skipOffset == nil { note(node, "skipoffset \(quoted(text)) is not a time or a percentage; the ad is taken as not skippable") }
            }
            let mediaFilesNode = node.first("MediaFiles")
            let clicks = node.first("VideoClicks")
            return VASTLinear(
                duration: duration, skipOffset: skipOffset, mediaFiles: mediaFiles(mediaFilesNode),
                mezzanines: mediaFilesNode.map { urls($0, "Mezzanine") } ?? [],
                tracking: tracking(node.first("TrackingEvents")), clickThrough: clicks?.text(of: "ClickThrough"),
                clickTracking: clicks.map { urls($0, "ClickTracking") } ?? [],
                universalAdIDs: creative.all("UniversalAdId").compactMap { id in
                    id.text.isEmpty ? nil : VASTUniversalAdID(registry: id.attributes["idRegistry"] ?? "", value: id.text)
                },
                creativeID: creative.attributes["id"], creativeAdID: creative.attributes["adId"] ?? creative.attributes["AdID"])
        }
        return nil
    }

    private mutating func mediaFiles(_ node: XMLNode?) -> [VASTMediaFile] {
        (node?.all("MediaFile") ?? []).compactMap { file -> VASTMediaFile? in
            guard !file.text.isEmpty else { note(file, "a MediaFile without a URL is left out"); return nil }
            let deliveryText = file.attributes["delivery"] ?? "progressive"
            guard let delivery = VASTMediaFile.Delivery(rawValue: deliveryText.lowercased()) else {
                note(file, "MediaFile delivery \(quoted(deliveryText)) is neither progressive nor streaming; the file is left out")
                return nil
            }
            let number = { (name: String) in file.attributes[name].flatMap { Int($0.trimmingXMLSpace) } }
            return VASTMediaFile(
                url: file.text, delivery: delivery, type: file.attributes["type"] ?? "", width: number("width"), height: number("height"),
                bitrate: number("bitrate"), minBitrate: number("minBitrate"), maxBitrate: number("maxBitrate"),
                codec: file.attributes["codec"], apiFramework: file.attributes["apiFramework"], id: file.attributes["id"], line: file.line)
        }
    }

    private mutating func tracking(_ node: XMLNode?) -> [VASTTracking] {
        (node?.all("Tracking") ?? []).compactMap { tracking -> VASTTracking? in
            guard !tracking.text.isEmpty else { return nil }
            let name = tracking.attributes["event"] ?? ""
            if name == "progress" {
                guard let offset = tracking.attributes["offset"].flatMap(VASTOffset.init(parsing:)) else {
                    note(tracking, "a progress event without a valid offset is left out")
                    return nil
                }
                return VASTTracking(event: .progress(offset), url: tracking.text)
            }
            guard let event = VASTTrackingEvent.byName[name] else {
                note(tracking, "tracking event \(quoted(name)) is not one this library reports; left out")
                return nil
            }
            return VASTTracking(event: event, url: tracking.text)
        }
    }

    /// `AdVerifications` of VAST 4, or of VAST 3's `Extension type="AdVerifications"`.
    private func verifications(in parent: XMLNode) -> [VASTVerification] {
        var containers = parent.all("AdVerifications")
        for extensionNode in parent.first("Extensions")?.all("Extension") ?? [] where extensionNode.attributes["type"] == "AdVerifications" {
            containers += extensionNode.all("AdVerifications")
        }
        return containers.flatMap { $0.all("Verification") }.map { node in
            var tracking: [String: [String]] = [:]
            for event in node.first("TrackingEvents")?.all("Tracking") ?? [] where !event.text.isEmpty {
                tracking[event.attributes["event"] ?? "", default: []].append(event.text)
            }
            return VASTVerification(vendor: node.attributes["vendor"], javaScriptResources: urls(node, "JavaScriptResource"),
                                    parameters: node.text(of: "VerificationParameters"), tracking: tracking)
        }
    }

    /// The non-empty texts of `parent`'s children named `name`.
    private func urls(_ parent: XMLNode, _ name: String) -> [String] {
        parent.all(name).map(\.text).filter { !$0.isEmpty }
    }

    private mutating func note(_ node: XMLNode, _ message: String) {
        diagnostics.append(VASTDiagnostic(line: node.line, message: message))
    }

    /// XML Schema's boolean: `true`/`1` (any case for `true`).
    static func bool(_ text: String) -> Bool {
        let value = text.trimmingXMLSpace.lowercased()
        return value == "true" || value == "1"
    }
}

extension String {
    var trimmingXMLSpace: String { XMLTree.trimmed(self) }
}
