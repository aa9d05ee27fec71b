import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// `RequestHandle` over `URLSessionTransport` against a loopback server whose body stalls mid-way, so that a pause
    /// is certain to land in the middle of the transfer.
    @Suite struct RequestHandleTests {
        static let length = 2 << 20
        static let stall = 1 << 20

        /// A GET through `api.handle(for:)` whose observer signals once `bytes` have arrived.
        static func stalledGET(_ server: LoopbackServer) -> (RequestHandle<HTTPResponse>, AsyncStream<Void>) {
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            var request = Request(.get, "file", decoder: .response)
            request.observer = TransferObserver(download: { if $0.completedBytes >= Self.stall { signal.yield() } })
            return (api.handle(for: request), reached)
        }

        @Test func pausedGETResumesWithARangeAndIsByteExact() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .download(LoopbackDownload(length: Self.length, stallAfter: Self.stall))
            })
            try server.start()
            defer { server.stop() }
            let (handle, reached) = Self.stalledGET(server)
            for await _ in reached { break }

            #expect(handle.pause() == .paused)
            handle.resume()
            let response = try await handle.value

            #expect(response.status == 200)
            #expect(response.body == LoopbackDownload.bytes(0..<Self.length))
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.last?.headers["Range"] == "bytes=\(Self.stall)-")
            #expect(requests.last?.headers["If-Range"] == "\"loopback-v1\"")
        }

        @Test(arguments: ["ignores ranges", "changed file", "no validator"])
        func pausedGETRestartsWhenTheServerCannotContinue(reason: String) async throws {
            let count = Locked(0)
            let server = LoopbackServer(synchronousHandler: { _ in
                let number = count.withLock { count -> Int in
                    count += 1
                    return count
                }
                return .download(
                    LoopbackDownload(
                        length: Self.length,
                        etag: reason == "no validator" ? nil : reason == "changed file" ? "\"v\(number)\"" : "\"v1\"",
                        honoursRanges: reason != "ignores ranges",
                        stallAfter: number == 1 ? Self.stall : nil))
            })
            try server.start()
            defer { server.stop() }
            let (handle, reached) = Self.stalledGET(server)
            for await _ in reached { break }

            #expect(handle.pause() == .paused)
            handle.resume()
            let response = try await handle.value

            #expect(response.body == LoopbackDownload.bytes(0..<Self.length))
            let requests = server.requests
            #expect(requests.count == 2)
            #expect((requests.last?.headers["Range"] == nil) == (reason == "no validator"))
        }

        @Test func requestPausedBeforeItStartsSendsNothingUntilResumed() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .response(
                    HTTPResponse(status: 200, headers: ["Content-Type": "application/json"], body: Data("{}".utf8)))
            })
            try server.start()
            defer { server.stop() }
            let (adapted, signal) = AsyncStream.makeStream(of: Void.self)
            let spy = ClosureMiddleware.adapt { request in
                signal.yield()
                return request
            }
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport()).with {
                $0.middleware.insert(spy, after: .retry)
            }

            let handle = api.handle(for: Request(.get, "people/1", decoder: .response), paused: true)
            for await _ in adapted { break }
            // The request is built and adapted; it would reach the server within milliseconds if it did not wait.
            try await Task.sleep(for: .milliseconds(200))
            #expect(server.requests.isEmpty)

            handle.resume()
            let response = try await handle.value
            #expect(response.status == 200)
            #expect(server.requests.count == 1)
        }

        @Test func writeOnTheWireCannotBePaused() async throws {
            let (arrived, signalArrival) = AsyncStream.makeStream(of: Void.self)
            let (gate, openGate) = AsyncStream.makeStream(of: Void.self)
            let server = LoopbackServer(handler: { _ in
                signalArrival.yield()
                for await _ in gate { break }
                return .response(HTTPResponse(status: 201, body: Data("{}".utf8)))
            })
            try server.start()
            defer { server.stop() }
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())

            let handle = api.handle(for: Request(.post, "people", body: .data(Data("{}".utf8)), decoder: .response))
            for await _ in arrived { break }
            let outcome = handle.pause()
            openGate.yield()
            let response = try await handle.value

            guard case .notPausable(let reason) = outcome else {
                Issue.record("a POST on the wire was paused: \(outcome)")
                return
            }
            #expect(reason.contains("POST"))
            #expect(response.status == 201)
            #expect(server.requests.count == 1)
            #expect(handle.pause() == .notPausable(reason: "the request has already ended"))
        }

        @Test func cancelEndsTheRequestWithCancelled() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .download(LoopbackDownload(length: Self.length, stallAfter: Self.stall))
            })
            try server.start()
            defer { server.stop() }
            let (handle, reached) = Self.stalledGET(server)
            for await _ in reached { break }

            handle.cancel()
            await #expect { try await handle.value } throws: { isCRUDError($0) { $0.isCancelled } }
            #expect(server.requests.count == 1)
        }

        @Test func cancelWhilePausedEndsTheRequestWithCancelled() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .response(HTTPResponse(status: 200, body: Data("{}".utf8)))
            })
            try server.start()
            defer { server.stop() }
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())
            let handle = api.handle(for: Request(.get, "people/1", decoder: .response), paused: true)

            handle.cancel()
            await #expect { try await handle.future.value } throws: { isCRUDError($0) { $0.isCancelled } }
            #expect(server.requests.isEmpty)
        }

        @Test func bodyOverTheTransportsLimitFailsWithResponseTooLarge() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in .download(LoopbackDownload(length: Self.length)) })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport(configuration: .init(maximumResponseSize: Self.stall))
            let api = API(baseURL: server.baseURL, transport: transport)

            let handle = api.handle(for: Request(.get, "file", decoder: .response))

            await #expect { try await handle.value } throws: {
                isCRUDError($0) {
                    if case .responseTooLarge(limit: Self.stall) = $0 { return true }
                    return false
                }
            }
        }
    }
}
