import CRUDKit
import Foundation
import Testing

/// Runs `body`, failing with ``DRFWatchdogExpired`` when it has not returned within `seconds` (its task is
/// cancelled then), so a request that waits forever fails the test instead of hanging the suite.
func drfWithinSeconds<Value: Sendable>(
    _ seconds: Double, _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    // Under a sanitizer (`.ci/sanitizers.sh` sets CRUDKIT_SANITIZER) every test runs several times slower while
    // all of them share two cores, so the watchdog waits eight times longer; it only has to catch a hang.
    let seconds = ProcessInfo.processInfo.environment["CRUDKIT_SANITIZER"] == nil ? seconds : seconds * 8
    return try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(seconds * 1e9))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw DRFWatchdogExpired() }
        return value
    }
}

/// Thrown by ``drfWithinSeconds(_:_:)`` when the body did not return in time.
struct DRFWatchdogExpired: Error {}

/// `/secure/people/`: a 401 with `WWW-Authenticate: Basic` comes back at once as a 401 ``CRUDError`` through the
/// default transport (FoundationNetworking used to wait forever for a credential), with no deadline set.
/// Its time limit is five times longer under a sanitizer (`CRUDKIT_SANITIZER`), which slows every test while all of
/// them share two cores: under AddressSanitizer the three tests waited past one minute for a turn, though the
/// watchdog inside (eight times longer there too) never fired.
@Suite(
    "DRF interop: Basic challenge", DRFServer.enabled,
    .timeLimit(.minutes(ProcessInfo.processInfo.environment["CRUDKIT_SANITIZER"] == nil ? 1 : 5)))
struct DRFBasicChallengeTests {
    @Test func noCredentialsIsA401AtOnce() async throws {
        try await withDRF { drf in
            let error = try await drfWithinSeconds(8) { () -> CRUDError? in
                do {
                    let _: [BasicSecurePerson] = try await BasicSecurePerson.list()
                    return nil
                } catch let error as CRUDError {
                    return error
                }
            }
            let failure = try #require(error)
            guard case .httpStatus(let response) = failure else {
                Issue.record("expected .httpStatus, got \(failure)")
                return
            }
            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == #"Basic realm="api""#)
            #expect(failure.serverMessage == "Authentication credentials were not provided.")
            #expect(drf.wire.exchanges.map(\.status) == [401])
        }
    }

    @Test func aWrongTokenIsA401AtOnce() async throws {
        try await withDRF(token: String(repeating: "0", count: 40)) { drf in
            let error = try await drfWithinSeconds(8) { () -> CRUDError? in
                do {
                    let _: BasicSecurePerson = try await BasicSecurePerson(firstName: "Ada", lastName: drf.tag).create()
                    return nil
                } catch let error as CRUDError {
                    return error
                }
            }
            #expect(error?.status == 401)
            #expect(error?.serverMessage == "Invalid token.")
            #expect(drf.wire.exchanges.map(\.status) == [401])
        }
    }

    @Test func theRightTokenStillWorks() async throws {
        let token = try DRFServer.requireToken()
        try await withDRF(token: token) { drf in
            let made: BasicSecurePerson = try await drfWithinSeconds(8) {
                try await BasicSecurePerson(firstName: "Grace", lastName: drf.tag).create()
            }
            let id = try #require(made.id)
            let okay: Okay = try await made.delete()
            #expect(okay == Okay())
            #expect(id > 0)
        }
    }
}
