import CRUDKit
@_spi(TransportKit) import CRUDKitCore
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

// The code samples of README's "Transports" section, compiled here so they cannot drift.

// MARK: - README: plugging in your own transport

/// Adapts any HTTP client to CRUDKit: only `send(_:)` is required.
struct ClosureTransport: Transport {
    let perform: @Sendable (HTTPRequest) async throws -> HTTPResponse

    func send(_ request: HTTPRequest) async throws -> HTTPResponse {
        try request.validate()  // refuse CR/LF in headers, as URLSessionTransport does
        do {
            return try await perform(request)
        } catch is CancellationError {
            throw CRUDError.cancelled
        } catch let error as CRUDError {
            throw error
        } catch {
            throw CRUDError.transport(underlying: error)
        }
    }
}

// MARK: - README: URLSessionTransport with limits, progress, uploads and downloads

func readmeTransportSample(baseURL: URL, video: URL) async throws -> URL {
    let transport = URLSessionTransport(
        configuration: .init(maximumConnectionsPerHost: 32, idleTimeout: 15)
    )

    // A form upload with progress, streamed from disk.
    var form = MultipartForm()
    form.append(name: "title", value: "Holiday")
    form.append(name: "video", fileURL: video, contentType: "video/mp4")
    let upload = try await form.withTemporaryBody { body in
        try await transport.send(
            HTTPRequest(
                method: .post,
                url: baseURL.appendingPathComponent("videos"),
                headers: ["Content-Type": form.contentType],
                body: body
            ),
            observer: TransferObserver(upload: { print("sent \($0)") })
        )
    }
    guard upload.isSuccess else { throw CRUDError.httpStatus(upload) }

    // A query string in the documented bracket style.
    var search = HTTPRequest(url: baseURL.appendingPathComponent("videos"))
    try search.appendQuery(["q": "sea & sun", "tags": ["beach", "2024"]])  // q=sea%20%26%20sun&tags%5B%5D=beach…

    // A download that can be paused and resumed byte-exact.
    let download = transport.downloadTask(HTTPRequest(url: baseURL.appendingPathComponent("videos/1/file")))
    download.pause()
    download.resume()
    return try await download.finished
}

extension NetworkTests {
    @Suite struct TransportReadmeSampleTests {
        @Test func closureTransportAdaptsAnyClient() async throws {
            let transport = ClosureTransport { request in
                HTTPResponse(status: 200, body: Data(request.method.rawValue.utf8), url: request.url)
            }
            let url = try #require(URL(string: "https://api.example.com/people"))

            let response = try await transport.send(HTTPRequest(method: .patch, url: url))

            #expect(response.body == Data("PATCH".utf8))
            var bad = HTTPRequest(url: url)
            bad.headers["X"] = "a\r\nb"
            await #expect(throws: CRUDError.self) { try await transport.send(bad) }
        }

        @Test func transportSampleRunsAgainstTheLoopbackServer() async throws {
            let server = LoopbackServer(synchronousHandler: { request in
                request.path.hasSuffix("/file")
                    ? .download(LoopbackDownload(length: 100_000))
                    : .response(HTTPResponse(status: 201))
            })
            try server.start()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let video = directory.appendingPathComponent("v.mp4")
            try Data(count: 1000).write(to: video)

            let file = try await readmeTransportSample(baseURL: server.baseURL, video: video)
            defer { try? FileManager.default.removeItem(at: file) }

            #expect(try Data(contentsOf: file) == LoopbackDownload.bytes(0..<100_000))
        }
    }
}
