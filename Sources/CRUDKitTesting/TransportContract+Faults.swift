import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

extension TransportContract {
    /// The fault checks that must end the same way on every transport: a stalled upload, a refused connection, a
    /// status below 100, and compressed answers (negotiated, decoded, and a bomb stopped at the size limit).
    var faultChecks: [Check] {
        [uploadStall, refusedConnection, statusBelow100, compressedAnswer, compressionBomb]
    }

    /// A 64 MB upload to a server that accepts the connection and never reads ends in an idle timeout.
    ///
    /// The body is a sparse file, streamed: 64 MB in memory would swell the process while other tests measure it.
    var uploadStall: Check {
        Check(name: "fault: an upload the server never reads times out") {
            let port = try SilentPort(listens: true)
            defer { port.close() }
            let (file, handle) = try PrivateFiles.create("upload-stall")
            defer { try? FileManager.default.removeItem(at: file) }
            try handle.truncate(atOffset: 64 << 20)
            try handle.close()
            let transport = makeTransport(Settings(idleTimeout: 1))
            let request = HTTPRequest(
                method: .post, url: port.baseURL.appendingPathComponent("upload"), body: .file(file))
            let clock = ContinuousClock()
            let started = clock.now
            try await Self.expectError("timedOut(.idle(1))") {
                try await transport.send(request)
            } matches: {
                if case .timedOut(.idle) = $0 { true } else { false }
            }
            let elapsed = clock.now - started
            // Generous for a loaded machine; a transport without an idle limit on writes never ends at all.
            try Self.expect(elapsed < .seconds(30), "the idle timeout of 1 s ended the upload after \(elapsed)")
        }
    }

    /// A connection the host refuses is a transport error with the reason `cannotConnect`.
    var refusedConnection: Check {
        Check(name: "fault: a refused connection is cannotConnect") {
            let port = try SilentPort(listens: false)
            defer { port.close() }
            let transport = makeTransport(Settings(idleTimeout: 10))
            try await Self.expectError("transport with reason cannot connect") {
                try await transport.send(HTTPRequest(url: port.baseURL.appendingPathComponent("x")))
            } matches: {
                if case .transport(let failure) = $0 { failure.reason == .cannotConnect } else { false }
            }
        }
    }

    /// A status line with a status below 100 (not HTTP) is a protocol violation, not a response and not a crash.
    var statusBelow100: Check {
        Check(
            name: "fault: a status below 100 is a protocol violation",
            knownLimitations: [
                "AsyncHTTPClientTransport":
                    "AsyncHTTPClient 1.37 takes any status below 200 for an informational head, skips it, then stops the process at the body (preconditionFailure in HTTPRequestStateMachine.receivedHTTPResponseBodyPart); pinned in a child process by the adapter's suite"
            ],
            abortsProcess: ["AsyncHTTPClientTransport"]
        ) {
            let raw = "HTTP/1.1 000 Zero\r\nContent-Length: 2\r\n\r\n{}"
            try await Self.withServer(contract: self) { _ in
                .fault(.raw(Data(raw.utf8)))
            } body: { server, transport in
                try await Self.expectError("transport with reason protocol violation") {
                    try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("zero")))
                } matches: {
                    if case .transport(let failure) = $0 { failure.reason == .protocolViolation } else { false }
                }
            }
        }
    }

    /// The transport asks for gzip and hands the caller the decoded body; a server that is not asked answers
    /// plainly, so a transport that does not negotiate fails here.
    var compressedAnswer: Check {
        Check(name: "compression: gzip is asked for and decoded") {
            let text = String(repeating: "{\"name\":\"Ada\"}", count: 50)
            let gzip = LoopbackGzip.text(text)
            try await Self.withServer(contract: self) { request in
                let accepted = request.headers["Accept-Encoding"]?.lowercased().contains("gzip") ?? false
                guard accepted else { return .response(HTTPResponse(status: 200, body: Data("plain".utf8))) }
                return .response(HTTPResponse(status: 200, headers: ["Content-Encoding": "gzip"], body: gzip))
            } body: { server, transport in
                let response = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("z")))
                let body = String(decoding: response.body, as: UTF8.self)
                try Self.expect(body != "plain", "the request did not ask for gzip (no Accept-Encoding with gzip)")
                try Self.expect(
                    response.status == 200 && body == text,
                    "expected the decoded \(text.utf8.count) bytes, got \(response.status) with \(response.body.count) bytes"
                )
            }
        }
    }

    /// A small gzip body that inflates far past the size limit stops with responseTooLarge at the limit, whether
    /// or not gzip was asked for.
    var compressionBomb: Check {
        Check(name: "compression: a gzip bomb stops at the size limit") {
            // 16 MB of zeros in about 100 KB, streamed; the limit is 1 MB.
            let chunks = LoopbackGzip.zeros(16 << 20, chunkSize: 16 << 10)
            let settings = Settings(maximumResponseSize: 1 << 20)
            try await Self.withServer(settings, contract: self) { _ in
                .stream(LoopbackStream(headers: ["Content-Encoding": "gzip"], chunks: chunks))
            } body: { server, transport in
                try await Self.expectError("responseTooLarge(limit: \(1 << 20))") {
                    try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("bomb")))
                } matches: {
                    if case .responseTooLarge(1 << 20) = $0 { true } else { false }
                }
            }
        }
    }
}
