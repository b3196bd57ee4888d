import CompositorCore
import CompositorHLS
import CompositorIO
import CompositorMP4

/// The playlists a stitch reads, each loaded and parsed once however many segments, variants or
/// outputs use it, with loading failures sorted into unreadable, malformed and unsupported.
struct HLSSourcePlaylists {
    let loader: HLSPlaylistLoader
    private var loaded: [String: HLSPlaylist] = [:]

    init(loader: HLSPlaylistLoader) { self.loader = loader }

    /// The playlist at `url` (media or multivariant).
    mutating func playlist(at url: String) throws(HLSExportError) -> HLSPlaylist {
        if let playlist = loaded[url] { return playlist }
        // Parsed at the URL it was read from (after redirects), which its URIs resolve against.
        let bytes: [UInt8], readFrom: String
        do { (bytes, readFrom) = try loader.fetch(url) } catch { throw HLSExportError(.unreadable(url: url, reason: "\(error)")) }
        // An MP4 file is a fine source elsewhere, just not in a playlist: say so rather than "malformed".
        if bytes.count >= 8, Array(bytes[4..<8]) == Array("ftyp".utf8) {
            throw HLSExportError(.unsupported(url: url, reason: "an MP4 file, not an HLS playlist; only local MP4 files are packaged into segments"))
        }
        let playlist: HLSPlaylist
        do { playlist = try HLSPlaylistParser(limits: loader.limits).parse(bytes, url: readFrom) } catch {
            throw error.category == .malformed ? HLSExportError(.malformed(url: url, reason: error.description)) : HLSExportError(.unsupported(url: url, reason: error.description))
        }
        loaded[url] = playlist
        return playlist
    }

    /// The playlist at `url`, as a source naming `variant` plays it: a multivariant playlist with
    /// that one variant (and the renditions it uses), so every output plays it.
    mutating func playlist(at url: String, variant name: String?) throws(HLSExportError) -> HLSPlaylist {
        let playlist = try playlist(at: url)
        guard let name else { return playlist }
        do { return .multivariant(try playlist.narrowed(toVariant: name)) } catch {
            throw HLSExportError(.noSuchVariant(url: url, name: error.name, known: error.known))
        }
    }

    /// The media playlist at `url`, the URI of a variant.
    mutating func mediaPlaylist(at url: String) throws(HLSExportError) -> HLSMediaPlaylist {
        switch try playlist(at: url) {
        case .media(let media): return media
        case .multivariant:
            throw HLSExportError(.malformed(url: url, reason: HLSParseError(
                line: nil, lineText: nil, problem: .wrongPlaylistKind(expected: "media", found: "multivariant")).description))
        }
    }

    /// `url` made absolute when it is a relative file path, against the working folder (which is
    /// what the file system loader reads it against), so segment URIs can be written relative to an
    /// output elsewhere. URLs with a scheme and absolute paths are kept.
    static func absolute(_ url: String) -> String {
        guard !url.hasPrefix("/"), URIReference(parsing: url).scheme == nil else { return url }
        let folder = hlsURL(currentFolder())
        return URIReference.resolve(url, against: folder.hasSuffix("/") ? folder : folder + "/")
    }
}
