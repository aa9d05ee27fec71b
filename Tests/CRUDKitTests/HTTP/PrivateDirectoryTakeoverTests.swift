import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

#if canImport(Glibc)
import Glibc
#elseif canImport(Darwin)
import Darwin
#endif

/// A body CRUDKit keeps on disk under a name chosen earlier (a request handle's `GET`, a download without a
/// destination) never goes into, nor comes back from, a directory another user made at the private directory's
/// name after a temporary-files cleaner removed it.
///
/// The parent runs the scenario in a child process (which removes its own private directory) as root, handing the
/// impostor directory to uid 65534; without root it is skipped, saying why.
@Suite struct PrivateDirectoryTakeoverTests {
    static let childVariable = "CRUDKIT_TAKEOVER_CHILD"
    static let otherUser: uid_t = 65534
    static let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 7 &+ 3) })
    static let forged = Data("the other user's body".utf8)

    @Test func aBodyNeverGoesIntoAnotherUsersDirectoryOfTheSameName() async throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        guard geteuid() == 0 else {
            print("PrivateDirectoryTakeoverTests skipped: handing a directory to another uid needs root")
            return
        }
        let ending = try await ChildTestProcess.run(
            filter: "takeoverChild", environment: [Self.childVariable: "1"], timeLimit: 120)
        #expect(ending.reason == .exit && ending.status == 0, "the child failed: \(ending.standardError)")
        #expect(!ending.timedOut)
    }

    /// Runs in the child only.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func takeoverChild() async throws {
        let opened = Opening()
        let server = LoopbackServer { _ in
            await opened.wait()
            return HTTPResponse(status: 200, headers: ["ETag": "\"v\""], body: Self.body)
        }
        try server.start()
        defer { server.stop() }
        let transport = URLSessionTransport()

        // A request handle: its body's name is chosen; the request waits at the server for its answer.
        let impostorA = try PrivateFiles.directory()
        let wroteThere = Locked(false)
        var request = Request(.get, "handle", decoder: .response)
        let nameA = Locked("")
        request.observer = TransferObserver(download: { progress in
            guard progress.completedBytes == Int64(Self.body.count) else { return }
            wroteThere.withLock { $0 = $0 || Self.ownFile(named: nameA.withLock { $0 }, in: impostorA) }
            Self.substitute(nameA.withLock { $0 }, in: impostorA)
        })
        let handle = API(baseURL: server.baseURL, transport: transport).handle(for: request)
        let kept = try #require(handle.keptFile)
        nameA.withLock { $0 = kept.lastPathComponent }
        #expect(kept.deletingLastPathComponent().path == impostorA.path)
        try Self.takeOver(impostorA)
        opened.open()
        let response = try await handle.value
        #expect(response.body == Self.body, "the handle's body is not the server's (\(response.body.count) bytes)")
        #expect(!wroteThere.withLock { $0 }, "the handle wrote its body into the other user's directory")

        // A download without a destination: the same, with the file handed back.
        let opened2 = Opening()
        let server2 = LoopbackServer { _ in
            await opened2.wait()
            return HTTPResponse(status: 200, body: Self.body)
        }
        try server2.start()
        defer { server2.stop() }
        let impostorB = try PrivateFiles.directory()
        #expect(impostorB.path != impostorA.path)
        let task = transport.downloadTask(
            HTTPRequest(url: server2.baseURL.appendingPathComponent("download")),
            observer: TransferObserver(download: { progress in
                guard progress.completedBytes == Int64(Self.body.count) else { return }
                for name in Self.entries(of: impostorB) { Self.substitute(name, in: impostorB) }
            }))
        try Self.takeOver(impostorB)
        opened2.open()
        let file = try await task.finished
        defer { try? FileManager.default.removeItem(at: file) }
        var info = stat()
        #expect(lstat(file.deletingLastPathComponent().path, &info) == 0)
        #expect(info.st_uid == geteuid(), "the download was handed back from \(file.path), another user's directory")
        #expect(info.st_mode & 0o7777 == 0o700)
        #expect(try Data(contentsOf: file) == Self.body, "the downloaded file is not the server's body")
        for impostor in [impostorA, impostorB] { try? FileManager.default.removeItem(at: impostor) }
    }

    // MARK: - The other user

    /// Removes `directory` (a temporary-files cleaner) and makes one of the same name owned by the other user,
    /// writable by all.
    static func takeOver(_ directory: URL) throws {
        try FileManager.default.removeItem(at: directory)
        #expect(mkdir(directory.path, 0o777) == 0)
        #expect(chmod(directory.path, 0o777) == 0)
        #expect(chown(directory.path, otherUser, otherUser) == 0)
    }

    /// The other user puts its own file at `name` in its directory (replacing what is there).
    static func substitute(_ name: String, in directory: URL) {
        guard !name.isEmpty else { return }
        let forgedFile = directory.appendingPathComponent("forged-\(UUID().uuidString)")
        guard (try? forged.write(to: forgedFile)) != nil else { return }
        _ = chown(forgedFile.path, otherUser, otherUser)
        _ = rename(forgedFile.path, directory.appendingPathComponent(name).path)
    }

    /// Whether `directory` holds a file `name` of this process's user.
    static func ownFile(named name: String, in directory: URL) -> Bool {
        var info = stat()
        return lstat(directory.appendingPathComponent(name).path, &info) == 0 && info.st_uid == geteuid()
    }

    static func entries(of directory: URL) -> [String] {
        (try? FileManager.default.contentsOfDirectory(atPath: directory.path)) ?? []
    }
}

/// A door requests wait at until it opens (once, for every waiter).
private final class Opening: Sendable {
    private let state = Locked<(open: Bool, waiters: [CheckedContinuation<Void, Never>])>((false, []))

    func wait() async {
        await withCheckedContinuation { continuation in
            let now = state.withLock { state -> Bool in
                if state.open { return true }
                state.waiters.append(continuation)
                return false
            }
            if now { continuation.resume() }
        }
    }

    func open() {
        let waiters = state.withLock { state -> [CheckedContinuation<Void, Never>] in
            state.open = true
            defer { state.waiters = [] }
            return state.waiters
        }
        for waiter in waiters { waiter.resume() }
    }
}
