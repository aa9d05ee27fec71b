import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

@Suite struct TransferTests {
    @Test func downloadsGoThroughThePipelineIntoAFile() async throws {
        let body = Data((0..<10_000).map { UInt8($0 % 251) })
        let transport = StubTransport().on(nil, "**") { request in
            #expect(request.recorded.header("Authorization") == "Bearer t")
            return request.recorded.index == 0 ? .json(text: "{}", status: 503) : .data(body)
        }
        let api = API(
            configuration: APIConfiguration(
                baseURL: testBase, transport: transport, clock: ManualClock(),
                middleware: [
                    RetryMiddleware(policy: RetryPolicy(maxAttempts: 2, jitter: 0)), ValidationMiddleware(),
                    CoalescingMiddleware(),
                ])
        ).with {
            $0.middleware.insert(
                .adapt { request in
                    var request = request
                    request.headers["Authorization"] = "Bearer t"
                    return request
                }, after: .retry)
        }
        let destination = FileManager.default.temporaryDirectory
            .appendingPathComponent("crudkit-client-\(UUID().uuidString).bin")
        defer { try? FileManager.default.removeItem(at: destination) }
        let reported = Locked<[Int64]>([])
        let response = try await api.download(
            "exports/1", to: destination,
            progress: { progress in reported.withLock { $0.append(progress.completedBytes) } })
        #expect(response.status == 200)
        #expect(response.body.isEmpty)
        #expect(try Data(contentsOf: destination) == body)
        #expect(transport.recorder.count == 2)
        #expect(reported.withLock { $0.last } == 10_000)
    }

    @Test func requestsCarryTheirObserverAndDeadline() async throws {
        let transport = StubTransport().on(nil, "**", .json(text: #"{"ok": true}"#))
        let api = API(configuration: APIConfiguration(baseURL: testBase, transport: transport, deadline: 30))
        let seen = Locked<Int64?>(nil)
        var request = Request<Data>(.get, "status")
        request.observer = TransferObserver(download: { progress in seen.withLock { $0 = progress.completedBytes } })
        try await api.send(request)
        request.deadline = 5
        try await api.send(request)
        #expect(seen.withLock { $0 } == 12)
        #expect(transport.recorder.requests.map(\.request.deadline) == [30, 5])
    }
}
