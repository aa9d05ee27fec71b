import CRUDKit
import Foundation

extension TransportContract {
    /// Every check of the contract, in a stable order.
    public var checks: [Check] {
        [
            roundTrip, statuses, noBodyStatuses, head, chunkedBody, keepAlive, redirectsComeBackAsTheyAre,
            responseTooLarge, refusedHeader, closeBeforeStatusLine, closeMidBody, idleTimeout,
            taskCancellation, authenticationChallenges,
            deadline, informationalAnswers, closeInsideHeaders, cookies, files, progress, futureCancellation,
            closeDelimitedBody, cancellationReleasesTheConnection, handlePauseResume, handleRestart,
            handleWriteNotPausable, handleCancel, downloadTaskPauseResume, downloadFilesOwnerOnly,
            downloadReplacesOnlyOnSuccess, downloadRefusesDirectoryAndLink, downloadTaskFiles, handleFilesOwnerOnly,
            writesAreSentOnce, tokenRefreshThroughTheGuardedAPI, tokenRefreshRejected,
        ] + resumeChecks + faultChecks
    }

    private func url(_ server: LoopbackServer, _ path: String) -> URL {
        server.baseURL.appendingPathComponent(path)
    }

    /// The method, a header and the body reach the server unchanged; the answer's status, header and body come back.
    var roundTrip: Check {
        Check(name: "method, headers and body round trip") {
            try await Self.withServer(contract: self) { request in
                .response(
                    HTTPResponse(
                        status: 201,
                        headers: ["X-Echo-Method": request.method, "X-Echo": request.headers["X-Probe"] ?? ""],
                        body: request.body))
            } body: { server, transport in
                let body = Data("{\"name\":\"Ada\"}".utf8)
                let response = try await transport.send(
                    HTTPRequest(
                        method: .patch, url: url(server, "echo"), headers: ["X-Probe": "a b;c"], body: .data(body)))
                try Self.expect(response.status == 201, "status \(response.status), expected 201")
                try Self.expect(response.headers["X-Echo-Method"] == "PATCH", "the server saw another method")
                try Self.expect(response.headers["X-Echo"] == "a b;c", "the X-Probe header did not arrive unchanged")
                try Self.expect(response.body == body, "the body came back as \(response.body.count) other bytes")
            }
        }
    }

    /// Every final status from 200 to 599 is a response, never an error.
    var statuses: Check {
        Check(name: "statuses 2xx-5xx are responses") {
            try await Self.withServer(contract: self) { request in
                .response(HTTPResponse(status: Int(request.path.dropFirst()) ?? 500, body: Data("s".utf8)))
            } body: { server, transport in
                for status in [200, 202, 400, 401, 404, 409, 418, 429, 500, 503] {
                    let response = try await transport.send(HTTPRequest(url: url(server, "\(status)")))
                    try Self.expect(response.status == status, "sent \(status), received \(response.status)")
                }
            }
        }
    }

    /// 204 and 304 carry no body.
    var noBodyStatuses: Check {
        Check(name: "204 and 304 without body") {
            try await Self.withServer(contract: self) { request in
                .response(HTTPResponse(status: request.path == "/204" ? 204 : 304))
            } body: { server, transport in
                for status in [204, 304] {
                    let response = try await transport.send(HTTPRequest(url: url(server, "\(status)")))
                    try Self.expect(response.status == status, "sent \(status), received \(response.status)")
                    try Self.expect(response.body.isEmpty, "\(status) came with \(response.body.count) body bytes")
                }
            }
        }
    }

    /// A HEAD answer's Content-Length is kept, and no body is read.
    var head: Check {
        Check(name: "HEAD") {
            try await Self.withServer(contract: self) { request in
                try Self.expect(request.method == "HEAD", "the server saw \(request.method)")
                return .response(HTTPResponse(status: 200, headers: ["Content-Length": "42"]))
            } body: { server, transport in
                let response = try await transport.send(HTTPRequest(method: .head, url: url(server, "h")))
                try Self.expect(response.status == 200, "status \(response.status)")
                try Self.expect(response.body.isEmpty, "HEAD returned \(response.body.count) body bytes")
            }
        }
    }

    /// A chunked body is reassembled.
    var chunkedBody: Check {
        Check(name: "chunked body") {
            let chunks = (0..<5).map { Data(repeating: UInt8(65 + $0), count: 1000 * ($0 + 1)) }
            try await Self.withServer(contract: self) { _ in
                .stream(LoopbackStream(chunks: chunks, declaresLength: false))
            } body: { server, transport in
                let response = try await transport.send(HTTPRequest(url: url(server, "chunked")))
                try Self.expect(response.body == chunks.reduce(Data(), +), "the chunked body arrived altered")
            }
        }
    }

    /// Sequential requests reuse one connection.
    var keepAlive: Check {
        Check(name: "keep-alive reuse") {
            try await Self.withServer(contract: self) { _ in
                .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
            } body: { server, transport in
                for index in 0..<5 { _ = try await transport.send(HTTPRequest(url: url(server, "k\(index)"))) }
                try Self.expect(
                    server.connectionsAccepted == 1,
                    "5 sequential requests opened \(server.connectionsAccepted) connections")
            }
        }
    }

    /// A body over the limit fails with responseTooLarge, with and without Content-Length.
    var responseTooLarge: Check {
        Check(name: "maximum response size") {
            let chunks = Array(repeating: Data(count: 64 << 10), count: 8)
            try await Self.withServer(Settings(maximumResponseSize: 100_000), contract: self) { request in
                .stream(LoopbackStream(chunks: chunks, declaresLength: request.path == "/declared"))
            } body: { server, transport in
                for path in ["declared", "chunked"] {
                    try await Self.expectError("responseTooLarge(limit: 100000) for \(path)") {
                        try await transport.send(HTTPRequest(url: url(server, path)))
                    } matches: {
                        if case .responseTooLarge(100_000) = $0 { true } else { false }
                    }
                }
            }
        }
    }

    /// A header value with CR/LF is refused before anything is sent.
    var refusedHeader: Check {
        Check(name: "CR/LF in a header is refused") {
            try await Self.withServer(contract: self) { _ in
                .response(HTTPResponse(status: 200))
            } body: { server, transport in
                try await Self.expectError("invalidRequest") {
                    try await transport.send(
                        HTTPRequest(url: url(server, "x"), headers: ["X-Bad": "a\r\nInjected: yes"]))
                } matches: {
                    if case .invalidRequest = $0 { true } else { false }
                }
                try Self.expect(server.requests.isEmpty, "the server received \(server.requests.count) requests")
            }
        }
    }

    /// A connection closed before the status line is a transport error with the reason `connectionLost`.
    var closeBeforeStatusLine: Check {
        Check(name: "fault: close before the status line") {
            try await Self.withServer(contract: self) { _ in
                .fault(.closeBeforeStatusLine)
            } body: { server, transport in
                try await Self.expectError("transport with reason connection lost") {
                    try await transport.send(HTTPRequest(url: url(server, "f")))
                } matches: {
                    if case .transport(let failure) = $0 { failure.reason == .connectionLost } else { false }
                }
            }
        }
    }

    /// A body shorter than its Content-Length is a transport error with the reason `connectionLost`.
    var closeMidBody: Check {
        Check(name: "fault: close mid-body") {
            try await Self.withServer(contract: self) { _ in
                .fault(.closeMidBody(HTTPResponse(status: 200, body: Data(count: 10_000)), after: 100))
            } body: { server, transport in
                try await Self.expectError("transport with reason connection lost") {
                    try await transport.send(HTTPRequest(url: url(server, "f")))
                } matches: {
                    if case .transport(let failure) = $0 { failure.reason == .connectionLost } else { false }
                }
            }
        }
    }

    /// A server that never answers ends in an idle timeout.
    var idleTimeout: Check {
        Check(name: "idle timeout") {
            try await Self.withServer(Settings(idleTimeout: 1), contract: self) { _ in
                .fault(.neverAnswer)
            } body: { server, transport in
                try await Self.expectError("timedOut(.idle)") {
                    try await transport.send(HTTPRequest(url: url(server, "slow")))
                } matches: {
                    if case .timedOut(.idle) = $0 { true } else { false }
                }
            }
        }
    }

    /// Cancelling the calling task ends the request with cancelled, well before any timeout.
    var taskCancellation: Check {
        Check(name: "cancellation through Task") {
            try await Self.withServer(contract: self) { _ in
                .fault(.neverAnswer)
            } body: { server, transport in
                let request = HTTPRequest(url: url(server, "wait"))
                let task = Task { try await transport.send(request) }
                let clock = ContinuousClock()
                let limit = clock.now.advanced(by: .seconds(10))
                while server.connectionsAccepted == 0 && clock.now < limit { await Task.yield() }
                task.cancel()
                try await Self.expectError("cancelled") {
                    try await task.value
                } matches: {
                    $0.isCancelled
                }
            }
        }
    }
}
