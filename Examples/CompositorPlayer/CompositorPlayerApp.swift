// An iOS app that plays a schedule as one AVPlayer item, with an ad overlay driven by the
// session's events. Put `schedule.json` and its media in the app's bundle (the demo's
// `Fixtures/demo.json` and the MP4s it names will do), add the Compositor package, and run.
//
// Its sources compile against Apple's real iOS SDK in `Tests/Tools/apple-sdk-check.sh` (objects
// only: linking and running need Xcode and a device or simulator).
import SwiftUI

@main
struct CompositorPlayerApp: App {
    var body: some Scene {
        WindowGroup { PlayerScreen() }
    }
}
