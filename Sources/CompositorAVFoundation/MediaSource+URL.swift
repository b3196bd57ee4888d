import Compositor
#if canImport(AVFoundation)
import Foundation

extension MediaLocation {
    /// A URL for AVFoundation: the string itself when it has a scheme, a file URL otherwise.
    public var foundationURL: URL {
        if url.contains("://"), let remote = URL(string: url) { return remote }
        return URL(fileURLWithPath: url)
    }
}
#endif
