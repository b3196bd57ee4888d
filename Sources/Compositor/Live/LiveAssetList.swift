import CompositorCore
import CompositorHLS

/// A live break's HLS interstitial asset list (RFC 8216bis D.2), `{"ASSETS": [{"URI": …,
/// "DURATION": …}]}`: every ad of its pod, whole, in play order, each from its own playlist.
///
/// A client that starts playing the live stream inside the break asks with `_HLS_start_offset`
/// (D.4: how far into the break it starts), and gets what the join rule says:
///
/// ```
/// break       |ad a 10 s |ad b 5 s |
/// client      joins here ^ 12 s in: _HLS_start_offset=12
/// --join rest  {"ASSETS": [a, b]}: the client plays b from 2 s in, the rest of the break
/// --join full  {"ASSETS": []}: no ad; the content plays on from where the client joined (D.5:
///              an empty list resumes at offset 0, as the break's date range names none)
/// ```
///
/// The stitcher writes both answers beside the playlist, `assets/N.json` and
/// `assets/N-joined.json`; the origin serves the second to a request with `_HLS_start_offset`
/// (`LiveHLS.md` has the nginx rule), or a server of the app's own calls `json`.
package enum LiveAssetList {
    /// The folder the asset lists are written to, beside the stitched playlist.
    static let folder = "assets"

    /// The asset list of break number `index` (in the decisions), relative to the playlist's
    /// folder, with `_HLS_interstitial_id` (D.4).
    static func path(index: Int, id: String, joined: Bool = false) -> String {
        "\(folder)/\(index)\(joined ? "-joined" : "").json" + (joined ? "" : "?_HLS_interstitial_id=" + percentEncodedUnreserved(id))
    }

    /// The list for a client starting at the break's start, or joining it under way: a request
    /// whose `_HLS_start_offset` is more than 0.
    ///
    /// - Parameters:
    ///   - adIDs: The break's ads, in play order.
    ///   - assets: Each ad's asset, by ad ID.
    ///   - listURL: The asset list's own URL: the assets' URIs are written relative to it.
    ///   - joining: Whether the client joins the break under way.
    ///   - joinRule: What a client joining the break under way gets.
    /// - Returns: The JSON text.
    package static func json(
        adIDs: [String], assets: [String: LiveStitcher.InterstitialAsset], listURL: String, joining: Bool,
        joinRule: LiveHLSStitching.JoinRule
    ) -> String {
        let listed = joining && joinRule == .fullBreaksOnly ? [] : adIDs.compactMap { assets[$0] }
        var root = JSONObject()
        root.append("ASSETS", .array(listed.map { asset in
            .object(JSONObject(["URI": .string(URIReference.relativize(asset.url, from: listURL)), "DURATION": .seconds(asset.duration)]))
        }))
        return JSONValue.object(root).serialized + "\n"
    }
}
