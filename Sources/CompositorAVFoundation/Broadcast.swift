/// Values handed to any number of `AsyncStream`s, each from when it was made, in order, until
/// `finish()` or until its reader stops reading: what a controller's `events` and `seekBars` are.
@MainActor
final class Broadcast<Element: Sendable> {
    /// The streams handed out and not yet ended, by number.
    private var subscribers: [Int: AsyncStream<Element>.Continuation] = [:]
    private var nextSubscriber = 0
    /// The last value `yieldChange` yielded.
    fileprivate var last: Element?

    /// A new stream of the values from now on.
    func stream() -> AsyncStream<Element> {
        let number = nextSubscriber
        nextSubscriber += 1
        return AsyncStream { continuation in
            subscribers[number] = continuation
            continuation.onTermination = { [weak self] _ in Task { @MainActor in self?.subscribers[number] = nil } }
        }
    }

    func yield(_ value: Element) {
        for continuation in subscribers.values { continuation.yield(value) }
    }

    /// Ends every stream.
    func finish() {
        let ended = subscribers.values
        subscribers = [:]
        for continuation in ended { continuation.finish() }
    }
}

extension Broadcast where Element: Equatable {
    /// Yields `value` unless it equals the last value yielded this way (a seek bar that did not
    /// move is not news).
    func yieldChange(_ value: Element) {
        guard value != last else { return }
        last = value
        yield(value)
    }
}
