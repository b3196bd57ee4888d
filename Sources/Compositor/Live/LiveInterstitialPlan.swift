import CompositorCore
import CompositorHLS

/// The client-side form of a live schedule: the breaks as interstitial events by program
/// date-time, for an app whose player plays the live content itself and schedules them
/// (`AVPlayerInterstitialEvent` on Apple platforms; `LiveInterstitialController` does it all).
///
/// ```
/// content   | 100 | 101 | 102 | 103 | 104 | 105 |      CUE-OUT:DURATION=6 on 101
/// events    ssai-101 at 101's date: the pod, stopped at 6 s, the content on as far as it played
///           nine at 21:00:00Z (scheduled from the start); news-1 when the app inserts it
/// ```
///
/// - `"markers"`: an event for each span the content marks as its segments appear, at its first
///   segment's date (less the time it was under way at the first load), stopped at the span
///   (`playoutLimit`; known at `EXT-X-CUE-IN` for an open span, and added then).
/// - A date-time: an event at that date, known from the start.
/// - `"on-demand"` (or any ads the app picks): `insertNow`, at the player's date now.
///
/// After an event the content resumes as far on as the event played (`.afterPlayedTime`: the
/// viewer stays as far behind live as before), or where the viewer left (`.whereLeft`: they fall
/// behind live by the event's length).
///
/// ```swift
/// var plan = LiveInterstitialPlan(schedule: try ScheduleDocument.readLive(path: file))
/// if try plan.advance(byPlaylist: bytes, url: contentURL) { schedule(plan.events) }   // each reload
/// try plan.insertNow("news", at: playerDate, resumption: .whereLeft)                    // breaking news
/// ```
public struct LiveInterstitialPlan: Equatable, Sendable {
    /// Where the content resumes after an event.
    public enum Resumption: Hashable, Sendable {
        /// As far on as the event played: as far behind live as before (the live edge moves on).
        case afterPlayedTime
        /// Where the viewer left.
        case whereLeft
    }

    /// One interstitial event.
    public struct Event: Hashable, Sendable {
        public let id: String
        /// When it plays: a program date-time of the content, in seconds since 1970.
        public let date: MediaTime
        /// The ads, in play order: each plays as an item of its own.
        public let ads: [MediaLocation]
        /// Where it stops when its ads run longer (the span it fills), if it has one.
        public let playoutLimit: MediaTime?
        public let resumption: Resumption
    }

    /// The events so far, in date order.
    public var events: [Event] { decided.sorted { ($0.date, $0.id) < ($1.date, $1.id) } }

    private let schedule: LiveSchedule
    private var decided: [Event] = []
    /// The media sequence number of the last content segment taken.
    private var lastSequence: UInt64?
    /// The marked breaks whose span is still open: their event's ID, by first segment.
    private var open: [UInt64: String] = [:]
    private var insertions = 0

    /// A plan with the schedule's dated breaks; the marked ones come with the content's loads.
    ///
    /// - Parameter schedule: The live schedule.
    public init(schedule: LiveSchedule) {
        self.schedule = schedule
        for item in schedule.breaks {
            guard case .date(let date) = item.trigger, !item.ads.isEmpty else { continue }
            decided.append(Event(id: item.id, date: date, ads: item.ads.map(\.source), playoutLimit: nil, resumption: .afterPlayedTime))
        }
    }

    /// Takes a load of the content's media playlist: an event for each break its markers start in
    /// segments not seen before, and the span of an open one its `EXT-X-CUE-IN` closes.
    ///
    /// - Parameters:
    ///   - bytes: The playlist as loaded.
    ///   - url: Where it was loaded from (for messages).
    /// - Returns: Whether `events` changed.
    /// - Throws: `LiveTimelineError` for a playlist that is malformed or has no program date-time.
    @discardableResult
    public mutating func advance(byPlaylist bytes: [UInt8], url: String) throws(LiveTimelineError) -> Bool {
        let playlist: HLSMediaPlaylist
        do { playlist = try HLSMediaPlaylist(parsing: bytes, url: url) } catch {
            throw LiveTimelineError(url: url, reason: error.description)
        }
        return try advance(by: playlist)
    }

    /// `advance(byPlaylist:url:)` of a playlist already parsed.
    @discardableResult
    package mutating func advance(by content: HLSMediaPlaylist) throws(LiveTimelineError) -> Bool {
        guard let dates = try? LiveStitcher.programDates(of: content), dates.contains(where: { $0 != nil }) else {
            throw LiveTimelineError(url: content.url, reason: "no segment with EXT-X-PROGRAM-DATE-TIME: interstitials are placed by date")
        }
        let first = content.mediaSequence ?? 0
        var changed = false
        if let pod = schedule.markerBreak, !pod.ads.isEmpty {
            for marked in content.liveMarkedBreaks where lastSequence.map({ marked.sequence > $0 }) ?? true {
                guard let date = dates[Int(marked.sequence - first)]?.secondsSinceEpoch else { continue }
                let id = "\(pod.id)-\(marked.sequence)"
                decided.append(Event(id: id, date: date - marked.elapsed, ads: pod.ads.map(\.source), playoutLimit: marked.duration, resumption: .afterPlayedTime))
                if marked.duration == nil { open[marked.sequence] = id }
                changed = true
            }
            // An open span closes at its EXT-X-CUE-IN: its length is the segments' between.
            open = open.filter { $0.key >= first }   // one whose start left unclosed keeps no limit
            for (start, id) in open where start - first < UInt64(content.segments.count) {
                let from = Int(start - first)
                guard let end = content.segments[(from + 1)...].firstIndex(where: \.isCueIn) else { continue }
                let span = content.segments[from..<end].reduce(MediaTime.zero) { $0 + $1.duration }
                if let index = decided.firstIndex(where: { $0.id == id }) {
                    let event = decided[index]
                    decided[index] = Event(id: id, date: event.date, ads: event.ads, playoutLimit: span, resumption: event.resumption)
                    changed = true
                }
                open[start] = nil
            }
        }
        if let last = content.segments.indices.last { lastSequence = max(lastSequence ?? 0, first + UInt64(last)) }
        return changed
    }

    /// Plays `ads` at `date` (the player's program date-time now): breaking news.
    ///
    /// - Parameters:
    ///   - id: The event's ID; `ID-N` (the Nth insertion) is what it is scheduled as.
    ///   - ads: What plays, in order: ads or another stream.
    ///   - date: When, in seconds since 1970.
    ///   - resumption: Where the content resumes after it.
    /// - Returns: The event.
    @discardableResult
    public mutating func insertNow(_ id: String, ads: [MediaLocation], at date: MediaTime, resumption: Resumption) -> Event {
        insertions += 1
        let event = Event(id: "\(id)-\(insertions)", date: date, ads: ads, playoutLimit: nil, resumption: resumption)
        decided.append(event)
        return event
    }

    /// Plays the schedule's on-demand break `id` at `date`.
    ///
    /// - Parameters:
    ///   - id: An `"on-demand"` break of the schedule.
    ///   - date: When, in seconds since 1970.
    ///   - resumption: Where the content resumes after it.
    /// - Returns: The event.
    /// - Throws: `ScheduleError.unknownID` when the schedule has no on-demand break `id`.
    @discardableResult
    public mutating func insertNow(_ id: String, at date: MediaTime, resumption: Resumption) throws(ScheduleError) -> Event {
        guard let item = schedule.breaks.first(where: { $0.id == id && $0.trigger == .onDemand }) else { throw .unknownID(id) }
        return insertNow(id, ads: item.ads.map(\.source), at: date, resumption: resumption)
    }
}
