import AVKit
import Compositor
import CompositorAVFoundation
import SwiftUI

/// The player, the ad label over it ("Ad 1 of 2"), and what went wrong, if anything.
struct PlayerScreen: View {
    @StateObject private var model = PlayerModel()

    var body: some View {
        VideoPlayer(player: model.player) {
            VStack {
                if let ad = model.adLabel {
                    Text(ad)
                        .padding(8)
                        .background(.black.opacity(0.6), in: RoundedRectangle(cornerRadius: 6))
                        .foregroundStyle(.white)
                        .frame(maxWidth: .infinity, alignment: .topLeading)
                }
                Spacer()
            }
            .padding()
        }
        .overlay {
            if let failure = model.failure { Text(failure).padding().background(.red.opacity(0.8)) }
        }
        .task { await model.start() }
        .onDisappear { model.stop() }
    }
}

/// Loads the bundled schedule, builds its composition, and drives the player through a session
/// controller; the overlay follows the controller's event stream.
@MainActor
final class PlayerModel: ObservableObject {
    @Published private(set) var adLabel: String?
    @Published private(set) var failure: String?
    let player = AVPlayer()
    private var controller: PlaybackSessionController?

    func start() async {
        do {
            guard let url = Bundle.main.url(forResource: "schedule", withExtension: "json") else {
                failure = "schedule.json is not in the app's bundle"
                return
            }
            let schedule = try ScheduleDocument.read(path: FilePath(url.path))
            // Every source probed once for its natural duration (headers only).
            let durations = SourceProbe.probeAll(schedule).results.mapValues(\.naturalDuration)
            let session = try PlaybackSession(schedule: schedule, naturalDurations: durations)
            let controller = PlaybackSessionController(session: session, player: player)
            self.controller = controller
            let events = controller.events
            Task { [weak self] in
                for await event in events { self?.show(event) }
            }
            try await controller.start()
            player.play()
        } catch {
            failure = "\(error)"
        }
    }

    func stop() {
        controller?.stop()
    }

    private func show(_ event: PlaybackEvent) {
        switch event.kind {
        case .adStarted(let position): adLabel = "Ad \(position.podPosition) of \(position.podSize)"
        case .breakEnded, .contentResumed, .ended: adLabel = nil
        default: break
        }
    }
}
