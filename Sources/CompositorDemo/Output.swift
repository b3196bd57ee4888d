import Foundation

enum Output {
    static func out(_ text: String) {
        print(text)
    }

    static func err(_ text: String) {
        FileHandle.standardError.write(Data((text + "\n").utf8))
    }
}
