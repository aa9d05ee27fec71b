import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

// The code sample of README's "Caching and coalescing", compiled here so it cannot rot, and run against the
// loopback server below.

private struct Person: Codable, Sendable {
    var id: Int?
    var firstName: String
    var lastName: String
}

// MARK: - Caching and coalescing

private func readmeCaching(baseURL: URL) async throws -> [Person] {
    let api = API(baseURL: baseURL).with {
        $0.middleware.insert(CacheMiddleware(ResponseCache(byteLimit: 8 << 20, entryLimit: 500)))  // not by default
        // CoalescingMiddleware is in the default list: identical reads in flight share one request
    }

    let ada: Person = try await api.get("people/12")  // 200 with an ETag: stored
    let same: Person = try await api.get("people/12")  // sends If-None-Match; 304 → the stored body, as a 200

    // Ten identical reads at the same moment: one request, ten results.
    let many = try await withThrowingTaskGroup(of: Person.self) { group in
        for _ in 0..<10 { group.addTask { try await api.get("people/12") } }
        return try await group.reduce(into: []) { $0.append($1) }
    }

    try await api.patch("people/12", body: .json(["last_name": "King"]))  // forgets people/12 and people
    return [ada, same] + many
}

extension NetworkTests {
    @Suite struct CacheReadmeSampleTests {
        @Test func theCachingSampleRuns() async throws {
            let server = LoopbackServer { request in
                if request.method == "PATCH" { return .response(jsonResponse("{}")) }
                if request.headers["If-None-Match"] == "\"v1\"" {
                    return .response(HTTPResponse(status: 304, headers: ["ETag": "\"v1\""]))
                }
                return .response(
                    jsonResponse(
                        #"{"id": 12, "first_name": "Ada", "last_name": "Lovelace"}"#, headers: ["ETag": "\"v1\""]))
            }
            try server.start()
            defer { server.stop() }
            let people = try await readmeCaching(baseURL: server.baseURL)
            #expect(people.count == 12)
            #expect(people.allSatisfy { $0.lastName == "Lovelace" })
            let sent = server.requests
            #expect(sent.first?.headers["If-None-Match"] == nil)
            #expect(sent.dropFirst().first?.headers["If-None-Match"] == "\"v1\"")
            #expect(sent.last?.method == "PATCH")
            // The ten overlapping reads took at most ten requests, usually far fewer: timing decides how many overlap.
            #expect(sent.count <= 13)
        }
    }
}
