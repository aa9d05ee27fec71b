import CRUDKit
import Foundation
import Testing

#if canImport(Darwin)
import Darwin
#elseif canImport(Glibc)
import Glibc
#elseif canImport(Musl)
import Musl
#endif

/// `MultipartForm.write(to:)` creates a file too: owner-only whatever the umask, never through a link planted at
/// its name (README: "Every file CRUDKit creates … is created owner-only").
@Suite(.serialized) struct MultipartFileAttackTests {
    private static func withDirectory(_ body: (URL) throws -> Void) throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-attack-multipart-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        try body(directory)
    }

    private static func mode(of url: URL) -> Int? {
        var info = stat()
        guard lstat(url.path, &info) == 0 else { return nil }
        return Int(info.st_mode & 0o7777)
    }

    private static var form: MultipartForm {
        var form = MultipartForm(boundary: "attack-boundary")
        form.append(name: "password", value: "hunter2")
        return form
    }

    @Test func aWrittenBodyIsOwnerOnlyUnderAPermissiveUmask() throws {
        try Self.withDirectory { directory in
            let url = directory.appendingPathComponent("body.multipart")
            let previous = umask(0o022)
            defer { umask(previous) }
            try Self.form.write(to: url)
            #expect(try Data(contentsOf: url) == Self.form.encodedData())
            // Before: 0644, readable by every local user.
            #expect(Self.mode(of: url) == 0o600)
        }
    }

    @Test func aLinkPlantedAtTheNameIsNeitherFollowedNorReplaced() throws {
        try Self.withDirectory { directory in
            let target = directory.appendingPathComponent("elsewhere")
            try Data("precious".utf8).write(to: target)
            let url = directory.appendingPathComponent("body.multipart")
            try FileManager.default.createSymbolicLink(at: url, withDestinationURL: target)
            #expect(throws: CRUDError.self) { try Self.form.write(to: url) }
            #expect(try Data(contentsOf: target) == Data("precious".utf8))
            #expect(try FileManager.default.destinationOfSymbolicLink(atPath: url.path) == target.path)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).count == 2)
        }
    }
}
