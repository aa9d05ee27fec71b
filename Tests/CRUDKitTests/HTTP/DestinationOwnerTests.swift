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

/// A download destination another local user planted first (in a directory both can write): its permission bits
/// are that user's choice, not ours, and must not open the downloaded body to everyone.
@Suite struct DestinationOwnerTests {
    @Test func aPlantedWorldReadableDestinationOfAnotherUserDoesNotWidenTheDownload() throws {
        // Only root can make a file another user owns; the tests run as root (see PrivateFilesTests).
        guard geteuid() == 0 else { return }
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-attack-owner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        // A shared directory without the sticky bit: the other user may create names in it.
        #expect(chmod(directory.path, 0o777) == 0)
        let destination = directory.appendingPathComponent("statement.pdf")
        try Data("planted".utf8).write(to: destination)
        #expect(chown(destination.path, 65_534, 65_534) == 0)
        #expect(chmod(destination.path, 0o666) == 0)

        let partial = PrivateFiles.partialFile(for: destination)
        let handle = try PrivateFiles.create(at: partial)
        try handle.write(contentsOf: Data("secret account data".utf8))
        try handle.close()
        try PrivateFiles.moveIntoPlace(partial, to: destination)

        #expect(try Data(contentsOf: destination) == Data("secret account data".utf8))
        // Before the fix: 0o666, the other user's mode, so every local user could read (and rewrite) the body.
        #expect(TestFiles.mode(of: destination) == 0o600)
    }

    @Test func aDestinationOfOurOwnKeepsItsMode() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-attack-owner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        let destination = directory.appendingPathComponent("report.csv")
        try Data("old".utf8).write(to: destination)
        #expect(chmod(destination.path, 0o640) == 0)

        let partial = PrivateFiles.partialFile(for: destination)
        let handle = try PrivateFiles.create(at: partial)
        try handle.write(contentsOf: Data("new".utf8))
        try handle.close()
        try PrivateFiles.moveIntoPlace(partial, to: destination)

        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        #expect(TestFiles.mode(of: destination) == 0o640)
    }

    @Test func aPartialFileSwappedForALinkIsNotFollowedWhenItsModeIsSet() throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-attack-owner-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        // Our own destination, readable by all by our choice, and a private file of ours elsewhere (a key).
        let destination = directory.appendingPathComponent("public.txt")
        try Data("old".utf8).write(to: destination)
        #expect(chmod(destination.path, 0o644) == 0)
        let key = directory.appendingPathComponent("id_ed25519")
        try Data("private key".utf8).write(to: key)
        #expect(chmod(key.path, 0o600) == 0)
        // Someone who can write the directory swaps the partial file for a link to the key.
        let partial = PrivateFiles.partialFile(for: destination)
        try FileManager.default.createSymbolicLink(at: partial, withDestinationURL: key)

        #expect(throws: CRUDError.self) { try PrivateFiles.moveIntoPlace(partial, to: destination) }
        // Before the fix: chmod followed the link and made the key 0644, then the link replaced the destination.
        #expect(TestFiles.mode(of: key) == 0o600)
        #expect(try Data(contentsOf: destination) == Data("old".utf8))
    }
}
