/// The policy engine for a live stream: a `PlaybackSession` whose composition is the stream from
/// where the session began (`epoch`) to the live edge, fed the player's program date-time.
///
/// The player plays the stitched live playlist itself; the session says which break and ad it is
/// in (the events a `BeaconPlanner` turns into beacons), keeps the seek bar to the DVR window and
/// the live edge, plays the last unplayed break first when a seek forward crosses breaks
/// (snapback, within the window), and takes every reload's `LiveTimeline`: breaks join as the
/// stream gets them, those the stitcher inserted on demand (breaking news) included.
///
/// Times: composition time is the stream's clock less `epoch`; content time is the stream's clock
/// without its ads, from `epoch` (the content's own clock where no break has run over).
///
/// ```swift
/// var live = try LivePlaybackSession(timeline: firstReload)
/// apply(live.update(date: player.currentDate))            // on every tick
/// apply(try live.update(timeline: nextReload))            // on every reload of the playlist
/// apply(try live.seek(toDate: liveBar.windowStart + 30))  // within the DVR window
/// ```
public struct LivePlaybackSession: Sendable {
    /// What the player must do.
    public enum Command: Hashable, Sendable {
        /// Seek to this program date-time (seconds since 1970).
        case seek(toDate: MediaTime)
    }

    /// The commands for the player and the events for the app.
    public struct Reaction: Hashable, Sendable {
        public var commands: [Command] = []
        public var events: [PlaybackEvent] = []

        public init() {}
    }

    /// Where composition time 0 is on the stream's clock: the window's start (or an earlier break's)
    /// when the session began.
    public let epoch: MediaTime
    /// The session the live stream is played through (its composition grows with the stream).
    public private(set) var session: PlaybackSession
    /// The stream as last reloaded.
    public private(set) var timeline: LiveTimeline
    /// Every break since `epoch`: one that left the window keeps its time on the clock.
    private var breaks: [LiveTimeline.Break]
    private var joined = false

    /// Starts a session on the stream as first loaded. Nothing plays until the player's first
    /// date (`update(date:)`), which joins the stream there: the DVR window behind it reports nothing.
    ///
    /// - Parameters:
    ///   - timeline: The stream at its first load.
    ///   - snapback: Which unplayed breaks a forward seek plays first (`.lastUnplayed` by default).
    /// - Throws: `ScheduleError` when the breaks overlap (a timeline not from one stream).
    public init(timeline: LiveTimeline, snapback: SnapbackPolicy = .lastUnplayed) throws(ScheduleError) {
        epoch = MediaTime.min(timeline.windowStart, timeline.breaks.first?.start ?? timeline.windowStart)
        breaks = timeline.breaks
        self.timeline = timeline
        session = try PlaybackSession(schedule: Self.schedule(breaks, epoch: epoch, liveEdge: timeline.liveEdge), snapback: snapback)
    }

    /// The stream as reloaded now: the window moved, the live edge is later, breaks joined (or one
    /// going on has more ads). The playhead keeps its place on the clock.
    ///
    /// - Parameter new: The stream at this reload.
    /// - Returns: `compositionChanged` when anything changed; never a command.
    /// - Throws: `ScheduleError` when the breaks overlap.
    public mutating func update(timeline new: LiveTimeline) throws(ScheduleError) -> Reaction {
        var byID = Dictionary(breaks.map { ($0.id, $0) }, uniquingKeysWith: { _, last in last })
        for item in new.breaks where item.start >= epoch { byID[item.id] = item }
        let merged = byID.values.sorted { $0.start < $1.start }
        let schedule = try Self.schedule(merged, epoch: epoch, liveEdge: new.liveEdge)
        breaks = merged
        timeline = new
        return map(try session.follow(schedule))
    }

    /// The player is at `date` (its program date-time): reports every boundary crossed since the
    /// last date, or, at the first date, joins the stream there. A date behind the last is a seek
    /// back. Short of the end of a stream that goes on, the live edge is never reached (it moves).
    ///
    /// - Parameter date: The player's program date-time, in seconds since 1970.
    /// - Returns: The events, and any command (a snapback target's seek).
    public mutating func update(date: MediaTime) -> Reaction {
        let time = playable(date - epoch)
        guard joined else {
            joined = true
            return map(session.join(at: time))
        }
        return map(session.update(position: time))
    }

    /// Seeks to `date`, clamped to the window; a seek forward across unplayed breaks plays them
    /// first as `snapback` says. Into a break, it lands on the break's start.
    ///
    /// - Parameter date: Where to go, in seconds since 1970.
    /// - Returns: The player's seek and the events.
    /// - Throws: `PlaybackSessionError` when the playing break may not be left or seeked in.
    public mutating func seek(toDate date: MediaTime) throws(PlaybackSessionError) -> Reaction {
        let clamped = MediaTime.max(timeline.windowStart, MediaTime.min(date, timeline.liveEdge))
        joined = true
        return map(try session.seek(toCompositionTime: playable(clamped - epoch)))
    }

    /// Seeks to the live edge (as close as the stream lets a player be).
    ///
    /// - Returns: The player's seek and the events.
    /// - Throws: `PlaybackSessionError` when the playing break may not be left.
    public mutating func seekToLiveEdge() throws(PlaybackSessionError) -> Reaction {
        try seek(toDate: timeline.liveEdge)
    }

    /// The seek bar: the window, the live edge, the playhead and the breaks in the window, on the
    /// stream's clock.
    public var seekBar: LiveSeekBar {
        LiveSeekBar(
            windowStart: timeline.windowStart, liveEdge: timeline.liveEdge, position: epoch + session.position,
            breaks: breaks.filter { $0.start + $0.duration > timeline.windowStart }.map {
                LiveSeekBar.Marker(breakID: $0.id, start: $0.start, end: $0.start + $0.duration,
                                   played: session.playedBreakIDs.contains($0.id))
            })
    }

    /// A composition time the playhead may take: up to the last tick before the live edge while the
    /// stream goes on (its end is not the stream's end).
    private func playable(_ time: MediaTime) -> MediaTime {
        let composition = session.composition
        guard !timeline.hasEnded, composition.duration > .zero else { return time }
        return MediaTime.min(time, composition.duration - MediaTime(value: 1, timescale: composition.timescale))
    }

    private func map(_ reaction: PlaybackSession.Reaction) -> Reaction {
        var mapped = Reaction()
        mapped.events = reaction.events
        mapped.commands = reaction.commands.map { command in
            switch command {
            case .seek(let time): .seek(toDate: epoch + time)
            case .load(_, let time): .seek(toDate: epoch + time)
            }
        }
        return mapped
    }

    /// The stream since `epoch` as a schedule: one content clip to the live edge, each break at its
    /// content time, replacing the content it replaced (a break going on, as much as its ads so far).
    /// Ads are `BREAK/AD` (`#2`, … when a pod plays one twice).
    static func schedule(_ breaks: [LiveTimeline.Break], epoch: MediaTime, liveEdge: MediaTime) throws(ScheduleError) -> Schedule {
        var schedule = Schedule()
        var adBreaks: [AdBreak] = []
        // Ads less the content they replaced, before here: composition time = content time + shift.
        var shift = MediaTime.zero
        for item in breaks where item.start >= epoch {
            var taken: Set<String> = []
            let ads = item.ads.map { ad in
                var id = "\(item.id)/\(ad.id)", number = 2
                while !taken.insert(id).inserted { id = "\(item.id)/\(ad.id)#\(number)"; number += 1 }
                return Ad(id: id, source: MediaLocation(remoteURL: "live:ad/\(ad.id)"), end: ad.duration)
            }
            guard !ads.isEmpty else { continue }
            let replaced = item.replaced ?? item.duration
            adBreaks.append(AdBreak(id: item.id, placement: .midroll(at: item.start - epoch - shift), ads: ads, resumeOffset: replaced))
            shift += item.duration - replaced
        }
        try schedule.appendContentClip(ContentClip(
            id: "live", source: MediaLocation(remoteURL: "live:content"), end: MediaTime.max(.zero, liveEdge - epoch - shift)))
        for adBreak in adBreaks { try schedule.appendBreak(adBreak) }
        return schedule
    }
}

/// A live stream's seek bar, on its clock (seconds since 1970): what a player's scrubber shows.
public struct LiveSeekBar: Hashable, Sendable {
    /// A break in the window.
    public struct Marker: Hashable, Sendable {
        public let breakID: String
        public let start: MediaTime
        public let end: MediaTime
        /// Whether it has played (or was skipped).
        public let played: Bool
    }

    /// The oldest instant a seek can reach.
    public let windowStart: MediaTime
    /// The newest: where "live" is.
    public let liveEdge: MediaTime
    /// The playhead.
    public let position: MediaTime
    public let breaks: [Marker]

    /// How far behind live the playhead is.
    public var behindLive: MediaTime { liveEdge - position }
}
