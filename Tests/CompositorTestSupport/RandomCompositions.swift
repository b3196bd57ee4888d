import CompositorCore

/// Seeded random schedules and their compositions, for property tests: clips with odd timescales
/// (29.97 and 23.976 fps, 44.1 kHz, AVFoundation's 10^9, the prime 2147483647, decimals), pods,
/// pre/mid/post-rolls at clip boundaries and at the ends, replace breaks (`CompositionPropertyTests`,
/// and the tests that reuse its schedules).
package enum RandomCompositions {
    package static let timescales: [Int32] = [1, 600, 1000, 24000, 30000, 44100, 48000, 90000, 1_000_000_000, 2_147_483_647]

    /// A random time of whole ticks in `[0, maxSeconds]`, in a random timescale (whole frames for
    /// the NTSC ones).
    package static func randomTime(maxSeconds: Int64, _ rng: inout SeededGenerator) -> MediaTime {
        let scale = timescales.randomElement(using: &rng)!
        let tick: Int64 = scale == 30000 || scale == 24000 ? 1001 : 1
        let ticks = Int64.random(in: 0...(maxSeconds * Int64(scale) / tick), using: &rng)
        return MediaTime(value: ticks * tick, timescale: scale)
    }

    /// A random instant in `[-1, span + 1]` s, in a random timescale: a player's clock, a command
    /// line's query.
    package static func randomQuery(span: MediaTime, _ rng: inout SeededGenerator) -> MediaTime {
        let scale = timescales.randomElement(using: &rng)!
        let seconds = max(1, span.wholeSeconds(rounding: .up)) + 1
        return MediaTime(value: Int64.random(in: -Int64(scale)...(seconds * Int64(scale)), using: &rng), timescale: scale)
    }

    /// A valid random schedule (retrying the rare ones whose replace breaks overlap or whose
    /// rounded ranges collapse).
    package static func randomSchedule(seed: UInt64) -> (Schedule, Composition) {
        var rng = SeededGenerator(seed: seed)
        while true {
            var clips: [ContentClip] = []
            for i in 0..<Int.random(in: 1...5, using: &rng) {
                let start = randomTime(maxSeconds: 30, &rng)
                let length = randomTime(maxSeconds: 40, &rng) + MediaTime(value: 1, timescale: 1000)
                clips.append(ContentClip(id: "c\(i)", source: MediaLocation(FilePath("c\(i).mp4")), start: start, end: start + length))
            }
            // Sums may round here (no common timescale): only used to place breaks, which the
            // composition checks.
            let contentDuration = clips.reduce(MediaTime.zero) { $0 + ($1.end! - $1.start) }
            var clipBoundaries: [MediaTime] = [.zero]
            for clip in clips { clipBoundaries.append(clipBoundaries.last! + (clip.end! - clip.start)) }

            var breaks: [AdBreak] = []
            for b in 0..<Int.random(in: 0...8, using: &rng) {
                let placement: Placement
                switch Int.random(in: 0..<10, using: &rng) {
                case 0: placement = .preroll
                case 1: placement = .postroll
                case 2, 3: placement = .midroll(at: clipBoundaries.randomElement(using: &rng)!)
                default:
                    let fraction = Int64.random(in: 0...1000, using: &rng)
                    let at = MediaTime(value: contentDuration.value / 1000 * fraction, timescale: contentDuration.timescale)
                    placement = .midroll(at: MediaTime.min(contentDuration, at))
                }
                let ads = (0..<Int.random(in: 1...3, using: &rng)).map { a in
                    Ad(id: "b\(b)a\(a)", source: "ad.mp4", start: .zero,
                       end: randomTime(maxSeconds: 30, &rng) + MediaTime(value: 1, timescale: 48000))
                }
                let offset = Int.random(in: 0..<6, using: &rng) == 0 ? randomTime(maxSeconds: 3, &rng) : .zero
                breaks.append(AdBreak(id: "b\(b)", placement: placement, ads: ads,
                                      policy: Bool.random(using: &rng) ? .once : .sticky, resumeOffset: offset))
            }
            if let schedule = try? Schedule(content: clips, breaks: breaks),
               let composition = try? Composition(schedule: schedule) {
                return (schedule, composition)
            }
        }
    }

    package static func randomComposition(seed: UInt64) -> Composition { randomSchedule(seed: seed).1 }

    /// The seeds the property tests run.
    package static let seeds = 0..<UInt64(1000)
}
