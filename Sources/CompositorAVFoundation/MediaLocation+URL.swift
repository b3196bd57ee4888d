import Compositor
import CompositorCore
import Foundation

extension MediaLocation {
    /// A URL for AVFoundation: a file URL made from the path's bytes, or the remote URL.
    public var foundationURL: URL {
        switch kind {
        case .file(let path):
            let cPath = path.bytes.map { CChar(bitPattern: $0) } + [0]
            return URL(fileURLWithFileSystemRepresentation: cPath, isDirectory: false, relativeTo: nil)
        case .remote(let url):
            return URL(string: url) ?? URL(fileURLWithPath: url)
        }
    }

    /// `url` as a location: a file's path, or the remote URL.
    init(foundationURL url: URL) {
        self = url.isFileURL ? MediaLocation(FilePath(url.path)) : MediaLocation(remoteURL: url.absoluteString)
    }
}
