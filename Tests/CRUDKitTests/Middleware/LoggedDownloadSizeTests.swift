import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// A download's log line counts the bytes that went to the file, not the empty in-memory body.
@Suite struct LoggedDownloadSizeTests {
    @Test func aDownloadLogsTheBytesWrittenToTheFile() async throws {
        let body = Data(repeating: 0x61, count: 26_985)
        let transport = StubTransport().on(.get, "report") { _ in .data(body) }
        let events = Locked<[LogEvent]>([])
        let api = API(
            baseURL: URL(string: "https://api.example.com"), transport: transport,
            middleware: [LoggingMiddleware({ event in events.withLock { $0.append(event) } }), ValidationMiddleware()])
        try await TestFiles.withAsyncDirectory("download-size") { directory in
            let file = directory.appendingPathComponent("report.bin")
            try await api.download("report", to: file)
            let received = events.withLock { $0 }.first { if case .responseReceived = $0.kind { true } else { false } }
            #expect(received?.responseBodySize == 26_985)
            #expect(received?.description.contains("26985 B received") == true)
        }
    }
}

extension TestFiles {
    /// ``withDirectory(_:_:)`` for an async body.
    static func withAsyncDirectory(_ prefix: String, _ body: (URL) async throws -> Void) async throws {
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("\(prefix)-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        defer { try? FileManager.default.removeItem(at: directory) }
        try await body(directory)
    }
}
