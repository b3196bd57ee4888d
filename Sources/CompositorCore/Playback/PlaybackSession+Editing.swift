extension PlaybackSession {
    /// Inserts ads and plays them at once. During content, they form a new break at the current
    /// content time (`breakID`, or `inserted-N`); during a break, they join its pod right after the
    /// playing ad. Content resumes where it stopped. `naturalDurations` adds the new sources'.
    ///
    /// - Parameters:
    ///   - ads: The ads, in play order; their IDs must be new to the schedule.
    ///   - breakID: The new break's ID during content (`inserted-N` by default); unused during a break.
    ///   - durations: The natural durations of the new ads' sources, for ads without `end`.
    /// - Returns: The commands that load the new composition (at the new ads during content, where
    ///   the playing ad is during a break), and the events.
    /// - Throws: `PlaybackSessionError.schedule` when the ads cannot join the schedule (no ads, a
    ///   taken ID, a duration not known).
    public mutating func insertNow(
        _ ads: [Ad], breakID: String? = nil, naturalDurations durations: [MediaLocation: MediaTime] = [:]
    ) throws(PlaybackSessionError) -> Reaction {
        var reaction = Reaction()
        var schedule = self.schedule
        let allDurations = naturalDurations.merging(durations) { _, new in new }
        let anchor: Anchor
        do throws(ScheduleError) {
            if let location = composition.locate(position), let ad = location.ad {
                var previous = ad.position.adID
                for newAd in ads {
                    try schedule.appendAd(newAd, after: previous)
                    previous = newAd.id
                }
                anchor = .ad(id: ad.position.adID, offset: ad.timeInAd)
            } else {
                guard let first = ads.first else { throw .emptyPod(breakID: breakID ?? "inserted") }
                insertedBreakCount += 1
                let id = breakID ?? "inserted-\(insertedBreakCount)"
                let at = composition.contentTime(forCompositionTime: position)
                try schedule.appendBreak(AdBreak(id: id, placement: .midroll(at: at), ads: ads))
                anchor = .ad(id: first.id, offset: .zero)
            }
            let new = try PlaybackSession.compile(schedule, allDurations, played: playedBreakIDs)
            self.schedule = schedule
            self.naturalDurations = allDurations
            install(new, keeping: anchor, into: &reaction)
        } catch {
            throw .schedule(error)
        }
        if case .ad(_, .zero) = anchor { enterSegment(at: position, into: &reaction) }
        return reaction
    }

    /// Removes a break from the schedule. If it is playing, content resumes at its position.
    ///
    /// - Parameter id: The break's ID.
    /// - Returns: The commands that load the composition without it (when it was in it), and the events.
    /// - Throws: `PlaybackSessionError.schedule(.unknownID)` when the schedule has no such break.
    public mutating func cancelBreak(id: String) throws(PlaybackSessionError) -> Reaction {
        var reaction = Reaction()
        guard schedule.adBreak(id: id) != nil else { throw .schedule(.unknownID(id)) }
        let playing = composition.locate(position)?.ad.map { composition.breaks[$0.breakIndex] }
        let anchor = playing?.id == id ? anchor(ofSegmentAt: playing!.segmentIndices.upperBound) : playheadAnchor
        do { try schedule.removeBreak(id: id) } catch { throw .schedule(error) }
        pendingSeeks.removeAll { $0 == .breakStart(id: id) }
        rebuild(keeping: anchor, into: &reaction)
        if playing?.id == id { enterSegment(at: position, resumingContent: true, into: &reaction) }
        return reaction
    }

    /// Changes a break's policy; a played break that becomes `once` leaves the composition now.
    ///
    /// - Parameters:
    ///   - policy: The new policy.
    ///   - id: The break's ID.
    /// - Returns: The commands that load the new composition, if it changed, and the events.
    /// - Throws: `PlaybackSessionError.schedule(.unknownID)` when the schedule has no such break.
    public mutating func setPolicy(_ policy: BreakPolicy, forBreak id: String) throws(PlaybackSessionError) -> Reaction {
        var reaction = Reaction()
        let anchor = playheadAnchor
        do { try schedule.setPolicy(policy, forBreak: id) } catch { throw .schedule(error) }
        rebuild(keeping: anchor, into: &reaction)
        return reaction
    }
}
