import Foundation

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// What the file-permission tests share: a scratch directory and a file's permission bits.
enum TestFiles {
    /// Runs `body` with a fresh directory under the temporary directory (its name starting with `prefix`), removed
    /// afterwards.
    static func withDirectory(_ prefix: String, _ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    /// The permission bits of `url` itself (a link's own, not its target's); `nil` when nothing is there.
    static func mode(of url: URL) -> Int? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }
}
