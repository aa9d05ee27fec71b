import CRUDKit
@_spi(TransportKit) import CRUDKitCore
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A write the server may have acted on is never sent twice by ``URLSessionTransport`` behind the retry policy's
    /// back: FoundationNetworking (libcurl) resends a request on a fresh connection when a reused keep-alive
    /// connection dies before any answer, so a `POST` or `PATCH` without an `Idempotency-Key` goes out on a
    /// connection of its own. Idempotent requests and keyed writes keep sharing connections.
    @Suite(.timeLimit(.minutes(TestEnvironment.minutes(1)))) struct WriteOnceTests {
        /// What the server does with the first write it reads.
        enum FirstWrite {
            /// Closes the connection after reading it whole, without answering.
            case drop
            /// Answers 201.
            case answer
        }

        /// A server answering GET with 200 (keep-alive) and writes with 201, except as `first` says.
        final class CountingServer: Sendable {
            let server: LoopbackServer
            private let writes = Locked(0)

            init(first: FirstWrite) throws {
                let writes = self.writes
                server = LoopbackServer(synchronousHandler: { request in
                    guard request.method != "GET" else { return .response(HTTPResponse(status: 200)) }
                    let number = writes.withLock { count in
                        count += 1
                        return count
                    }
                    return number == 1 && first == .drop
                        ? .fault(.closeBeforeStatusLine) : .response(HTTPResponse(status: 201))
                })
                try server.start()
            }

            func url(_ path: String) -> URL { server.baseURL.appendingPathComponent(path) }

            /// The requests with `method` the server read, with the connection each came on.
            func received(_ method: HTTPMethod) -> [Int] {
                server.requests.filter { $0.method == method.rawValue }.map(\.connection)
            }
        }

        let transport = URLSessionTransport(configuration: .init(idleTimeout: 3))
        let json = Data("{\"name\":\"Ada\"}".utf8)

        /// Sends `request`; its status, or the error it threw.
        func outcome(_ request: HTTPRequest) async -> Result<Int, CRUDError> {
            do {
                return .success(try await transport.send(request).status)
            } catch let error as CRUDError {
                return .failure(error)
            } catch {
                return .failure(.transport(underlying: error))
            }
        }

        @Test(arguments: [(HTTPMethod.post, false), (.post, true), (.patch, true)])
        func aDroppedWriteOnAWarmConnectionIsSentOnce(method: HTTPMethod, hasBody: Bool) async throws {
            let counting = try CountingServer(first: .drop)
            defer { counting.server.stop() }
            _ = try await transport.send(HTTPRequest(url: counting.url("warm")))
            let started = ContinuousClock.now

            let result = await outcome(
                HTTPRequest(method: method, url: counting.url("people"), body: hasBody ? .data(json) : .none))

            // Before: the write went on the warm connection, was resent on a second one (twice in all), and the
            // caller got 201 (no body) or waited for the idle timeout (the resend carried no body).
            #expect(counting.received(method) == [2], "\(method) arrived on connections \(counting.received(method))")
            #expect(counting.server.connectionsAccepted == 2)
            guard case .failure(.transport) = result else {
                Issue.record("expected a transport error, got \(result)")
                return
            }
            #expect(ContinuousClock.now - started < .seconds(2), "it waited for the idle timeout")
        }

        @Test func writesWithoutAKeyEachTakeAConnectionOfTheirOwnAndReadsShareOne() async throws {
            let counting = try CountingServer(first: .answer)
            defer { counting.server.stop() }

            _ = try await transport.send(HTTPRequest(url: counting.url("a")))
            let first = try await transport.send(HTTPRequest(method: .post, url: counting.url("p"), body: .data(json)))
            let second = try await transport.send(HTTPRequest(method: .post, url: counting.url("p")))
            _ = try await transport.send(HTTPRequest(url: counting.url("b")))

            #expect(first.status == 201 && second.status == 201)
            #expect(counting.received(.post) == [2, 3])
            #expect(counting.received(.get) == [1, 1], "the GETs no longer share their connection")
            // A write's own connection is closed once it is answered (it is never reused): only the GETs' stays.
            let clock = ContinuousClock()
            let limit = clock.now.advanced(by: .seconds(5))
            while counting.server.openConnections > 1 && clock.now < limit { await Task.yield() }
            #expect(counting.server.openConnections == 1)
        }

        /// A PUT is idempotent and a keyed POST may be repeated (the server recognises the key): both keep using the
        /// warm connection.
        @Test func idempotentAndKeyedWritesShareTheWarmConnection() async throws {
            let counting = try CountingServer(first: .answer)
            defer { counting.server.stop() }

            _ = try await transport.send(HTTPRequest(url: counting.url("a")))
            let put = try await transport.send(HTTPRequest(method: .put, url: counting.url("p/1"), body: .data(json)))
            let keyed = try await transport.send(
                HTTPRequest(
                    method: .post, url: counting.url("p"), headers: ["idempotency-key": "k-1"], body: .data(json)))

            #expect(put.status == 201 && keyed.status == 201)
            #expect(counting.received(.put) == [1])
            #expect(counting.received(.post) == [1])
            #expect(counting.server.connectionsAccepted == 1)
        }

        /// A server that closes the warm connection before reading the next request: the write is still sent once,
        /// and answered.
        @Test func aServerClosingTheIdleConnectionBeforeTheWriteGetsItOnce() async throws {
            let server = LoopbackServer(synchronousHandler: { request in
                guard request.method == "GET" else { return .response(HTTPResponse(status: 201)) }
                // A keep-alive answer, then the server closes: the client's pool holds a connection already gone.
                return .fault(.raw(Data("HTTP/1.1 200 OK\r\nContent-Length: 0\r\n\r\n".utf8)))
            })
            try server.start()
            defer { server.stop() }
            _ = try await transport.send(HTTPRequest(url: server.baseURL.appendingPathComponent("warm")))

            let response = try await transport.send(
                HTTPRequest(method: .post, url: server.baseURL.appendingPathComponent("p"), body: .data(json)))

            #expect(response.status == 201)
            let posts = server.requests.filter { $0.method == "POST" }
            #expect(posts.count == 1)
            #expect(posts.first?.body == json)
        }

        /// A PUT on a warm connection that the server drops may be resent (it is idempotent): whatever the transport
        /// does, it ends within the idle timeout and the server never sees a different body.
        @Test func aDroppedPutEndsAndIsNeverAltered() async throws {
            let counting = try CountingServer(first: .drop)
            defer { counting.server.stop() }
            _ = try await transport.send(HTTPRequest(url: counting.url("warm")))

            let result = await outcome(HTTPRequest(method: .put, url: counting.url("p/1"), body: .data(json)))

            let puts = counting.server.requests.filter { $0.method == "PUT" }
            #expect(!puts.isEmpty && puts.allSatisfy { $0.body == json })
            if case .success(let status) = result { #expect(status == 201) }
        }
    }
}
