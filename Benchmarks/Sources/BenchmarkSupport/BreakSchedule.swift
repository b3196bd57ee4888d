import Compositor

/// A feature at 29.97 fps (timescale 30000) of `contentSeconds`, with `breakCount` mid-rolls of two
/// ads (15 s and 15.015 s) spread evenly over it: the programme the mapping and session benchmarks
/// measure.
public func breakSchedule(breakCount: Int, contentSeconds: Int64) throws -> Schedule {
    let frame: Int64 = 1001
    let contentFrames = contentSeconds * 30000 / frame
    var schedule = Schedule()
    try schedule.appendContentClip(ContentClip(
        id: "feature", source: "feature.mp4", end: MediaTime(value: contentFrames * frame, timescale: 30000)))
    for b in 0..<breakCount {
        let at = MediaTime(value: Int64(b + 1) * contentFrames / Int64(breakCount + 1) * frame, timescale: 30000)
        try schedule.appendBreak(AdBreak(id: "b\(b)", placement: .midroll(at: at), ads: [
            Ad(id: "b\(b)a1", source: "ad1.mp4", end: MediaTime(seconds: 15)),
            Ad(id: "b\(b)a2", source: "ad2.mp4", end: MediaTime(value: 15015, timescale: 1000)),
        ]))
    }
    return schedule
}

/// A measured duration in nanoseconds.
public func nanoseconds(_ duration: Duration) -> Double {
    Double(duration.components.seconds) * 1e9 + Double(duration.components.attoseconds) / 1e9
}
