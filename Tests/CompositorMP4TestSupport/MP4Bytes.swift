/// An MP4's bytes read independently of `MP4Reader`, so tests can check what it and the writers do.
package enum MP4Bytes {
    /// Every box in a file, found by a walker independent of the reader: (path, start, end).
    package static func boxes(in bytes: [UInt8]) -> [(path: String, start: Int, end: Int)] {
        let containers: Set<String> = ["moov", "trak", "mdia", "minf", "stbl", "edts", "dinf", "udta"]
        var found: [(String, Int, Int)] = []
        func walk(_ start: Int, _ end: Int, _ parent: String) {
            var offset = start
            while offset + 8 <= end {
                var size = bytes[offset..<offset + 4].reduce(0) { $0 << 8 | Int($1) }
                let type = String(decoding: bytes[offset + 4..<offset + 8], as: UTF8.self)
                var header = 8
                if size == 1 { size = bytes[offset + 8..<offset + 16].reduce(0) { $0 << 8 | Int($1) }; header = 16 }
                if size == 0 { size = end - offset }
                guard size >= header, offset + size <= end else { return }
                let path = parent.isEmpty ? type : parent + "/" + type
                found.append((path, offset, offset + size))
                if containers.contains(type) { walk(offset + header, offset + size, path) }
                offset += size
            }
        }
        walk(0, bytes.count, "")
        return found
    }

    /// The first `count` NAL units of a sample with 4-byte lengths.
    package static func nalUnits(_ sample: ArraySlice<UInt8>, count: Int) -> [[UInt8]] {
        var units: [[UInt8]] = []
        var position = sample.startIndex
        while units.count < count, position + 4 <= sample.endIndex {
            let length = sample[position..<position + 4].reduce(0) { $0 << 8 | Int($1) }
            guard position + 4 + length <= sample.endIndex else { break }
            units.append(Array(sample[position + 4..<position + 4 + length]))
            position += 4 + length
        }
        return units
    }
}
