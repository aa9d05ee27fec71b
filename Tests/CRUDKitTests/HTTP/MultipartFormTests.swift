import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    @Suite struct MultipartFormTests {
        private static func sampleForm(fileURL: URL) -> MultipartForm {
            var form = MultipartForm(boundary: "XyZ")
            form.append(name: "title", value: "Zoë's \"holiday\"")
            form.append(name: "note", data: Data("line1\r\nline2".utf8), filename: "n\".txt", contentType: "text/plain")
            form.append(name: "photo", fileURL: fileURL, contentType: "image/png")
            return form
        }

        private static let expected =
            "--XyZ\r\nContent-Disposition: form-data; name=\"title\"\r\n\r\nZoë's \"holiday\"\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"note\"; filename=\"n%22.txt\"\r\n"
            + "Content-Type: text/plain\r\n\r\nline1\r\nline2\r\n"
            + "--XyZ\r\nContent-Disposition: form-data; name=\"photo\"; filename=\"p.png\"\r\n"
            + "Content-Type: image/png\r\n\r\nPNGDATA\r\n--XyZ--\r\n"

        @Test func encodesPartsAsBrowsersDo() throws {
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("p.png")
            try Data("PNGDATA".utf8).write(to: file)
            let form = Self.sampleForm(fileURL: file)

            #expect(String(decoding: try form.encodedData(), as: UTF8.self) == Self.expected)
            #expect(try form.encodedLength() == Self.expected.utf8.count)
            #expect(form.contentType == "multipart/form-data; boundary=XyZ")
        }

        @Test func arrivesByteForByteThroughATemporaryFileThatIsRemoved() async throws {
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("p.png")
            try Data("PNGDATA".utf8).write(to: file)
            let form = Self.sampleForm(fileURL: file)
            let server = try makeEchoServer()
            defer { server.stop() }
            let transport = URLSessionTransport()
            var bodyFile: URL?

            let response = try await form.withTemporaryBody { body in
                if case .file(let url) = body { bodyFile = url }
                return try await transport.send(
                    HTTPRequest(
                        method: .post,
                        url: server.baseURL.appendingPathComponent("upload"),
                        headers: ["Content-Type": form.contentType],
                        body: body
                    )
                )
            }

            #expect(response.status == 200)
            let received = try #require(server.requests.first)
            #expect(received.text == Self.expected)
            #expect(received.headers["Content-Type"] == "multipart/form-data; boundary=XyZ")
            let used = try #require(bodyFile)
            #expect(!FileManager.default.fileExists(atPath: used.path))
        }

        @Test func inMemoryFormsNeedNoFile() async throws {
            var form = MultipartForm(boundary: "b")
            form.append(name: "a", value: "1")
            let body = try await form.withTemporaryBody { $0 }
            #expect(body == .data(Data("--b\r\nContent-Disposition: form-data; name=\"a\"\r\n\r\n1\r\n--b--\r\n".utf8)))
        }

        @Test func refusesInvalidBoundariesAndContentTypes() {
            var form = MultipartForm(boundary: "bad boundary\r\n")
            form.append(name: "a", value: "1")
            #expect(throws: CRUDError.self) { try form.encodedData() }
            var other = MultipartForm()
            other.append(name: "f", data: Data(), filename: "x", contentType: "text/plain\r\nX-Evil: 1")
            #expect(throws: CRUDError.self) { try other.encodedData() }
        }

        @Test func missingFileIsAnInvalidRequest() {
            var form = MultipartForm()
            form.append(name: "f", fileURL: URL(fileURLWithPath: "/nonexistent/\(UUID().uuidString)"))
            #expect { try form.encodedData() } throws: { error in
                isCRUDError(error) { if case .invalidRequest = $0 { true } else { false } }
            }
        }
    }
}
