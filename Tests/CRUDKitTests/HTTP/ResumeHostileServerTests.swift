import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A paused `GET` resumed against a hostile server (issue 28), through `RequestHandle` over `URLSessionTransport`:
    /// the body is the server's or an error, never spliced, relabelled or a crash. Each case is one the contract's
    /// resume checks do not cover.
    @Suite struct ResumeHostileServerTests {
        static let version1 = Data(repeating: 0x41, count: 100)
        static let version2 = Data(repeating: 0x42, count: 100)

        /// A first answer whose body stalls after half of it, so a pause lands mid-body.
        static func stalled(status: Int = 200, _ headers: HTTPHeaders, _ body: Data) -> LoopbackReply {
            .stream(
                LoopbackStream(
                    status: status, headers: headers,
                    chunks: [body.prefix(body.count / 2), body.dropFirst(body.count / 2)],
                    delay: 30))
        }

        /// A server answering the n-th request (from 1) with `reply(n, request)`.
        static func server(
            _ reply: @escaping @Sendable (Int, LoopbackRequest) -> LoopbackReply
        ) throws
            -> LoopbackServer
        {
            let count = Locked(0)
            let server = LoopbackServer(synchronousHandler: { request in
                let number = count.withLock { count -> Int in
                    count += 1
                    return count
                }
                return reply(number, request)
            })
            try server.start()
            return server
        }

        /// A `GET /file` through a handle, paused once the first bytes arrived and resumed at once.
        static func pausedRead(_ server: LoopbackServer, range: String? = nil) async throws -> HTTPResponse {
            let api = API(baseURL: server.baseURL, transport: URLSessionTransport())
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            var request = Request(.get, "file", decoder: .response)
            if let range { request.headers["Range"] = range }
            request.observer = TransferObserver(download: { if $0.completedBytes > 0 { signal.yield() } })
            let handle = api.handle(for: request)
            for await _ in reached { break }
            #expect(handle.pause() == .paused)
            handle.resume()
            return try await handle.value
        }

        /// The first byte a request's `Range: bytes=N-…` asks for.
        static func rangeStart(_ request: LoopbackRequest) -> Int? {
            guard let range = request.headers["Range"], range.hasPrefix("bytes=") else { return nil }
            return range.dropFirst(6).split(separator: "-").first.flatMap { Int($0) }
        }

        /// Whether `error` is the protocol violation a resume that does not fit fails with.
        static func isProtocolViolation(_ error: any Error) -> Bool {
            guard case .transport(let failure) = error as? CRUDError else { return false }
            return failure.reason == .protocolViolation
        }

        @Test func aLastModifiedWithinTheSecondOfItsDateIsNeverResumed() async throws {
            // Without an ETag, Last-Modified is a strong validator only when Date is a second later (RFC 9110
            // §8.8.2.2): within the same second the resource may have changed twice under one date.
            let date = "Fri, 27 Nov 2026 10:00:00 GMT"
            let server = try Self.server { number, _ in
                number == 1
                    ? Self.stalled(["Last-Modified": date, "Date": date], Self.version1)
                    : .response(HTTPResponse(status: 200, headers: ["Last-Modified": date], body: Self.version2))
            }
            defer { server.stop() }
            let response = try await Self.pausedRead(server)
            #expect(response.body == Self.version2)
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.last?.headers["Range"] == nil)
            #expect(requests.last?.headers["If-Range"] == nil)
        }

        @Test func aStrongLastModifiedResumesAndA206ThatAddsAnETagStartsOver() async throws {
            let modified = "Fri, 27 Nov 2026 10:00:00 GMT"
            let headers: HTTPHeaders = ["Last-Modified": modified, "Date": "Fri, 27 Nov 2026 10:00:05 GMT"]
            let server = try Self.server { number, request in
                switch number {
                case 1: return Self.stalled(headers, Self.version1)
                case 2:
                    let start = Self.rangeStart(request) ?? 0
                    return .response(
                        HTTPResponse(
                            status: 206,
                            headers: [
                                "Last-Modified": modified, "ETag": "\"new\"", "Content-Range": "bytes \(start)-99/100",
                            ],
                            body: Data(repeating: 0x62, count: 100 - start)))
                default: return .response(HTTPResponse(status: 200, headers: headers, body: Self.version2))
                }
            }
            defer { server.stop() }
            let response = try await Self.pausedRead(server)
            #expect(response.body == Self.version2)
            let requests = server.requests
            #expect(requests.count == 3)
            #expect(requests.count > 1 && requests[1].headers["If-Range"] == modified)
            #expect(requests.last?.headers["Range"] == nil)
        }

        /// A resume answered `206` under the same ETag but not with the bytes asked for fails, naming the ranges.
        @Test(arguments: [
            "starts earlier", "starts later", "ends short", "multipart", "star total", "huge total", "longer body",
        ])
        func aResumeThatIsNotTheRangeAskedForFails(answer: String) async throws {
            let server = try Self.server { number, request in
                guard number > 1 else { return Self.stalled(["ETag": "\"v1\""], Self.version1) }
                let start = Self.rangeStart(request) ?? 0
                let rest = Data(repeating: 0x41, count: 100 - start)
                switch answer {
                case "starts earlier", "starts later":
                    let first = answer == "starts earlier" ? start - 10 : start + 10
                    return .response(
                        HTTPResponse(
                            status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(first)-99/100"],
                            body: Data(repeating: 0x41, count: 100 - first)))
                case "ends short":
                    return .response(
                        HTTPResponse(
                            status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(start)-89/100"],
                            body: rest.prefix(90 - start)))
                case "multipart":
                    let body = Data(
                        ("--b\r\nContent-Type: application/octet-stream\r\nContent-Range: bytes \(start)-99/100\r\n\r\n"
                            + String(repeating: "A", count: 100 - start) + "\r\n--b--\r\n").utf8)
                    return .response(
                        HTTPResponse(
                            status: 206,
                            headers: ["ETag": "\"v1\"", "Content-Type": "multipart/byteranges; boundary=b"], body: body)
                    )
                case "star total":
                    return .response(
                        HTTPResponse(
                            status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(start)-99/*"], body: rest
                        ))
                case "huge total":
                    return .response(
                        HTTPResponse(
                            status: 206,
                            headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(start)-99/9223372036854775808"],
                            body: rest))
                default:
                    // The right Content-Range, but 30 bytes more than it says, framed by the connection's close.
                    let head =
                        "HTTP/1.1 206 Partial Content\r\nETag: \"v1\"\r\nContent-Range: bytes \(start)-99/100\r\n"
                        + "Connection: close\r\n\r\n"
                    return .fault(.raw(Data(head.utf8) + rest + Data(repeating: 0x5A, count: 30)))
                }
            }
            defer { server.stop() }
            await #expect {
                _ = try await Self.pausedRead(server)
            } throws: { error in
                Self.isProtocolViolation(error)
            }
            #expect(server.requests.count == 2)
        }

        /// A server that ignored `If-Range` and sends its new version whole as a `206` under another ETag: another
        /// validator starts over, whatever range it names.
        @Test func a206UnderAnotherETagForAnotherRangeStartsOver() async throws {
            let server = try Self.server { number, _ in
                switch number {
                case 1: return Self.stalled(["ETag": "\"v1\""], Self.version1)
                case 2:
                    return .response(
                        HTTPResponse(
                            status: 206, headers: ["ETag": "\"v2\"", "Content-Range": "bytes 0-99/100"],
                            body: Self.version2))
                default: return .response(HTTPResponse(status: 200, headers: ["ETag": "\"v2\""], body: Self.version2))
                }
            }
            defer { server.stop() }
            let response = try await Self.pausedRead(server)
            #expect(response.body == Self.version2)
            #expect(server.requests.count == 3)
            #expect(server.requests.last?.headers["Range"] == nil)
        }

        @Test func a416ToTheResumeStartsOver() async throws {
            let server = try Self.server { number, _ in
                switch number {
                case 1: return Self.stalled(["ETag": "\"v1\""], Self.version1)
                case 2:
                    return .response(
                        HTTPResponse(status: 416, headers: ["ETag": "\"v1\"", "Content-Range": "bytes */100"]))
                default: return .response(HTTPResponse(status: 200, headers: ["ETag": "\"v2\""], body: Self.version2))
                }
            }
            defer { server.stop() }
            let response = try await Self.pausedRead(server)
            #expect(response.status == 200)
            #expect(response.body == Self.version2)
            #expect(server.requests.count == 3)
            #expect(server.requests.last?.headers["Range"] == nil)
        }

        @Test func a200ToTheResumeIsTheWholeBodyNotAppended() async throws {
            let server = try Self.server { number, _ in
                number == 1
                    ? Self.stalled(["ETag": "\"v1\""], Self.version1)
                    : .response(HTTPResponse(status: 200, headers: ["ETag": "\"v1\""], body: Self.version2))
            }
            defer { server.stop() }
            let response = try await Self.pausedRead(server)
            #expect(response.status == 200)
            #expect(response.body == Self.version2)
            #expect(server.requests.count == 2)
        }

        @Test func aResumeDroppedMidBodyFailsOnceWithoutLooping() async throws {
            let server = try Self.server { number, request in
                guard number > 1 else { return Self.stalled(["ETag": "\"v1\""], Self.version1) }
                let start = Self.rangeStart(request) ?? 0
                return .fault(
                    .closeMidBody(
                        HTTPResponse(
                            status: 206, headers: ["ETag": "\"v1\"", "Content-Range": "bytes \(start)-99/100"],
                            body: Data(repeating: 0x41, count: 100 - start)), after: 5))
            }
            defer { server.stop() }
            await #expect(throws: CRUDError.self) {
                _ = try await Self.pausedRead(server)
            }
            #expect(server.requests.count == 2)
        }

        @Test func aCallersRangeNearInt64MaxResumesExactly() async throws {
            let first: Int64 = 9_223_372_036_854_775_700
            let total: Int64 = 9_223_372_036_854_775_800
            let body = Data((0..<100).map { UInt8($0) })
            let server = try Self.server { number, request in
                let start =
                    number == 1
                    ? first : Int64(request.headers["Range"]?.dropFirst(6).split(separator: "-").first ?? "") ?? first
                let offset = Int(start - first)
                let headers: HTTPHeaders = ["ETag": "\"v1\"", "Content-Range": "bytes \(start)-\(first + 99)/\(total)"]
                return number == 1
                    ? Self.stalled(status: 206, headers, body)
                    : .response(HTTPResponse(status: 206, headers: headers, body: body.dropFirst(offset)))
            }
            defer { server.stop() }
            let response = try await Self.pausedRead(server, range: "bytes=\(first)-\(first + 99)")
            #expect(response.status == 206)
            #expect(response.body == body)
            #expect(response.headers["Content-Range"] == "bytes \(first)-\(first + 99)/\(total)")
            #expect(server.requests.count == 2)
            // The frame runs to the representation's last byte, so the rest is asked for open-ended.
            #expect(server.requests.last?.headers["Range"] == "bytes=\(first + 50)-")
        }
    }
}
