import CRUDKit
import CRUDKitTesting
import Dispatch
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkTests {
    @Suite struct LoopbackServerTests {
        private static func echo() -> LoopbackServer {
            LoopbackServer { request in
                .response(HTTPResponse(status: 200, headers: ["X-Path": request.path], body: request.body))
            }
        }

        @Test func answersThroughURLSession() async throws {
            let server = LoopbackServer(respond: { request in
                HTTPResponse(status: 201, headers: ["Content-Type": "text/plain"], body: Data(request.url.path.utf8))
            })
            try server.start()
            defer { server.stop() }
            let session = URLSession(configuration: .ephemeral)
            defer { session.finishTasksAndInvalidate() }

            let (data, response) = try await session.data(from: server.baseURL.appendingPathComponent("people"))

            #expect((response as? HTTPURLResponse)?.statusCode == 201)
            #expect(String(decoding: data, as: UTF8.self) == "/people")
            #expect(server.requests.first?.method == "GET")
        }

        @Test func keepsConnectionsAliveAndRecordsRawBytes() throws {
            let server = Self.echo()
            try server.start()
            defer { server.stop() }
            let connection = try RawConnection(port: server.port)
            let first = "POST /a HTTP/1.1\r\nHost: x\r\nContent-Length: 5\r\n\r\nhello"
            let second = "GET /b HTTP/1.1\r\nHost: x\r\n\r\n"

            try connection.send(first + second)
            let answers = [try connection.readResponse(), try connection.readResponse()]

            #expect(answers.map { $0?.headers["x-path"] } == ["/a", "/b"])
            #expect(answers.first??.body == Array("hello".utf8))
            #expect(server.connectionsAccepted == 1)
            #expect(server.requests.map { String(decoding: $0.raw, as: UTF8.self) } == [first, second])
        }

        @Test func decodesChunkedBodies() throws {
            let server = Self.echo()
            try server.start()
            defer { server.stop() }
            let connection = try RawConnection(port: server.port)
            let sent =
                "POST /c HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\n"
                + "5;ext=1\r\nhello\r\n6\r\n world\r\n0\r\nX-Trailer: 1\r\n\r\n"

            try connection.send(sent)
            let answer = try #require(try connection.readResponse())

            #expect(String(decoding: answer.body, as: UTF8.self) == "hello world")
            let request = try #require(server.requests.first)
            #expect(request.text == "hello world")
            #expect(String(decoding: request.raw, as: UTF8.self) == sent)
        }

        @Test(arguments: [
            "garbage\r\n\r\n",
            "GET / HTTP/1.1\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nBad Header: 1\r\n\r\n",
            "GET nopath HTTP/1.1\r\nHost: x\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: -1\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 1\r\nContent-Length: 2\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nContent-Length: 3\r\nTransfer-Encoding: chunked\r\n\r\n",
            "POST / HTTP/1.1\r\nHost: x\r\nTransfer-Encoding: chunked\r\n\r\nzz\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\n folded: value\r\n\r\n",
            "GET / HTTP/1.1\r\nHost: x\r\nX: a\u{1}b\r\n\r\n",
        ])
        func answersMalformedRequestsWith400(request: String) throws {
            let server = Self.echo()
            try server.start()
            defer { server.stop() }
            let connection = try RawConnection(port: server.port)

            try connection.send(request)
            let answer = try connection.readResponse()

            #expect(answer?.status == 400)
            #expect(answer?.headers["connection"] == "close")
            let next = try RawConnection(port: server.port)
            try next.send("GET /still-up HTTP/1.1\r\nHost: x\r\n\r\n")
            #expect(try next.readResponse()?.status == 200)
        }

        @Test func servesManyConnectionsAtOnce() throws {
            let server = Self.echo()
            try server.start()
            defer { server.stop() }
            let connections = try (0..<80).map { _ in try RawConnection(port: server.port) }

            for (index, connection) in connections.enumerated() {
                try connection.send("GET /\(index) HTTP/1.1\r\nHost: x\r\n\r\n")
            }
            let paths = try connections.map { try $0.readResponse()?.headers["x-path"] }

            #expect(paths == (0..<80).map { "/\($0)" })
            #expect(server.connectionsAccepted == 80)
            #expect(server.openConnections == 80)
        }

        @Test func stopClosesEverySocketAndEndsEveryThread() throws {
            let hangReceived = DispatchSemaphore(value: 0)
            let server = LoopbackServer(synchronousHandler: { request in
                guard request.path == "/hang" else { return .response(HTTPResponse(status: 200)) }
                hangReceived.signal()
                return .fault(.neverAnswer)
            })
            try server.start()
            let idle = try RawConnection(port: server.port)
            try idle.send("GET / HTTP/1.1\r\nHost: x\r\n\r\n")
            _ = try idle.readResponse()
            let hanging = try RawConnection(port: server.port)
            try hanging.send("GET /hang HTTP/1.1\r\nHost: x\r\n\r\n")
            hangReceived.wait()
            let serverSockets = server.socketInodes
            #expect(Set(serverSockets).isSubset(of: openSocketInodes()))

            server.stop()

            #expect(server.openConnections == 0)
            #expect(Set(serverSockets).isDisjoint(with: openSocketInodes()))
            #expect(try idle.readToEnd().isEmpty)
            #expect(try hanging.readToEnd().isEmpty)
            #expect(throws: (any Error).self) { try RawConnection(port: server.port) }
        }

        @Test func streamsLargeBodiesIntoAChecksum() throws {
            let server = LoopbackServer(bufferLimit: 1 << 20) { request in
                .response(HTTPResponse(status: 200, body: Data("\(request.bodyLength)".utf8)))
            }
            try server.start()
            defer { server.stop() }
            let body = [UInt8](LoopbackDownload.bytes(0..<(5 << 20)))
            var expected = LoopbackChecksum()
            expected.add(body)
            let connection = try RawConnection(port: server.port)

            try connection.send("PUT /big HTTP/1.1\r\nHost: x\r\nContent-Length: \(body.count)\r\n\r\n")
            try connection.send(body)
            let answer = try connection.readResponse()

            #expect(answer.map { String(decoding: $0.body, as: UTF8.self) } == "\(5 << 20)")
            let request = try #require(server.requests.first)
            #expect(!request.isBodyComplete)
            #expect(request.bodyLength == body.count)
            #expect(request.bodyChecksum == expected.value)
            #expect(request.body == Data(body.prefix(LoopbackRequest.keptPrefix)))
        }

        @Test func checksumIsFNV1a() {
            var checksum = LoopbackChecksum()
            checksum.add(Data("hello".utf8))
            #expect(checksum.value == 0xa430_d846_80aa_bd0b)
        }

        @Test func servesRangesOfGeneratedDownloads() throws {
            let server = LoopbackServer { _ in .download(LoopbackDownload(length: 300_000)) }
            try server.start()
            defer { server.stop() }
            let connection = try RawConnection(port: server.port)

            try connection.send(
                "GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=100000-\r\nIf-Range: \"loopback-v1\"\r\n\r\n")
            let partial = try #require(try connection.readResponse())
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=5-\r\nIf-Range: \"other\"\r\n\r\n")
            let whole = try #require(try connection.readResponse())
            try connection.send("GET / HTTP/1.1\r\nHost: x\r\nRange: bytes=300000-\r\n\r\n")
            let beyond = try #require(try connection.readResponse())

            #expect(partial.status == 206)
            #expect(partial.headers["content-range"] == "bytes 100000-299999/300000")
            #expect(Data(partial.body) == LoopbackDownload.bytes(100_000..<300_000))
            #expect(whole.status == 200)
            #expect(Data(whole.body) == LoopbackDownload.bytes(0..<300_000))
            #expect(beyond.status == 416)
        }

        @Test func scriptedFaultsBreakTheExchange() throws {
            let server = LoopbackServer { request in
                switch request.path {
                case "/before": .fault(.closeBeforeStatusLine)
                case "/headers": .fault(.closeMidHeaders)
                default: .fault(.closeMidBody(HTTPResponse(status: 200, body: Data(count: 100)), after: 10))
                }
            }
            try server.start()
            defer { server.stop() }

            for (path, expected) in [("/before", 0), ("/headers", LoopbackFault.midHeaders.utf8.count)] {
                let connection = try RawConnection(port: server.port)
                try connection.send("GET \(path) HTTP/1.1\r\nHost: x\r\n\r\n")
                #expect(try connection.readToEnd().count == expected)
            }
            let connection = try RawConnection(port: server.port)
            try connection.send("GET /body HTTP/1.1\r\nHost: x\r\n\r\n")
            let text = String(decoding: try connection.readToEnd(), as: UTF8.self)
            #expect(text.hasPrefix("HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n"))
            #expect(text.utf8.count == "HTTP/1.1 200 OK\r\nContent-Length: 100\r\n\r\n".utf8.count + 10)
        }
    }
}
