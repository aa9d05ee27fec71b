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

/// The files CRUDKit creates for itself: owner-only, exclusive, never through a link, in a private directory.
@Suite struct PrivateFilesTests {
    private static func isLink(_ url: URL) -> Bool {
        var info = stat()
        return lstat(url.path, &info) == 0 && info.st_mode & S_IFMT == S_IFLNK
    }

    /// Runs `body` with the process umask set to `mask` (restored after).
    private static func withUmask(_ mask: mode_t, _ body: () throws -> Void) rethrows {
        let previous = umask(mask)
        defer { umask(previous) }
        try body()
    }

    @Test func privateDirectoryIsOwnerOnlyAndPerProcess() throws {
        let directory = try PrivateFiles.directory()
        #expect(TestFiles.mode(of: directory) == 0o700)
        #expect(directory.lastPathComponent.hasPrefix("crudkit-\(getpid())-"))
        var info = stat()
        #expect(lstat(directory.path, &info) == 0 && info.st_uid == geteuid())
        #expect(try PrivateFiles.directory() == directory)
    }

    @Test func privateDirectorySkipsNamesSomeoneTookFirst() throws {
        try TestFiles.withDirectory("crudkit-private-files-test") { parent in
            // Another user's directory (open to all), a link to a directory, and a file at the first three names.
            let open = parent.appendingPathComponent("taken-dir")
            try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
            let elsewhere = parent.appendingPathComponent("elsewhere")
            try FileManager.default.createDirectory(at: elsewhere, withIntermediateDirectories: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: elsewhere.path)
            try FileManager.default.createSymbolicLink(
                at: parent.appendingPathComponent("taken-link"), withDestinationURL: elsewhere)
            try Data().write(to: parent.appendingPathComponent("taken-file"))
            let made = try PrivateFiles.makeDirectory(
                in: parent, names: ["taken-dir", "taken-link", "taken-file", "fresh"])
            #expect(made.lastPathComponent == "fresh")
            #expect(TestFiles.mode(of: made) == 0o700)
            #expect(TestFiles.mode(of: open) == 0o777)
            #expect(TestFiles.mode(of: elsewhere) == 0o755)
            #expect(Self.isLink(parent.appendingPathComponent("taken-link")))
            #expect(throws: CRUDError.self) { try PrivateFiles.makeDirectory(in: parent, names: ["taken-dir"]) }
        }
    }

    @Test(arguments: [mode_t(0), mode_t(0o022), mode_t(0o077), mode_t(0o277)])
    func modesHoldWhateverTheUmask(mask: mode_t) throws {
        try TestFiles.withDirectory("crudkit-private-files-test") { parent in
            try Self.withUmask(mask) {
                let made = try PrivateFiles.makeDirectory(in: parent, names: ["private"])
                #expect(TestFiles.mode(of: made) == 0o700)
                let file = made.appendingPathComponent("file")
                try PrivateFiles.create(at: file).close()
                #expect(TestFiles.mode(of: file) == 0o600)
                let opened = made.appendingPathComponent("opened")
                try PrivateFiles.openForWriting(opened).close()
                #expect(TestFiles.mode(of: opened) == 0o600)
            }
        }
    }

    @Test func createRefusesAnExistingNameOrALink() throws {
        try TestFiles.withDirectory("crudkit-private-files-test") { directory in
            let target = directory.appendingPathComponent("precious")
            try Data("precious".utf8).write(to: target)
            let link = directory.appendingPathComponent("link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            let ghost = directory.appendingPathComponent("ghost")
            let dangling = directory.appendingPathComponent("dangling")
            try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: ghost)
            for name in [target, link, dangling] {
                #expect(throws: CRUDError.self) { try PrivateFiles.create(at: name) }
            }
            #expect(try Data(contentsOf: target) == Data("precious".utf8))
            #expect(!FileManager.default.fileExists(atPath: ghost.path))
        }
    }

    @Test func openForWritingRefusesLinksFifosDirectoriesAndOpensOwnFiles() throws {
        try TestFiles.withDirectory("crudkit-private-files-test") { directory in
            let target = directory.appendingPathComponent("precious")
            try Data("precious".utf8).write(to: target)
            let link = directory.appendingPathComponent("link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: target)
            let ghost = directory.appendingPathComponent("ghost")
            let dangling = directory.appendingPathComponent("dangling")
            try FileManager.default.createSymbolicLink(at: dangling, withDestinationURL: ghost)
            let fifo = directory.appendingPathComponent("fifo")
            #expect(mkfifo(fifo.path, 0o600) == 0)
            let folder = directory.appendingPathComponent("folder")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            for name in [link, dangling, fifo, folder] {
                #expect(throws: CRUDError.self) { try PrivateFiles.openForWriting(name) }
            }
            #expect(try Data(contentsOf: target) == Data("precious".utf8))
            #expect(!FileManager.default.fileExists(atPath: ghost.path))
            let handle = try PrivateFiles.openForWriting(target)
            try handle.write(contentsOf: Data("P".utf8))
            try handle.close()
            #expect(try Data(contentsOf: target) == Data("Precious".utf8))
        }
    }

    @Test func moveIntoPlaceReplacesAFileKeepingItsModeAndRefusesDirectoriesAndLinks() throws {
        try TestFiles.withDirectory("crudkit-private-files-test") { directory in
            func partial(_ text: String, for destination: URL) throws -> URL {
                let url = PrivateFiles.partialFile(for: destination)
                let handle = try PrivateFiles.create(at: url)
                try handle.write(contentsOf: Data(text.utf8))
                try handle.close()
                return url
            }
            let fresh = directory.appendingPathComponent("fresh")
            try PrivateFiles.moveIntoPlace(try partial("new", for: fresh), to: fresh)
            #expect(try Data(contentsOf: fresh) == Data("new".utf8))
            #expect(TestFiles.mode(of: fresh) == 0o600)

            let existing = directory.appendingPathComponent("existing")
            try Data("old".utf8).write(to: existing)
            try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: existing.path)
            try PrivateFiles.moveIntoPlace(try partial("new", for: existing), to: existing)
            #expect(try Data(contentsOf: existing) == Data("new".utf8))
            #expect(TestFiles.mode(of: existing) == 0o644)

            let folder = directory.appendingPathComponent("folder")
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: false)
            try Data("inside".utf8).write(to: folder.appendingPathComponent("inside"))
            let link = directory.appendingPathComponent("link")
            try FileManager.default.createSymbolicLink(at: link, withDestinationURL: existing)
            for destination in [folder, link] {
                let file = try partial("bad", for: destination)
                #expect(throws: CRUDError.self) { try PrivateFiles.moveIntoPlace(file, to: destination) }
                #expect(throws: CRUDError.self) { try PrivateFiles.checkDestination(destination) }
                try FileManager.default.removeItem(at: file)
            }
            #expect(try Data(contentsOf: folder.appendingPathComponent("inside")) == Data("inside".utf8))
            #expect(try Data(contentsOf: existing) == Data("new".utf8))
            #expect(Self.isLink(link))
            try PrivateFiles.checkDestination(existing)
            try PrivateFiles.checkDestination(directory.appendingPathComponent("missing"))
        }
    }

    @Test func moveIntoPlaceWorksWhenTheDestinationIsOnAnotherFilesystem() throws {
        // /dev/shm is a tmpfs on Linux, usually another filesystem than the temporary directory.
        let shm = URL(fileURLWithPath: "/dev/shm")
        guard FileManager.default.isWritableFile(atPath: shm.path) else { return }
        let destination = shm.appendingPathComponent("crudkit-private-files-\(UUID().uuidString)")
        defer { try? FileManager.default.removeItem(at: destination) }
        try Data("old".utf8).write(to: destination)
        let partial = PrivateFiles.partialFile(for: destination)
        let handle = try PrivateFiles.create(at: partial)
        try handle.write(contentsOf: Data("new".utf8))
        try handle.close()
        try PrivateFiles.moveIntoPlace(partial, to: destination)
        #expect(try Data(contentsOf: destination) == Data("new".utf8))
        #expect(!FileManager.default.fileExists(atPath: partial.path))
    }

    @Test func multipartBodyIsOwnerOnlyInThePrivateDirectoryAndRemovedOnEveryPath() async throws {
        let source = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-private-files-part-\(UUID().uuidString)")
        try Data("secret document".utf8).write(to: source)
        defer { try? FileManager.default.removeItem(at: source) }
        var form = MultipartForm()
        form.append(name: "doc", fileURL: source)
        let directory = try PrivateFiles.directory()
        struct Thrown: Error {}
        for throwing in [false, true] {
            var seen: URL?
            do {
                try await form.withTemporaryBody { body in
                    guard case .file(let url) = body else { throw Thrown() }
                    seen = url
                    #expect(url.deletingLastPathComponent().standardizedFileURL == directory.standardizedFileURL)
                    #expect(TestFiles.mode(of: url) == 0o600)
                    if throwing { throw Thrown() }
                }
            } catch is Thrown {
                #expect(throwing)
            }
            let url = try #require(seen)
            #expect(!FileManager.default.fileExists(atPath: url.path))
        }
    }
}
