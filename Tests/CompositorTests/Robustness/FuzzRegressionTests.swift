import Foundation
import Testing
import CompositorTestSupport
import CompositorMP4TestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// Every crash, hang or oversized allocation the fuzzers (Tests/Fuzz) found, fed back byte for
/// byte from Tests/Fuzz/regressions/TARGET/, with what must happen instead.
@Suite("Fuzz regressions")
struct FuzzRegressionTests {
    /// The MP4 regression `name` read and planned as the fuzz target does (`Robust.exerciseMP4`):
    /// it must read, and give an outcome for each of its plans (two sets of pieces in each cut
    /// mode). Returns the path the outcomes name.
    private func mp4Plans(_ name: String) throws -> (path: String, plans: [String]) {
        try Robust.withFile(try Robust.regression("mp4", name)) { path in
            let outcome = Robust.exerciseMP4(path)
            #expect(outcome.readError == nil)
            #expect(outcome.planOutcomes.count == 2 * MP4CutMode.allCases.count)
            return (path, outcome.planOutcomes)
        }
    }

    /// The packaging regression `name` run as the fuzz target runs it (`PackagingFuzzHarness`, in a
    /// scratch folder removed after): no invariant may break. Returns its outcome.
    private func packagingOutcome(_ name: String) throws -> PackagingFuzzHarness.Outcome {
        let scratch = try MP4Fixtures.makeScratchFolder("packaging-regression")
        defer { MP4Fixtures.remove(scratch) }
        let outcome = PackagingFuzzHarness.run(try Robust.regression("packaging", name), scratch: FilePath(scratch))
        #expect(outcome.broken == [], "\(name)")
        return outcome
    }

    /// A movie whose audio track presents nowhere inside the piece's range (its presentation
    /// ends before the range starts). Keyframe-aligned planning crashed looking for another piece's audio
    /// description to make silence with; the piece's own audio description serves.
    @Test("keyframe cuts of a piece whose audio misses its range fill it with silence")
    func keyframeAudioOutsideRange() throws {
        let (_, plans) = try mp4Plans("keyframe-audio-outside-range-856d11fc")
        #expect(plans.allSatisfy { $0.contains(": planned ") }, "\(plans)")
    }

    /// Video at 1 397 575 746 ticks per second and an edit list in milliseconds: after snapping,
    /// the piece's range is [2048/1397575746 s, 0.6 s), whose two timescales have no common
    /// multiple in 32 bits. Taking the range's duration trapped; it is a typed overflow now.
    @Test("a range whose ends have no common timescale is a time overflow, not a trap")
    func rangeDurationOverflow() throws {
        let (path, plans) = try mp4Plans("range-duration-overflow-60e62644")
        for plan in plans {
            #expect(plan.contains("\(path): time overflow: no common timescale for "), "\(plan)")
        }
    }

    /// A 5 KB file whose audio edit claims 4 194 239 s (48 days) over 0.6 s of samples: filling
    /// the rest with silence wanted 32 million frame records in memory (out of memory under the
    /// fuzzer's limit). A fill is now bounded, and the piece refused, before anything is allocated.
    @Test("silence for a duration the file only claims is bounded, and the piece refused")
    func silenceForClaimedDuration() throws {
        let (path, plans) = try mp4Plans("silence-for-claimed-duration-d271a7a6")
        for plan in plans {
            #expect(plan.contains("piece 0 (\(path)): its audio is missing for "), "\(plan)")
            #expect(plan.hasSuffix("more than the \(LayoutContext.maximumSilentFrames) the stitcher makes"), "\(plan)")
        }
    }

    /// Schedules whose clip or ad ranges have ends in timescales with no common multiple in 32
    /// bits (a start of 31.1 s against a natural duration of 2^62 s, an end of 1001/30000 s
    /// against a start of 0.000002 s after clamping): taking the range's duration trapped. Every
    /// time of a composition is now a whole tick of one timescale (`Composition.timescale`), and
    /// these schedules also hold a natural duration of 2^62 s, which no timescale fine enough for
    /// their other times counts in Int64: a typed overflow naming the item whose time does not fit
    /// (in c8b0ddb0 now 'a1', the 2^62 s ad, against ticks of 1/1000000 s).
    @Test("ranges whose ends have no common timescale are a typed overflow naming the item", arguments: [
        ("clip-duration-no-common-timescale-b4ee152d.json", "ext))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))))ra"),
        ("segment-duration-no-common-timescale-c5a66fdb.json", "break-2-ad-1"),
        ("segment-duration-no-common-timescale-c8b0ddb0.json", "a1"),
    ])
    func scheduleRangeWithoutCommonTimescale(name: String, item: String) throws {
        let schedule = try ScheduleDocument.decode(try Robust.regression("schedule", name), baseFolder: "/media")
        #expect { try Composition(schedule: schedule, naturalDurations: Robust.fuzzNaturalDurations(schedule)) } throws: { error in
            guard case .timeOverflow(item: let named, _) = error as? ScheduleError else { return false }
            return named == item
        }
    }

    /// ```
    /// composition  |-- content 31 s.. --|-- ad a4: 2^62 s --|
    ///                                   ^ quartile points: start + 2^62/4 s, ...
    /// ```
    /// An ad whose source claims 2^62 s (a lying MP4 can): its first quartile, start + duration/4
    /// in quarter ticks, overflowed 64 bits and trapped while playing. It is taken to the nearest
    /// tick of the ad's own timescale instead, and playback reaches the end.
    @Test("quartiles of an enormous ad are computed, not trapped on")
    func quartileOfHugeAd() throws {
        let schedule = try ScheduleDocument.decode(try Robust.regression("schedule", "quartile-of-huge-ad-05fbd2de.json"), baseFolder: "/media")
        let log = try Robust.fuzzPlayback(schedule)
        #expect(log.contains { if case .event(let event) = $0, case .adQuartile = event.kind { return true } else { return false } }, "\(log)")
    }

    /// `play 2305843009213693951` over a composition whose times are in 1/30000 s and the like: the
    /// remaining duration minus a step had no common timescale in 32 bits, and the action was
    /// refused where it got to. Steps are now on the composition's grid, whose arithmetic is exact
    /// (issue 13): the play goes on, from the seek to half the composition, through what follows
    /// (3b0e9320's content lasts 2^62 s, so 2^61 s of play reach its post-roll's quartiles; 005966fa
    /// ends).
    @Test("a play action of 2^61 s plays on, not trapped on, not refused", arguments: [
        ("play-step-overflow-3b0e9320.json", "adQuartile"), ("play-remaining-overflow-005966fa.json", "ended"),
    ])
    func playOverflow(name: String, lastEvent: String) throws {
        let schedule = try ScheduleDocument.decode(try Robust.regression("schedule", name), baseFolder: "/media")
        let log = try Robust.fuzzPlayback(schedule)
        #expect(!log.contains { if case .refused(action: 7, _) = $0 { true } else { false } }, "\(log.map(logLine))")
        guard case .event(let last)? = log.last else { Issue.record("\(log.map(logLine))"); return }
        #expect(last.name == lastEvent, "\(log.map(logLine))")
    }

    /// `#EXT-X-PROGRAM-DATE-TIME:6024-03-01T09:00:00.000345678Z`: nanoseconds since 1970 for a
    /// date past 2262 overflowed 64 bits and trapped. The tag is refused on its line instead.
    @Test("a program date-time past 2262 with nanoseconds is refused, not trapped on")
    func programDateTimeNanoseconds() throws {
        let bytes = try Robust.regression("hls", "program-date-time-nanoseconds-year-6024-981c8fce.m3u8")
        #expect { try HLSPlaylistParser().parse(bytes, url: "https://cdn.example/path/to/index.m3u8") } throws: { error in
            guard let error = error as? HLSParseError, error.line == 7,
                  case .invalidTagValue(tag: "EXT-X-PROGRAM-DATE-TIME", let reason) = error.problem else { return false }
            return reason.contains("too far from 1970")
        }
    }

    /// A 0.6 s movie whose video frames last hours by their stts deltas: keyframe-aligned cuts
    /// copy whole frames, so the output would run for the frames' length (by design), with 819 197
    /// frames of silence to match: 12 s of planning a 9 MB header for a 4 KB input (a fuzzer
    /// timeout). Fills now stop at `maximumSilentFrames` (2^18), refused before any is made;
    /// sample-accurate cuts, which hide the excess with the edit, still plan.
    @Test("keyframe cuts of frames that last hours are refused, not planned for seconds")
    func keyframeVideoFrameLastsHours() throws {
        let (_, plans) = try mp4Plans("keyframe-video-frame-lasts-hours-37d5749e")
        for plan in plans where plan.hasPrefix("sampleAccurate") {
            #expect(plan.contains(": planned "), "\(plan)")
        }
        for plan in plans where plan.hasPrefix("keyframeAligned") || plan.hasPrefix("webSafe") {
            #expect(plan.hasSuffix("takes 819197 frames, more than the \(LayoutContext.maximumSilentFrames) the stitcher makes"), "\(plan)")
        }
    }

    /// A 2 KB movie in whole seconds whose video, 4 frames of 1024 ticks at a timescale of
    /// 1 952 805 376, is shown by an edit for 2 600 468 880 s (82 years): 5.1 × 10^18 ticks, and the
    /// whole movie followed by its second half added up past 2^63. Every track is now bounded by
    /// `maximumTrackTicks` (2^60) before any run is placed, and the piece that passes it refused.
    @Test("a track longer than 2^60 ticks is refused, in both cut modes, not summed past 64 bits")
    func editLastsDecades() throws {
        let (path, plans) = try mp4Plans("edit-lasts-82-years-52148b4c")
        for plan in plans {
            #expect(plan.contains("(\(path)): its video would take the output track past 2^60 ticks of 1/1952805376 s "
                                  + "(590392426 s), the most one track may span"), "\(plan)")
        }
    }

    /// An HEVC clip one of whose samples holds `00 00 01` inside a NAL unit (emulation
    /// prevention missing). Packaging copies samples as they are (as ffmpeg does), so its TS
    /// segments carry a start code where none was meant, and reading them back splits the unit
    /// there: a typed error naming the segment file and byte, not a crash. The fuzz target takes
    /// such sources out of its round-trip check; fragmented MP4 segments, which carry lengths,
    /// read back.
    @Test("a sample holding an unescaped start code packages, and its TS segments are refused on reading, naming where")
    func unescapedStartCodeInSample() throws {
        let outcome = try packagingOutcome("unescaped-start-code-in-sample-a2482ce1")
        #expect(outcome.steps.contains { $0.hasPrefix("MPEG-TS: ") && $0.contains(" segments, ") }, "\(outcome.steps)")
        #expect(outcome.steps.contains { $0.hasPrefix("MPEG-TS segments do not read back: video sample ") && $0.hasSuffix(" has a NAL unit Annex B cannot carry") },
                "\(outcome.steps)")
        #expect(outcome.steps.contains { $0.hasPrefix("fragmented MP4: ") && $0.contains(" segments, ") }, "\(outcome.steps)")
    }

    /// An HEVC clip whose audio edit starts at media time 66,560 (8.3 s at 8 kHz), after its
    /// 0.8 s of samples. Packaging put every frame before the first segment's start, as priming,
    /// and reading the TS segments back refused audio that ends before the playlist starts. Such
    /// a track presents nothing: both containers refuse it now, naming its `elst`.
    @Test("a track whose edit starts after its samples end is refused for packaging, naming its edit list")
    func audioEditPastItsSamples() throws {
        let outcome = try packagingOutcome("audio-edit-past-its-samples-e8428de7")
        #expect(outcome.steps.count == 2)
        for step in outcome.steps {
            #expect(step.contains("unsupported MP4 at moov/trak[1]/edts/elst (byte 3422): its edit starts at media time 66560 (1/8000 s)"), "\(step)")
            #expect(step.hasSuffix("where the track's 8 samples have ended (7424): it presents none of them, so there is nothing of it "
                                   + "to package; remove the edit list, or the track"), "\(step)")
        }
    }

    /// A clip whose `ctts` gives its fourth video sample an offset of -1,174,405,120 ticks: it is
    /// presented long before the track's first decode. Fragments carry the offsets as they are,
    /// and reading them back refused the sample. Fragmented MP4 packaging refuses such a source
    /// now, naming its `ctts`; TS segments (whose timestamps the packager sets) still package.
    @Test("fMP4 packaging refuses a sample presented before the track's first decode, naming the ctts")
    func presentedBeforeFirstDecode() throws {
        let outcome = try packagingOutcome("presented-before-first-decode-0d7ee633")
        #expect(outcome.steps.count == 2)
        #expect(outcome.steps.last?.hasPrefix("fragmented MP4: ") == true, "\(outcome.steps)")
        #expect(outcome.steps.last?.contains("/mdia/minf/stbl/ctts") == true, "\(outcome.steps)")
        #expect(outcome.steps.last?.hasSuffix("before the track's first decode time (0); fragmented MP4 segments of it would not read back here") == true,
                "\(outcome.steps)")
    }

    /// An HEVC clip without a video edit list (its `edts` renamed), so its video presents from
    /// 0.2 s, the first frame's composition offset, while its audio starts at 0. Its first
    /// keyframe was taken for a segment start, leaving the first segment ([0, 0.2 s) at a target
    /// of 0.2 s) with audio and no video, and reading the TS segments back refused video that
    /// does not start with the first segment. The first segment now holds the first keyframe.
    @Test("video that starts after the audio is in the first segment, not after an audio-only one")
    func videoStartsAfterAudio() throws {
        let outcome = try packagingOutcome("video-starts-after-audio-8f091064")
        #expect(outcome.steps.count == 2 && outcome.steps.allSatisfy { $0.contains(" segments, ") }, "\(outcome.steps)")
        let packaging = try Robust.withFile(try Robust.regression("packaging", "video-starts-after-audio-8f091064")) { path in
            try MP4Packaging(path: FilePath(path), container: .mpegTS, targetDuration: MediaTime(value: 1, timescale: 5))
        }
        #expect(packaging.segments.first?.range == MediaTimeRange(start: .zero, end: MediaTime(value: 6144, timescale: 10240)))
        #expect(packaging.segments.first?.video == 0..<1)
    }

    /// An HEVC clip whose audio `mdhd` says 878,780,224 ticks a second: its AAC frames of 1,024
    /// ticks are less than a microsecond apart, and on MPEG-TS's 90 kHz clock they shared
    /// timestamps, which reading the segments back refused. TS packaging refuses samples closer
    /// than a 90 kHz tick now, naming the `stts`; fragmented MP4 keeps the track's timescale.
    @Test("TS packaging refuses samples closer than a 90 kHz tick, naming the stts; fMP4 packages them")
    func audioFramesCloserThanATick() throws {
        let outcome = try packagingOutcome("audio-frames-closer-than-a-tick-7d629d7e")
        #expect(outcome.steps.count == 2)
        #expect(outcome.steps.first?.contains("unsupported MP4 at moov/trak[1]/mdia/minf/stbl/stts") == true, "\(outcome.steps)")
        #expect(outcome.steps.first?.hasSuffix("samples 1 and 2 decode 1024 ticks of 1/878780224 s apart, less than a 90 kHz tick, "
                                               + "which MPEG-TS timestamps need between them; package as fragmented MP4") == true, "\(outcome.steps)")
        #expect(outcome.steps.last?.hasPrefix("fragmented MP4: ") == true && outcome.steps.last?.contains(" segments, ") == true, "\(outcome.steps)")
    }

    /// An HEVC clip one of whose video samples holds no picture, only a delimiter or parameter
    /// sets (a mutated NAL header). Packaging wrote it as a PES packet of its own, and reading the
    /// TS back refused a video PES packet without a picture. Such a sample is left out of TS
    /// segments now: it shows nothing new, so the picture before it stays up, as it would have.
    @Test("a video sample without a picture is left out of TS segments, which read back")
    func videoSampleWithoutAPicture() throws {
        let outcome = try packagingOutcome("video-sample-without-a-picture-a4d6012b")
        #expect(outcome.steps.count == 2 && outcome.steps.allSatisfy { $0.contains(" segments, ") }, "\(outcome.steps)")
    }

    /// An HEVC clip whose audio `stts` gives its first frame 394,240 ticks (49 s at 8 kHz): only
    /// that frame starts inside the presentation, and as an ADTS frame it lasts 1,024 samples,
    /// ending at 0 s, where the video's first picture is. A reader of TS segments starts the
    /// playlist there, and refused audio that ends before it starts. TS packaging refuses such
    /// audio now; fragmented MP4, whose frames keep their durations, packages it.
    @Test("TS packaging refuses audio that ends before the video's first picture; fMP4 packages it")
    func audioEndsBeforeTheVideo() throws {
        let outcome = try packagingOutcome("audio-ends-before-the-video-2c41f59a")
        #expect(outcome.steps.count == 2)
        #expect(outcome.steps.first?.hasSuffix("unsupported MP4 at moov/trak[1] (byte 3314): its audio, as ADTS frames of 1,024 samples, "
                                               + "ends at 00:00.000, before the video's first picture at 00:00.000, where MPEG-TS segments "
                                               + "start: none of it would play; package as fragmented MP4") == true, "\(outcome.steps)")
        #expect(outcome.steps.last?.hasPrefix("fragmented MP4: ") == true && outcome.steps.last?.contains(" segments, ") == true, "\(outcome.steps)")
    }

    /// An H.264 clip whose `stss` no longer names its first sample: the first segment began with
    /// a picture that TS packaging, giving parameter sets to keyframes only, wrote without its
    /// SPS and PPS, and reading the segments back refused a picture before any. Each segment's
    /// first picture gets them now.
    @Test("the first picture of a TS segment gets the parameter sets, keyframe or not")
    func firstSampleNotAKeyframe() throws {
        let outcome = try packagingOutcome("first-sample-not-a-keyframe-2c6c59d5")
        #expect(outcome.steps.count == 2 && outcome.steps.allSatisfy { $0.contains(" segments, ") }, "\(outcome.steps)")
    }

    /// A clip whose audio `mdhd` says 14,775,907 ticks a second: its AAC frames of 1,024 ticks are
    /// 69 µs apart, six 90 kHz ticks but less than a sample at its 8 kHz (125 µs). A reader of TS
    /// segments counts audio in samples, found two frames on one sample, and refused the second.
    /// It places a frame stamped after the one before a sample after it now (as a looped clip's
    /// last frame of a sample needs), so the segments read back.
    @Test("audio frames closer than a sample but stamped apart package into TS segments that read back")
    func audioFramesCloserThanASample() throws {
        let outcome = try packagingOutcome("audio-frames-closer-than-a-sample-775a8070")
        #expect(outcome.steps.count == 2 && outcome.steps.allSatisfy { $0.contains(" segments, ") }, "\(outcome.steps)")
    }

    /// A clip whose AAC frames decode 512 samples apart, each lasting 1,024: they overlap. Reading
    /// its TS segments back snapped every other frame to the grid and found the next one on it,
    /// and refused it; a frame stamped after the one before now starts at least a sample after
    /// it, so they read back (fragmented MP4 keeps the durations as they are).
    @Test("overlapping AAC frames package into TS segments that read back")
    func overlappingAudioFrames() throws {
        let outcome = try packagingOutcome("overlapping-audio-frames-e9bd03aa")
        #expect(outcome.steps.count == 2 && outcome.steps.allSatisfy { $0.contains(" segments, ") }, "\(outcome.steps)")
    }

    /// A clip with an audio sample of 0 bytes: TS packaging wrote an ADTS header with nothing
    /// after it, and reading the segments back refused a frame no longer than its header. An empty
    /// sample is no AAC frame; it is left out of TS segments now (a gap of its length).
    @Test("an empty audio sample is left out of TS segments, which read back")
    func emptyAudioSample() throws {
        let outcome = try packagingOutcome("empty-audio-sample-da443c36")
        #expect(outcome.steps.count == 2 && outcome.steps.allSatisfy { $0.contains(" segments, ") }, "\(outcome.steps)")
    }

    /// A clip whose tracks' timescales (26,738,813 and 942,725 ticks a second, both mutated) share
    /// no common timescale within 32 bits. Fragmented MP4 segments keep them, and reading the
    /// segments back refuses to mix their times with a typed time overflow, as the time rules say.
    /// The fuzz target takes such segments out of its round-trip check; this shows the refusal.
    @Test("fMP4 segments of tracks without a common timescale are refused on reading with a time overflow, not a trap")
    func timescalesWithoutACommonOne() throws {
        let outcome = try packagingOutcome("timescales-without-a-common-one-fb6a9bb1")
        #expect(outcome.steps.contains { $0.hasPrefix("fragmented MP4 segments do not read back: ") && $0.contains("no common timescale") },
                "\(outcome.steps)")
    }

    /// A clip whose `ctts` offsets span more than 2^31 ticks of 90 kHz (over 6.6 hours): TS
    /// packaging wrote a picture's PTS that far from its DTS, past what a reader unwraps, and
    /// reading the segments back refused it. TS packaging refuses such offsets now, naming the
    /// `ctts`; fragmented MP4 carries them.
    @Test("TS packaging refuses composition offsets that span hours, naming the ctts")
    func compositionOffsetsSpanHours() throws {
        let outcome = try packagingOutcome("composition-offsets-span-hours-357e5cf1")
        #expect(outcome.steps.first?.contains("/mdia/minf/stbl/ctts") == true, "\(outcome.steps)")
        #expect(outcome.steps.first?.hasSuffix("(2^31 ticks of 90 kHz, about 6.6 hours); package as fragmented MP4") == true, "\(outcome.steps)")
    }

    /// `<?xml?><AdTitle>…`: libxml2 hands a processing instruction without data to Foundation's
    /// XMLParser as a null pointer, which it reads with strlen (SEGV on Linux). Refused before it.
    @Test("an ad document with a processing instruction without data is refused, not a crash")
    func processingInstructionWithoutData() throws {
        let bytes = try Robust.regression("vast", "pi-without-data.xml")
        for document in [bytes, Array("<VAST version=\"4.0\"><?x ?></VAST>".utf8)] {
            do {
                _ = try VASTDocument(parsing: document)
                Issue.record("read")
            } catch {
                #expect(error.code == .xmlParsing && error.reason == "a processing instruction without data (<?name?>), which this reader does not take",
                        "\(error)")
            }
        }
        // With data, and the declaration, it is read as before.
        #expect(throws: Never.self) {
            _ = try VASTDocument(parsing: Array("<?xml version=\"1.0\"?><VAST version=\"4.0\"><?x y?></VAST>".utf8))
        }
    }
}
