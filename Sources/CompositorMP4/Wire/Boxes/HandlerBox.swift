import CompositorCore

/// `hdlr`: what kind of media a track holds (`vide`, `soun`, ...) (8.4.3).
struct HandlerBox: MP4ParsableBox, MP4WritableBox, Equatable {
    static let type: FourCC = "hdlr"
    var handlerType: FourCC
    var name: String

    init(handlerType: FourCC, name: String) {
        self.handlerType = handlerType
        self.name = name
    }

    init(parsing reader: inout ByteReader) throws(WireFailure) {
        _ = try FullBoxHeader.read(from: &reader)
        try reader.skip(4)  // pre_defined (QuickTime: component type)
        handlerType = try reader.readFourCC()
        try reader.skip(12)
        // A null-terminated string (QuickTime writes a Pascal string); only for display.
        let rest = reader.remainingBytes
        name = String(decoding: rest.prefix { $0 != 0 }, as: UTF8.self)
    }

    func writePayload(to writer: inout ByteWriter) {
        writer.writeVersion(0)
        writer.write(zeros: 4)
        writer.write(handlerType)
        writer.write(zeros: 12)
        writer.write(Array(name.utf8))
        writer.write(UInt8(0))
    }
}
