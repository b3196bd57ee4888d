import Compositor

/// The command-line front: parses the subcommand and maps failures to exit codes.
enum DemoCommand {
    static let usage = """
        usage: CompositorDemo                                   run the bundled demo
               CompositorDemo timeline SCHEDULE.json [--json] [--cut sample|keyframe|web]
               CompositorDemo map SCHEDULE.json (--content-time T [--before-breaks] | --composition-time T) [--json]
               CompositorDemo render SCHEDULE.json --output OUT.mp4 [--cut sample|keyframe|web]
               CompositorDemo hls SCHEDULE.json --output DIR      DIR/stitched.m3u8, queue-plan.json, timeline.json
                              (DIR must be new, empty, or hold a previous stitch, which is replaced)
                              [--snap nearest|next|previous|covering|within] [--snap-break BREAK=RULE]...
                              [--interstitials [--restrict-jumps]]   content alone, each break an HLS interstitial
                              [--cue-tags] [--scte35]   EXT-X-CUE-OUT/-CONT/-IN, SCTE35-OUT/-IN date ranges
                              [--segments ts|fmp4]   what MP4 sources are packaged into (default: as the HLS sources)
                              [--package-every-piece]   HLS sources too: one stream on the composition's clock
                              [--unmarked-encoding-changes]   with it, no MPEG-TS discontinuity where only the
                                  encoding changes (GStreamer and VLC follow that; Chromium does not)
               CompositorDemo simulate SCHEDULE.json --actions "play 30; seek content 50; play 20"
                              [--snapback none|lastUnplayed|firstUnplayed|allUnplayed] [--json]
               CompositorDemo preview SCHEDULE.json [--port N] [--snapback POLICY]
                              the sample player in a browser at http://127.0.0.1:N/ (default 8080; 0: any free port)
               CompositorDemo help

        Times are seconds (8.5) or rationals (1001/30000).
        """

    static func run(_ arguments: Arguments) -> Int32 {
        do {
            var rest = arguments
            guard let name = rest.takeFirst() else {
                try BundledDemo.run()
                return 0
            }
            switch name {
            case "timeline": try TimelineCommand.run(&rest)
            case "map": try MapCommand.run(&rest)
            case "simulate": try SimulateCommand.run(&rest)
            case "render": try RenderCommand.run(&rest)
            case "hls": try HLSCommand.run(&rest)
            case "preview": try PreviewCommand.run(&rest)
            case "help", "-h", "--help": Output.out(usage)
            default: throw DemoError.usage("unknown command \(quoted(name))")
            }
            return 0
        } catch let error as DemoError {
            switch error {
            case .usage(let message):
                Output.err("error: \(message)\n\(usage)")
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
