import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// The response size and redirect limits: each has a default, each can be changed, each is exact at its
    /// boundary and ends in its documented ``CRUDError``.
    @Suite struct ResourceLimitTests {
        private static func isTooLarge(_ limit: Int) -> @Sendable (any Error) -> Bool {
            { error in isCRUDError(error) { if case .responseTooLarge(limit: limit) = $0 { true } else { false } } }
        }

        private static func isTooManyRedirects(_ limit: Int) -> @Sendable (any Error) -> Bool {
            { error in isCRUDError(error) { if case .tooManyRedirects(limit: limit) = $0 { true } else { false } } }
        }

        @Test func defaultsAre50MBAnd5Redirects() {
            let configuration = URLSessionTransport.Configuration()
            #expect(configuration.maximumResponseSize == 50 * 1024 * 1024)
            #expect(URLSessionTransport().configuration == configuration)
            #expect(APIConfiguration(baseURL: nil).maximumRedirects == 5)
        }

        /// `/<n>` answers `n` bytes: `/declared/<n>` with a `Content-Length`, `/chunked/<n>` without one.
        private static func makeSizedServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                let parts = request.path.split(separator: "/")
                let length = parts.last.flatMap { Int($0) } ?? 0
                if parts.first == "chunked" {
                    let chunk = 64 << 10
                    let chunks = stride(from: 0, to: length, by: chunk).map {
                        LoopbackDownload.bytes($0..<min(length, $0 + chunk))
                    }
                    return .stream(LoopbackStream(chunks: chunks, declaresLength: false))
                }
                return .download(LoopbackDownload(length: length, honoursRanges: false))
            })
            try server.start()
            return server
        }

        @Test(arguments: ["declared", "chunked"])
        func aBodyOfExactlyTheLimitPassesAndOneByteMoreFails(framing: String) async throws {
            let server = try Self.makeSizedServer()
            defer { server.stop() }
            let limit = 100_000
            let transport = URLSessionTransport(configuration: .init(maximumResponseSize: limit))
            let base = server.baseURL.appendingPathComponent(framing)

            let exact = try await transport.send(HTTPRequest(url: base.appendingPathComponent("\(limit)")))
            #expect(exact.body == LoopbackDownload.bytes(0..<limit))

            await #expect(
                performing: { try await transport.send(HTTPRequest(url: base.appendingPathComponent("\(limit + 1)"))) },
                throws: Self.isTooLarge(limit))
        }

        /// The 50 MB default refuses a larger declared body as soon as the head arrives (nothing is buffered).
        @Test func theDefaultLimitRefusesALargerDeclaredBody() async throws {
            let server = try Self.makeSizedServer()
            defer { server.stop() }
            let limit = 50 * 1024 * 1024

            await #expect(
                performing: {
                    try await URLSessionTransport().send(
                        HTTPRequest(url: server.baseURL.appendingPathComponent("declared/\(limit + 1)")))
                },
                throws: Self.isTooLarge(limit))
        }

        /// A transport released the moment its request was refused lets the cancelled task finish on its own.
        ///
        /// Its `deinit` once called `invalidateAndCancel()`, which on Linux cancels every task in the session's
        /// registry a second time; racing the transport's own cancellation, FoundationNetworking sometimes found the
        /// task already gone from its registry and trapped (about one run in ten under AddressSanitizer).
        @Test func releasingATransportRightAfterARefusalIsSafe() async throws {
            let server = try Self.makeSizedServer()
            defer { server.stop() }
            let limit = 1_000
            for _ in 0..<100 {
                await #expect(
                    performing: {
                        try await URLSessionTransport(configuration: .init(maximumResponseSize: limit)).send(
                            HTTPRequest(url: server.baseURL.appendingPathComponent("declared/\(1 << 20)")))
                    },
                    throws: Self.isTooLarge(limit))
            }
        }

        /// `/chain/<n>` redirects to `/chain/<n-1>` and `/chain/0` answers 200: exactly `n` redirects.
        private static func makeChainServer() throws -> LoopbackServer {
            let server = LoopbackServer(synchronousHandler: { request in
                let left = Int(request.path.split(separator: "/").last ?? "") ?? 0
                if left == 0 { return .response(HTTPResponse(status: 200, body: Data("end".utf8))) }
                return .response(HTTPResponse(status: 302, headers: ["Location": "/chain/\(left - 1)"]))
            })
            try server.start()
            return server
        }

        @Test(arguments: [nil, 0, 1, 3] as [Int?])
        func exactlyTheLimitOfRedirectsIsFollowedAndOneMoreFails(limit: Int?) async throws {
            let server = try Self.makeChainServer()
            defer { server.stop() }
            var configuration = APIConfiguration(
                baseURL: server.baseURL, transport: URLSessionTransport(), middleware: [])
            if let limit { configuration.maximumRedirects = limit }
            let allowed = configuration.maximumRedirects
            let api = API(configuration: configuration)

            let response = try await api.get("chain/\(allowed)")
            #expect(response.body == Data("end".utf8))
            #expect(server.requests.count == allowed + 1)

            await #expect(
                performing: { try await api.get("chain/\(allowed + 1)") },
                throws: Self.isTooManyRedirects(allowed))
            #expect(server.requests.count == (allowed + 1) + (allowed + 1), "no request beyond the limit was sent")
        }
    }
}
