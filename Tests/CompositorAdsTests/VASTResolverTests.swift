import CompositorAds
import CompositorCore
import Testing

/// Resolving VAST: chains followed, pods ordered, failures reported with the right code to every
/// `Error` URL of the chain they happened in.
///
///     pod.xml ── ad a (seq 1) ─ InLine
///             ├─ ad b (seq 2) ─ Wrapper → w1.xml ─ Wrapper → w2.xml ─ InLine b
///             └─ ad c (seq 3) ─ InLine (VPAID only: fails, 403) → filled by the buffet's ad d
@Suite struct VASTResolverTests {
    typealias D = AdDocuments
    let base = "http://127.0.0.1/"

    /// Options whose time limits a test run starved of threads cannot reach (a full parallel run
    /// has left tasks unscheduled for over 10 s); the limits themselves are tested below.
    static var patient: VASTResolver.Options {
        var options = VASTResolver.Options()
        options.hopTimeout = .seconds(600)
        options.totalTimeout = .seconds(600)
        return options
    }

    func resolver(_ server: D.Server, _ options: VASTResolver.Options = patient) -> VASTResolver { VASTResolver(options: options, fetch: server.fetch) }

    @Test func aChainMergesWhatEveryWrapperAsksToBeTold() async throws {
        let server = D.Server([
            base + "top.xml": D.vast(D.wrapper("w1", to: base + "w1.xml")),
            base + "w1.xml": D.vast(D.wrapper("w2", to: "w2.xml")),  // relative: resolved against w1.xml
            base + "w2.xml": D.vast(D.inline("b")),
        ])
        let resolution = await resolver(server).resolve(url: base + "top.xml")
        #expect(resolution.errors == [])
        let ad = try #require(resolution.ads.first)
        #expect(ad.id == "b")
        #expect(ad.duration == MediaTime(seconds: 10))
        #expect(ad.wrappers == [base + "w1.xml", base + "w2.xml"])
        #expect(ad.impressions == [base + "i/w1", base + "i/w2", base + "i/b"])
        #expect(ad.errors == [base + "e/w1?c=[ERRORCODE]", base + "e/w2?c=[ERRORCODE]", base + "e/b?c=[ERRORCODE]"])
        #expect(ad.trackingURLs(.start) == [base + "t/w1/start", base + "t/w2/start", base + "t/b/start"])
        #expect(ad.trackingURLs(.complete) == [base + "t/b/complete"])
        #expect(ad.mediaFile.url == base + "m/b.mp4")
        #expect(server.requests == [base + "top.xml", base + "w1.xml", base + "w2.xml"])
    }

    /// A chain `depth` wrappers deep, to an InLine.
    func chain(depth: Int) -> [String: String] {
        var documents = [base + "c0.xml": D.vast(D.inline("end"))]
        for n in 1...depth { documents[base + "c\(n).xml"] = D.vast(D.wrapper("w\(n)", to: base + "c\(n - 1).xml")) }
        return documents
    }

    @Test func fiveWrappersAreFollowedAndASixthIs302() async throws {
        let five = await resolver(D.Server(chain(depth: 5))).resolve(url: base + "c5.xml")
        #expect(five.ads.map(\.id) == ["end"])
        let six = await resolver(D.Server(chain(depth: 6))).resolve(url: base + "c6.xml")
        #expect(six.ads.isEmpty)
        let report = try #require(six.errors.first)
        #expect(report.error.code == .wrapperLimit)
        #expect(report.urls == (1...6).reversed().map { base + "e/w\($0)?c=[ERRORCODE]" })
        var deeper = Self.patient
        deeper.maximumWrapperDepth = 6
        #expect(await resolver(D.Server(chain(depth: 6)), deeper).resolve(url: base + "c6.xml").ads.count == 1)
    }

    @Test(arguments: [
        // (what the wrapper leads to, the code owed, to which documents' Error URLs)
        ("timeout", VASTErrorCode.wrapperTimeout, ["w"]),
        ("missing", .wrapperGeneral, ["w"]),
        ("invalid", .xmlParsing, ["w"]),
        ("empty", .noAdsAfterWrapper, ["w", "root-of-empty"]),
        ("vast1", .versionNotSupported, ["w"]),
    ])
    func aWrapperThatLeadsNowhere(next: String, code: VASTErrorCode, urls: [String]) async throws {
        let server = D.Server([
            base + "top.xml": D.vast(D.wrapper("w", to: base + next + ".xml")),
            base + "invalid.xml": "<VAST version=\"4.0\"><Ad>",
            base + "empty.xml": D.vast(errors: [base + "e/root-of-empty?c=[ERRORCODE]"]),
            base + "vast1.xml": "<VideoAdServingTemplate/>",
        ], timingOut: [base + "timeout.xml"])
        let resolution = await resolver(server).resolve(url: base + "top.xml", errorURLs: [base + "e/vmap"])
        #expect(resolution.ads.isEmpty)
        #expect(resolution.errors.map(\.error.code) == [code])
        #expect(resolution.errors.first?.urls == [base + "e/vmap"] + urls.map { base + "e/\($0)?c=[ERRORCODE]" })
    }

    @Test func aPodPlaysInSequenceAndTheBuffetFillsAFailedSlot() async throws {
        let server = D.Server([
            base + "pod.xml": D.vast(D.inline("d"), D.inline("c", sequence: 3, apiFramework: "VPAID"), D.wrapper("b", to: base + "b.xml", sequence: 2),
                                     D.inline("a", sequence: 1)),
            base + "b.xml": D.vast(D.inline("b-inline")),
        ])
        let resolution = await resolver(server).resolve(url: base + "pod.xml")
        #expect(resolution.ads.map(\.id) == ["a", "b-inline", "d"])
        #expect(resolution.ads.map(\.sequence) == [1, 2, 3])
        #expect(resolution.errors.map(\.error.code) == [.noSupportedMediaFile])
        #expect(resolution.errors.first?.urls == [base + "e/c?c=[ERRORCODE]"])
        #expect(resolution.errors.first?.error.reason.contains("VPAID unit") == true)
    }

    /// One ad the document gets wrong fails alone (VAST 4.x 2.3.6): issue 68's response, a pod of
    /// one and a stand-alone ad whose `Duration` is `30`, plays its pod; the bad ad is never
    /// reached, so nothing is owed for it.
    /// ```
    /// r.xml ── ad a (seq 1) ─ InLine                      plays
    ///       └─ ad bad       ─ InLine, Duration "30"      stand-alone: not reached
    /// ```
    @Test func aMalformedAdFailsAlone() async throws {
        let bad = D.inline("bad").replacingOccurrences(of: "<Duration>00:00:10</Duration>", with: "<Duration>30</Duration>")
        let server = D.Server([
            base + "r.xml": D.vast(D.inline("a", sequence: 1), bad),
            base + "w.xml": D.vast(D.wrapper("w", to: base + "r.xml", attributes: "allowMultipleAds=\"true\"")),
        ])
        for url in ["r.xml", "w.xml"] {
            let resolution = await resolver(server).resolve(url: base + url)
            #expect(resolution.ads.map(\.id) == ["a"], "\(url)")
            #expect(resolution.errors.isEmpty, "\(url): \(resolution.errors)")
        }
    }

    /// Reached, it is error 101 to its own `Error` URLs (and the chain's), and the buffet fills its slot.
    /// ```
    /// p.xml ── ad a (seq 1) ─ InLine                      plays
    ///       ├─ ad b (seq 2) ─ InLine, Duration 00:00:00   101 → filled by d
    ///       └─ ad d         ─ InLine                      plays as 2
    /// s.xml ── ad x         ─ Wrapper without a tag       101, then y plays
    ///       └─ ad y         ─ InLine
    /// ```
    @Test func aMalformedAdReachedIs101() async throws {
        let zero = D.inline("b", sequence: 2).replacingOccurrences(of: "<Duration>00:00:10</Duration>", with: "<Duration>00:00:00</Duration>")
        let noTag = D.wrapper("x", to: "").replacingOccurrences(of: "<VASTAdTagURI></VASTAdTagURI>", with: "")
        let server = D.Server([base + "p.xml": D.vast(D.inline("a", sequence: 1), zero, D.inline("d")),
                               base + "s.xml": D.vast(noTag, D.inline("y"))])
        let pod = await resolver(server).resolve(url: base + "p.xml", errorURLs: [base + "break?c=[ERRORCODE]"])
        #expect(pod.ads.map(\.id) == ["a", "d"])
        #expect(pod.ads.map(\.sequence) == [1, 2])
        #expect(pod.errors.map(\.error.code) == [.schemaValidation])
        #expect(pod.errors.first?.urls == [base + "break?c=[ERRORCODE]", base + "e/b?c=[ERRORCODE]"])
        #expect(pod.errors.first?.error.description == "http://127.0.0.1/p.xml: line 9: Duration '00:00:00' is 0: a linear ad lasts some time (VAST error 101)")

        let standAlone = await resolver(server).resolve(url: base + "s.xml")
        #expect(standAlone.ads.map(\.id) == ["y"])
        #expect(standAlone.errors.map(\.error.code) == [.schemaValidation])
        #expect(standAlone.errors.first?.error.reason == "a Wrapper without VASTAdTagURI")
        #expect(standAlone.errors.first?.urls == [base + "e/x?c=[ERRORCODE]"])
    }

    @Test func aDocumentFromTheWebNeverNamesALocalFile() async throws {
        let server = D.Server([base + "local.xml": D.vast(D.inline("x")).replacingOccurrences(of: "http://127.0.0.1/m/x.mp4", with: "file:///etc/passwd")
                                                  .replacingOccurrences(of: "</MediaFiles>", with: "<MediaFile delivery=\"progressive\" type=\"video/mp4\">/etc/hosts</MediaFile></MediaFiles>")])
        let resolution = await resolver(server).resolve(url: base + "local.xml")
        // The path resolves against the document's URL (http://127.0.0.1/etc/hosts); the file: URL is dropped.
        #expect(resolution.ads.first?.mediaFiles.map(\.url) == [base + "etc/hosts"])
        let onlyLocal = D.Server([base + "only.xml": D.vast(D.inline("y")).replacingOccurrences(of: "http://127.0.0.1/m/y.mp4", with: "file:///etc/passwd")])
        #expect(await resolver(onlyLocal).resolve(url: base + "only.xml").errors.map(\.error.code) == [.noSupportedMediaFile])
    }

    @Test func standAloneAdsPlayTheFirstThatResolves() async throws {
        let server = D.Server([base + "s.xml": D.vast(D.inline("flash", type: "application/x-shockwave-flash"), D.inline("ok"), D.inline("later"))])
        let resolution = await resolver(server).resolve(url: base + "s.xml")
        #expect(resolution.ads.map(\.id) == ["ok"])
        #expect(resolution.errors.map(\.error.code) == [.noSupportedMediaFile])
    }

    @Test func aWrapperThatForbidsAPodGetsTheFirstStandAloneAd() async throws {
        let server = D.Server([
            base + "top.xml": D.vast(D.wrapper("w", to: base + "pod.xml")),
            base + "pod.xml": D.vast(D.inline("p1", sequence: 1), D.inline("p2", sequence: 2), D.inline("alone")),
            base + "multi.xml": D.vast(D.wrapper("w", to: base + "pod.xml", attributes: "allowMultipleAds=\"true\"")),
        ])
        #expect(await resolver(server).resolve(url: base + "top.xml").ads.map(\.id) == ["alone"])
        #expect(await resolver(server).resolve(url: base + "multi.xml").ads.map(\.id) == ["p1", "p2"])
    }

    @Test func followAdditionalWrappersFalseStopsTheChain() async throws {
        let server = D.Server([
            base + "top.xml": D.vast(D.wrapper("w", to: base + "w2.xml", attributes: "followAdditionalWrappers=\"false\"")),
            base + "w2.xml": D.vast(D.wrapper("w2", to: base + "end.xml")),
            base + "end.xml": D.vast(D.inline("end")),
        ])
        let resolution = await resolver(server).resolve(url: base + "top.xml")
        #expect(resolution.ads.isEmpty)
        #expect(resolution.errors.map(\.error.code) == [.wrapperLimit])
        #expect(server.requests == [base + "top.xml", base + "w2.xml"])
        // And followRedirects=false (a VMAP AdSource's) follows none.
        let unfollowed = await resolver(server).resolve(url: base + "w2.xml", followRedirects: false)
        #expect(unfollowed.errors.map(\.error.code) == [.wrapperLimit])
    }

    @Test func aPodsChainsAreFollowedAtOnce() async throws {
        var documents: [String: String] = [:]
        var slots: [String] = []
        for ad in 1...5 {
            documents[base + "a\(ad)-0.xml"] = D.vast(D.inline("ad\(ad)"))
            // The slot is the first of five wrappers.
            for hop in 1...4 { documents[base + "a\(ad)-\(hop).xml"] = D.vast(D.wrapper("a\(ad)w\(hop)", to: base + "a\(ad)-\(hop - 1).xml")) }
            slots.append(D.wrapper("slot\(ad)", to: base + "a\(ad)-4.xml", sequence: ad))
        }
        documents[base + "pod.xml"] = "<VAST version=\"4.1\">" + slots.joined() + "</VAST>"
        let server = D.Server(documents, delay: .milliseconds(20))
        let resolution = await resolver(server).resolve(url: base + "pod.xml")
        #expect(resolution.ads.map(\.id) == (1...5).map { "ad\($0)" })
        #expect(resolution.errors.isEmpty)
        #expect(server.requests.count == 26)
        #expect(server.mostInFlight > 1)  // the five chains overlap (the benchmark measures by how much)
    }

    @Test func theTotalTimeIsSharedByTheChain() async throws {
        var options = VASTResolver.Options()
        options.totalTimeout = .milliseconds(30)
        let server = D.Server(chain(depth: 5), delay: .milliseconds(20))
        let resolution = await VASTResolver(options: options, fetch: server.fetch).resolve(url: base + "c5.xml")
        #expect(resolution.ads.isEmpty)
        #expect(resolution.errors.map(\.error.code) == [.wrapperTimeout])
        #expect(server.requests.count < 6)
    }
}

/// Choosing the media file, rule by rule.
@Suite struct MediaFileSelectionTests {
    func file(_ name: String, type: String = "video/mp4", delivery: VASTMediaFile.Delivery = .progressive, width: Int? = nil, height: Int? = nil,
              bitrate: Int? = nil, codec: String? = nil, api: String? = nil) -> VASTMediaFile {
        VASTMediaFile(url: name, delivery: delivery, type: type, width: width, height: height, bitrate: bitrate, codec: codec, apiFramework: api)
    }

    @Test func onlyWhatTheOutputPlays() {
        let files = [file("vpaid", type: "application/javascript", api: "VPAID"), file("vpaid-mp4", api: "vpaid"), file("vast-api", api: "VAST"), file("hls", type: "application/x-mpegURL", delivery: .streaming),
                     file("webm", type: "video/webm"), file("mp4"), file("mp4-streaming", delivery: .streaming), file("flv", type: "video/x-flv")]
        #expect(MediaFileSelection(output: .progressiveMP4).rank(files).map(\.url) == ["vast-api", "mp4"])
        #expect(MediaFileSelection(output: .hls).rank(files).map(\.url) == ["hls", "vast-api", "mp4"])
    }

    @Test func sameCodecFamilyThenUnstatedThenOther() {
        let files = [file("hevc", codec: "hvc1.1.6.L93.B0"), file("unstated"), file("avc3", codec: "avc3.4d401f"), file("named", codec: "H.264")]
        #expect(MediaFileSelection(contentCodec: "avc1.64001f").rank(files).map(\.url) == ["avc3", "named", "unstated", "hevc"])
        #expect(MediaFileSelection(contentCodec: "hev1").rank(files).map(\.url) == ["hevc", "unstated", "avc3", "named"])
    }

    @Test func withinLimitsThenClosestPictureThenBitrate() {
        let files = [file("1080", width: 1920, height: 1080, bitrate: 6000), file("720-low", width: 1280, height: 720, bitrate: 1500),
                     file("720-high", width: 1280, height: 720, bitrate: 3000), file("360", width: 640, height: 360, bitrate: 600)]
        #expect(MediaFileSelection().rank(files).map(\.url) == ["1080", "720-high", "720-low", "360"])
        #expect(MediaFileSelection(maximumBitrate: 2000).rank(files).map(\.url) == ["720-low", "360", "1080", "720-high"])
        #expect(MediaFileSelection(contentWidth: 1280, contentHeight: 720).rank(files).map(\.url) == ["720-high", "720-low", "360", "1080"])
        #expect(MediaFileSelection(maximumWidth: 700).rank(files).map(\.url) == ["360", "1080", "720-high", "720-low"])
    }

    @Test func tiesInDocumentOrderAndHostileNumbersDoNotTrap() {
        let files = [file("a", width: Int.max, height: Int.max, bitrate: Int.min), file("b"), file("c")]
        #expect(MediaFileSelection(contentWidth: Int.max, contentHeight: Int.min).rank(files).map(\.url).count == 3)
        #expect(MediaFileSelection().rank([file("b"), file("c")]).map(\.url) == ["b", "c"])
    }
}
