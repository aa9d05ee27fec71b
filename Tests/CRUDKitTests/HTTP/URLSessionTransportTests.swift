import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    @Suite struct URLSessionTransportTests {
        @Test func setsUserAgentAndContentTypeExplicitly() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            let transport = URLSessionTransport()
            let url = server.baseURL.appendingPathComponent("things")

            _ = try await transport.send(HTTPRequest(method: .post, url: url, body: .data(Data([1, 2, 3]))))
            _ = try await transport.send(HTTPRequest(method: .post, url: url))
            _ = try await transport.send(HTTPRequest(url: url, headers: ["User-Agent": "MyApp/2"]))

            let requests = server.requests
            #expect(requests[0].headers["User-Agent"] == "CRUDKit/\(URLSessionTransport.libraryVersion)")
            #expect(requests[0].headers["Content-Type"] == "application/octet-stream")
            #expect(requests[1].headers["Content-Type"] == nil)
            #expect(requests[2].headers["User-Agent"] == "MyApp/2")
        }

        @Test func returnsErrorStatusesAsResponsesWithHeadersAndBody() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .response(
                    HTTPResponse(status: 404, headers: ["content-type": "application/json"], body: Data("{}".utf8)))
            })
            try server.start()
            defer { server.stop() }

            let response = try await URLSessionTransport().send(
                HTTPRequest(url: server.baseURL.appendingPathComponent("x")))

            #expect(response.status == 404)
            #expect(response.mediaType == "application/json")
            #expect(response.body == Data("{}".utf8))
            #expect(response.url == server.baseURL.appendingPathComponent("x"))
        }

        @Test(arguments: [
            ("X-Evil", "a\r\nInjected: 1"), ("X-Evil", "a\nb"), ("X-Evil", "a\rb"), ("X-Evil", "a\u{0}b"),
            ("Bad Name", "v"), ("Bad:Name", "v"), ("Bad\r\nName", "v"), ("", "v"),
        ])
        func refusesHeaderInjectionBeforeSending(name: String, value: String) async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            var request = HTTPRequest(url: server.baseURL)
            request.headers.add(name: name, value: value)

            await #expect {
                try await URLSessionTransport().send(request)
            } throws: { error in
                isCRUDError(error) { if case .invalidRequest = $0 { true } else { false } }
            }
            #expect(server.connectionsAccepted == 0)
        }

        @Test func refusesNonHTTPURLs() async throws {
            let request = HTTPRequest(url: URL(fileURLWithPath: "/etc/passwd"))
            await #expect(throws: CRUDError.self) { try await URLSessionTransport().send(request) }
        }

        @Test func cancellingTheTaskCancelsTheTransfer() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: [Data(count: 1000), Data(count: 1000)], delay: 30))
            })
            try server.start()
            defer { server.stop() }
            let (started, signal) = AsyncStream.makeStream(of: Void.self)
            let transport = URLSessionTransport()
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("slow"))

            let task = Task {
                try await transport.send(request, observer: TransferObserver(download: { _ in signal.yield() }))
            }
            for await _ in started { break }
            task.cancel()

            await #expect {
                try await task.value
            } throws: { error in
                isCRUDError(error) { $0.isCancelled }
            }
        }

        @Test func alreadyCancelledTaskSendsNothing() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            let transport = URLSessionTransport()
            let request = HTTPRequest(url: server.baseURL)

            let task = Task {
                withUnsafeCurrentTask { $0?.cancel() }
                return try await transport.send(request)
            }

            await #expect { try await task.value } throws: { isCRUDError($0) { $0.isCancelled } }
            #expect(server.requests.isEmpty)
        }

        @Test func idleTimeoutFiresWhenTheServerGoesQuiet() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: [Data("a".utf8), Data("b".utf8)], delay: 20, delaysHead: true))
            })
            try server.start()
            defer { server.stop() }
            let started = Date()

            await #expect {
                try await URLSessionTransport().send(HTTPRequest(url: server.baseURL, timeout: 0.3))
            } throws: { error in
                isCRUDError(error) { $0.timeout == .idle(0.3) }
            }
            #expect(Date().timeIntervalSince(started) < 10, "our timer fired, not the server's end")
        }

        @Test func serverThatNeverAnswersTimesOut() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in .fault(.neverAnswer) })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 0.3))

            await #expect {
                try await transport.send(HTTPRequest(url: server.baseURL))
            } throws: { error in
                isCRUDError(error) { $0.timeout == .idle(0.3) }
            }
        }

        @Test func deadlineFiresWhileBytesKeepTrickling() async throws {
            let chunks = Array(repeating: Data("x".utf8), count: 100)
            let server = LoopbackServer(synchronousHandler: { _ in .stream(LoopbackStream(chunks: chunks, delay: 0.1)) }
            )
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(idleTimeout: 5))
            let api = ThroughAPI(transport).api.with { $0.deadline = 0.5 }

            await #expect {
                try await api.send(HTTPRequest(url: server.baseURL))
            } throws: { error in
                isCRUDError(error) { $0.timeout == .deadline(0.5) }
            }
            await #expect {
                try await transport.send(HTTPRequest(url: server.baseURL, deadline: 0.2))
            } throws: { error in
                isCRUDError(error) { $0.timeout == .deadline(0.2) }
            }
        }

        @Test func bodyOverTheLimitStopsEarlyWithContentLengthAndWithout() async throws {
            let big = Data(count: 3 << 20)
            let server = LoopbackServer(synchronousHandler: { request in
                request.path == "/declared"
                    ? .response(HTTPResponse(status: 200, body: big))
                    : .stream(
                        LoopbackStream(
                            chunks: Array(repeating: Data(count: 256 << 10), count: 12), declaresLength: false))
            })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(maximumResponseSize: 1 << 20))

            for path in ["declared", "chunked"] {
                await #expect {
                    try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent(path)))
                } throws: { error in
                    isCRUDError(error) { if case .responseTooLarge(limit: 1 << 20) = $0 { true } else { false } }
                }
            }
            let small = try await transport.send(
                HTTPRequest(method: .head, url: server.baseURL.appendingPathComponent("declared")))
            #expect(small.status == 200)
        }

        @Test func reusesConnectionsUnder64ConcurrentRequests() async throws {
            let server = LoopbackServer(
                recordsRequests: false,
                synchronousHandler: { request in
                    .response(HTTPResponse(status: 200, body: Data(request.path.utf8)))
                })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport()
            let base = server.baseURL

            for _ in 0..<3 {
                let paths = try await withThrowingTaskGroup(of: Bool.self) { group in
                    for index in 0..<64 {
                        group.addTask {
                            let response = try await transport.send(
                                HTTPRequest(url: base.appendingPathComponent("\(index)")))
                            return response.body == Data("/\(index)".utf8)
                        }
                    }
                    return try await group.reduce(into: [Bool]()) { $0.append($1) }
                }
                #expect(paths.count == 64 && paths.allSatisfy { $0 })
            }

            let connections = server.connectionsAccepted
            let peak = server.peakOpenConnections
            print("192 requests, 64 at a time: \(connections) connections opened, at most \(peak) at once")
            #expect(peak <= transport.configuration.maximumConnectionsPerHost)
            #expect(connections < 192, "connections were reused")
        }
    }
}
