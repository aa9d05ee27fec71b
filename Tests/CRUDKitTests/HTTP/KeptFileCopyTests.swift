#if canImport(Glibc)
import CRUDKitTesting
import Foundation
import Glibc
import Testing

@_spi(TransportKit) import CRUDKitHTTP

/// When a kept body's private directory went while the body arrived, handing the file over copies it into a fresh
/// private directory, chunk by chunk: every byte arrives, whatever the size against the copy's buffer. Each case
/// takes the process's private directory away, so the cases run one after another in a child process.
@Suite struct KeptFileCopyTests {
    static let childVariable = "CRUDKIT_KEPT_COPY_SIZES_CHILD"

    @Test func aCopiedBodyKeepsEveryByte() async throws {
        guard ProcessInfo.processInfo.environment[Self.childVariable] == nil else { return }
        let ending = try await ChildTestProcess.run(
            filter: "copiedBodyChild", environment: [Self.childVariable: "1"], timeLimit: 60)
        #expect(ending.reason == .exit && ending.status == 0, "the child failed: \(ending.standardError)")
        #expect(!ending.timedOut)
    }

    /// The file's bytes, read with `read(2)`: `Data(contentsOf:)` leaks a page for an empty file in
    /// FoundationEssentials (LeakSanitizer fails the child under AddressSanitizer).
    static func contents(of file: URL) throws -> Data {
        let descriptor = open(file.path, O_RDONLY)
        try #require(descriptor >= 0)
        defer { close(descriptor) }
        var data = Data()
        var buffer = [UInt8](repeating: 0, count: 65_536)
        while true {
            let count = buffer.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, $0.count) }
            if count < 0 && errno == EINTR { continue }
            try #require(count >= 0)
            if count == 0 { return data }
            data.append(contentsOf: buffer[0..<count])
        }
    }

    /// Runs in the child only.
    @Test(.enabled(if: ProcessInfo.processInfo.environment[childVariable] != nil))
    func copiedBodyChild() throws {
        for size in [0, 1, 65_536, 65_537, 1_000_007] {
            let body = Data((0..<size).map { UInt8(truncatingIfNeeded: $0 &* 31 &+ 7) })
            let kept = try PrivateFiles.KeptFile("handle")
            let writer = try PrivateFiles.openForWriting(kept.url)
            try writer.write(contentsOf: body)
            try writer.close()
            // A temporary-files cleaner takes the private directory away: the file must be copied to be handed over.
            let old = kept.url.deletingLastPathComponent()
            let away = old.deletingLastPathComponent().appendingPathComponent("kept-away-\(UUID().uuidString)")
            try #require(rename(old.path, away.path) == 0)
            defer { try? FileManager.default.removeItem(at: away) }
            let file = try kept.release()
            defer { try? FileManager.default.removeItem(at: file) }
            #expect(file.deletingLastPathComponent().path != old.path, "size \(size)")
            #expect(try Self.contents(of: file) == body, "size \(size)")
        }
    }
}
#endif
