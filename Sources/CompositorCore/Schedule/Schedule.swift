/// What the app asked for: main-content clips in order, and ad breaks placed on the content timeline.
///
/// A value type; every mutation checks what it can check alone (IDs, ranges, non-negative times)
/// and throws `ScheduleError` without changing the schedule. Checks that need natural durations
/// (a mid-roll past the content's end, a clip without `end`) happen when a `Composition` is built.
///
/// ```swift
/// var schedule = Schedule()
/// try schedule.appendContentClip(ContentClip(id: "A", source: "a.mp4", end: .init(seconds: 90)))
/// try schedule.appendBreak(AdBreak(id: "mid", placement: .midroll(at: .init(seconds: 23)),
///                                  ads: [Ad(id: "ad1", source: "ad.mp4")]))
/// try schedule.appendAd(Ad(id: "ad2", source: "ad.mp4"), after: "ad1")   // a pod of two
/// ```
public struct Schedule: Hashable, Sendable {
    public private(set) var content: [ContentClip] = []
    /// Breaks in scheduling order (which decides the order of breaks at the same place).
    public private(set) var breaks: [AdBreak] = []
    /// Other encodings of a source (the same media at other sizes or bitrates, its keyframes at
    /// the same times), by the source they stand for: an export that offers a choice offers them
    /// wherever the source plays (the DASH export lists each as a representation). None by default.
    public private(set) var renditions: [MediaLocation: [MediaLocation]] = [:]
    private var ids: Set<String> = []

    public init() {}

    /// Builds a schedule from clips and breaks, checking each as the `append` methods do.
    ///
    /// - Parameters:
    ///   - content: The content clips, in play order.
    ///   - breaks: The breaks, in scheduling order.
    /// - Throws: `ScheduleError` for the first clip or break that an `append` method would refuse.
    public init(content: [ContentClip], breaks: [AdBreak]) throws(ScheduleError) {
        for clip in content { try appendContentClip(clip) }
        for adBreak in breaks { try appendBreak(adBreak) }
    }

    // MARK: Content

    /// Appends a clip to the end of the content timeline.
    ///
    /// - Parameter clip: The clip; its ID must be new to the schedule.
    /// - Throws: `ScheduleError.emptyID`, `.negativeTime` or `.emptyRange` for a bad clip,
    ///   `.duplicateID` when its ID is taken.
    public mutating func appendContentClip(_ clip: ContentClip) throws(ScheduleError) {
        try Schedule.checkRange(item: clip.id, kind: "content clip", start: clip.start, end: clip.end)
        try claim(clip.id)
        content.append(clip)
    }

    /// Removes a content clip; the content after it moves up.
    ///
    /// - Parameter id: The clip's ID.
    /// - Throws: `ScheduleError.unknownID` when no content clip has that ID.
    public mutating func removeContentClip(id: String) throws(ScheduleError) {
        guard let index = content.firstIndex(where: { $0.id == id }) else { throw .unknownID(id) }
        content.remove(at: index)
        ids.remove(id)
    }

    // MARK: Renditions

    /// Names the other encodings of `source`, replacing any named before (none removes them);
    /// `source` itself and repeats are left out.
    ///
    /// ```swift
    /// schedule.setRenditions(["show-720.mp4", "show-360.mp4"], of: "show-1080.mp4")
    /// ```
    ///
    /// - Parameters:
    ///   - others: The other encodings, in the order an export lists them.
    ///   - source: The source they stand for.
    public mutating func setRenditions(_ others: [MediaLocation], of source: MediaLocation) {
        var seen: Set<MediaLocation> = [source]
        let kept = others.filter { seen.insert($0).inserted }
        renditions[source] = kept.isEmpty ? nil : kept
    }

    // MARK: Breaks

    /// Makes room for `breaks` more breaks holding `ids` more IDs (breaks' and ads'), so that a
    /// reader of a large document does not grow the tables step by step.
    package mutating func reserveCapacity(breaks count: Int, ids idCount: Int) {
        breaks.reserveCapacity(breaks.count + count)
        ids.reserveCapacity(ids.count + idCount)
    }

    /// Appends a break; among breaks at the same place it plays last.
    ///
    /// - Parameter adBreak: The break; its ID and its ads' IDs must be new to the schedule.
    /// - Throws: `ScheduleError.emptyID`, `.emptyPod`, `.negativeTime` or `.emptyRange` for a bad break
    ///   or ad, `.duplicateID` when an ID is taken; the schedule is then unchanged.
    public mutating func appendBreak(_ adBreak: AdBreak) throws(ScheduleError) {
        try Schedule.checkBreak(adBreak)
        try claim(adBreak.id)
        for (index, ad) in adBreak.ads.enumerated() {
            do { try claim(ad.id) } catch {
                // Nothing of a refused break stays claimed.
                ids.remove(adBreak.id)
                for claimed in adBreak.ads[..<index] { ids.remove(claimed.id) }
                throw error
            }
        }
        breaks.append(adBreak)
    }

    /// Removes a break and its ads.
    ///
    /// - Parameter id: The break's ID.
    /// - Throws: `ScheduleError.unknownID` when no break has that ID.
    public mutating func removeBreak(id: String) throws(ScheduleError) {
        guard let index = breaks.firstIndex(where: { $0.id == id }) else { throw .unknownID(id) }
        let removed = breaks.remove(at: index)
        ids.remove(removed.id)
        for ad in removed.ads { ids.remove(ad.id) }
    }

    /// Changes a break's policy.
    ///
    /// - Parameters:
    ///   - policy: The new policy.
    ///   - id: The break's ID.
    /// - Throws: `ScheduleError.unknownID` when no break has that ID.
    public mutating func setPolicy(_ policy: BreakPolicy, forBreak id: String) throws(ScheduleError) {
        guard let index = breaks.firstIndex(where: { $0.id == id }) else { throw .unknownID(id) }
        breaks[index].policy = policy
    }

    /// The break with an ID.
    ///
    /// - Parameter id: The break's ID.
    /// - Returns: The break, or `nil` when there is none with that ID.
    public func adBreak(id: String) -> AdBreak? { breaks.first { $0.id == id } }

    // MARK: Ads

    /// Puts `ad` right after the ad `previousAdID`, in that ad's pod.
    ///
    /// - Parameters:
    ///   - ad: The ad; its ID must be new to the schedule.
    ///   - previousAdID: The ad it follows.
    /// - Throws: `ScheduleError.unknownID` when no ad has `previousAdID`; `.emptyID`, `.negativeTime`,
    ///   `.emptyRange` or `.duplicateID` for a bad ad.
    public mutating func appendAd(_ ad: Ad, after previousAdID: String) throws(ScheduleError) {
        guard let (b, a) = locateAd(previousAdID) else { throw .unknownID(previousAdID) }
        try Schedule.checkRange(item: ad.id, kind: "ad", start: ad.start, end: ad.end)
        try claim(ad.id)
        breaks[b].ads.insert(ad, at: a + 1)
    }

    /// Appends `ad` at the end of the pod of break `breakID`.
    ///
    /// - Parameters:
    ///   - ad: The ad; its ID must be new to the schedule.
    ///   - breakID: The break whose pod it joins.
    /// - Throws: `ScheduleError.unknownID` when no break has `breakID`; `.emptyID`, `.negativeTime`,
    ///   `.emptyRange` or `.duplicateID` for a bad ad.
    public mutating func appendAd(_ ad: Ad, toBreak breakID: String) throws(ScheduleError) {
        guard let b = breaks.firstIndex(where: { $0.id == breakID }) else { throw .unknownID(breakID) }
        try Schedule.checkRange(item: ad.id, kind: "ad", start: ad.start, end: ad.end)
        try claim(ad.id)
        breaks[b].ads.append(ad)
    }

    /// Removes one ad from its pod; removing the last ad of a pod removes the break.
    ///
    /// - Parameter id: The ad's ID.
    /// - Throws: `ScheduleError.unknownID` when no ad has that ID.
    public mutating func removeAd(id: String) throws(ScheduleError) {
        guard let (b, a) = locateAd(id) else { throw .unknownID(id) }
        if breaks[b].ads.count == 1 {
            try removeBreak(id: breaks[b].id)
        } else {
            breaks[b].ads.remove(at: a)
            ids.remove(id)
        }
    }

    private func locateAd(_ id: String) -> (breakIndex: Int, adIndex: Int)? {
        for (b, adBreak) in breaks.enumerated() {
            if let a = adBreak.ads.firstIndex(where: { $0.id == id }) { return (b, a) }
        }
        return nil
    }

    // MARK: Checks

    private mutating func claim(_ id: String) throws(ScheduleError) {
        guard ids.insert(id).inserted else { throw .duplicateID(id) }
    }

    private static func checkBreak(_ adBreak: AdBreak) throws(ScheduleError) {
        guard !adBreak.id.isEmpty else { throw .emptyID(kind: "break") }
        guard !adBreak.ads.isEmpty else { throw .emptyPod(breakID: adBreak.id) }
        if case .midroll(let at) = adBreak.placement, at.isNegative {
            throw .negativeTime(item: adBreak.id, field: "position", value: at)
        }
        if adBreak.resumeOffset.isNegative {
            throw .negativeTime(item: adBreak.id, field: "resumeOffset", value: adBreak.resumeOffset)
        }
        if case .after(let delay) = adBreak.restrictions.skipping, delay.isNegative {
            throw .negativeTime(item: adBreak.id, field: "skippable after", value: delay)
        }
        for ad in adBreak.ads { try checkRange(item: ad.id, kind: "ad", start: ad.start, end: ad.end) }
    }

    private static func checkRange(item: String, kind: String, start: MediaTime, end: MediaTime?) throws(ScheduleError) {
        guard !item.isEmpty else { throw .emptyID(kind: kind) }
        guard !start.isNegative else { throw .negativeTime(item: item, field: "start", value: start) }
        if let end, end <= start { throw .emptyRange(item: item, start: start, end: end) }
    }
}
