// libFuzzer target: the library's own HTTP/1.1 client reading a server's answer (status line,
// headers, interim answers, framing by length, by chunks and by the close, content and transfer
// codings), through a socket pair.
//
// Built by `Tests/Fuzz/run.sh http` against the instrumented library. Whatever the bytes, the read
// must end in a response or a failure, never trap or hang, and a body is never over its limit.
// The first input byte picks the limit and whether a byte range was asked for.
import Compositor

@_cdecl("LLVMFuzzerTestOneInput")
public func fuzz(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size > 0 else { return 0 }
    let choice = data[0]
    let bytes = Array(UnsafeBufferPointer(start: data + 1, count: size - 1))
    let limit = [0, 1, 16, 4096, 1 << 20][Int(choice % 5)]
    let range: ClosedRange<UInt64>? = choice & 0x80 == 0 ? nil : 2...6
    if case .response(_, _, let body, _) = HTTPResponseReading.read(bytes, byteRange: range, limit: limit), body > limit {
        fatalError("a body of \(body) bytes, over the limit of \(limit)")
    }
    return 0
}
