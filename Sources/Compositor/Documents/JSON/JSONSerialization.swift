import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

extension JSONValue {
    /// The value as compact JSON text, object members in order.
    package var serialized: String {
        var output = ""
        write(to: &output)
        return output
    }

    private func write(to output: inout String) {
        switch self {
        case .null: output += "null"
        case .bool(let value): output += value ? "true" : "false"
        case .number(let text): output += text
        case .string(let text): JSONValue.writeString(text, to: &output)
        case .array(let elements):
            output += "["
            for (i, element) in elements.enumerated() {
                if i > 0 { output += "," }
                element.write(to: &output)
            }
            output += "]"
        case .object(let object):
            output += "{"
            for (i, member) in object.members.enumerated() {
                if i > 0 { output += "," }
                JSONValue.writeString(member.key, to: &output)
                output += ":"
                member.value.write(to: &output)
            }
            output += "}"
        }
    }

    private static func writeString(_ text: String, to output: inout String) {
        output += "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": output += "\\\""
            case "\\": output += "\\\\"
            case "\n": output += "\\n"
            case "\r": output += "\\r"
            case "\t": output += "\\t"
            case _ where scalar.value < 0x20:
                let hex = String(scalar.value, radix: 16)
                output += "\\u" + String(repeating: "0", count: 4 - hex.count) + hex
            default: output.unicodeScalars.append(scalar)
            }
        }
        output += "\""
    }

    /// A number from an integer.
    package static func integer(_ value: Int) -> JSONValue { .number(String(value)) }

    /// A time as seconds: the exact decimal when it has at most 9 fractional digits, otherwise
    /// rounded to the nearest nanosecond (the exact rational can be written beside it).
    package static func seconds(_ time: MediaTime) -> JSONValue {
        if let exact = time.exactDecimalString, exact.split(separator: ".").dropFirst().first.map({ $0.count <= 9 }) ?? true {
            return .number(exact)
        }
        // 1e9 fits the Int32 timescale, and the rounding cannot overflow for an Int64 value over >= 1.
        let nanoseconds = (try? time.converted(to: 1_000_000_000, rounding: .toNearestOrAwayFromZero)) ?? time
        return .number(nanoseconds.exactDecimalString ?? String(time.seconds))
    }
}

extension JSONObject {
    /// Builds an object from members in order.
    package init(_ members: KeyValuePairs<String, JSONValue>) {
        self.init()
        for (key, value) in members { append(key, value) }
    }
}
