import Compositor

/// A command's remaining arguments: options are taken out by name, then positionals in order.
struct Arguments {
    private var items: [String]

    init(_ items: [String]) { self.items = items }

    /// Removes `--name` and reports whether it was there.
    mutating func flag(_ name: String) -> Bool {
        guard let index = items.firstIndex(of: name) else { return false }
        items.remove(at: index)
        return true
    }

    /// Removes `--name VALUE` (or `--name=VALUE`) and returns the value.
    mutating func option(_ name: String) throws(DemoError) -> String? {
        if let index = items.firstIndex(where: { $0.hasPrefix(name + "=") }) {
            return String(items.remove(at: index).dropFirst(name.count + 1))
        }
        guard let index = items.firstIndex(of: name) else { return nil }
        guard index + 1 < items.count else { throw .usage("\(name) needs a value") }
        let value = items[index + 1]
        items.removeSubrange(index...index + 1)
        return value
    }

    /// Removes `--name T` and parses it as a time.
    mutating func timeOption(_ name: String) throws(DemoError) -> MediaTime? {
        guard let text = try option(name) else { return nil }
        do { return try MediaTime(parsing: text) } catch { throw .usage("\(name): \(error)") }
    }

    /// Removes the next positional argument.
    mutating func positional(_ what: String) throws(DemoError) -> String {
        guard let index = items.firstIndex(where: { !$0.hasPrefix("--") }) else { throw .usage("missing \(what)") }
        return items.remove(at: index)
    }

    /// Fails on anything left over.
    func finish() throws(DemoError) {
        if let extra = items.first { throw .usage("unexpected argument '\(extra)'") }
    }
}
