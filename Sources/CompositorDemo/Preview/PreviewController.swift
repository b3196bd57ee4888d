import Compositor
import CompositorIO
import Foundation
#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// Runs the library's `PlaybackSession` for the preview page, as `PlaybackSessionController` does
/// for an `AVPlayer`: the page reports its video's clock and the viewer's actions, the session
/// answers with seeks, new items, events and the bars.
///
/// - The page plays a web-safe render of the session's composition (`/video/G.mp4`, generation
///   `G`), made again whenever the session loads a new composition (a `once` break played, an ad
///   scheduled now). Its cuts are on keyframes: player times and seeks are mapped between them and
///   the schedule's (`MP4Export`), so the session keeps the schedule's times.
/// - Every reply that carries commands starts a new epoch. A tick counts only when it comes from
///   the current epoch and generation: a tick sent before a seek landed, or by the previous item,
///   is stale and is ignored, never taken for playback (no phantom break, no lost snapback target).
///   Within an epoch the clock only goes forward: the page's controls seek through the session, so
///   a tick behind the last one is ignored rather than taken as a jump back.
final class PreviewController: @unchecked Sendable {
    private let lock = NSLock()
    private let loaded: LoadedSchedule
    private let snapback: SnapbackPolicy
    /// What "Schedule now" plays: the schedule's first ad, played again as `now-N-ad` (a break
    /// `now-N` during content; during a break it joins the pod).
    private let nowAd: Ad?
    private var session: PlaybackSession
    private var rendered: MP4Export
    private var generation = 0
    private var epoch = 0
    private var nowCount = 0
    /// The latest player time taken in this epoch. Every seek goes through the session, so a tick
    /// behind it is the clock wavering (a frame's time read after the clock's), not a jump back.
    private var lastTick: MediaTime?
    /// The renders the page may still read: the current one and the one before (a range request
    /// of the old item can arrive after a switch).
    private var videos: [Int: SharedFile] = [:]

    init(loaded: LoadedSchedule, snapback: SnapbackPolicy) throws(DemoError) {
        self.loaded = loaded
        self.snapback = snapback
        self.nowAd = loaded.schedule.breaks.lazy.flatMap(\.ads).first
        session = try Self.newSession(loaded, snapback: snapback)
        let (made, file) = try Self.renderVideo(session.composition, catalog: loaded.catalog, scheduleFile: loaded.path)
        rendered = made
        generation = 1
        videos[1] = file
    }

    // MARK: Requests

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        switch (request.method, request.path) {
        case ("GET", "/"): return .html(PreviewPage.html)
        case ("GET", let path) where path.hasPrefix("/video/") && path.hasSuffix(".mp4"):
            guard let number = Int(path.dropFirst(7).dropLast(4)), let video = lock.withLock({ videos[number] }) else {
                return .text(404, "no such video: \(path)")
            }
            return .video(video, range: request.headers["range"])
        case ("GET", "/state"): return .json(lock.withLock { reply(Reaction()) })
        case ("POST", let path):
            let reply: JSONValue? = lock.withLock {
                switch path {
                case "/start": return start()
                case "/tick": return tick(request.query)
                case "/seek":
                    guard let text = request.query["content"], let time = try? MediaTime(parsing: text) else {
                        return refusal("seek needs content=SECONDS")
                    }
                    return act { session throws(PlaybackSessionError) in try session.seek(toContentTime: time) }
                case "/skip-ad": return act { session throws(PlaybackSessionError) in try session.skipAd() }
                case "/skip-break": return act { session throws(PlaybackSessionError) in try session.skipBreak() }
                case "/schedule-now": return scheduleNow()
                default: return nil
                }
            }
            return reply.map(HTTPResponse.json) ?? .text(404, "no such action: \(path)")
        case (let method, let path):
            return .text(method == "GET" ? 404 : 405, "\(method) \(path): not something the preview serves")
        }
    }

    typealias Reaction = PlaybackSession.Reaction

    /// A new session from the schedule (a reload of the page starts over).
    private func start() -> JSONValue {
        do throws(DemoError) { session = try Self.newSession(loaded, snapback: snapback) } catch { return refusal(error.message) }
        nowCount = 0
        if rendered.requested != session.composition {
            do throws(DemoError) { try install(session.composition) } catch { return refusal(error.message) }
        }
        var reaction = Reaction()
        reaction.commands.append(.load(session.composition, at: .zero))
        let started = session.start()
        reaction.commands += started.commands
        reaction.events = started.events
        return reply(reaction)
    }

    private static func newSession(_ loaded: LoadedSchedule, snapback: SnapbackPolicy) throws(DemoError) -> PlaybackSession {
        do {
            return try PlaybackSession(schedule: loaded.schedule, naturalDurations: loaded.naturalDurations, snapback: snapback)
        } catch {
            throw .failure("\(loaded.path): \(error)")
        }
    }

    /// The player's clock: `time` (seconds, its own timeline) in `generation`, sent in `epoch`.
    private func tick(_ query: [String: String]) -> JSONValue {
        guard let text = query["time"], let time = try? MediaTime(parsing: text) else { return refusal("tick needs time=SECONDS") }
        guard query["epoch"] == String(epoch), query["generation"] == String(generation),
              lastTick.map({ time >= $0 }) ?? true else {
            return reply(Reaction(), ignoredTick: true)
        }
        lastTick = time
        return reply(session.update(position: rendered.reconciled.requestedTime(forPlayedTime: time)))
    }

    /// A viewer's action; what the session refuses (a skip too early) is shown on the page.
    private func act(_ action: (inout PlaybackSession) throws(PlaybackSessionError) -> Reaction) -> JSONValue {
        do {
            return reply(try action(&session))
        } catch {
            return refusal(error.description)
        }
    }

    private func scheduleNow() -> JSONValue {
        guard let nowAd else { return refusal("the schedule has no ad to schedule now") }
        nowCount += 1
        let ad = Ad(id: "now-\(nowCount)-ad", source: nowAd.source, start: nowAd.start, end: nowAd.end)
        do {
            return reply(try session.insertNow([ad], breakID: "now-\(nowCount)"))
        } catch {
            return refusal("\(error)")
        }
    }

    // MARK: Replies

    /// The reply to the page: the commands in the player's times (a new render for each new
    /// composition), the events, and the bars.
    private func reply(_ reaction: Reaction, ignoredTick: Bool = false, refused: String? = nil) -> JSONValue {
        var commands: [JSONValue] = []
        var failure: String?
        for command in reaction.commands {
            switch command {
            case .seek(let time):
                commands.append(.object(JSONObject(["seek": Self.playerSeconds(rendered.reconciled.playedTime(forRequestedTime: time))])))
            case .load(let composition, let time):
                if composition != rendered.requested {
                    do throws(DemoError) { try install(composition) } catch {
                        failure = error.message
                        continue
                    }
                }
                commands.append(.object(JSONObject([
                    "load": .string("/video/\(generation).mp4"),
                    "at": Self.playerSeconds(rendered.reconciled.playedTime(forRequestedTime: time)),
                ])))
            }
        }
        if !commands.isEmpty {
            epoch += 1
            lastTick = nil
        }
        var object = JSONObject([
            "generation": .integer(generation), "epoch": .integer(epoch), "video": .string("/video/\(generation).mp4"),
            "commands": .array(commands), "events": .array(reaction.events.map(SimulateCommand.eventJSON)),
        ])
        object.append("nextBoundary", session.nextBoundary(after: session.position)
            .map { Self.playerSeconds(rendered.reconciled.playedTime(forRequestedTime: $0)) } ?? .null)
        object.append("bars", bars)
        object.append("ended", .bool(session.hasEnded))
        if ignoredTick { object.append("ignoredTick", .bool(true)) }
        if let failure { object.append("error", .string(failure)) }
        if let refused { object.append("refused", .string(refused)) }
        return .object(object)
    }

    private func refusal(_ message: String) -> JSONValue {
        reply(Reaction(), refused: message)
    }

    /// The seek bars at the session's playhead, the labels as the library writes them, and what
    /// the skip buttons may do.
    private var bars: JSONValue {
        let state = session.composition.seekBar(at: session.position, playedBreakIDs: session.playedBreakIDs)
        var main = JSONObject()
        main.appendTime("duration", state.main.duration)
        main.appendTime("position", state.main.position)
        main.append("label", .string(state.main.label))
        main.append("markers", .array(state.main.markers.map { marker in
            var object = JSONObject()
            object.append("breakID", .string(marker.breakID))
            object.appendTime("position", marker.position)
            object.append("played", .bool(marker.played))
            return .object(object)
        }))
        var bars = JSONObject()
        bars.append("main", .object(main))
        guard let ad = state.ad, let location = session.composition.locate(session.position)?.ad else {
            bars.append("ad", .null)
            return .object(bars)
        }
        var adBar = JSONObject()
        adBar.append("title", .string(ad.title))
        adBar.append("label", .string(ad.label))
        adBar.appendTime("duration", ad.duration)
        adBar.appendTime("position", ad.position)
        adBar.append("breakID", .string(location.position.breakID))
        adBar.append("adID", .string(location.position.adID))
        switch session.composition.breaks[location.breakIndex].restrictions.skipping {
        case .never: adBar.append("skip", .string("never"))
        case .after(let delay) where location.timeInAd >= delay: adBar.append("skip", .string("now"))
        case .after(let delay): adBar.appendTime("skipIn", delay - location.timeInAd)
        }
        bars.append("ad", .object(adBar))
        return .object(bars)
    }

    /// A player time for the page, in seconds rounded up to the microsecond (browsers keep media
    /// times in microseconds): a seek to the first frame of a segment never shows the frame before.
    static func playerSeconds(_ time: MediaTime) -> JSONValue {
        .seconds((try? time.converted(to: 1_000_000, rounding: .up)) ?? time)
    }

    // MARK: Renders

    /// Makes `composition`'s render the next generation.
    private func install(_ composition: Composition) throws(DemoError) {
        let (made, file) = try Self.renderVideo(composition, catalog: loaded.catalog, scheduleFile: loaded.path)
        generation += 1
        rendered = made
        videos[generation] = file
        videos[generation - 2] = nil
    }

    /// Renders `composition` web-safe, its sources (local or remote) as `catalog` loaded them. The
    /// file is opened and then removed at once, so nothing is left on disk however the demo ends;
    /// the open file keeps its bytes.
    private static func renderVideo(
        _ composition: Composition, catalog: SourceCatalog, scheduleFile: FilePath
    ) throws(DemoError) -> (MP4Export, SharedFile) {
        var template = Array("/tmp/compositor-preview-XXXXXX".utf8CString)
        guard let folder = template.withUnsafeMutableBufferPointer({ mkdtemp($0.baseAddress!) }).map({ String(cString: $0) }) else {
            throw .failure("preview: cannot make a folder in /tmp: \(systemErrorMessage(errno))")
        }
        let name = folder + "/preview.mp4"
        defer {
            unlink(name)
            rmdir(folder)
        }
        // Called on the demo's own threads (the main one, a connection's), which may wait.
        let result = waitForTask { () -> Result<MP4Export, any Error> in
            do { return .success(try await MP4Exporter.render(composition, catalog: catalog, to: FilePath(name), cut: .webSafe)) } catch {
                return .failure(error)
            }
        }
        let made: MP4Export
        do { made = try result.get() } catch { throw .failure("\(scheduleFile): \(error)") }
        do { return (made, SharedFile(try ReadableFile(path: FilePath(name)))) } catch { throw .failure("preview: \(error)") }
    }
}

extension DemoError {
    var message: String {
        switch self {
        case .usage(let message), .failure(let message): return message
        }
    }
}
