import CompositorCore

/// iTunes' gapless playback note, the `iTunSMPB` item in `moov/udta/meta/ilst`: encoder priming,
/// trailing padding and the real sample count, for AAC files without an edit list.
///
/// The value is text: `" 00000000 00000840 000001CA 0000000000D5E6F6 ..."`; the second field is the
/// priming, the third the padding, the fourth the count of real samples (all hexadecimal).
package struct ITunesGaplessInfo: Sendable, Equatable {
    package var priming: Int64
    package var padding: Int64
    package var sampleCount: Int64

    package init(priming: Int64, padding: Int64, sampleCount: Int64) {
        self.priming = priming
        self.padding = padding
        self.sampleCount = sampleCount
    }

    /// Parses the item's text; `nil` when it does not have the four hexadecimal fields, or when
    /// they are not counts (a sign, a value past Int64).
    init?(text: String) {
        let fields = text.split(separator: " ").map(String.init)
        guard fields.count >= 4, let priming = Self.count(fields[1]), let padding = Self.count(fields[2]),
              let count = Self.count(fields[3]) else { return nil }
        self.init(priming: priming, padding: padding, sampleCount: count)
    }

    /// A non-negative hexadecimal count (Int64's parser alone would accept "-5" and "+5").
    private static func count(_ field: String) -> Int64? {
        guard !field.isEmpty, field.utf8.allSatisfy({ $0 != UInt8(ascii: "-") && $0 != UInt8(ascii: "+") }) else { return nil }
        return Int64(field, radix: 16)
    }

    /// Looks for the item under `udta/meta/ilst` of the `moov` box; absent or unreadable gives nil
    /// (it is an optional hint, never a reason to reject a file).
    static func find(in moov: MP4Box) -> ITunesGaplessInfo? {
        guard let udta = moov.child("udta"), let meta = udta.child("meta") else { return nil }
        var payload = meta.payload
        // ISO 'meta' is a full box; QuickTime's is not. A full box starts with version/flags 0.
        if payload.remaining >= 8 {
            var peek = payload
            if (try? peek.readUInt32()) == 0 { try? payload.skip(4) }
        }
        var ilst: ByteReader?
        forEachBox(in: payload) { type, body in
            if type == "ilst" { ilst = body }
            return ilst == nil
        }
        guard let ilst else { return nil }
        var found: ITunesGaplessInfo?
        forEachBox(in: ilst) { type, item in
            guard type == "----" else { return true }
            var name: String?
            var value: String?
            forEachBox(in: item) { type, part in
                var body = part
                switch type {
                case "name":
                    try? body.skip(4)
                    name = String(decoding: body.remainingBytes, as: UTF8.self)
                case "data":
                    try? body.skip(8)
                    value = String(decoding: body.remainingBytes, as: UTF8.self)
                default: break
                }
                return true
            }
            guard name == "iTunSMPB", let value else { return true }
            found = ITunesGaplessInfo(text: value)
            return false
        }
        return found
    }

    /// Calls `body` with the type and payload of each box in `payload`, in order, while it returns
    /// true; stops quietly at the first box that does not parse. Nothing is collected: an `ilst`
    /// of a million tiny items is a walk, not a million values.
    private static func forEachBox(in payload: ByteReader, _ body: (FourCC, ByteReader) -> Bool) {
        var reader = payload
        while reader.remaining >= 8 {
            guard let (header, box) = try? MP4BoxHeader.readBox(from: &reader), body(header.type, box) else { return }
        }
    }
}
