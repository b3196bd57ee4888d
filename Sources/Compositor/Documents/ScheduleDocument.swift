import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// The schedule file format of the demo's contract (DESIGN.md), read exactly.
///
/// ```json
/// { "content": [ { "id": "feature", "url": "content.mp4", "start": 0, "end": 20.5 } ],
///   "breaks": [ { "id": "mid1", "at": 8.5, "policy": "once",
///                 "ads": [ { "id": "a2", "url": "ad1.mp4", "end": "1001/30000" } ] } ] }
/// ```
///
/// Times are seconds as JSON numbers (their text is parsed exactly, never through `Double`) or
/// strings `"value/timescale"`. `at` is `"preroll"`, `"postroll"` or a content time. Optional:
/// `start` (0), `end` (the natural duration), `policy` (`"sticky"` or `"once"`), `resumeOffset` (0),
/// `skippable` (`true`; `false` forbids skipping), `skippableAfter` (seconds into an ad),
/// `seekWithinAds` (`true`), IDs (`clip-N`, `break-N`, `BREAK-ad-N`, counted from 1), and for a
/// multivariant HLS source the `variant` to play (its URI as the playlist writes it, or its
/// `STABLE-VARIANT-ID`; the highest `BANDWIDTH` by default; see `MediaLocation.variant`).
///
/// `"at": "markers"` (with `"clip"`, the first clip by default) places the break at every span the
/// clip's HLS playlist marks as a break (`EXT-X-CUE-OUT`/`-IN`, `SCTE35-OUT` date ranges) within
/// the clip, each replacing its span (see `MarkedBreaks`): breaks `ID-1`, `ID-2`, ….
/// Ads from an ad server: `"vmap": "URL or path"` beside `content` places the VMAP's breaks, and a
/// break's `"vast": "URL or path"` instead of `ads` fills it with the VAST's ads. Such a schedule is
/// read with `ScheduleDocument.load(path:…)`, which fetches and resolves them (`ScheduleAds`).
/// Unknown keys are errors, so a typo cannot pass unnoticed. Relative URLs are resolved against
/// `baseFolder` (see `MediaLocation` for paths and `file:` URLs).
public enum ScheduleDocument {
    /// The largest schedule accepted, in bytes: far more than any real schedule needs (16 MiB is
    /// some 100 000 breaks), checked before anything is parsed. Readers of schedule files should
    /// refuse a bigger file before reading it (the demo does).
    public static let maximumBytes = 16 << 20

    /// Reads the schedule file at `path`; its relative URLs are resolved against the file's folder.
    /// Only a regular file is read, and one larger than `maximumBytes` is refused before reading.
    ///
    /// - Parameters:
    ///   - path: The schedule file.
    ///   - diagnostics: Gets what was read but places nothing (a cue marker that marks no span).
    /// - Returns: The schedule.
    public static func read(path: FilePath, diagnostics: inout [ScheduleDocumentDiagnostic]) throws(ScheduleDocumentError) -> Schedule {
        let bytes: [UInt8]
        do { bytes = try ReadableFile.contents(of: path, limit: maximumBytes) } catch {
            throw .unreadable(path: path, reason: error.reasonText)
        }
        return try decode(bytes, baseFolder: path.parent, diagnostics: &diagnostics)
    }

    /// `read(path:diagnostics:)`, its diagnostics left unheard.
    ///
    /// - Parameter path: The schedule file.
    /// - Returns: The schedule.
    /// - Throws: `ScheduleDocumentError`: `.unreadable` (missing, not a regular file, too large),
    ///   `.syntax` (with line and column), `.invalid` (with the key's path), or `.schedule` for a
    ///   schedule the `Schedule` checks refuse.
    public static func read(path: FilePath) throws(ScheduleDocumentError) -> Schedule {
        var diagnostics: [ScheduleDocumentDiagnostic] = []
        return try read(path: path, diagnostics: &diagnostics)
    }

    /// Reads a schedule from JSON bytes; relative URLs are resolved against `baseFolder`.
    ///
    /// - Parameters:
    ///   - bytes: The JSON text.
    ///   - baseFolder: What relative URLs are resolved against.
    ///   - diagnostics: Gets what was read but places nothing (a cue marker that marks no span).
    /// - Returns: The schedule.
    public static func decode(
        _ bytes: some Collection<UInt8>, baseFolder: FilePath? = nil, diagnostics: inout [ScheduleDocumentDiagnostic]
    ) throws(ScheduleDocumentError) -> Schedule {
        let (schedule, requests) = try decodeWithAdRequests(bytes, baseFolder: baseFolder, diagnostics: &diagnostics)
        if let path = requests.firstPath { throw .namesAdServer(path: path) }
        return schedule
    }

    /// Reads a schedule whose ads may come from ad servers: the schedule without those breaks, and
    /// what to fetch for them.
    package static func decodeWithAdRequests(
        _ bytes: some Collection<UInt8>, baseFolder: FilePath?, diagnostics: inout [ScheduleDocumentDiagnostic]
    ) throws(ScheduleDocumentError) -> (Schedule, AdServerRequests) {
        guard bytes.count <= maximumBytes else { throw .tooLarge(bytes: bytes.count, limit: maximumBytes) }
        let root: JSONValue
        do { root = try JSONValue(parsing: bytes) } catch { throw .syntax(line: error.line, column: error.column, reason: error.reason) }
        return try decodeWithAdRequests(root, baseFolder: baseFolder, diagnostics: &diagnostics)
    }

    private static func decodeWithAdRequests(
        _ root: JSONValue, baseFolder: FilePath?, diagnostics: inout [ScheduleDocumentDiagnostic]
    ) throws(ScheduleDocumentError) -> (Schedule, AdServerRequests) {
        var reader = Reader(baseFolder: baseFolder)
        defer { diagnostics += reader.diagnostics }
        let schedule = try reader.schedule(root)
        return (schedule, reader.requests)
    }

    /// A live schedule from its JSON: one content clip, played whole, and breaks placed as it plays.
    static func decodeLive(_ root: JSONValue, baseFolder: FilePath?) throws(ScheduleDocumentError) -> LiveSchedule {
        var reader = Reader(baseFolder: baseFolder, isLive: true)
        let schedule = try reader.schedule(root)
        if let path = reader.requests.firstPath {
            throw .invalid(path: path, reason: "ads from an ad server are not yet taken for live content: name the ads")
        }
        guard schedule.content.count == 1, let clip = schedule.content.first else {
            throw .invalid(path: "content", reason: "live content is one clip, the live playlist (\(schedule.content.count) given)")
        }
        guard clip.start == .zero, clip.end == nil else {
            throw .invalid(path: "content[0]", reason: "live content plays as it comes: it takes no \"start\" or \"end\"")
        }
        return LiveSchedule(content: clip, breaks: reader.liveBreaks)
    }

    /// `decode(_:baseFolder:diagnostics:)`, its diagnostics left unheard.
    ///
    /// - Parameters:
    ///   - bytes: The JSON text.
    ///   - baseFolder: What relative URLs are resolved against; `nil` leaves them relative.
    /// - Returns: The schedule.
    /// - Throws: `ScheduleDocumentError`: `.tooLarge`, `.syntax`, `.invalid` or `.schedule`.
    public static func decode(_ bytes: some Collection<UInt8>, baseFolder: FilePath? = nil) throws(ScheduleDocumentError) -> Schedule {
        var diagnostics: [ScheduleDocumentDiagnostic] = []
        return try decode(bytes, baseFolder: baseFolder, diagnostics: &diagnostics)
    }
}

/// Something a schedule file says that was read, but places nothing: the schedule is still good.
public enum ScheduleDocumentDiagnostic: Hashable, Sendable, CustomStringConvertible {
    /// A cue marker in the playlist of a break at `"markers"` that marks no span (it ends before it
    /// starts, lies outside the playlist, has no end, overlaps an earlier one): `path` is the
    /// break's `at`, `playlist` the media playlist's URL, `reason` the marker and why.
    case markerIgnored(path: String, playlist: String, reason: String)
    /// Ads asked of an ad server that will not play (the VMAP or VAST could not be had, a break got
    /// no ad, a VMAP break was left out): `path` is where the schedule or the VMAP names them.
    case adsUnavailable(path: String, reason: String)
    /// An ad whose source failed to load, dropped from its break so that everything else plays
    /// (`AdSchedule.loadSources`); `breakDropped` when it was the break's last, so the break went too.
    case adDropped(ad: String, break: String, reason: String, breakDropped: Bool)
    /// An ad-server ad whose media lasts otherwise than its VAST `Duration` says (by over half a
    /// second): the media plays whole, and the ad's quartiles and percentages are of what plays.
    case adDurationDiffers(ad: String, stated: MediaTime, playing: MediaTime)

    public var description: String {
        switch self {
        case .markerIgnored(let path, let playlist, let reason): "\(path): \(playlist): \(reason)"
        case .adsUnavailable(let path, let reason): "\(path): \(reason)"
        case .adDropped(let ad, let adBreak, let reason, let breakDropped):
            "break \(quoted(adBreak)): ad \(quoted(ad)) is dropped: \(reason); "
                + (breakDropped ? "no ad of the break is left, so content plays through it" : "the break's other ads play")
        case .adDurationDiffers(let ad, let stated, let playing):
            "ad \(quoted(ad)): its VAST Duration is \(stated) s, its media lasts \(playing) s: the media plays whole, "
                + "and its quartiles are measured on it"
        }
    }
}

/// Why a schedule file could not be read. Every case says where: the JSON path (`breaks[1].ads[0].end`)
/// or the line and column.
public enum ScheduleDocumentError: Error, Equatable, Sendable, CustomStringConvertible {
    /// Not JSON.
    case syntax(line: Int, column: Int, reason: String)
    /// JSON, but not a schedule: a missing or unknown key, a value of the wrong type, a bad time.
    case invalid(path: String, reason: String)
    /// A well-formed item that breaks a schedule rule.
    case schedule(path: String, ScheduleError)
    /// More bytes than `ScheduleDocument.maximumBytes`: refused before parsing.
    case tooLarge(bytes: Int, limit: Int)
    /// The file could not be read.
    case unreadable(path: FilePath, reason: String)
    /// The schedule names an ad server (`vmap`, a break's `vast`), which only the asynchronous
    /// `ScheduleDocument.load(path:…)` fetches.
    case namesAdServer(path: String)

    public var description: String {
        switch self {
        case .syntax(let line, let column, let reason): return "not valid JSON: line \(line), column \(column): \(reason)"
        case .invalid(let path, let reason): return "\(path): \(reason)"
        case .schedule(let path, let error): return "\(path): \(error)"
        case .tooLarge(let bytes, let limit): return "the schedule is \(bytes) bytes, more than the limit of \(limit)"
        case .unreadable(let path, let reason): return "\(path): \(reason)"
        case .namesAdServer(let path): return "\(path): ads from an ad server are fetched when the schedule is loaded (ScheduleDocument.load), not read"
        }
    }
}

extension ScheduleDocument {
    private struct Reader {
        let baseFolder: FilePath?
        /// The location each `url` text resolved to: a schedule names few sources many times.
        private var locations: [String: MediaLocation] = [:]
        /// What was read but places nothing.
        private(set) var diagnostics: [ScheduleDocumentDiagnostic] = []
        /// What the schedule asks of ad servers.
        private(set) var requests = AdServerRequests()
        /// Whether the content is live: breaks are then placed as the content plays (`LiveSchedule`).
        let isLive: Bool
        /// A live schedule's breaks.
        private(set) var liveBreaks: [LiveSchedule.Break] = []

        init(baseFolder: FilePath?, isLive: Bool = false) {
            self.baseFolder = baseFolder
            self.isLive = isLive
        }

        /// The keys each kind of object may have (a few each: searched, not hashed).
        private enum Keys {
            static let schedule = ["content", "breaks", "vmap", "renditions", "adBudget"]
            static let item = ["id", "url", "variant", "start", "end"]
            static let adBreak = [
                "id", "at", "clip", "ads", "vast", "adBudget", "policy", "resumeOffset", "skippable", "skippableAfter", "seekWithinAds",
                "slate",
            ]
        }

        mutating func schedule(_ root: JSONValue) throws(ScheduleDocumentError) -> Schedule {
            let object = try objectValue(root, path: "schedule", keys: Keys.schedule)
            guard let contentValue = object["content"] else { throw .invalid(path: "schedule", reason: "missing key \"content\"") }
            var schedule = Schedule()
            for (i, clipValue) in try arrayValue(contentValue, path: "content").enumerated() {
                let clip = try self.clip(clipValue, path: "content[\(i)]", defaultID: "clip-\(i + 1)")
                do { try schedule.appendContentClip(clip) } catch { throw .schedule(path: "content[\(i)]", error) }
            }
            if schedule.content.isEmpty { throw .schedule(path: "content", .noContent) }
            if object["vmap"] != nil { requests.vmap = AdServerRequests.Document(location: try adServerLocation(object, "vmap", path: "schedule"), path: "vmap") }
            requests.budget = try budget(object, path: "schedule")
            if let breaksValue = object["breaks"] {
                let breakValues = try arrayValue(breaksValue, path: "breaks")
                schedule.reserveCapacity(breaks: breakValues.count, ids: 2 * breakValues.count)  // a break and at least one ad
                for (i, breakValue) in breakValues.enumerated() {
                    // Paths and default IDs are made only when needed: there may be 100,000 breaks.
                    let adBreaks = try self.adBreaks(breakValue, path: "breaks[\(i)]", defaultID: "break-\(i + 1)", content: schedule.content)
                    if case .object(let object) = breakValue, object["vast"] != nil {
                        // Filled when the VAST is resolved; its IDs are taken now, so none is reused.
                        let document = AdServerRequests.Document(location: try adServerLocation(object, "vast", path: "breaks[\(i)]"), path: "breaks[\(i)].vast")
                        requests.breaks.append(AdServerRequests.Breaks(templates: adBreaks, vast: document, budget: try budget(object, path: "breaks[\(i)]")))
                        continue
                    }
                    if case .object(let object) = breakValue, object["adBudget"] != nil {
                        throw .invalid(path: "breaks[\(i)].adBudget", reason: "a break with its own ads asks no ad server: an ad budget is for a break's \"vast\"")
                    }
                    for adBreak in adBreaks {
                        do { try schedule.appendBreak(adBreak) } catch { throw .schedule(path: "breaks[\(i)]", error) }
                    }
                }
            }
            if let renditions = object["renditions"] { try self.renditions(renditions, into: &schedule) }
            return schedule
        }

        /// `"adBudget"`: how long an ad decision may take, wrappers included (more than 0 s).
        private func budget(_ object: JSONObject, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> MediaTime? {
            guard let budget = try time(object, "adBudget", path: path()) else { return nil }
            guard budget > .zero else { throw .invalid(path: path() + ".adBudget", reason: "an ad decision needs some time: \(budget) s") }
            return budget
        }

        /// `"renditions": { URL: [URL, …] }`: the other encodings of a source, each URL resolved
        /// as an item's `url` is.
        private mutating func renditions(_ value: JSONValue, into schedule: inout Schedule) throws(ScheduleDocumentError) {
            guard case .object(let object) = value else {
                throw .invalid(path: "renditions", reason: "expected an object of a source's URL to its other renditions' URLs, got \(value.typeName)")
            }
            for (url, list) in object.members {
                let path = "renditions[\"\(url)\"]"
                var others: [MediaLocation] = []
                for (i, element) in try arrayValue(list, path: path).enumerated() {
                    guard case .string(let text) = element else {
                        throw .invalid(path: "\(path)[\(i)]", reason: "expected a URL string, got \(element.typeName)")
                    }
                    others.append(try location(text, path: "\(path)[\(i)]"))
                }
                let source = try location(url, path: path)
                if others.contains(source) { throw .invalid(path: path, reason: "a source is not a rendition of itself") }
                schedule.setRenditions(others, of: source)
            }
        }

        private mutating func clip(_ value: JSONValue, path: @autoclosure () -> String, defaultID: @autoclosure () -> String) throws(ScheduleDocumentError) -> ContentClip {
            let item = try self.item(value, path: path(), defaultID: defaultID())
            return ContentClip(id: item.id, source: item.source, start: item.start, end: item.end)
        }

        private mutating func ad(_ value: JSONValue, path: @autoclosure () -> String, defaultID: @autoclosure () -> String) throws(ScheduleDocumentError) -> Ad {
            let item = try self.item(value, path: path(), defaultID: defaultID())
            return Ad(id: item.id, source: item.source, start: item.start, end: item.end)
        }

        /// What a content clip and an ad both are: an `id` (else `defaultID`), a `url` (and
        /// `variant`), a `start` (0 when absent) and an `end`.
        private mutating func item(
            _ value: JSONValue, path: @autoclosure () -> String, defaultID: @autoclosure () -> String
        ) throws(ScheduleDocumentError) -> (id: String, source: MediaLocation, start: MediaTime, end: MediaTime?) {
            let object = try objectValue(value, path: path(), keys: Keys.item)
            return (id: try string(object, "id", path: path()) ?? defaultID(), source: try source(object, path: path()),
                    start: try time(object, "start", path: path()) ?? .zero, end: try time(object, "end", path: path()))
        }

        /// One break, or for `"at": "markers"` one per span the clip's playlist marks.
        private mutating func adBreaks(
            _ value: JSONValue, path: @autoclosure () -> String, defaultID: @autoclosure () -> String, content: [ContentClip]
        ) throws(ScheduleDocumentError) -> [AdBreak] {
            let object = try objectValue(value, path: path(), keys: Keys.adBreak)
            let id = try string(object, "id", path: path()) ?? defaultID()
            guard let at = object["at"] else { throw .invalid(path: path(), reason: "missing key \"at\"") }
            let clipID = try string(object, "clip", path: path())
            if isLive {
                try liveBreak(object, id: id, at: at, path: path())
                return []
            }
            if object["slate"] != nil {
                throw .invalid(path: path() + ".slate", reason: "a slate fills the rest of a live break's marked span; a break of finished content takes none")
            }
            let placement: Placement
            switch at {
            case .string("preroll"): placement = .preroll
            case .string("postroll"): placement = .postroll
            case .string("markers"):
                guard object["resumeOffset"] == nil else {
                    throw .invalid(path: path() + ".resumeOffset", reason: "a break at markers replaces each marked span; it takes no resumeOffset")
                }
                let pod = try self.pod(object, id: id, path: path())
                return try MarkedBreaks.expand(
                    id: id, ads: pod.ads, policy: pod.policy, restrictions: pod.restrictions, clipID: clipID, content: content, path: path(),
                    diagnostics: &diagnostics)
            default: placement = .midroll(at: try timeValue(at, path: path() + ".at", expected: "\"preroll\", \"postroll\", \"markers\" or a time"))
            }
            if clipID != nil { throw .invalid(path: path() + ".clip", reason: "\"clip\" names the clip whose markers place a break at \"markers\"") }
            return [try adBreak(object, id: id, placement: placement, path: path())]
        }

        private mutating func adBreak(_ object: JSONObject, id: String, placement: Placement, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> AdBreak {
            let pod = try self.pod(object, id: id, path: path())
            return AdBreak(
                id: id, placement: placement, ads: pod.ads, policy: pod.policy,
                resumeOffset: try time(object, "resumeOffset", path: path()) ?? .zero, restrictions: pod.restrictions)
        }

        /// A break of a live schedule: at `"markers"`, at a date-time, or `"on-demand"`, with its ads.
        private mutating func liveBreak(_ object: JSONObject, id: String, at: JSONValue, path: @autoclosure () -> String) throws(ScheduleDocumentError) {
            for key in ["clip", "resumeOffset", "vast"] where object[key] != nil {
                throw .invalid(path: "\(path()).\(key)", reason: "a break of live content takes no \"\(key)\"")
            }
            let trigger: LiveSchedule.Trigger
            switch at {
            case .string("markers"): trigger = .markers
            case .string("on-demand"): trigger = .onDemand
            case .string(let text):
                do { trigger = .date(try HLSDateTime(parsing: text).secondsSinceEpoch) } catch {
                    throw .invalid(path: path() + ".at", reason: "expected \"markers\", \"on-demand\" or a date-time (2026-11-26T21:00:00Z): \(error.reason)")
                }
            default:
                throw .invalid(path: path() + ".at", reason: "a break of live content is at \"markers\", \"on-demand\" or a date-time, not \(at.typeName)")
            }
            let pod = try self.pod(object, id: id, path: path())
            guard !pod.ads.isEmpty else { throw .invalid(path: path() + ".ads", reason: "a live break needs at least one ad") }
            guard !liveBreaks.contains(where: { $0.id == id }) else { throw .invalid(path: path() + ".id", reason: "break \(quoted(id)) is named twice") }
            var slate: Ad?
            if let value = object["slate"] {
                guard trigger == .markers else {
                    throw .invalid(path: path() + ".slate", reason: "a slate fills the rest of a marked span; a break \(trigger == .onDemand ? "on demand" : "at a date") lasts as long as its ads")
                }
                slate = try ad(value, path: path() + ".slate", defaultID: "\(id)-slate")
            }
            liveBreaks.append(LiveSchedule.Break(id: id, trigger: trigger, ads: pod.ads, slate: slate))
        }

        /// A break's ads, policy and restrictions.
        private mutating func pod(
            _ object: JSONObject, id: String, path: @autoclosure () -> String
        ) throws(ScheduleDocumentError) -> (ads: [Ad], policy: BreakPolicy, restrictions: BreakRestrictions) {
            if object["vast"] != nil, object["ads"] != nil {
                throw .invalid(path: path(), reason: "\"ads\" and \"vast\" both give the break's ads: name one")
            }
            guard let adsValue = object["ads"] ?? (object["vast"] != nil ? .array([]) : nil) else {
                throw .invalid(path: path(), reason: "missing key \"ads\" (or \"vast\")")
            }
            var ads: [Ad] = []
            for (i, adValue) in try arrayValue(adsValue, path: path() + ".ads").enumerated() {
                ads.append(try ad(adValue, path: "\(path()).ads[\(i)]", defaultID: "\(id)-ad-\(i + 1)"))
            }
            var policy = BreakPolicy.sticky
            if let text = try string(object, "policy", path: path()) {
                guard let parsed = BreakPolicy(rawValue: text) else {
                    throw .invalid(path: path() + ".policy", reason: "expected \"sticky\" or \"once\", got \"\(text)\"")
                }
                policy = parsed
            }
            var restrictions = BreakRestrictions()
            if let seek = try bool(object, "seekWithinAds", path: path()) { restrictions.allowsSeekingWithinAd = seek }
            let skippable = try bool(object, "skippable", path: path())
            if let delay = try time(object, "skippableAfter", path: path()) {
                guard skippable != false else {
                    throw .invalid(path: path(), reason: "\"skippable\": false contradicts \"skippableAfter\"")
                }
                restrictions.skipping = .after(delay)
            } else if skippable == false {
                restrictions.skipping = .never
            }
            return (ads, policy, restrictions)
        }

        // MARK: Typed access

        private func objectValue(_ value: JSONValue, path: @autoclosure () -> String, keys: [String]) throws(ScheduleDocumentError) -> JSONObject {
            guard case .object(let object) = value else {
                throw .invalid(path: path(), reason: "expected an object, got \(value.typeName)")
            }
            if let unknown = object.members.first(where: { !keys.contains($0.key) })?.key {
                throw .invalid(path: path(), reason: "unknown key \"\(unknown)\" (known: \(keys.sorted().joined(separator: ", ")))")
            }
            return object
        }

        private func arrayValue(_ value: JSONValue, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> [JSONValue] {
            guard case .array(let elements) = value else {
                throw .invalid(path: path(), reason: "expected an array, got \(value.typeName)")
            }
            return elements
        }

        private func string(_ object: JSONObject, _ key: String, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> String? {
            guard let value = object[key] else { return nil }
            guard case .string(let text) = value else {
                throw .invalid(path: "\(path()).\(key)", reason: "expected a string, got \(value.typeName)")
            }
            return text
        }

        private func bool(_ object: JSONObject, _ key: String, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> Bool? {
            guard let value = object[key] else { return nil }
            guard case .bool(let flag) = value else {
                throw .invalid(path: "\(path()).\(key)", reason: "expected true or false, got \(value.typeName)")
            }
            return flag
        }

        private mutating func source(_ object: JSONObject, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> MediaLocation {
            guard let url = try string(object, "url", path: path()) else { throw .invalid(path: path(), reason: "missing key \"url\"") }
            let location = try self.location(url, path: path() + ".url")
            let variant = try string(object, "variant", path: path())
            if variant?.isEmpty == true { throw .invalid(path: path() + ".variant", reason: "an empty variant name") }
            return location.selectingVariant(variant)
        }

        /// The location `url` names, resolved against the schedule's folder (each text once).
        private mutating func location(_ url: String, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> MediaLocation {
            if let known = locations[url] { return known }
            let location: MediaLocation
            do { location = try MediaLocation(parsing: url, relativeTo: baseFolder) } catch {
                throw .invalid(path: path(), reason: error.description)
            }
            locations[url] = location
            return location
        }

        /// A `vmap` or `vast` value: a URL, or a path resolved against the schedule's folder.
        private func adServerLocation(_ object: JSONObject, _ key: String, path: String) throws(ScheduleDocumentError) -> MediaLocation {
            guard let text = try string(object, key, path: path) else { throw .invalid(path: "\(path).\(key)", reason: "missing") }
            do { return try MediaLocation(parsing: text, relativeTo: baseFolder) } catch {
                throw .invalid(path: "\(path).\(key)", reason: error.description)
            }
        }

        private func time(_ object: JSONObject, _ key: String, path: @autoclosure () -> String) throws(ScheduleDocumentError) -> MediaTime? {
            guard let value = object[key] else { return nil }
            return try timeValue(value, path: "\(path()).\(key)", expected: "a time")
        }

        private func timeValue(_ value: JSONValue, path: @autoclosure () -> String, expected: String) throws(ScheduleDocumentError) -> MediaTime {
            let text: String
            switch value {
            case .number(let number): text = number
            case .string(let string): text = string
            default: throw .invalid(path: path(), reason: "expected \(expected) (seconds or \"value/timescale\"), got \(value.typeName)")
            }
            do { return try MediaTime(parsing: text) } catch { throw .invalid(path: path(), reason: error.description) }
        }
    }
}
