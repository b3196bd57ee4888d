extension PlaybackSession {
    /// Where a seek is headed, in terms that survive a rebuild of the composition.
    enum SeekTarget: Hashable, Sendable {
        /// Content time `t`; with `playingBreaksThere`, breaks at exactly `t` play first.
        case content(MediaTime, playingBreaksThere: Bool)
        /// The start of a break (a seek into the middle of a break starts it from its beginning).
        case breakStart(id: String, position: MediaTime)

        var contentTime: MediaTime {
            switch self {
            case .content(let t, _): return t
            case .breakStart(_, let position): return position
            }
        }
    }

    /// Seeks to content time `time` (clamped to the content). Forward seeks that cross unplayed
    /// breaks play them first as `snapback` says, then land on the target; a break at exactly the
    /// target plays, then content resumes at the target. From inside a break, the seek leaves it
    /// (skipping it), which its skip restriction must allow. `time` is taken at the tick of
    /// `composition.timescale` at or before it.
    ///
    /// - Parameter time: The content time to land on.
    /// - Returns: The player's commands (the seek, or the first snapback break's start) and the events.
    /// - Throws: `PlaybackSessionError.seekOutOfBreakNotAllowed` when the playing break may not be
    ///   skipped yet.
    public mutating func seek(toContentTime time: MediaTime) throws(PlaybackSessionError) -> Reaction {
        var reaction = Reaction()
        let t = composition.onGrid(time, clampedTo: composition.contentDuration)
        try leaveBreakForSeek(into: &reaction)
        performSeek(to: .content(t, playingBreaksThere: true),
                    requested: composition.compositionTime(forContentTime: t), into: &reaction)
        return reaction
    }

    /// Seeks to composition time `time` (clamped). Within the playing ad, it moves within the ad if
    /// the break allows it; into another break, it lands on that break's start; into content, it
    /// lands exactly there, after any snapback. `time` is taken at the tick of
    /// `composition.timescale` at or before it.
    ///
    /// - Parameter time: The composition time to land on.
    /// - Returns: The player's commands and the events.
    /// - Throws: `PlaybackSessionError.seekWithinAdNotAllowed` for a seek within an ad its break
    ///   forbids, `.seekOutOfBreakNotAllowed` for one out of a break that may not be skipped yet.
    public mutating func seek(toCompositionTime time: MediaTime) throws(PlaybackSessionError) -> Reaction {
        var reaction = Reaction()
        let c = composition.onGrid(time, clampedTo: composition.duration)
        if let here = composition.locate(position), let ad = here.ad,
           here.segment.compositionRange.contains(c) {
            guard composition.breaks[ad.breakIndex].restrictions.allowsSeekingWithinAd else {
                throw .seekWithinAdNotAllowed(adID: ad.position.adID)
            }
            position = c
            reaction.commands.append(.seek(to: c))
            return reaction
        }
        let target: SeekTarget
        if let there = composition.locate(c), let ad = there.ad {
            target = .breakStart(id: ad.position.breakID, position: there.contentTime)
        } else {
            target = .content(composition.contentTime(forCompositionTime: c), playingBreaksThere: false)
        }
        try leaveBreakForSeek(into: &reaction)
        performSeek(to: target, requested: c, into: &reaction)
        return reaction
    }

    /// Skips the playing ad, if its break allows it now: the next ad of the pod starts, or the break ends.
    ///
    /// - Returns: The seek past the ad and the events (the ad ended, skipped; the next ad or content).
    /// - Throws: `PlaybackSessionError.noAdPlaying`, or `.skipNotAllowed` when its break forbids
    ///   skipping (yet).
    public mutating func skipAd() throws(PlaybackSessionError) -> Reaction {
        var reaction = Reaction()
        let (location, ad) = try playingAd()
        emit(.adEnded(ad.position, skipped: true), into: &reaction)
        if ad.position.podPosition < ad.position.podSize {
            position = location.segment.compositionRange.end
            reaction.commands.append(.seek(to: position))
            enterNextAd(after: location.segmentIndex, into: &reaction)
        } else if !finishBreak(ad.position.breakID, skipped: true, into: &reaction) {
            reaction.commands.insert(.seek(to: position), at: 0)
        }
        return reaction
    }

    /// Skips the rest of the playing break, if it allows skipping now.
    ///
    /// - Returns: The seek past the break and the events.
    /// - Throws: `PlaybackSessionError.noAdPlaying`, or `.skipNotAllowed` when the break forbids
    ///   skipping (yet).
    public mutating func skipBreak() throws(PlaybackSessionError) -> Reaction {
        var reaction = Reaction()
        let (_, ad) = try playingAd()
        emit(.adEnded(ad.position, skipped: true), into: &reaction)
        if !finishBreak(ad.position.breakID, skipped: true, into: &reaction) {
            reaction.commands.insert(.seek(to: position), at: 0)
        }
        return reaction
    }

    // MARK: Internals

    /// The ad playing now, if its break lets it be skipped at this point.
    private func playingAd() throws(PlaybackSessionError) -> (Composition.Location, Composition.AdLocation) {
        guard let location = composition.locate(position), let ad = location.ad else { throw .noAdPlaying }
        switch composition.breaks[ad.breakIndex].restrictions.skipping {
        case .never:
            throw .skipNotAllowed(adID: ad.position.adID, allowedAfter: nil)
        case .after(let delay) where ad.timeInAd < delay:
            throw .skipNotAllowed(adID: ad.position.adID, allowedAfter: delay)
        case .after:
            return (location, ad)
        }
    }

    private mutating func enterNextAd(after index: Int, into reaction: inout Reaction) {
        guard let next = composition.segments[index + 1].adPosition else { return }
        emit(.adStarted(next), into: &reaction)
    }

    /// A seek from inside a break leaves it as skipped; a new seek also replaces any snapback plan.
    /// A refused seek changes nothing: a snapback break still goes on to its target.
    private mutating func leaveBreakForSeek(into reaction: inout Reaction) throws(PlaybackSessionError) {
        guard let location = composition.locate(position), let playing = location.ad else {
            pendingSeeks.removeAll()
            return
        }
        let ad: Composition.AdLocation
        do { ad = try playingAd().1 } catch {
            throw .seekOutOfBreakNotAllowed(breakID: playing.position.breakID)
        }
        pendingSeeks.removeAll()
        emit(.adEnded(ad.position, skipped: true), into: &reaction)
        finishBreak(ad.position.breakID, skipped: true, continuing: false, into: &reaction)
    }

    /// Where `target` lands in the current composition.
    func landing(for target: SeekTarget) -> MediaTime {
        switch target {
        case .content(let t, let playingBreaksThere):
            return composition.compositionTime(forContentTime: t, bias: playingBreaksThere ? .beforeBreaks : .afterBreaks)
        case .breakStart(let id, let position):
            return composition.placedBreak(id: id)?.compositionRange.start
                ?? composition.compositionTime(forContentTime: position)
        }
    }

    /// Moves the playhead toward `target`, first through the unplayed breaks it crosses that the
    /// snapback policy picks; `requested` is what the user asked for, to report an adjustment.
    mutating func performSeek(to target: SeekTarget, requested: MediaTime, into reaction: inout Reaction) {
        let land = landing(for: target)
        let crossed = composition.breaks.filter {
            $0.compositionRange.start >= position && $0.compositionRange.end <= land && !playedBreakIDs.contains($0.id)
        }
        let chosen: [PlacedBreak]
        switch snapback {
        case .none: chosen = []
        case .lastUnplayed: chosen = crossed.suffix(1)
        case .firstUnplayed: chosen = crossed.prefix(1).map { $0 }
        case .allUnplayed: chosen = crossed
        }
        if let first = chosen.first {
            pendingSeeks = chosen.dropFirst().map { .breakStart(id: $0.id) } + [.target(target)]
            position = first.compositionRange.start
        } else {
            position = land
        }
        reaction.commands.append(.seek(to: position))
        if position != requested { emit(.seekAdjusted(requested: requested, actual: position), into: &reaction) }
        enterSegment(at: position, into: &reaction)
    }
}
