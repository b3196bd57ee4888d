#if canImport(FoundationEssentials)
import FoundationEssentials
#elseif canImport(Foundation)
import Foundation
#endif
import CompositorCore

#if canImport(FoundationEssentials) || canImport(Foundation)
extension MediaLocation {
    /// The location a Foundation `URL` names: a `file:` URL's path (every byte of it), or a
    /// remote URL as written.
    ///
    /// ```swift
    /// let ad = try MediaLocation(URL(fileURLWithPath: "/media/ad 1.mp4"))   // file /media/ad 1.mp4
    /// let show = try MediaLocation(URL(string: "https://cdn.example/show.m3u8")!)
    /// ```
    ///
    /// - Parameter url: An absolute URL.
    /// - Throws: `MediaLocationError` for a `file:` URL on another host, or one that names no file.
    public init(_ url: URL) throws(MediaLocationError) {
        try self.init(parsing: url.absoluteString)
    }
}
#endif
