import CompositorCore

/// The transformation matrix of `tkhd` (ISO/IEC 14496-12 8.3.2, 6.2.2): how a track's decoded
/// pictures are shown. `{a, b, u, c, d, v, x, y, w}`, point `(p, q)` shown at
/// `(a·p + c·q + x, b·p + d·q + y)`; a, b, c, d, x, y are 16.16 fixed point, u, v, w 2.30.
/// A portrait iPhone clip has `b = 1, c = -1` (its pictures turned 90° clockwise).
package struct DisplayMatrix: Sendable, Hashable, CustomStringConvertible {
    package var values: [Int32]

    package static let identity = DisplayMatrix(values: [0x0001_0000, 0, 0, 0, 0x0001_0000, 0, 0, 0, 0x4000_0000])

    /// Clockwise degrees the pictures are turned (0, 90, 180 or 270), when the matrix is a pure
    /// turn (translation aside); `nil` for a mirror, a scale or any other matrix.
    package var clockwiseRotation: Int? {
        let one: Int32 = 0x0001_0000
        switch (values[0], values[1], values[3], values[4]) {
        case (one, 0, 0, one): return 0
        case (0, one, -one, 0): return 90
        case (-one, 0, 0, -one): return 180
        case (0, -one, one, 0): return 270
        default: return nil
        }
    }

    /// Whether pictures are shown alike: turned by the same angle (the translation, which
    /// depends on the picture's size, aside), or by equal matrices.
    package func showsAlike(_ other: DisplayMatrix) -> Bool {
        if let turn = clockwiseRotation, let otherTurn = other.clockwiseRotation { return turn == otherTurn }
        return self == other
    }

    /// "unrotated", "rotated 90° clockwise", "rotated 180°", "rotated 90° counterclockwise", or
    /// the matrix's values.
    package var description: String {
        switch clockwiseRotation {
        case 0?: return "unrotated"
        case 90?: return "rotated 90° clockwise"
        case 180?: return "rotated 180°"
        case 270?: return "rotated 90° counterclockwise"
        default: return "transformed by the display matrix [\(values.map(String.init).joined(separator: ", "))]"
        }
    }
}

extension ByteReader {
    mutating func readDisplayMatrix() throws(WireFailure) -> DisplayMatrix {
        var values: [Int32] = []
        values.reserveCapacity(9)
        for _ in 0..<9 { values.append(try readInt32()) }
        return DisplayMatrix(values: values)
    }
}

extension ByteWriter {
    mutating func write(_ matrix: DisplayMatrix) {
        for value in matrix.values { write(UInt32(bitPattern: value)) }
    }
}
