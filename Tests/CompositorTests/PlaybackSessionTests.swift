import Testing
import CompositorTestSupport
import CompositorUmbrellaTestSupport
@testable import Compositor
@testable import CompositorCore
@testable import CompositorHLS
@testable import CompositorIO
@testable import CompositorMP4
import CompositorTesting

/// The reference sample app (REFERENCE.md) played through, then rewound and played again.
///
/// ```
/// composition 0  5       28   45   62      82    107     128  143     169       249   294
///             |pre|A 0-23 |pod1|pod2|A 23-43|once |A 43-64|stky|A 64-90|B 0-80   |post |
/// ```
@Suite("Playback session: the reference sample")
struct ReferencePlaybackTests {
    @Test("playing through gives the exact event log")
    func playThrough() throws {
        let log = try simulate(try fixtureSchedule("reference-sample.json"), "play 400", quartiles: true)
        #expect(log == [
            "0 0 breakStarted pre first", "0 0 adStarted pre-ad 1/1",
            "1.25 0 adQuartile pre-ad q1", "2.5 0 adQuartile pre-ad q2", "3.75 0 adQuartile pre-ad q3",
            "5 0 adEnded pre-ad", "5 0 breakEnded pre", "5 0 contentResumed",
            "28 23 breakStarted pod first", "28 23 adStarted pod-1 1/2",
            "32.25 23 adQuartile pod-1 q1", "36.5 23 adQuartile pod-1 q2", "40.75 23 adQuartile pod-1 q3",
            "45 23 adEnded pod-1", "45 23 adStarted pod-2 2/2",
            "49.25 23 adQuartile pod-2 q1", "53.5 23 adQuartile pod-2 q2", "57.75 23 adQuartile pod-2 q3",
            "62 23 adEnded pod-2", "62 23 breakEnded pod", "62 23 contentResumed",
            "82 43 breakStarted once first", "82 43 adStarted once-ad 1/1",
            "88.25 43 adQuartile once-ad q1", "94.5 43 adQuartile once-ad q2", "100.75 43 adQuartile once-ad q3",
            "107 43 adEnded once-ad", "107 43 breakEnded once",
            // The once break leaves: the playhead keeps content 43, now at composition 82.
            "82 43 compositionChanged 294->269", "82 43 contentResumed",
            "103 64 breakStarted sticky first", "103 64 adStarted sticky-ad 1/1",
            "106.75 64 adQuartile sticky-ad q1", "110.5 64 adQuartile sticky-ad q2", "114.25 64 adQuartile sticky-ad q3",
            "118 64 adEnded sticky-ad", "118 64 breakEnded sticky", "118 64 contentResumed",
            "224 170 breakStarted post first", "224 170 adStarted post-ad 1/1",
            "235.25 170 adQuartile post-ad q1", "246.5 170 adQuartile post-ad q2", "257.75 170 adQuartile post-ad q3",
            "269 170 adEnded post-ad", "269 170 breakEnded post", "269 170 ended",
        ])
    }

    @Test("rewinding: sticky breaks play again (not first), the once break does not")
    func rewind() throws {
        let log = try simulate(try fixtureSchedule("reference-sample.json"), "play 400; seek content 0; play 400")
        let second = Array(log.drop { $0 != "269 170 ended" }.dropFirst())
        #expect(second == [
            // Content 0 is the sticky pre-roll's position: seeking exactly onto a break plays it.
            "0 0 seekAdjusted 5->0", "0 0 breakStarted pre", "0 0 adStarted pre-ad 1/1", "5 0 adEnded pre-ad",
            "5 0 breakEnded pre", "5 0 contentResumed",
            "28 23 breakStarted pod", "28 23 adStarted pod-1 1/2", "45 23 adEnded pod-1", "45 23 adStarted pod-2 2/2",
            "62 23 adEnded pod-2", "62 23 breakEnded pod", "62 23 contentResumed",
            "103 64 breakStarted sticky", "103 64 adStarted sticky-ad 1/1", "118 64 adEnded sticky-ad",
            "118 64 breakEnded sticky", "118 64 contentResumed",
            "224 170 breakStarted post", "224 170 adStarted post-ad 1/1", "269 170 adEnded post-ad",
            "269 170 breakEnded post", "269 170 ended",
        ])
    }

    @Test("seeking back to composition 0 plays the sticky pre-roll again")
    func rewindToStart() throws {
        let log = try simulate(try fixtureSchedule("reference-sample.json"), "play 10; seek composition 0; play 1")
        #expect(log.suffix(2) == ["0 0 breakStarted pre", "0 0 adStarted pre-ad 1/1"])
    }
}

/// ```
/// content      0 ---- 20 ---- 40 ---- 60 -------- 100
/// composition  0      20|a20|40|a40|60|a60|       130
///                       30      50     70 (content resumes, each 10 s later)
/// ```
@Suite("Playback session: snapback")
struct SnapbackTests {
    @Test("each policy, on a seek from 5 to content 70 across three unplayed breaks", arguments: [
        (SnapbackPolicy.none, [String]()),
        (.lastUnplayed, ["b60"]),
        (.firstUnplayed, ["b20"]),
        (.allUnplayed, ["b20", "b40", "b60"]),
    ])
    func policies(policy: SnapbackPolicy, played: [String]) throws {
        let log = try simulate(try threeBreaks(), "play 5; seek content 70; play 40", snapback: policy)
        let breaks = log.filter { $0.contains("breakStarted") }.map { String($0.split(separator: " ")[3]) }
        #expect(breaks == played)
        // Wherever it went first, content resumes exactly at the user's target: content 70.
        if policy == .none {
            // No snapback: the seek lands on content 70 (composition 100) as asked, and plays to the end.
            #expect(log == ["130 100 ended"])
        } else {
            #expect(log.contains("100 70 contentResumed"))
        }
    }

    @Test("last unplayed: the break plays, then the target; the adjustment is reported")
    func lastUnplayed() throws {
        #expect(try simulate(try threeBreaks(), "play 5; seek content 70; play 15") == [
            "80 60 seekAdjusted 100->80", "80 60 breakStarted b60 first", "80 60 adStarted a60 1/1",
            "90 60 adEnded a60", "90 60 breakEnded b60", "100 70 contentResumed",
        ])
    }

    @Test("played breaks are not snapped back to; a seek backwards never snaps back")
    func playedBreaks() throws {
        let log = try simulate(try threeBreaks(), "play 35; seek content 50; seek content 10; seek content 30")
        // play 35 plays b20 (20-30) and stops at composition 35 (content 25).
        #expect(log.suffix(5) == [
            "50 40 seekAdjusted 70->50", "50 40 breakStarted b40 first", "50 40 adStarted a40 1/1",
            // Seeking out of b40 skips it; back to 10 and forward to 30: b20 is played, nothing snaps.
            "50 40 adEnded a40 skipped", "60 40 breakEnded b40 skipped",
        ])
    }

    @Test("seeking exactly onto a break's position plays the break, then resumes there")
    func exactlyOnto() throws {
        #expect(try simulate(try threeBreaks(), "seek content 40; play 12", snapback: .none) == [
            "50 40 seekAdjusted 60->50", "50 40 breakStarted b40 first", "50 40 adStarted a40 1/1",
            "60 40 adEnded a40", "60 40 breakEnded b40", "60 40 contentResumed",
        ])
    }

    @Test("a seek into the middle of an ad starts its break from the beginning")
    func intoAnAd() throws {
        #expect(try simulate(try threeBreaks(), "seek composition 55; play 1", snapback: .none) == [
            "50 40 seekAdjusted 55->50", "50 40 breakStarted b40 first", "50 40 adStarted a40 1/1",
        ])
    }

    @Test("a composition seek just after a break lands there, with snapback to it")
    func compositionSeekAfterBreak() throws {
        #expect(try simulate(try threeBreaks(), "seek composition 60", snapback: .none) == [])
        #expect(try simulate(try threeBreaks(), "seek composition 60") == [
            "50 40 seekAdjusted 60->50", "50 40 breakStarted b40 first", "50 40 adStarted a40 1/1",
        ])
    }
}

@Suite("Playback session: once and sticky")
struct PolicyTests {
    @Test("a seek across an unplayed once break, play to the end, rewind, play again")
    func onceAcrossSeek() throws {
        let log = try simulate(try threeBreaks(policy: .once), "seek content 50; play 100; seek content 0; play 200")
        #expect(log.prefix(8) == [
            "50 40 seekAdjusted 70->50", "50 40 breakStarted b40 first", "50 40 adStarted a40 1/1",
        ] + [
            "60 40 adEnded a40", "60 40 breakEnded b40",
            "50 40 compositionChanged 130->120", "60 50 contentResumed",
            "70 60 breakStarted b60 first",
        ])
        // After the rewind only b20 (never played) remains ahead; b40 and b60 are gone.
        let afterRewind = Array(log.drop { $0 != "110 100 ended" }.dropFirst())
        #expect(afterRewind.filter { $0.contains("breakStarted") } == ["20 20 breakStarted b20 first"])
        #expect(afterRewind.last == "100 100 ended")
    }

    @Test("the end: content end, post-roll, ended; a seek back clears it")
    func ending() throws {
        var schedule = try threeBreaks()
        try schedule.appendBreak(AdBreak(id: "post", placement: .postroll, ads: [Ad(id: "p", source: "ad.mp4", end: s(5))]))
        let log = try simulate(schedule, "seek composition 125; play 30; seek composition 0; play 21")
        #expect(log == [
            // Snapback (the default) plays b60 first, then lands on the target, composition 125.
            "80 60 seekAdjusted 125->80", "80 60 breakStarted b60 first", "80 60 adStarted a60 1/1",
            "90 60 adEnded a60", "90 60 breakEnded b60", "125 95 contentResumed",
            "130 100 breakStarted post first", "130 100 adStarted p 1/1", "135 100 adEnded p", "135 100 breakEnded post",
            "135 100 ended",
            // Back at the start, playback goes on: b20 has never played.
            "20 20 breakStarted b20 first", "20 20 adStarted a20 1/1",
        ])
    }
}

@Suite("Playback session: skipping, seeking within ads, restrictions")
struct RestrictionTests {
    let restricted = BreakRestrictions(allowsSeekingWithinAd: false, skipping: .after(s(5)))

    @Test("skipping before the restriction is refused; after it, allowed")
    func skip() throws {
        #expect(try simulate(try threeBreaks(restrictions: restricted), "play 22; skip ad; play 4; skip ad; play 1") == [
            "20 20 breakStarted b20 first", "20 20 adStarted a20 1/1",
            "refused 2: ad 'a20' can be skipped after 5 s",
            "26 20 adEnded a20 skipped", "30 20 breakEnded b20 skipped", "30 20 contentResumed",
        ])
    }

    @Test("a never-skippable ad cannot be skipped or left by a seek")
    func never() throws {
        let never = BreakRestrictions(skipping: .never)
        let log = try simulate(try threeBreaks(restrictions: never), "play 22; skip break; seek content 80; play 1")
        #expect(log.contains("refused 2: ad 'a20' cannot be skipped"))
        #expect(log.contains("refused 3: break 'b20' cannot be left before its ads may be skipped"))
    }

    /// ```
    /// composition 0     20 b20 30      50 b40 60        70
    ///             |C 0-20|a20  |C 20-40 |a40  |C 40-50   |C 50 ...
    ///              seek content 50 at 5: snapback to b40; at 53 a seek out of it is refused;
    ///              b40 ends at 60, and the seek goes on to its target, content 50
    /// ```
    @Test("a seek refused during a snapback break keeps the snapback's target")
    func refusedSeekKeepsTarget() throws {
        let never = BreakRestrictions(skipping: .never)
        let log = try simulate(try threeBreaks(restrictions: never), "play 5; seek content 50; play 3; seek content 90; play 8")
        #expect(log.contains("refused 4: break 'b40' cannot be left before its ads may be skipped"))
        #expect(log.suffix(3) == ["60 40 adEnded a40", "60 40 breakEnded b40", "70 50 contentResumed"])
    }

    @Test("seeking within an ad obeys its restriction")
    func seekWithin() throws {
        let allowed = try simulate(try threeBreaks(), "play 22; seek composition 28; play 3")
        #expect(allowed.suffix(3) == ["30 20 adEnded a20", "30 20 breakEnded b20", "30 20 contentResumed"])
        let refused = try simulate(try threeBreaks(restrictions: restricted), "play 22; seek composition 28")
        #expect(refused.last == "refused 2: seeking within ad 'a20' is not allowed")
    }

    @Test("skip break from the first ad of a pod ends the whole pod")
    func skipBreak() throws {
        let schedule = try Schedule(
            content: [ContentClip(id: "C", source: "c.mp4", end: s(30))],
            breaks: [AdBreak(id: "pod", placement: .midroll(at: s(10)), ads: [
                Ad(id: "x", source: "ad.mp4", end: s(5)), Ad(id: "y", source: "ad.mp4", end: s(5)),
            ])])
        #expect(try simulate(schedule, "play 11; skip break; play 1").suffix(3) == [
            "11 10 adEnded x skipped", "20 10 breakEnded pod skipped", "20 10 contentResumed",
        ])
        #expect(try simulate(schedule, "play 11; skip ad; play 1").suffix(2) == ["11 10 adEnded x skipped", "15 10 adStarted y 2/2"])
    }
}

@Suite("Playback session: insert now and cancel")
struct InsertNowTests {
    @Test("during content: a new break at the current content time plays at once; content resumes there")
    func duringContent() throws {
        let log = try simulate(try threeBreaks(), "play 12; insert now promo.mp4 0 4; play 6")
        #expect(log == [
            "12 12 compositionChanged 130->134", "12 12 breakStarted inserted-1 first",
            "12 12 adStarted inserted-ad-1 1/1", "16 12 adEnded inserted-ad-1", "16 12 breakEnded inserted-1",
            "16 12 contentResumed",
        ])
    }

    @Test("during a break: the new ad joins the pod right after the playing ad")
    func duringBreak() throws {
        let log = try simulate(try threeBreaks(), "play 23; insert now promo.mp4 0 4; play 12")
        #expect(log.suffix(6) == [
            "23 20 compositionChanged 130->134", "30 20 adEnded a20", "30 20 adStarted inserted-ad-1 2/2",
            "34 20 adEnded inserted-ad-1", "34 20 breakEnded b20", "34 20 contentResumed",
        ])
    }

    @Test("an insertion whose duration is unknown is refused and changes nothing")
    func unknownDuration() throws {
        let log = try simulate(try threeBreaks(), "play 12; insert now promo.mp4; play 10")
        #expect(log.first == "refused 2: 'inserted-ad-1': no end given and the natural duration of promo.mp4 is not known")
        #expect(log.dropFirst().first == "20 20 breakStarted b20 first")
    }

    @Test("cancelling the playing break resumes content at its position")
    func cancelPlaying() throws {
        #expect(try simulate(try threeBreaks(), "play 22; cancel b20; play 1") == [
            "20 20 breakStarted b20 first", "20 20 adStarted a20 1/1",
            "20 20 compositionChanged 130->120", "20 20 contentResumed",
        ])
    }
}

@Suite("Playback session: played state outlives the session")
struct PlayedStateTests {
    @Test("export after a once break played; import resumes at the bookmark without replaying it")
    func bookmark() throws {
        var session = try PlaybackSession(schedule: try threeBreaks(policy: .once))
        var player = SingleItemPlayer(composition: session.composition)
        _ = PlaybackSimulation.run(try PlaybackSimulation.parse("play 45"), session: &session, player: &player)
        let saved = session.playedState
        #expect(saved == PlayedState(playedBreakIDs: ["b20"], bookmark: s(35)))

        let json = saved.json.serialized
        #expect(json == #"{"playedBreaks":["b20"],"bookmark":"35/1"}"#)
        let restored = try PlayedState(json: try JSONValue(parsing: Array(json.utf8)))
        #expect(restored == saved)
        // Resuming at 35: b20 is gone; nothing unplayed lies before the bookmark, so no snapback.
        #expect(try simulate(try threeBreaks(policy: .once), "play 6", playedState: restored) == [
            "40 40 breakStarted b40 first", "40 40 adStarted a40 1/1",
        ])
    }

    @Test("resuming past unplayed breaks plays the last of them first (snapback from the start)")
    func resumeWithSnapback() throws {
        let state = PlayedState(playedBreakIDs: [], bookmark: s(50))
        #expect(try simulate(try threeBreaks(), "play 11", playedState: state) == [
            "50 40 seekAdjusted 70->50", "50 40 breakStarted b40 first", "50 40 adStarted a40 1/1",
            "60 40 adEnded a40", "60 40 breakEnded b40", "70 50 contentResumed",
        ])
    }

    @Test("bad played-state JSON is a typed error that says where")
    func badJSON() throws {
        #expect(throws: ScheduleDocumentError.invalid(path: "playedState.bookmark", reason: "negative bookmark -3 s")) {
            try PlayedState(json: try JSONValue(parsing: Array(#"{"playedBreaks": [], "bookmark": -3}"#.utf8)))
        }
        #expect(throws: ScheduleDocumentError.self) {
            try PlayedState(json: try JSONValue(parsing: Array(#"{"playedBreaks": [1]}"#.utf8)))
        }
    }
}
