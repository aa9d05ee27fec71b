import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import CRUDKitTesting
import Foundation
import Testing

extension NetworkTests {
    /// 50 MB transfers, one at a time so resident-memory figures are not disturbed by each other.
    @Suite struct LargeTransferTests {
        static let size = 50 * 1024 * 1024
        /// How much resident memory a 50 MB transfer may add: well under the 50 MB that loading it would take.
        static let memoryBound = 32 * 1024 * 1024

        /// Peak resident memory seen from progress callbacks.
        private final class Peak: Sendable {
            private let value = Locked(0)
            func sample() { value.withLock { $0 = max($0, residentBytes()) } }
            var bytes: Int { value.withLock { $0 } }
        }

        private static func expectedChecksum(length: Int) -> UInt64 {
            var fnv = FNV1a()
            var offset = 0
            while offset < length {
                let next = min(length, offset + (1 << 20))
                fnv.add(LoopbackDownload.bytes(offset..<next))
                offset = next
            }
            return fnv.value
        }

        @Test func multipartUploadOfA50MBFileStreamsFromDisk() async throws {
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let file = directory.appendingPathComponent("big.bin")
            #expect(FileManager.default.createFile(atPath: file.path, contents: nil))
            let writer = try FileHandle(forWritingTo: file)
            for offset in stride(from: 0, to: Self.size, by: 1 << 20) {
                try writer.write(contentsOf: LoopbackDownload.bytes(offset..<(offset + (1 << 20))))
            }
            try writer.close()
            let server = LoopbackServer(
                bufferLimit: 1 << 20,
                synchronousHandler: { request in
                    .response(HTTPResponse(status: 201, body: Data("\(request.bodyLength)".utf8)))
                })
            try server.start()
            defer { server.stop() }
            var form = MultipartForm(boundary: "B")
            form.append(name: "video", fileURL: file)
            let transport = URLSessionTransport()
            let peak = Peak()
            let before = residentBytes()

            let response = try await form.withTemporaryBody { body in
                try await transport.send(
                    HTTPRequest(
                        method: .post, url: server.baseURL, headers: ["Content-Type": form.contentType], body: body),
                    observer: TransferObserver(upload: { _ in peak.sample() })
                )
            }

            let after = residentBytes()
            print(
                "50 MB multipart upload: resident \(before >> 20) MB before, \(peak.bytes >> 20) MB peak, \(after >> 20) MB after"
            )
            #expect(response.status == 201)
            var fnv = FNV1a()
            fnv.add(Data("--B\r\nContent-Disposition: form-data; name=\"video\"; filename=\"big.bin\"\r\n".utf8))
            fnv.add(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
            let head = fnv.value
            let received = try #require(server.requests.first)
            #expect(received.bodyLength == (try form.encodedLength()))
            #expect(!received.isBodyComplete)
            var expected = LoopbackChecksum()
            expected.add(Data("--B\r\nContent-Disposition: form-data; name=\"video\"; filename=\"big.bin\"\r\n".utf8))
            expected.add(Data("Content-Type: application/octet-stream\r\n\r\n".utf8))
            #expect(expected.value == head, "the server's checksum agrees with the test's own FNV-1a")
            for offset in stride(from: 0, to: Self.size, by: 1 << 20) {
                expected.add(LoopbackDownload.bytes(offset..<(offset + (1 << 20))))
            }
            expected.add(Data("\r\n--B--\r\n".utf8))
            #expect(received.bodyChecksum == expected.value)
            #expect(peak.bytes - before < Self.memoryBound)
            #expect(after - before < Self.memoryBound)
        }

        @Test func pausedAndResumed50MBDownloadIsByteExact() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .download(LoopbackDownload(length: Self.size, stallAfter: 10 << 20))
            })
            try server.start()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let destination = directory.appendingPathComponent("movie.bin")
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            let peak = Peak()
            let before = residentBytes()
            let observer = TransferObserver(download: { progress in
                peak.sample()
                if progress.completedBytes >= 10 << 20 { signal.yield() }
            })

            let download = URLSessionTransport().downloadTask(
                HTTPRequest(url: server.baseURL), to: destination, observer: observer)
            for await _ in reached { break }
            download.pause()
            #expect(download.phase == .paused)
            download.resume()
            let file = try await download.finished

            print("50 MB paused download: resident \(before >> 20) MB before, \(peak.bytes >> 20) MB peak")
            #expect(file == destination)
            #expect(download.phase == .finished)
            let (checksum, length) = try FNV1a.ofFile(file)
            #expect(length == Self.size)
            #expect(checksum == Self.expectedChecksum(length: Self.size))
            let requests = server.requests
            #expect(requests.count == 2)
            #expect(requests.first?.headers["Range"] == nil)
            #expect(requests.last?.headers["Range"] == "bytes=\(10 << 20)-")
            #expect(requests.last?.headers["If-Range"] == "\"loopback-v1\"")
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["movie.bin"])
            #expect(peak.bytes - before < Self.memoryBound)
        }

        @Test(arguments: ["ignores ranges", "changed file"])
        func resumeRestartsCleanlyWhenTheServerCannotContinue(reason: String) async throws {
            let length = 8 << 20
            let requestCount = Locked(0)
            let server = LoopbackServer(synchronousHandler: { _ in
                let number = requestCount.withLock { count -> Int in
                    count += 1
                    return count
                }
                return .download(
                    LoopbackDownload(
                        length: length,
                        etag: reason == "changed file" ? "\"v\(number)\"" : "\"v1\"",
                        honoursRanges: reason != "ignores ranges",
                        stallAfter: 3 << 20
                    )
                )
            })
            try server.start()
            defer { server.stop() }
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            let observer = TransferObserver(download: { if $0.completedBytes >= 3 << 20 { signal.yield() } })

            let download = URLSessionTransport().downloadTask(HTTPRequest(url: server.baseURL), observer: observer)
            for await _ in reached { break }
            download.pause()
            download.resume()
            let file = try await download.finished
            defer { try? FileManager.default.removeItem(at: file) }

            let (checksum, size) = try FNV1a.ofFile(file)
            #expect(size == length)
            #expect(checksum == Self.expectedChecksum(length: length))
            #expect(server.requests.count == 2)
            #expect(server.requests.last?.headers["Range"] == "bytes=\(3 << 20)-")
        }

        @Test func cancelledDownloadLeavesNothingBehind() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .download(LoopbackDownload(length: 8 << 20, stallAfter: 1 << 20))
            })
            try server.start()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            let observer = TransferObserver(download: { if $0.completedBytes >= 1 << 20 { signal.yield() } })

            let download = URLSessionTransport().downloadTask(
                HTTPRequest(url: server.baseURL),
                to: directory.appendingPathComponent("x.bin"),
                observer: observer
            )
            for await _ in reached { break }
            download.cancel()

            await #expect { try await download.finished } throws: { isCRUDError($0) { $0.isCancelled } }
            #expect(download.phase == .cancelled)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        @Test func cancellingAPlainDownloadRemovesThePartialFile() async throws {
            let server = LoopbackServer(synchronousHandler: { _ in
                .download(LoopbackDownload(length: 8 << 20, stallAfter: 1 << 20))
            })
            try server.start()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let (reached, signal) = AsyncStream.makeStream(of: Void.self)
            let transport = URLSessionTransport()
            let destination = directory.appendingPathComponent("y.bin")
            let request = HTTPRequest(url: server.baseURL)

            let task = Task {
                try await transport.download(
                    request,
                    to: destination,
                    observer: TransferObserver(download: { if $0.completedBytes >= 1 << 20 { signal.yield() } })
                )
            }
            for await _ in reached { break }
            task.cancel()

            await #expect { try await task.value } throws: { isCRUDError($0) { $0.isCancelled } }
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }

        @Test func failedDownloadsReportAndCleanUp() async throws {
            let server = LoopbackServer(synchronousHandler: { request in
                request.path == "/missing"
                    ? .response(HTTPResponse(status: 404, body: Data("nope".utf8)))
                    : .fault(.closeMidBody(HTTPResponse(status: 200, body: Data(count: 1 << 20)), after: 1000))
            })
            try server.start()
            defer { server.stop() }
            let directory = try makeScratchDirectory()
            defer { try? FileManager.default.removeItem(at: directory) }
            let transport = URLSessionTransport()

            let missing = transport.downloadTask(
                HTTPRequest(url: server.baseURL.appendingPathComponent("missing")),
                to: directory.appendingPathComponent("a")
            )
            await #expect { try await missing.finished } throws: { error in
                isCRUDError(error) { $0.status == 404 && $0.response?.body == Data("nope".utf8) }
            }
            let broken = transport.downloadTask(
                HTTPRequest(url: server.baseURL.appendingPathComponent("broken")),
                to: directory.appendingPathComponent("b")
            )
            await #expect { try await broken.finished } throws: { isCRUDError($0) { $0.isTransport } }
            #expect(broken.phase == .failed)
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
            let plain = try await transport.download(
                HTTPRequest(url: server.baseURL.appendingPathComponent("missing")),
                to: directory.appendingPathComponent("c"),
                observer: .none
            )
            #expect(plain.status == 404)
            #expect(plain.body == Data("nope".utf8))
            #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path).isEmpty)
        }
    }
}
