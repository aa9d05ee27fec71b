import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitHTTP

/// Runs `body`, failing with ``ChallengeWatchdogExpired`` when it has not returned within `seconds` (five times as
/// long under a sanitizer; its task is cancelled then), so a request that waits forever fails the test instead of
/// hanging the suite. The limit only catches hangs: under a sanitizer the
/// deadline tests allow an exchange to end up to 10 s late, which a fixed 5 s limit cut short.
func withinSeconds<Value: Sendable>(
    _ seconds: Double, _ body: @escaping @Sendable () async throws -> Value
) async throws -> Value {
    let limit = TestEnvironment.underSanitizer ? seconds * 5 : seconds
    return try await withThrowingTaskGroup(of: Value?.self) { group in
        group.addTask { try await body() }
        group.addTask {
            try await Task.sleep(nanoseconds: UInt64(limit * 1e9))
            return nil
        }
        defer { group.cancelAll() }
        guard let first = try await group.next(), let value = first else { throw ChallengeWatchdogExpired() }
        return value
    }
}

/// Thrown by ``withinSeconds(_:_:)`` when the body did not return in time.
struct ChallengeWatchdogExpired: Error {}

extension NetworkTests {
    /// A 401 with a `WWW-Authenticate` challenge comes back at once as the 401 response, whatever the scheme: on
    /// Linux, FoundationNetworking used to hold a Basic or Digest challenge for a credential that never came.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct AuthChallengeTests {
        static let challenges = [
            #"Basic realm="api""#,
            #"Digest realm="api", qop="auth", nonce="dcd98b7102dd2f0e8b11d0f600bfb0c093", opaque="5ccc069c403ebaf9""#,
            #"Bearer realm="api", error="invalid_token""#,
        ]

        static func makeServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                let index = Int(request.path.split(separator: "/").last ?? "") ?? 0
                return .response(
                    HTTPResponse(
                        status: 401,
                        headers: [
                            "WWW-Authenticate": challenges[index % challenges.count],
                            "Content-Type": "application/json",
                        ],
                        body: Data(#"{"detail":"Authentication credentials were not provided."}"#.utf8)
                    ))
            })
            try server.start()
            return server
        }

        @Test(arguments: 0..<3)
        func challengeComesBackAtOnceAsThe401Response(scheme: Int) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = URLSessionTransport()
            let url = server.baseURL.appendingPathComponent("people").appendingPathComponent("\(scheme)")

            let response = try await withinSeconds(10) { try await transport.send(HTTPRequest(url: url)) }

            #expect(response.status == 401)
            #expect(response.headers["WWW-Authenticate"] == Self.challenges[scheme])
            #expect(String(decoding: response.body, as: UTF8.self).contains("not provided"))
        }

        @Test(arguments: 0..<3)
        func aWrongPasswordIsA401CRUDErrorAtOnce(scheme: Int) async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let api = API(baseURL: server.baseURL)
            let credential = Data("ada:wrong".utf8).base64EncodedString()

            let error = try await withinSeconds(10) { () -> CRUDError? in
                do {
                    try await api.get("people/\(scheme)", headers: ["Authorization": "Basic \(credential)"])
                    return nil
                } catch let error as CRUDError {
                    return error
                }
            }

            #expect(error?.status == 401)
            #expect(error?.serverMessage == "Authentication credentials were not provided.")
        }

        @Test func theSameTransportAnswersAgainAfterAChallenge() async throws {
            let server = try Self.makeServer()
            defer { server.stop() }
            let transport = URLSessionTransport()

            for round in 0..<6 {
                let url = server.baseURL.appendingPathComponent("people/\(round)")
                let response = try await withinSeconds(10) { try await transport.send(HTTPRequest(url: url)) }
                #expect(response.status == 401)
            }
            // Each challenged task is cancelled after its 401 returned; its completion unregisters the transfer
            // on the session's queue (bounded wait, yielding).
            let end = DispatchTime.now().uptimeNanoseconds + 10_000_000_000
            while transport.delegate.registeredCount > 0 && DispatchTime.now().uptimeNanoseconds < end {
                try await Task.sleep(nanoseconds: 10_000_000)
            }
            #expect(transport.delegate.registeredCount == 0)
        }
    }
}
