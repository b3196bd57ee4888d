extension Array where Element == UInt8 {
    /// A block of zeros to append from: an array's `append(contentsOf:)` of another array copies in
    /// one step, where `repeatElement(0, count:)` hands its bytes over one by one through the
    /// generic `Sequence` path (a quarter of the test suite's time in a debug build, measured with
    /// perf, in `ReadableFile.read(at:count:into:)` alone).
    private static let zeroBlock = [UInt8](repeating: 0, count: 1 << 16)

    /// Appends `count` zero bytes (none when `count` is 0 or less).
    ///
    /// ```swift
    /// var bytes: [UInt8] = [1]
    /// bytes.appendZeros(3)   // [1, 0, 0, 0]
    /// ```
    package mutating func appendZeros(_ count: Int) {
        var left = count
        while left > 0 {
            let step = Swift.min(left, Self.zeroBlock.count)
            append(contentsOf: Self.zeroBlock[0..<step])
            left -= step
        }
    }
}
