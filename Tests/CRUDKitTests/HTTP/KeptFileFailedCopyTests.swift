#if canImport(Glibc)
import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Glibc
import Testing

/// When a kept body's private directory went while the body arrived, handing the file over copies it into a fresh
/// private directory; a copy that fails part of the way leaves no partial copy there, and the kept file is still
/// removed by its owner.
///
/// The failure is made with a file-size limit (`RLIMIT_FSIZE`, `SIGXFSZ` ignored): the copy's first `write` stops at
/// the limit, the next fails with `EFBIG`. The limit is the whole process's, so the scenario runs in a child process.
@Suite struct KeptFileFailedCopyTests {
    static let childVariable = "CRUDKIT_KEPT_COPY_CHILD"
    static let body = Data((0..<200_000).map { UInt8(truncatingIfNeeded: $0 &* 13 &+ 1) })

    @Test func aCopyThatFailsPartWayLeavesNoPartialCopy() async throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        let ending = try await ChildTestProcess.run(
            filter: "failedCopyChild", environment: [Self.childVariable: "1"], timeLimit: 60)
        #expect(ending.reason == .exit && ending.status == 0, "the child failed: \(ending.standardError)")
        #expect(!ending.timedOut)
    }

    /// Runs in the child only.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func failedCopyChild() throws {
        let kept = try PrivateFiles.KeptFile("handle")
        let writer = try PrivateFiles.openForWriting(kept.url)
        try writer.write(contentsOf: Self.body)
        try writer.close()
        // A temporary-files cleaner takes the private directory away: the file must be copied to be handed over.
        let old = kept.url.deletingLastPathComponent()
        let away = old.deletingLastPathComponent().appendingPathComponent("kept-away-\(UUID().uuidString)")
        try #require(rename(old.path, away.path) == 0)
        defer { try? FileManager.default.removeItem(at: away) }

        // Files may grow to half the body only.
        signal(SIGXFSZ, SIG_IGN)
        var saved = rlimit()
        try #require(getrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved) == 0)
        var lowered = saved
        lowered.rlim_cur = rlim_t(Self.body.count / 2)
        try #require(setrlimit(Int32(RLIMIT_FSIZE.rawValue), &lowered) == 0)
        let released = Result { try kept.release() }
        _ = setrlimit(Int32(RLIMIT_FSIZE.rawValue), &saved)

        if case .success(let file) = released {
            Issue.record("the copy succeeded past the file-size limit: \(file.path)")
        }
        let fresh = try PrivateFiles.directory()
        #expect(fresh.path != old.path)
        let left = try FileManager.default.contentsOfDirectory(atPath: fresh.path)
        #expect(!left.contains { $0.hasSuffix("-moved") }, "a partial copy was left behind: \(left)")
        kept.remove()
        #expect(try FileManager.default.contentsOfDirectory(atPath: away.path).isEmpty)
    }
}
#endif
