import CompositorCore

extension OutputBytes {
    /// The bytes written, copied out.
    package var array: [UInt8] { withUnsafeBytes { Array($0) } }
}

/// The MP4 sample an access unit of `payload` becomes, made here as the tests' reference: each of
/// its NAL units (`units`, ranges of `payload`) after its 4-byte big-endian length.
package func lengthPrefixedSample(_ units: [Range<Int>], in payload: UnsafeRawBufferPointer) -> [UInt8] {
    units.flatMap { unit in withUnsafeBytes(of: UInt32(unit.count).bigEndian, Array.init) + Array(payload[unit]) }
}
