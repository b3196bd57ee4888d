import Compositor
import Foundation

/// `preview SCHEDULE.json [--port N] [--snapback POLICY]`: serves the sample player on
/// 127.0.0.1 and runs the library's `PlaybackSession` against the browser's video clock.
enum PreviewCommand {
    static func run(_ arguments: inout Arguments) throws(DemoError) {
        let portText = try arguments.option("--port") ?? "8080"
        let policyName = try arguments.option("--snapback") ?? SnapbackPolicy.lastUnplayed.rawValue
        let path = try arguments.positionalPath("SCHEDULE.json")
        try arguments.finish()
        guard let port = UInt16(portText) else { throw .usage("--port: expected 0 to 65535 (0: any free port), got \(quoted(portText))") }
        guard let snapback = SnapbackPolicy(rawValue: policyName) else {
            throw .usage("--snapback: expected one of \(SnapbackPolicy.allCases.map(\.rawValue).joined(separator: ", "))")
        }
        let controller = try PreviewController(loaded: try LoadedSchedule(path: path), snapback: snapback)
        let server = try HTTPServer(port: port)
        Output.out("preview of \(path): http://127.0.0.1:\(server.port)/  (Ctrl-C stops it)")
        server.serve(controller.handle)
    }
}
