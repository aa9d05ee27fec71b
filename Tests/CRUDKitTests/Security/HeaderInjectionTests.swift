import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// A header name or value that could end its line early is refused before any byte leaves the process: the
    /// server never even sees a connection. Every control character is tried in every position, for every method
    /// and body kind.
    @Suite struct HeaderInjectionTests {
        /// Every byte HTTP forbids in a field value: the C0 controls except horizontal tab, and DEL.
        static let forbiddenInValues: [UInt8] = Array(0...8) + Array(10...31) + [127]

        private static func isInvalidRequest(_ error: any Error) -> Bool {
            isCRUDError(error) { if case .invalidRequest = $0 { true } else { false } }
        }

        /// Sends every request, each expected to be refused, and checks the server accepted no connection.
        private static func expectAllRefused(_ requests: [HTTPRequest], server: LoopbackServer) async {
            let transport = URLSessionTransport()
            for request in requests {
                await #expect(performing: { try await transport.send(request) }, throws: Self.isInvalidRequest)
            }
            #expect(server.connectionsAccepted == 0, "the server saw a connection")
            #expect(server.requests.isEmpty)
        }

        @Test func everyControlCharacterInAValueIsRefusedInEveryPosition() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            var requests: [HTTPRequest] = []
            for byte in Self.forbiddenInValues {
                let control = String(UnicodeScalar(byte))
                for value in [control, "a\(control)", "\(control)a", "a\(control)Injected: 1"] {
                    requests.append(HTTPRequest(url: server.baseURL, headers: ["X-Value": value]))
                }
            }
            requests.append(HTTPRequest(url: server.baseURL, headers: ["X-Value": "a\r\nSet-Cookie: s=1"]))
            requests.append(HTTPRequest(url: server.baseURL, headers: ["X-Value": "a\r\n\r\nGET /smuggled HTTP/1.1"]))

            await Self.expectAllRefused(requests, server: server)
            #expect(requests.count == Self.forbiddenInValues.count * 4 + 2)
        }

        @Test(arguments: ["X\r\nInjected", "X\nY", "X\rY", "X Y", "X:Y", "X\u{0}", "\r\n", "", "Ünï", "X\tY", "(X)"])
        func namesThatAreNotTokensAreRefused(name: String) async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            var request = HTTPRequest(url: server.baseURL)
            request.headers.add(name: name, value: "v")

            await Self.expectAllRefused([request], server: server)
        }

        @Test(arguments: ["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"])
        func refusedWhateverTheMethodAndBody(method: String) async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("body.bin")
            try Data("file body".utf8).write(to: file)
            let bodies: [HTTPBody] = [.none, .data(Data("data body".utf8)), .file(file)]
            let requests = bodies.map {
                HTTPRequest(
                    method: HTTPMethod(rawValue: method), url: server.baseURL,
                    headers: ["Authorization": "Bearer a\r\nX: 1"],
                    body: $0)
            }

            await Self.expectAllRefused(requests, server: server)
        }

        @Test(arguments: ["GET /x HTTP/1.1\r\nX: 1", "GET\r\n", "G T", "", "GET\u{0}"])
        func methodsThatAreNotTokensAreRefused(method: String) async throws {
            let server = try makeEchoServer()
            defer { server.stop() }

            await Self.expectAllRefused(
                [HTTPRequest(method: HTTPMethod(rawValue: method), url: server.baseURL)], server: server)
        }

        /// Tab and non-ASCII text (obs-text) are legal in values and go through unchanged.
        @Test func tabsAndNonASCIIValuesAreSentAsGiven() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }

            let response = try await URLSessionTransport().send(
                HTTPRequest(url: server.baseURL, headers: ["X-Tab": "a\tb", "X-Text": "naïve"]))

            #expect(response.status == 200)
            let received = try #require(server.requests.first)
            #expect(received.headers["X-Tab"] == "a\tb")
            #expect(received.headers["X-Text"] == "naïve")
            #expect(received.headers.contains("Injected") == false)
        }

        /// An escaped CR/LF in the URL stays escaped in the request target: no header line can come from the URL.
        @Test func escapedLineBreaksInTheURLStayInTheTarget() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            let url = try #require(URL(string: server.baseURL.absoluteString + "/a%0D%0AInjected:%201?q=%0D%0AX:%201"))

            _ = try await URLSessionTransport().send(HTTPRequest(url: url))

            let received = try #require(server.requests.first)
            #expect(received.target == "/a%0D%0AInjected:%201?q=%0D%0AX:%201")
            #expect(received.headers["Injected"] == nil)
            #expect(received.headers["X"] == nil)
        }

        /// Multipart part names and file names cannot start a new part header; a part content type with CR/LF is
        /// refused before sending.
        @Test func multipartHeadsCannotBeInjected() async throws {
            let server = try makeEchoServer()
            defer { server.stop() }
            var form = MultipartForm(boundary: "B")
            form.append(name: "a\"\r\nContent-Type: text/evil", value: "v")
            form.append(
                name: "f", data: Data("x".utf8), filename: "x.txt\"\r\nX-Injected: 1", contentType: "text/plain")
            var request = HTTPRequest(method: .post, url: server.baseURL)
            try request.setMultipartBody(form)

            _ = try await URLSessionTransport().send(request)

            let text = try #require(server.requests.first).text
            #expect(!text.contains("\r\nContent-Type: text/evil"))
            #expect(!text.contains("\r\nX-Injected"))
            #expect(text.contains("name=\"a%22%0D%0AContent-Type: text/evil\""))
            #expect(text.contains("filename=\"x.txt%22%0D%0AX-Injected: 1\""))

            // A CR, LF or quote followed by a combining mark is one Character with it, which Character-based
            // replacement misses; the encoding fuzzer found such a name. Escaping works scalar by scalar.
            var combining = MultipartForm(boundary: "B")
            combining.append(name: "n\r\u{05AC}\n\u{0301}\"\u{0301}", value: "v")
            let head = String(decoding: try combining.encodedData(), as: UTF8.self)
            #expect(head.contains("name=\"n%0D\u{05AC}%0A\u{0301}%22\u{0301}\""))
            // Only the framing's own CRs: boundary, head line, blank line, after the value, closing boundary.
            #expect(head.utf8.filter { $0 == 13 }.count == 5)

            var evil = MultipartForm(boundary: "B")
            evil.append(name: "f", data: Data(), filename: "f", contentType: "text/plain\r\nX-Injected: 1")
            var refused = HTTPRequest(method: .post, url: server.baseURL)
            #expect(performing: { try refused.setMultipartBody(evil) }, throws: Self.isInvalidRequest)
            #expect(server.requests.count == 1)
        }
    }
}
