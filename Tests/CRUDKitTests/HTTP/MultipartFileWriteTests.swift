import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
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
@Suite(.serialized) struct MultipartFileWriteTests {
    private static var form: MultipartForm {
        var form = MultipartForm(boundary: "attack-boundary")
        form.append(name: "password", value: "hunter2")
        return form
    }

    @Test func aWrittenBodyIsOwnerOnlyUnderAPermissiveUmask() throws {
        try TestFiles.withDirectory("crudkit-attack-multipart") { directory in
            let url = directory.appendingPathComponent("body.multipart")
            let previous = umask(0o022)
            defer { umask(previous) }
            try Self.form.write(to: url)
            #expect(try Data(contentsOf: url) == Self.form.encodedData())
            // Before: 0644, readable by every local user.
            #expect(TestFiles.mode(of: url) == 0o600)
        }
    }

    @Test func aLinkPlantedAtTheNameIsNeitherFollowedNorReplaced() throws {
        try TestFiles.withDirectory("crudkit-attack-multipart") { directory in
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
