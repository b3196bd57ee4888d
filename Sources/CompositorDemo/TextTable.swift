import Compositor

/// A table written cell by cell into one byte buffer, then laid out with each column padded to its
/// widest cell, two spaces apart, and no line ending in spaces. A timeline of 100,000 breaks has
/// 1.4 million cells: none of them is a `String` or an array of its own.
///
/// ```swift
/// var table = TextTable(header: ["#", "kind"])
/// table.cell("1"); table.cell("content")
/// table.write(to: &bytes) { _ in }   // bytes: "#  kind\n1  content\n"
/// ```
struct TextTable {
    private let columns: Int
    private var bytes: [UInt8] = []
    /// Where each cell ends in `bytes`, row after row.
    private var cellEnds: [Int] = []
    /// Display widths of the cells that are not ASCII (whose width is their byte count), by cell index.
    private var wideCells: [Int: Int] = [:]
    private var widths: [Int]
    private var cellStart = 0

    init(header: [String]) {
        columns = header.count
        widths = Array(repeating: 0, count: header.count)
        for name in header { cell(name) }
    }

    /// Reserves room for `rows` rows of about `bytesPerRow` bytes.
    mutating func reserve(rows: Int, bytesPerRow: Int) {
        cellEnds.reserveCapacity((rows + 1) * columns)
        bytes.reserveCapacity((rows + 1) * bytesPerRow)
    }

    /// Appends text to the cell being written.
    mutating func append(_ text: String) {
        var text = text
        text.withUTF8 { bytes.append(contentsOf: $0) }
    }

    /// Appends UTF-8 to the cell being written.
    mutating func append(utf8: UnsafeBufferPointer<UInt8>) {
        bytes.append(contentsOf: utf8)
    }

    /// Appends text and ends the cell.
    mutating func cell(_ text: String) {
        append(text)
        endCell()
    }

    /// Ends the cell being written; the next text goes into the next column (or row).
    mutating func endCell() {
        let index = cellEnds.count
        var width = bytes.count - cellStart
        let wide: String? = bytes.withUnsafeBufferPointer { all in
            let cell = UnsafeBufferPointer(rebasing: all[cellStart...])
            return cell.allSatisfy { $0 < 0x80 } ? nil : String(decoding: cell, as: UTF8.self)
        }
        if let wide {
            width = wide.count
            wideCells[index] = width
        }
        widths[index % columns] = max(widths[index % columns], width)
        cellEnds.append(bytes.count)
        cellStart = bytes.count
    }

    /// The table's lines, appended to `output`; each time `output` holds a megabyte, it is handed
    /// to `emit` and emptied.
    func write(to output: inout [UInt8], emit: (UnsafeRawBufferPointer) -> Void) {
        let chunk = 1 << 20
        output.reserveCapacity(chunk + 4096)
        bytes.withUnsafeBufferPointer { write(from: $0, to: &output, flushingAt: chunk, emit: emit) }
    }

    private func write(
        from bytes: UnsafeBufferPointer<UInt8>, to output: inout [UInt8], flushingAt chunk: Int,
        emit: (UnsafeRawBufferPointer) -> Void
    ) {
        var rowStart = 0
        while rowStart < cellEnds.count {
            let rowEnd = min(rowStart + columns, cellEnds.count)
            func start(_ cell: Int) -> Int { cell == 0 ? 0 : cellEnds[cell - 1] }
            // Up to the last non-empty cell, so that no line ends in spaces.
            var last = rowEnd - 1
            while last >= rowStart, start(last) == cellEnds[last] { last -= 1 }
            if last >= rowStart {
                for cell in rowStart...last {
                    if cell > rowStart {
                        let previous = cell - 1
                        let width = wideCells[previous] ?? (cellEnds[previous] - start(previous))
                        output.append(contentsOf: repeatElement(UInt8(ascii: " "), count: 2 + widths[(previous - rowStart)] - width))
                    }
                    output.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[start(cell)..<cellEnds[cell]]))
                }
            }
            output.append(UInt8(ascii: "\n"))
            if output.count >= chunk {
                output.withUnsafeBytes(emit)
                output.removeAll(keepingCapacity: true)
            }
            rowStart = rowEnd
        }
    }
}
