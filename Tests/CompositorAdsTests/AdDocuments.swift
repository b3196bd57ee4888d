import CompositorAds
import Foundation

/// VAST documents for the resolver's tests, written small, and a fetch that serves them from memory.
enum AdDocuments {
    /// An InLine ad of `seconds`, with a media file of `type` and tracking under `/t/<id>/`.
    static func inline(_ id: String, sequence: Int? = nil, seconds: Int = 10, type: String = "video/mp4", apiFramework: String? = nil) -> String {
        """
        <Ad id="\(id)"\(sequence.map { " sequence=\"\($0)\"" } ?? "")><InLine><AdSystem>t</AdSystem><AdTitle>\(id)</AdTitle>
          <Impression>http://127.0.0.1/i/\(id)</Impression><Error>http://127.0.0.1/e/\(id)?c=[ERRORCODE]</Error>
          <Creatives><Creative><Linear><Duration>00:00:\(seconds < 10 ? "0" : "")\(seconds)</Duration>
            <TrackingEvents><Tracking event="start">http://127.0.0.1/t/\(id)/start</Tracking>
              <Tracking event="complete">http://127.0.0.1/t/\(id)/complete</Tracking></TrackingEvents>
            <MediaFiles><MediaFile delivery="progressive" type="\(type)"\(apiFramework.map { " apiFramework=\"\($0)\"" } ?? "") width="640" height="360">http://127.0.0.1/m/\(id).mp4</MediaFile></MediaFiles>
          </Linear></Creative></Creatives></InLine></Ad>
        """
    }

    /// A wrapper ad leading to `next`.
    static func wrapper(_ id: String, to next: String, sequence: Int? = nil, attributes: String = "") -> String {
        """
        <Ad id="\(id)"\(sequence.map { " sequence=\"\($0)\"" } ?? "")><Wrapper \(attributes)><AdSystem>t</AdSystem><VASTAdTagURI>\(next)</VASTAdTagURI>
          <Impression>http://127.0.0.1/i/\(id)</Impression><Error>http://127.0.0.1/e/\(id)?c=[ERRORCODE]</Error>
          <Creatives><Creative><Linear><TrackingEvents><Tracking event="start">http://127.0.0.1/t/\(id)/start</Tracking></TrackingEvents></Linear></Creative></Creatives>
        </Wrapper></Ad>
        """
    }

    static func vast(_ ads: String..., errors: [String] = []) -> String {
        "<VAST version=\"4.1\">" + errors.map { "<Error>\($0)</Error>" }.joined() + ads.joined() + "</VAST>"
    }

    /// Serves `documents` by URL; records each request and how many were in flight at once.
    final class Server: @unchecked Sendable {
        let documents: [String: String]
        let delay: Duration
        let timingOut: Set<String>
        private let lock = NSLock()
        private var inFlight = 0
        private(set) var mostInFlight = 0
        private(set) var requests: [String] = []

        init(_ documents: [String: String], delay: Duration = .zero, timingOut: Set<String> = []) {
            self.documents = documents
            self.delay = delay
            self.timingOut = timingOut
        }

        var fetch: AdDocumentFetch {
            { url, _, _ throws(AdDocumentFetchError) in
                self.lock.withLock { self.requests.append(url); self.inFlight += 1; self.mostInFlight = max(self.mostInFlight, self.inFlight) }
                if self.delay > .zero { try? await Task.sleep(for: self.delay) }
                self.lock.withLock { self.inFlight -= 1 }
                if self.timingOut.contains(url) { throw AdDocumentFetchError(url: url, timedOut: true, reason: "timed out") }
                guard let text = self.documents[url] else { throw AdDocumentFetchError(url: url, timedOut: false, reason: "HTTP 404") }
                return Array(text.utf8)
            }
        }
    }
}
