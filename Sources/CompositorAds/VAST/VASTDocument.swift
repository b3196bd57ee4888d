import CompositorCore

/// A VAST response as read (IAB VAST 2.0 to 4.3): its ads in document order, and the `Error` URLs
/// a response without ads names.
///
/// Reading keeps what the document says; which ads play is the resolver's decision
/// (`VASTResolver`), which follows wrappers, orders pods and picks media files.
public struct VASTDocument: Hashable, Sendable {
    /// The `version` attribute, as written (`"4.1"`).
    public var version: String
    /// The `Ad` elements, in document order.
    public var ads: [VASTAd]
    /// The root's own `Error` URLs: where a response with no ad reports 303.
    public var errors: [String]
    /// What was read but left out (a non-linear ad, an unknown tracking event), in document order.
    public var diagnostics: [VASTDiagnostic]

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - version: The `version` attribute, as written (`"4.1"`).
    ///   - ads: The `Ad` elements, in document order.
    ///   - errors: The root's own `Error` URLs: where a response with no ad reports 303.
    ///   - diagnostics: What was read but left out (a non-linear ad, an unknown tracking event), in document order.
    public init(version: String, ads: [VASTAd], errors: [String] = [], diagnostics: [VASTDiagnostic] = []) {
        self.version = version
        self.ads = ads
        self.errors = errors
        self.diagnostics = diagnostics
    }

    /// The ads of the pod, ordered by `sequence` (ties in document order).
    public var pod: [VASTAd] {
        ads.enumerated().compactMap { index, ad in ad.sequence.map { (sequence: $0, index: index, ad: ad) } }
            .sorted { ($0.sequence, $0.index) < ($1.sequence, $1.index) }.map(\.ad)
    }

    /// The ads without `sequence`: stand-alone ads, or a buffet that fills a failed pod slot.
    public var buffet: [VASTAd] { ads.filter { $0.sequence == nil } }
}

/// Something a VAST or VMAP document says that is kept out, and why: the line and what was left.
public struct VASTDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// The document's line (from 1).
    public var line: Int
    public var message: String

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - line: The document's line (from 1).
    ///   - message: What was left out, and why.
    public init(line: Int, message: String) {
        self.line = line
        self.message = message
    }

    public var description: String { "line \(line): \(message)" }
}

/// One `Ad` of a VAST response: an `InLine` ad, or a `Wrapper` that leads to more VAST.
public struct VASTAd: Hashable, Sendable {
    /// The `id` attribute.
    public var id: String?
    /// The `sequence` attribute: the ad's place in a pod. Nil for a stand-alone (buffet) ad.
    public var sequence: Int?
    /// VAST 4's `conditionalAd` attribute.
    public var isConditional: Bool
    /// `AdSystem`.
    public var adSystem: String?
    /// `AdTitle` (InLine).
    public var title: String?
    /// InLine or Wrapper, with what only that kind has, or why the ad cannot be read.
    public var kind: Kind
    /// `Impression` URLs, in document order (empty ones dropped).
    public var impressions: [String]
    /// The ad's `Error` URLs.
    public var errors: [String]
    /// The first `Linear` creative, or nil when the ad has none (a non-linear or companion-only ad).
    public var linear: VASTLinear?
    /// `AdVerifications`: carried for the app, which runs them (this library executes no script).
    public var verifications: [VASTVerification]
    /// The document line the `Ad` starts on.
    public var line: Int

    public enum Kind: Hashable, Sendable {
        case inline
        case wrapper(VASTWrapper)
        /// An `Ad` the document gets wrong (a `Duration` that is no time, a `Wrapper` without a tag),
        /// kept in its place with why (VAST error 101): it fails alone, as VAST 4.x has an ad fail,
        /// and the rest of the response plays.
        case malformed(VASTError)
    }

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - id: The `id` attribute.
    ///   - sequence: The `sequence` attribute: the ad's place in a pod.
    ///   - isConditional: VAST 4's `conditionalAd` attribute.
    ///   - adSystem: `AdSystem`.
    ///   - title: `AdTitle` (InLine).
    ///   - kind: InLine or Wrapper, with what only that kind has.
    ///   - impressions: `Impression` URLs, in document order (empty ones dropped).
    ///   - errors: The root's own `Error` URLs: where a response with no ad reports 303.
    ///   - linear: The first `Linear` creative, or nil when the ad has none (a non-linear or companion-only ad).
    ///   - verifications: `AdVerifications`: carried for the app, which runs them (this library executes no script).
    ///   - line: The document's line (from 1).
    public init(id: String?, sequence: Int?, isConditional: Bool = false, adSystem: String? = nil, title: String? = nil,
                kind: Kind, impressions: [String] = [], errors: [String] = [], linear: VASTLinear?,
                verifications: [VASTVerification] = [], line: Int = 0) {
        self.id = id
        self.sequence = sequence
        self.isConditional = isConditional
        self.adSystem = adSystem
        self.title = title
        self.kind = kind
        self.impressions = impressions
        self.errors = errors
        self.linear = linear
        self.verifications = verifications
        self.line = line
    }

    /// The wrapper's part, or nil for an InLine ad.
    public var wrapper: VASTWrapper? {
        if case .wrapper(let wrapper) = kind { return wrapper }
        return nil
    }
}

/// What a `Wrapper` adds: where the next VAST is, and how the chain may continue.
public struct VASTWrapper: Hashable, Sendable {
    /// `VASTAdTagURI` (VAST 2 to 4) or VAST 1's `VASTAdTagURL/URL`.
    public var adTagURI: String
    /// `followAdditionalWrappers` (default true): whether the next document may be a wrapper too.
    public var followAdditionalWrappers: Bool
    /// `allowMultipleAds` (default false): whether the next document may answer with a pod.
    public var allowMultipleAds: Bool
    /// `fallbackOnNoAd`: whether the buffet fills in when this wrapper's chain brings no ad.
    public var fallbackOnNoAd: Bool?

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - adTagURI: `VASTAdTagURI` (VAST 2 to 4) or VAST 1's `VASTAdTagURL/URL`.
    ///   - followAdditionalWrappers: `followAdditionalWrappers` (default true): whether the next document may be a wrapper too.
    ///   - allowMultipleAds: `allowMultipleAds` (default false): whether the next document may answer with a pod.
    ///   - fallbackOnNoAd: `fallbackOnNoAd`: whether the buffet fills in when this wrapper's chain brings no ad.
    public init(adTagURI: String, followAdditionalWrappers: Bool = true, allowMultipleAds: Bool = false, fallbackOnNoAd: Bool? = nil) {
        self.adTagURI = adTagURI
        self.followAdditionalWrappers = followAdditionalWrappers
        self.allowMultipleAds = allowMultipleAds
        self.fallbackOnNoAd = fallbackOnNoAd
    }
}

/// One `Verification` of `AdVerifications`, kept for the app (Open Measurement, for example).
public struct VASTVerification: Hashable, Sendable {
    public var vendor: String?
    /// `JavaScriptResource` URLs (never executed here).
    public var javaScriptResources: [String]
    /// `VerificationParameters`, as written.
    public var parameters: String?
    /// The verification's own `TrackingEvents` (`verificationNotExecuted`), event name to URLs.
    public var tracking: [String: [String]]

    /// Makes a value from its parts.
    ///
    /// - Parameters:
    ///   - vendor: `vendor`.
    ///   - javaScriptResources: `JavaScriptResource` URLs (never executed here).
    ///   - parameters: `VerificationParameters`, as written.
    ///   - tracking: The verification's own `TrackingEvents` (`verificationNotExecuted`), event name to URLs.
    public init(vendor: String?, javaScriptResources: [String], parameters: String?, tracking: [String: [String]] = [:]) {
        self.vendor = vendor
        self.javaScriptResources = javaScriptResources
        self.parameters = parameters
        self.tracking = tracking
    }
}
