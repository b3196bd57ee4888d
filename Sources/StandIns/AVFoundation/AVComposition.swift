// Stand-ins for AVComposition, AVMutableComposition and their tracks (AVFoundation/AVComposition.h,
// AVCompositionTrack.h, AVCompositionTrackSegment.h). The track rules are the headers':
// - `insertEmptyTimeRange:`: "Note that you cannot add empty time ranges to the end of a
//   composition track." A call at or past the track's end is a rule break and changes nothing.
// - `insertTimeRange:ofTrack:atTime:` presents the range at `startTime`, pushing out what was there.
//   Inserting past the track's end is not documented: the stand-in leaves an empty gap (what a
//   segment list starting at zero and contiguous would need) and reports the call as a rule break,
//   so the adapters must not rely on it.
// - Segments are contiguous from zero (the `segments` timing rules of AVCompositionTrack.h).
// - Media comes from the source track's asset, which the track holds weakly (AVAssetTrack.h):
//   inserting from a track whose asset is gone fails.
#if !canImport(AVFoundation)
import Foundation

/// `CMTimeMapping` (CMTimeRange.h).
public struct CMTimeMapping: Sendable, Equatable {
    public var source: CMTimeRange
    public var target: CMTimeRange
    public init(source: CMTimeRange, target: CMTimeRange) { self.source = source; self.target = target }
}

/// `AVCompositionTrackSegment`: media of one source track, or empty, mapped onto the track.
open class AVCompositionTrackSegment: @unchecked Sendable {
    public let isEmpty: Bool
    public let sourceURL: URL?
    public let sourceTrackID: CMPersistentTrackID
    public let timeMapping: CMTimeMapping

    init(isEmpty: Bool, sourceURL: URL?, sourceTrackID: CMPersistentTrackID, timeMapping: CMTimeMapping) {
        self.isEmpty = isEmpty
        self.sourceURL = sourceURL
        self.sourceTrackID = sourceTrackID
        self.timeMapping = timeMapping
    }

    /// `init(timeRange:)`: an empty segment.
    public convenience init(timeRange: CMTimeRange) {
        self.init(isEmpty: true, sourceURL: nil, sourceTrackID: kCMPersistentTrackID_Invalid,
                  timeMapping: CMTimeMapping(source: CMTimeRange(start: .invalid, duration: timeRange.duration), target: timeRange))
    }

    func moved(to targetStart: CMTime) -> AVCompositionTrackSegment {
        AVCompositionTrackSegment(isEmpty: isEmpty, sourceURL: sourceURL, sourceTrackID: sourceTrackID,
                                  timeMapping: CMTimeMapping(source: timeMapping.source,
                                                             target: CMTimeRange(start: targetStart, duration: timeMapping.target.duration)))
    }

    /// The part of the segment from `start` to `end` (target times inside it).
    func cut(_ start: CMTime, _ end: CMTime) -> AVCompositionTrackSegment {
        let offset = start - timeMapping.target.start
        let source = isEmpty ? CMTimeRange(start: .invalid, duration: end - start)
                             : CMTimeRange(start: timeMapping.source.start + offset, duration: end - start)
        return AVCompositionTrackSegment(isEmpty: isEmpty, sourceURL: sourceURL, sourceTrackID: sourceTrackID,
                                         timeMapping: CMTimeMapping(source: source, target: CMTimeRange(start: start, end: end)))
    }
}

/// `AVCompositionTrack`.
open class AVCompositionTrack: AVAssetTrack, @unchecked Sendable {
    public internal(set) var segments: [AVCompositionTrackSegment] = []
    public internal(set) var preferredTransform: CGAffineTransform = .identity
    public var timeRange: CMTimeRange { CMTimeRange(start: .zero, duration: segments.last?.timeMapping.target.end ?? .zero) }
    override var loadableTimeRange: CMTimeRange { timeRange }

    init(mediaType: AVMediaType, trackID: CMPersistentTrackID) {
        super.init(asset: nil, trackID: trackID, mediaType: mediaType, content: nil, sourceURL: nil)
    }
}

/// `AVMutableCompositionTrack`. Not `Sendable` (`NS_SWIFT_NONSENDABLE`), which a subclass of the
/// `Sendable` `AVCompositionTrack` cannot say in Swift, so the stand-in declares it on its own with
/// the members the adapters use.
open class AVMutableCompositionTrack {
    public let mediaType: AVMediaType
    public let trackID: CMPersistentTrackID
    public internal(set) var segments: [AVCompositionTrackSegment] = []
    public var preferredTransform: CGAffineTransform = .identity
    public var timeRange: CMTimeRange { CMTimeRange(start: .zero, duration: end) }

    init(mediaType: AVMediaType, trackID: CMPersistentTrackID) {
        self.mediaType = mediaType
        self.trackID = trackID
    }

    private var end: CMTime { segments.last?.timeMapping.target.end ?? .zero }

    /// `insertTimeRange(_:of:at:)`.
    public func insertTimeRange(_ timeRange: CMTimeRange, of track: AVAssetTrack, at startTime: CMTime) throws {
        guard track.asset != nil else {
            throw NSError(domain: "AVFoundationErrorDomain", code: -11800, userInfo: [
                NSLocalizedDescriptionKey: "the source track's asset was released (AVAssetTrack holds it weakly)"])
        }
        guard track.mediaType == mediaType else {
            throw NSError(domain: "AVFoundationErrorDomain", code: -11800, userInfo: [
                NSLocalizedDescriptionKey: "a \(track.mediaType.rawValue) track inserted into a \(mediaType.rawValue) track"])
        }
        guard let available = track.content?.timeRange else {
            throw NSError(domain: "AVFoundationErrorDomain", code: -11800, userInfo: [
                NSLocalizedDescriptionKey: "the stand-in inserts media of URL assets only"])
        }
        guard timeRange.isValid, startTime.isNumeric, available.start <= timeRange.start, timeRange.end <= available.end else {
            throw NSError(domain: "AVFoundationErrorDomain", code: -11800, userInfo: [
                NSLocalizedDescriptionKey: "time range \(timeRange) outside the source track \(available)"])
        }
        if startTime > end {
            StandInWorld.broke("insertTimeRange(_:of:at:) at \(startTime), past the \(mediaType.rawValue) track's end \(end) (undocumented)")
            segments.append(AVCompositionTrackSegment(timeRange: CMTimeRange(start: end, end: startTime)))
        }
        insert(AVCompositionTrackSegment(
            isEmpty: false, sourceURL: track.sourceURL, sourceTrackID: track.trackID,
            timeMapping: CMTimeMapping(source: timeRange, target: CMTimeRange(start: startTime, duration: timeRange.duration))))
    }

    /// `insertEmptyTimeRange(_:)`: not at or past the track's end (AVCompositionTrack.h).
    public func insertEmptyTimeRange(_ timeRange: CMTimeRange) {
        guard timeRange.start < end else {
            StandInWorld.broke("insertEmptyTimeRange(_:) \(timeRange) at the end of the \(mediaType.rawValue) track (\(end)): "
                + "\"you cannot add empty time ranges to the end of a composition track\" (AVCompositionTrack.h)")
            return
        }
        insert(AVCompositionTrackSegment(timeRange: timeRange))
    }

    /// `removeTimeRange(_:)`: removes or truncates the segments it covers; what follows moves up.
    public func removeTimeRange(_ timeRange: CMTimeRange) {
        split(at: timeRange.start)
        split(at: timeRange.end)
        var kept: [AVCompositionTrackSegment] = []
        for segment in segments {
            let target = segment.timeMapping.target
            if timeRange.start <= target.start && target.end <= timeRange.end { continue }
            kept.append(target.start >= timeRange.end ? segment.moved(to: target.start - timeRange.duration) : segment)
        }
        segments = kept
    }

    private func insert(_ new: AVCompositionTrackSegment) {
        let at = new.timeMapping.target.start
        split(at: at)
        let shift = new.timeMapping.target.duration
        var result: [AVCompositionTrackSegment] = []
        var inserted = false
        for segment in segments {
            let target = segment.timeMapping.target
            if !inserted, target.start >= at { result.append(new); inserted = true }
            result.append(target.start >= at ? segment.moved(to: target.start + shift) : segment)
        }
        if !inserted { result.append(new) }
        segments = result
    }

    private func split(at time: CMTime) {
        guard let index = segments.firstIndex(where: { $0.timeMapping.target.start < time && time < $0.timeMapping.target.end }) else { return }
        let segment = segments[index]
        segments.replaceSubrange(index...index, with: [segment.cut(segment.timeMapping.target.start, time),
                                                       segment.cut(time, segment.timeMapping.target.end)])
    }
}

/// `AVComposition`: an immutable composition, `Sendable` (`NS_SWIFT_SENDABLE`).
open class AVComposition: AVAsset, @unchecked Sendable {
    public fileprivate(set) var tracks: [AVCompositionTrack] = []
    /// The latest end of any track.
    public var duration: CMTime { tracks.map(\.timeRange.end).max() ?? .zero }
}

/// `AVMutableComposition`. Not `Sendable` (`NS_SWIFT_NONSENDABLE`); hand a player an immutable
/// `copy()`.
open class AVMutableComposition: AVAsset {
    public private(set) var tracks: [AVMutableCompositionTrack] = []
    private var nextTrackID: CMPersistentTrackID = 1

    public override init() {}

    public var duration: CMTime { tracks.map(\.timeRange.end).max() ?? .zero }

    /// `addMutableTrack(withMediaType:preferredTrackID:)`.
    public func addMutableTrack(withMediaType mediaType: AVMediaType, preferredTrackID: CMPersistentTrackID) -> AVMutableCompositionTrack? {
        let id = preferredTrackID != kCMPersistentTrackID_Invalid && !tracks.contains { $0.trackID == preferredTrackID }
            ? preferredTrackID : nextTrackID
        nextTrackID = max(nextTrackID, id) + 1
        let track = AVMutableCompositionTrack(mediaType: mediaType, trackID: id)
        tracks.append(track)
        return track
    }

    /// `removeTimeRange(_:)` of every track.
    public func removeTimeRange(_ timeRange: CMTimeRange) {
        for track in tracks { track.removeTimeRange(timeRange) }
    }

    /// `copy()`: an immutable `AVComposition` with the same tracks as now.
    public func copy() -> Any {
        let copy = AVComposition()
        copy.tracks = tracks.map { track in
            let frozen = AVCompositionTrack(mediaType: track.mediaType, trackID: track.trackID)
            frozen.segments = track.segments
            frozen.preferredTransform = track.preferredTransform
            return frozen
        }
        return copy
    }
}
#endif
