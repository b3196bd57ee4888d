import CompositorAds
import CompositorCore
// As URLSessionTransport imports it: internal on Linux, plainly on Apple platforms (where the
// module imports Foundation for its public API, and one module imports a module at one level).
#if canImport(FoundationNetworking)
internal import Foundation
#else
import Foundation
#endif

extension BeaconMacros {
    /// Macros for a batch of beacons sent now: a new random `[CACHEBUSTING]` and the wall clock's
    /// `[TIMESTAMP]` (ISO 8601, milliseconds, UTC).
    ///
    /// - Returns: The macros, without the per-beacon values (the planner fills those).
    public static func now() -> BeaconMacros {
        let formatter = ISO8601DateFormatter()
        formatter.formatOptions = [.withInternetDateTime, .withFractionalSeconds]
        return BeaconMacros(cacheBusting: String(UInt32.random(in: 10_000_000...99_999_999)), timestamp: formatter.string(from: Date()))
    }
}

/// Beacons from a playback session to the ad servers: fed each `Reaction`, it plans what is due
/// (`BeaconPlanner`) and either sends it through the transport (fire and forget, in order, each
/// retried a bounded number of times) or hands it to the app on `stream`, which then sends it.
///
/// ```swift
/// let beacons = AdBeacons(ads: loaded, delivery: .send(DefaultHTTPTransport()))
/// beacons.handle(session.update(position: time))
/// ```
public final class AdBeacons: @unchecked Sendable {
    public enum Delivery: Sendable {
        /// Requested by the library through `transport`.
        case send(any HTTPTransport)
        /// Yielded on `stream` for the app.
        case stream
    }

    /// The due beacons, when the delivery is `.stream` (finished when this object goes away).
    public let stream: AsyncStream<DueBeacon>
    private let continuation: AsyncStream<DueBeacon>.Continuation
    private let lock = NSLock()
    private var planner: BeaconPlanner
    private let sender: BeaconSender?

    /// - Parameters:
    ///   - ads: The schedule's ads from ad servers; the errors owed for them are due at once.
    ///   - delivery: Who requests the beacons.
    public init(ads: AdSchedule, delivery: Delivery) {
        (stream, continuation) = AsyncStream.makeStream(of: DueBeacon.self, bufferingPolicy: .unbounded)
        planner = BeaconPlanner(tracking: ads.tracking, schedule: ads.schedule)
        if case .send(let transport) = delivery { sender = BeaconSender(transport: transport) } else { sender = nil }
        deliver(planner.beacons(for: ads.errors, macros: .now()))
    }

    deinit { continuation.finish() }

    /// Plans and delivers the beacons `reaction`'s events make due.
    ///
    /// - Parameter reaction: What the session answered (its events are what count).
    public func handle(_ reaction: PlaybackSession.Reaction) { handle(events: reaction.events) }

    /// Plans and delivers the beacons `events` make due.
    package func handle(events: [PlaybackEvent]) {
        guard !events.isEmpty else { return }
        let due = lock.withLock { planner.beacons(for: events, macros: .now()) }
        deliver(due)
    }

    /// Requests one beacon now (what `.send` delivery does for each): a GET retried at most twice
    /// (connection failures, 5xx) within a short timeout, following redirects within http(s).
    ///
    /// - Parameters:
    ///   - beacon: The beacon, its URL expanded.
    ///   - transport: What requests it.
    /// - Throws: `HTTPTransportError` when it could not be delivered.
    public static func send(_ beacon: DueBeacon, transport: any HTTPTransport = DefaultHTTPTransport()) async throws(HTTPTransportError) {
        if let error = await BeaconSender.send(beacon, transport: transport) { throw error }
    }

    private func deliver(_ due: [DueBeacon]) {
        guard !due.isEmpty else { return }
        if let sender { sender.enqueue(due) } else { for beacon in due { continuation.yield(beacon) } }
    }
}

/// Requests beacons in the order they became due, one at a time on one task, each GET retried at
/// most twice (connection failures and 5xx) within a short timeout; nothing is awaited by the caller.
final class BeaconSender: Sendable {
    private let continuation: AsyncStream<[DueBeacon]>.Continuation

    init(transport: any HTTPTransport, limits: HTTPTransportLimits = BeaconSender.limits) {
        let (batches, continuation) = AsyncStream.makeStream(of: [DueBeacon].self, bufferingPolicy: .unbounded)
        self.continuation = continuation
        Task.detached {
            for await batch in batches {
                for beacon in batch { _ = await BeaconSender.send(beacon, transport: transport, limits: limits) }
            }
        }
    }

    deinit { continuation.finish() }

    func enqueue(_ beacons: [DueBeacon]) { continuation.yield(beacons) }

    /// Short and bounded: a beacon that cannot be delivered is dropped, never retried for long.
    static let limits = HTTPTransportLimits(requestTimeout: .seconds(5), maximumRedirects: 5, maximumBodyBytes: 1 << 20, maximumRetries: 2,
                                            retryDelay: .milliseconds(200), maximumRetryDelay: .seconds(1))

    /// Requests `beacon`; the error, if it could not be delivered. Only http(s) URLs are requested.
    static func send(_ beacon: DueBeacon, transport: any HTTPTransport, limits: HTTPTransportLimits = limits) async -> HTTPTransportError? {
        do throws(HTTPTransportError) {
            _ = try await HTTPFetch.get(beacon.url, transport: transport, limits: limits)
            return nil
        } catch {
            return error
        }
    }
}
