import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit
@testable import CRUDKitHTTP

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkTests {
    /// The Linux fast path: delegate callbacks run inline on URLSession's work queue, headers are set at once.
    @Suite struct InlineDelegateTests {
        @Test func requestHeadersAreSetAtOnceWithTheSameMeaningAsAddValue() throws {
            let transport = URLSessionTransport(configuration: .init(userAgent: "Agent/1"))
            var headers = HTTPHeaders()
            headers.add(name: "X-Tag", value: "a")
            headers.add(name: "x-tag", value: "b")
            headers.add(name: "cookie", value: "k=v")
            headers.add(name: "Accept", value: "application/json")
            let url = try #require(URL(string: "http://127.0.0.1/x"))

            let built = transport.makeURLRequest(
                HTTPRequest(method: .post, url: url, headers: headers, body: .data(Data([1]))))

            #expect(built.allHTTPHeaderFields?["X-Tag"] == "a,b")
            #expect(built.allHTTPHeaderFields?.keys.contains("x-tag") == false)
            #expect(built.value(forHTTPHeaderField: "User-Agent") == "Agent/1")
            #expect(built.value(forHTTPHeaderField: "Content-Type") == "application/octet-stream")
            #expect(built.value(forHTTPHeaderField: "Accept") == "application/json")
            #expect(built.httpShouldHandleCookies == false)
            #expect(built.httpMethod == "POST")

            var own = HTTPHeaders()
            own.add(name: "user-agent", value: "Mine/2")
            own.add(name: "content-type", value: "text/plain")
            let kept = transport.makeURLRequest(
                HTTPRequest(method: .put, url: url, headers: own, body: .data(Data([1]))))
            #expect(kept.allHTTPHeaderFields == ["user-agent": "Mine/2", "content-type": "text/plain"])
            #expect(kept.httpShouldHandleCookies == false, "the transport's CookieJar adds cookies, not URLSession")
            #expect(transport.makeURLRequest(HTTPRequest(url: url)).value(forHTTPHeaderField: "Content-Type") == nil)
        }

        @Test func responseHeadersAreSortedByNameIgnoringCase() throws {
            let url = try #require(URL(string: "http://127.0.0.1/x"))
            let response = try #require(
                HTTPURLResponse(
                    url: url, statusCode: 200, httpVersion: "HTTP/1.1",
                    headerFields: ["b-Second": "2", "A-First": "1", "c-third": "3"]))

            // Linux capitalises the names; the order is what matters here.
            let names = URLSessionTransport.headers(of: response).map { $0.name.lowercased() }

            #expect(names == ["a-first", "b-second", "c-third"])
        }

        #if canImport(FoundationNetworking)
        @Test func delegateQueueRunsOperationsOnTheCallingThread() {
            let queue = URLSessionTransport.InlineDelegateQueue()
            let ran = Locked(0)
            queue.addOperation { ran.withLock { $0 += 1 } }
            queue.addOperation(BlockOperation { ran.withLock { $0 += 10 } })
            #expect(ran.withLock { $0 } == 11, "both ran before addOperation returned")
        }
        #endif

        /// Cancelling while the response completes must neither hang nor lose a result: URLSessionTask.cancel()
        /// waits for the session's work queue, where the continuation is resumed, so the transport cancels
        /// asynchronously. The server tells the test when each request arrived and answers at once, so the
        /// cancellation lands while the answer is on its way; every request ends with the response or `cancelled`.
        @Test(.timeLimit(.minutes(TestEnvironment.minutes(1))))
        func cancellationRacingCompletionNeverHangs() async throws {
            let (arrivals, arrived) = AsyncStream.makeStream(of: Void.self)
            let server = LoopbackServer(
                recordsRequests: false,
                synchronousHandler: { _ in
                    arrived.yield()
                    return .response(HTTPResponse(status: 200, body: Data("ok".utf8)))
                })
            try server.start()
            defer { server.stop() }
            let transport = URLSessionTransport()
            let request = HTTPRequest(url: server.baseURL.appendingPathComponent("race"))
            var iterator = arrivals.makeAsyncIterator()

            var outcomes = (ok: 0, cancelled: 0)
            for _ in 0..<200 {
                let task = Task { try await transport.send(request) }
                _ = await iterator.next()
                task.cancel()
                do {
                    let response = try await task.value
                    #expect(response.body == Data("ok".utf8))
                    outcomes.ok += 1
                } catch {
                    #expect(isCRUDError(error) { $0.isCancelled })
                    outcomes.cancelled += 1
                }
            }
            print("cancellation race: \(outcomes.ok) completed, \(outcomes.cancelled) cancelled")
            #expect(outcomes.ok + outcomes.cancelled == 200)
            #expect(try await transport.send(request).status == 200, "the session still works afterwards")
        }

        /// FoundationNetworking truncates the request timeout to whole seconds: 0.5 used to become 0 and fail a
        /// request that answered after 0.1 s. The timeout is 0.9 s (it truncates to 0 as well): with 0.5 s, a loaded
        /// machine that took 0.4 s more to connect and answer ended the request as idle.
        @Test func subSecondIdleTimeoutDoesNotFireAtOnce() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .stream(LoopbackStream(chunks: [Data("ok".utf8)], delay: 0.1, delaysHead: true))
            })
            try server.start()
            defer { server.stop() }

            let response = try await URLSessionTransport().send(HTTPRequest(url: server.baseURL, timeout: 0.9))

            #expect(response.body == Data("ok".utf8))
            #expect(URLSessionTransport.urlSessionTimeout(60) == 60)
        }

        @Test func progressObserverSeesEveryByteBeforeSendReturns() async throws {
            let chunks = Array(repeating: Data(repeating: 7, count: 64 << 10), count: 16)
            let server = LoopbackServer(synchronousHandler: { _ in .stream(LoopbackStream(chunks: chunks)) })
            try server.start()
            defer { server.stop() }
            let last = Locked<TransferProgress?>(nil)
            let observer = TransferObserver(download: { progress in last.withLock { $0 = progress } })

            let response = try await URLSessionTransport().send(HTTPRequest(url: server.baseURL), observer: observer)

            #expect(response.body.count == 16 << 16)
            #expect(last.withLock { $0?.completedBytes } == Int64(16 << 16))
        }
    }
}
