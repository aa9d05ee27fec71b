import CRUDKit
import Foundation
import Testing

/// `/secure-people/`: DRF's `TokenAuthentication`, with the key as `Authorization: Token <key>`.
@Suite("DRF interop: token authentication", DRFServer.enabled)
struct DRFAuthTests {
    @Test func theRightTokenIsAccepted() async throws {
        let token = try DRFServer.requireToken()
        try await withDRF(token: token) { drf in
            let made: SecurePerson = try await SecurePerson(firstName: "Grace", lastName: drf.tag, age: 85).create()
            let id = try #require(made.id)
            let read: SecurePerson = try await SecurePerson.read(id: id)
            #expect(read == made)
            let listed: [SecurePerson] = try await SecurePerson.list(["last_name": .string(drf.tag)])
            #expect(listed == [made])
            let okay: Okay = try await read.delete()
            #expect(okay == Okay())
            #expect(drf.wire.exchanges.map(\.status) == [201, 200, 200, 204])
            #expect(drf.wire.exchanges.allSatisfy { $0.path.hasPrefix("/secure-people/") })
        }
    }

    @Test func aWrongTokenIs401AndTheRetryPolicyDecidesOnIt() async throws {
        let seen = Locked<[Int]>([])
        let watcher = RetryPolicy(maxAttempts: 1) { _, error, _ in
            seen.withLock { $0.append(error.status ?? -1) }
            return .doNotRetry
        }
        try await withDRF(token: String(repeating: "0", count: 40), retryPolicy: watcher) { drf in
            let error = await #expect(throws: CRUDError.self) { () async throws -> [SecurePerson] in
                try await SecurePerson.list()
            }
            let failure = try #require(error)
            guard case .httpStatus(let response) = failure else {
                Issue.record("expected .httpStatus, got \(failure)")
                return
            }
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == "Token")
            #expect(failure.serverMessage == "Invalid token.")
            #expect(seen.withLock { $0 } == [401])
            #expect(drf.wire.exchanges.map(\.status) == [401])
        }
    }

    @Test func noTokenIs401TooAndNothingIsCreated() async throws {
        try await withDRF { drf in
            let error = await #expect(throws: CRUDError.self) { () async throws -> SecurePerson in
                try await SecurePerson(firstName: "Grace", lastName: drf.tag).create()
            }
            #expect(error?.status == 401)
            #expect(error?.serverMessage == "Authentication credentials were not provided.")
            let unseen: [Person] = try await Person.list(["last_name": .string(drf.tag)])
            #expect(unseen.isEmpty)
        }
    }
}
