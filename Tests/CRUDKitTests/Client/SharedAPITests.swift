import CRUDKitTesting
import Dispatch
import Foundation
import Testing

@testable import CRUDKit

/// Two tests here install a global default (and put the previous one back): other suites should scope their
/// default with `API.withShared(_:operation:)` rather than rely on setting `API.shared` while tests run in parallel.
@Suite struct SharedAPITests {
    @Test func settingSharedInstallsTheDefault() async throws {
        let previous = API.shared
        defer { API.shared = previous }
        let transport = StubTransport().on(nil, "**", .json(text: "{}"))
        let installed = API(baseURL: testBase, headers: ["Authorization": "Bearer t"], transport: transport)
        API.shared = installed
        #expect(installed.configuration.baseURL == testBase)
        // Other suites may install their own default meanwhile: read ours through a task-local scope.
        try await API.withShared(installed) {
            #expect(API.shared === installed)
            _ = try await API.shared.get("people")
        }
        #expect(transport.recorder.first?.header("Authorization") == "Bearer t")
    }

    @Test func aRunningRequestKeepsTheAPIItStartedWith() async throws {
        let (entered, signal) = AsyncStream<Void>.makeStream()
        let (release, releaser) = AsyncStream<Void>.makeStream()
        let first = StubTransport().on(nil, "**") { _ in
            signal.yield()
            for await _ in release { break }
            return .json(text: "{}")
        }
        let old = API(baseURL: testBase, headers: ["X-Version": "old"], transport: first)
        try await API.withShared(old) {
            let running = Task { try await API.shared.get("slow") }
            for await _ in entered { break }
            // Replace the default while the request waits in the transport.
            let second = StubTransport().on(nil, "**", .json(text: "{}"))
            let new = API(
                baseURL: URL(string: "https://other.example.com")!, headers: ["X-Version": "new"], transport: second)
            try await API.withShared(new) {
                releaser.yield()
                let response = try await running.value
                #expect(response.status == 200)
                _ = try await API.shared.get("fast")
            }
            #expect(first.recorder.requests.map { $0.header("X-Version") } == ["old"])
            #expect(first.recorder.requests.map(\.request.url.absoluteString) == ["https://api.example.com/v1/slow"])
            #expect(second.recorder.requests.map(\.request.url.absoluteString) == ["https://other.example.com/fast"])
        }
    }

    @Test func theDefaultCanBeReplacedFromManyThreads() {
        let apis = (0..<8).map { API(baseURL: URL(string: "https://host\($0).example.com")!) }
        let hosts = Locked<[String?]>([])
        let previous = API.shared
        defer { API.shared = previous }
        API.shared = apis[0]
        DispatchQueue.concurrentPerform(iterations: 2_000) { index in
            if index % 2 == 0 {
                API.shared = apis[index % apis.count]
            } else {
                let host = API.shared.configuration.baseURL?.host
                hosts.withLock { $0.append(host) }
            }
        }
        let seen = hosts.withLock { $0 }
        #expect(seen.count == 1_000)
        #expect(seen.allSatisfy { $0 != nil })
    }

    @Test func withSharedScopesToTheTaskAndItsChildren() async {
        let scoped = API(baseURL: URL(string: "https://scoped.example.com")!)
        await API.withShared(scoped) {
            #expect(API.shared === scoped)
            await withTaskGroup(of: Bool.self) { group in
                group.addTask { API.shared === scoped }
                for await same in group { #expect(same) }
            }
        }
    }
}
