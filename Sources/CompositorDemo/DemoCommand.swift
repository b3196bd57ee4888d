import Compositor

/// The command-line front: parses the subcommand and maps failures to exit codes.
enum DemoCommand {
    /// The version this build prints (`--version`); CHANGELOG.md says what each one changed.
    static let version = "0.9.0"

    /// Each command's usage, as `COMMAND --help` prints it and a usage error of it shows.
    static let commands: [(name: String, usage: String)] = [
        ("timeline", "CompositorDemo timeline SCHEDULE.json [--json] [--cut sample|keyframe|web]"),
        ("map", "CompositorDemo map SCHEDULE.json (--content-time T [--before-breaks] | --composition-time T) [--json]"),
        ("render", "CompositorDemo render SCHEDULE.json --output OUT.mp4 [--cut sample|keyframe|web]"),
        ("hls", """
            CompositorDemo hls SCHEDULE.json --output DIR      DIR/stitched.m3u8, queue-plan.json, timeline.json
                           (DIR must be new, empty, or hold a previous stitch, which is replaced)
                           [--snap nearest|next|previous|covering|within] [--snap-break BREAK=RULE]...
                           [--interstitials [--restrict-jumps]]   content alone, each break an HLS interstitial
                               [--asset-base-url URL]   where DIR is served: asset URIs under it (for hls.js)
                           [--cue-tags] [--scte35]   EXT-X-CUE-OUT/-CONT/-IN, SCTE35-OUT/-IN date ranges
                           [--segments ts|fmp4]   what MP4 sources are packaged into (default: as the HLS sources)
                           [--package-every-piece]   HLS sources too: one stream on the composition's clock
                           [--unmarked-encoding-changes]   with it, no MPEG-TS discontinuity where only the
                               encoding changes (hls.js, GStreamer and VLC follow that; Chromium's own player does not)
            """),
        ("dash", """
            CompositorDemo dash SCHEDULE.json --output DIR [--snap RULE]
                           DIR/stitched.mpd (one period per piece, fMP4 segments by passthrough), timeline.json;
                           a representation per variant and per schedule "renditions" entry, an audio
                           adaptation set per audio rendition, a text one (WebVTT) per subtitle rendition
            """),
        ("live", """
            CompositorDemo live SCHEDULE.json --output DIR [--duration SECONDS] [--join full|rest]
                           [--form stitched|interstitials]
                           follows the schedule's live HLS content, rewriting DIR/stitched.m3u8 after every
                           change (ads packaged once into DIR/ads/) until the content ends or SECONDS pass;
                           a status line per reload on stderr; "insert ID" on stdin plays an on-demand break
                           --join: a break under way at the start plays as content (full) or its rest (rest)
                           --form: ads in place of the content's segments (stitched), or the content as it
                               is with each break an HLS interstitial, its asset lists in DIR/assets/
            """),
        ("simulate", """
            CompositorDemo simulate SCHEDULE.json --actions "play 30; seek content 50; play 20"
                           [--snapback none|lastUnplayed|firstUnplayed|allUnplayed] [--json]
                           [--send-beacons]   request the ad servers' beacons (listed in any case)
                           actions: play S, seek content|composition T, skip ad|break,
                           insert now URL [START END], cancel BREAK-ID, pause, resume
            """),
        ("vast", """
            CompositorDemo vast SOURCE [--json] [--for mp4|hls]
                           resolves a VAST document (URL or path) through its wrappers and prints the
                           ads that will play, in order; fires nothing (exit 1 when none resolves)
            """),
        ("preview", """
            CompositorDemo preview SCHEDULE.json [--port N] [--snapback POLICY]
                           the sample player in a browser at http://127.0.0.1:N/ (default 8080; 0: any free port)
            """),
    ]

    static let timesNote = "Times are seconds (8.5) or rationals (1001/30000)."

    /// Every command's usage.
    static var usage: String {
        let lines = ["CompositorDemo                                   run the bundled demo"]
            + commands.map(\.usage) + ["CompositorDemo help | --help | --version"]
        let indented = lines.map { $0.split(separator: "\n", omittingEmptySubsequences: false).map { "       " + $0 }.joined(separator: "\n") }
        return "usage: " + indented.joined(separator: "\n").dropFirst(7) + "\n\n" + timesNote
    }

    /// One command's usage (`name` is a command's).
    static func usage(of name: String) -> String {
        guard let command = commands.first(where: { $0.name == name }) else { return usage }
        let body = command.usage.split(separator: "\n", omittingEmptySubsequences: false).joined(separator: "\n       ")
        return "usage: \(body)\n\n\(timesNote)"
    }

    static func run(_ arguments: Arguments) -> Int32 {
        var command: String?
        do {
            var rest = arguments
            guard let name = rest.takeFirst() else {
                try BundledDemo.run()
                return 0
            }
            if commands.contains(where: { $0.name == name }) {
                command = name
                // `COMMAND --help` wherever it stands: that command's usage, and nothing is run.
                if rest.flag("--help") || rest.flag("-h") {
                    Output.out(usage(of: name))
                    return 0
                }
            }
            switch name {
            case "timeline": try TimelineCommand.run(&rest)
            case "map": try MapCommand.run(&rest)
            case "simulate": try SimulateCommand.run(&rest)
            case "render": try RenderCommand.run(&rest)
            case "hls": try HLSCommand.run(&rest)
            case "dash": try DASHCommand.run(&rest)
            case "live": try LiveCommand.run(&rest)
            case "preview": try PreviewCommand.run(&rest)
            case "vast": try VASTCommand.run(&rest)
            case "help", "-h", "--help": Output.out(usage)
            case "--version", "version": Output.out("CompositorDemo \(version)")
            default: throw DemoError.usage("unknown command \(quoted(name))")
            }
            return 0
        } catch let error as DemoError {
            switch error {
            case .usage(let message):
                Output.err("error: \(message)\n\(command.map(usage(of:)) ?? usage)")
                return 64
            case .failure(let message):
                Output.err("error: \(message)")
                return 1
            }
        } catch {
            Output.err("error: \(error)")
            return 1
        }
    }
}

enum DemoError: Error {
    /// The command line is wrong: exit 64 with the usage text.
    case usage(String)
    /// The command could not do its job: exit 1.
    case failure(String)
}
