// Stand-ins for AVAudioMix and its input parameters (AVFoundation/AVAudioMix.h). Rules modelled:
// - "Before the first time at which a volume is set, a volume of 1.0 [is] used; after the last
//   time for which a volume has been set, the last volume is used" (AVAudioMixInputParameters).
// - `setVolume(_:at:)`: "The value must be between 0.0 and 1.0": another is a rule break.
// - Parameters apply to the track whose `trackID` they carry.
#if !canImport(AVFoundation)
import Foundation

/// `AVAudioMix`.
open class AVAudioMix: @unchecked Sendable {
    public internal(set) var inputParameters: [AVAudioMixInputParameters] = []
    init() {}
}

/// `AVMutableAudioMix`.
open class AVMutableAudioMix: AVAudioMix, @unchecked Sendable {
    public override init() {}
    public override var inputParameters: [AVAudioMixInputParameters] {
        get { super.inputParameters } set { super.inputParameters = newValue }
    }
}

/// `AVAudioMixInputParameters`.
open class AVAudioMixInputParameters: @unchecked Sendable {
    public internal(set) var trackID: CMPersistentTrackID = kCMPersistentTrackID_Invalid
    /// The volumes set, each from its time on, in the order set (stand-in only, for tests).
    package internal(set) var volumes: [(time: CMTime, volume: Float)] = []
    init() {}

    /// The volume at `time` by the rule above (stand-in only, for tests).
    package func standInVolume(at time: CMTime) -> Float {
        volumes.filter { $0.time <= time }.max { $0.time < $1.time }?.volume ?? 1
    }
}

/// `AVMutableAudioMixInputParameters`.
open class AVMutableAudioMixInputParameters: AVAudioMixInputParameters, @unchecked Sendable {
    public override init() {}

    public override var trackID: CMPersistentTrackID { get { super.trackID } set { super.trackID = newValue } }

    public func setVolume(_ volume: Float, at time: CMTime) {
        guard (0...1).contains(volume) else {
            return StandInWorld.broke("AVMutableAudioMixInputParameters.setVolume(\(volume), at:): \"The value must be between 0.0 and 1.0\"")
        }
        volumes.append((time, volume))
    }
}
#endif
