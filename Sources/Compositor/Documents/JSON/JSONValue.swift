import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// A JSON value that keeps numbers as their text, so `8.5` reaches `MediaTime(parsing:)` exactly
/// instead of passing through `Double`. Objects keep their keys in document order.
package enum JSONValue: Hashable, Sendable {
    case null
    case bool(Bool)
    /// The number exactly as written (`"10.010"`, `"-1e3"`).
    case number(String)
    case string(String)
    case array([JSONValue])
    case object(JSONObject)

    /// A short name of the value's type, for error messages.
    package var typeName: String {
        switch self {
        case .null: return "null"
        case .bool: return "a boolean"
        case .number: return "a number"
        case .string: return "a string"
        case .array: return "an array"
        case .object: return "an object"
        }
    }
}

/// A JSON object: members in document order, keys unique.
package struct JSONObject: Hashable, Sendable {
    package private(set) var members: [(key: String, value: JSONValue)] = []

    package init() {}

    package subscript(key: String) -> JSONValue? {
        members.first { $0.key == key }?.value
    }

    package var keys: [String] { members.map(\.key) }

    /// Appends a member; returns false (and changes nothing) when the key is already there.
    @discardableResult
    package mutating func append(_ key: String, _ value: JSONValue) -> Bool {
        guard self[key] == nil else { return false }
        members.append((key, value))
        return true
    }

    /// Appends a member whose key the caller has checked is new (the parser hashes the keys of a
    /// large object, so an object of n keys is read in O(n), not O(n²)).
    mutating func appendNewKey(_ key: String, _ value: JSONValue) {
        members.append((key, value))
    }

    package static func == (lhs: JSONObject, rhs: JSONObject) -> Bool {
        lhs.members.elementsEqual(rhs.members) { $0.key == $1.key && $0.value == $1.value }
    }

    package func hash(into hasher: inout Hasher) {
        for (key, value) in members { hasher.combine(key); hasher.combine(value) }
    }
}
