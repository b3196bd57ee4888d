import CompositorHLS

/// The names of an HLS export's files, each beside the stitched playlist (`…/stitched.m3u8`).
enum HLSOutputNames {
    /// `…/stitched.m3u8` -> `…/stitched-<index>.m3u8` (`…/stitched-audio-<index>.m3u8` with `kind` `audio-`).
    static func variantURL(_ url: String, index: Int, kind: String = "") -> String {
        let (stem, pathExtension) = splitExtension(url)
        return stem + "-\(kind)\(index)" + (pathExtension.isEmpty ? ".m3u8" : pathExtension)
    }

    /// `…/stitched.m3u8` -> `…/stitched<suffix>`: a file written beside the output.
    static func siblingURL(_ url: String, suffix: String) -> String { splitExtension(url).stem + suffix }

    /// `…/stitched.m3u8` -> `…/`: the folder the outputs are written into, `/` at its end.
    static func folderURL(of url: String) -> String { String(url[...(url.lastIndex(of: "/") ?? url.startIndex)]) }

    /// `…/name.ext` -> (`…/name`, `.ext`); the extension is empty when the name has none.
    private static func splitExtension(_ url: String) -> (stem: String, pathExtension: String) {
        let nameStart = url.lastIndex(of: "/").map { url.index(after: $0) } ?? url.startIndex
        guard let dot = url[nameStart...].lastIndex(of: "."), dot > nameStart else { return (url, "") }
        return (String(url[..<dot]), String(url[dot...]))
    }

    /// Where a rendition's stitched playlist goes: `…/stitched-audio-N.m3u8` or
    /// `…/stitched-subtitles-N.m3u8` beside `output`, N counting the renditions of that type in `numbers`.
    static func renditionURL(_ output: String, for rendition: HLSRendition, numbers: inout [String: Int]) -> String {
        let kind = rendition.type == "AUDIO" ? "audio-" : "subtitles-"
        defer { numbers[kind, default: 0] += 1 }
        return variantURL(output, index: numbers[kind, default: 0], kind: kind)
    }

    /// `rendition` as a multivariant playlist at `listURL` lists it, its playlist now at `url`.
    static func relisting(_ rendition: HLSRendition, at url: String, from listURL: String) -> HLSRendition {
        var relisted = rendition
        relisted.attributes["URI"] = .quotedString(URIReference.relativize(url, from: listURL))
        relisted.resolvedURI = url
        return relisted
    }
}
