import Compositor

/// A player driven by a virtual clock, so a `PlaybackSession` can be exercised deterministically.
public protocol SimulatedPlayer {
    /// The playhead in composition time.
    var compositionTime: MediaTime { get }
    /// Plays on for `duration` (never past the end).
    ///
    /// - Parameter duration: How much virtual time passes.
    mutating func play(for duration: MediaTime)
    /// Carries out a session's command.
    ///
    /// - Parameter command: A seek, or a new composition to load.
    mutating func apply(_ command: PlaybackSession.PlayerCommand)
}

/// The composition backend: one item whose time is the composition time.
public struct SingleItemPlayer: SimulatedPlayer {
    public private(set) var composition: Composition
    public private(set) var compositionTime: MediaTime = .zero

    /// A player of `composition`, at its start.
    ///
    /// - Parameter composition: The composition to play.
    public init(composition: Composition) { self.composition = composition }

    public mutating func play(for duration: MediaTime) {
        compositionTime = MediaTime.min(compositionTime + duration, composition.duration)
    }

    public mutating func apply(_ command: PlaybackSession.PlayerCommand) {
        switch command {
        case .seek(let time): compositionTime = time
        case .load(let new, let time): composition = new; compositionTime = time
        }
    }
}

/// A script of user actions, run through a session over a simulated player.
///
/// Script text (the demo's `--actions`): actions separated by `;`:
/// `play SECONDS`, `seek content T`, `seek composition T`, `skip ad`, `skip break`,
/// `insert now URL [START END]`, `cancel BREAK-ID`.
public enum PlaybackSimulation {
    public enum Action: Hashable, Sendable {
        case play(MediaTime)
        case seekContent(MediaTime)
        case seekComposition(MediaTime)
        case skipAd
        case skipBreak
        case insertNow(url: String, start: MediaTime?, end: MediaTime?)
        case cancelBreak(id: String)
        case pause
        case resume
    }

    /// One line of the outcome: an event, or an action the session refused (and why).
    public enum Entry: Equatable, Sendable {
        case event(PlaybackEvent)
        case refused(action: Int, PlaybackSessionError)
        /// An `insert now` whose URL names no source.
        case invalidURL(action: Int, MediaLocationError)
    }

    /// Why a script could not be read: the action's number (from 1), its text and the reason.
    public struct ScriptError: Error, Hashable, Sendable, CustomStringConvertible {
        public let actionNumber: Int
        public let text: String
        public let reason: String
        public var description: String { "action \(actionNumber) \(quoted(text)): \(reason)" }
    }

    /// Reads a script of actions (the syntax above).
    ///
    /// - Parameter script: The actions, separated by `;`.
    /// - Returns: The actions, in order; empty ones are skipped.
    /// - Throws: `ScriptError` naming the first action that cannot be read.
    public static func parse(_ script: String) throws(ScriptError) -> [Action] {
        var actions: [Action] = []
        for (i, piece) in script.split(separator: ";", omittingEmptySubsequences: false).enumerated() {
            let words = piece.split(whereSeparator: { $0 == " " || $0 == "\t" || $0 == "\n" }).map(String.init)
            if words.isEmpty { continue }
            func fail(_ reason: String) -> ScriptError {
                ScriptError(actionNumber: i + 1, text: words.joined(separator: " "), reason: reason)
            }
            func time(_ text: String) throws(ScriptError) -> MediaTime {
                do { return try MediaTime(parsing: text) } catch { throw fail(error.description) }
            }
            switch (words[0], words.count) {
            case ("play", 2):
                let duration = try time(words[1])
                guard duration > .zero else { throw fail("play needs a positive duration") }
                actions.append(.play(duration))
            case ("seek", 3) where words[1] == "content": actions.append(.seekContent(try time(words[2])))
            case ("seek", 3) where words[1] == "composition": actions.append(.seekComposition(try time(words[2])))
            case ("skip", 2) where words[1] == "ad": actions.append(.skipAd)
            case ("skip", 2) where words[1] == "break": actions.append(.skipBreak)
            case ("insert", 3) where words[1] == "now": actions.append(.insertNow(url: words[2], start: nil, end: nil))
            case ("insert", 5) where words[1] == "now":
                actions.append(.insertNow(url: words[2], start: try time(words[3]), end: try time(words[4])))
            case ("cancel", 2): actions.append(.cancelBreak(id: words[1]))
            case ("pause", 1): actions.append(.pause)
            case ("resume", 1): actions.append(.resume)
            default:
                throw fail("expected play SECONDS, seek content|composition T, skip ad|break, "
                    + "insert now URL [START END], cancel BREAK-ID, pause or resume")
            }
        }
        return actions
    }

    /// Starts `session` and runs `actions`, feeding the player's position back after every step,
    /// and returns every entry. `resolveURL` maps an inserted ad's URL to its source;
    /// `naturalDuration` gives its duration when the action has no `END`.
    ///
    /// The log keeps every event, and a `compositionChanged` event holds two whole compositions, so
    /// a long script of `insert now` makes it grow with the square of the insertions: use
    /// `run(_:session:player:resolveURL:naturalDuration:onEntry:)` to handle entries as they come.
    ///
    /// - Parameters:
    ///   - actions: The actions, in order.
    ///   - session: The session to run; left where the script ends.
    ///   - player: The simulated player the session drives; left where the script ends.
    ///   - resolveURL: Makes an inserted ad's source from its URL (`MediaLocation(parsing:)` by default).
    ///   - naturalDuration: An inserted ad's natural duration, for one without `END` (none known by
    ///     default).
    /// - Returns: Every event, refused action and invalid URL, in order.
    public static func run(
        _ actions: [Action],
        session: inout PlaybackSession,
        player: inout some SimulatedPlayer,
        resolveURL: (String) throws(MediaLocationError) -> MediaLocation = { url throws(MediaLocationError) in try MediaLocation(parsing: url) },
        naturalDuration: (MediaLocation) -> MediaTime? = { _ in nil }
    ) -> [Entry] {
        var log: [Entry] = []
        run(actions, session: &session, player: &player, resolveURL: resolveURL, naturalDuration: naturalDuration) { log.append($0) }
        return log
    }

    /// Starts `session` and runs `actions` as `run(_:session:player:resolveURL:naturalDuration:)`
    /// does, handing each entry to `onEntry` as it happens and keeping none: memory stays that of
    /// the session and the player (one composition each), however long the script.
    ///
    /// - Parameters:
    ///   - actions: The actions, in order.
    ///   - session: The session to run; left where the script ends.
    ///   - player: The simulated player the session drives; left where the script ends.
    ///   - resolveURL: Makes an inserted ad's source from its URL (`MediaLocation(parsing:)` by default).
    ///   - naturalDuration: An inserted ad's natural duration, for one without `END` (none known by
    ///     default).
    ///   - onEntry: Gets every event, refused action and invalid URL, in order.
    public static func run(
        _ actions: [Action],
        session: inout PlaybackSession,
        player: inout some SimulatedPlayer,
        resolveURL: (String) throws(MediaLocationError) -> MediaLocation = { url throws(MediaLocationError) in try MediaLocation(parsing: url) },
        naturalDuration: (MediaLocation) -> MediaTime? = { _ in nil },
        onEntry: (Entry) -> Void
    ) {
        func record(_ reaction: PlaybackSession.Reaction) {
            for command in reaction.commands { player.apply(command) }
            for event in reaction.events { onEntry(.event(event)) }
        }
        record(session.start())
        var insertedAds = 0
        for (number, action) in zip(1..., actions) {
            do throws(PlaybackSessionError) {
                switch action {
                case .play(let duration):
                    // In steps that end at each instant the session has something to say. Steps are
                    // on the composition's grid, as the session's seeks are, so the player's clock
                    // stays on it and no step meets a time it shares no timescale with; a duration
                    // between two ticks plays to the tick before.
                    var remaining = duration
                    while !session.hasEnded, let boundary = session.nextBoundary(after: player.compositionTime) {
                        let composition = session.composition
                        let step = MediaTime.min(
                            composition.onGrid(remaining, clampedTo: composition.duration), boundary - player.compositionTime)
                        guard step > .zero else { break }
                        player.play(for: step)
                        remaining -= step
                        record(session.update(position: player.compositionTime))
                    }
                case .seekContent(let t): record(try session.seek(toContentTime: t))
                case .seekComposition(let t): record(try session.seek(toCompositionTime: t))
                case .skipAd: record(try session.skipAd())
                case .skipBreak: record(try session.skipBreak())
                case .cancelBreak(let id): record(try session.cancelBreak(id: id))
                case .pause: record(session.pause())
                case .resume: record(session.resume())
                case .insertNow(let url, let start, let end):
                    let source: MediaLocation
                    do { source = try resolveURL(url) } catch {
                        onEntry(.invalidURL(action: number, error))
                        continue
                    }
                    insertedAds += 1
                    let ad = Ad(id: "inserted-ad-\(insertedAds)", source: source, start: start ?? .zero, end: end)
                    let known = naturalDuration(source).map { [source: $0] } ?? [:]
                    record(try session.insertNow([ad], naturalDurations: known))
                }
            } catch {
                onEntry(.refused(action: number, error))
            }
        }
    }
}
