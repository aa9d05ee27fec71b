import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation
import Testing

/// Custom multipart boundaries (issue 31): one with a character outside a token is quoted in `Content-Type`, as
/// RFC 2046 requires (a strict parser, Python's `email`, found no part at all before); and a boundary that occurs in
/// a part is refused, so a field's value cannot add fields of its own (`role=admin` read before the real one).
@Suite struct MultipartBoundaryTests {
    /// The boundary characters that are not token characters, each of which needs quoting, and `'`, which Python's
    /// parser reads as RFC 2231's charset marker unless it is quoted.
    static let specials: [Character] = ["(", ")", ",", "/", ":", "=", "?", "'"]

    /// `python3` on the `PATH`, if there is one: the strict parser some tests run.
    static let python: URL? = {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? "/usr/bin:/bin"
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("python3") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// The parts Python's `email` parser finds in `body` under `contentType`: each part's name and its bytes as text.
    static func pythonParts(contentType: String, body: Data) async throws -> [[String]] {
        let python = try #require(Self.python)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-mp-\(UUID().uuidString)")
        try (Data("Content-Type: \(contentType)\r\n\r\n".utf8) + body).write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        let script = """
            import email, email.policy, json, sys
            message = email.message_from_bytes(open(sys.argv[1], 'rb').read(), policy=email.policy.HTTP)
            parts = message.get_payload() if message.is_multipart() else []
            print(json.dumps([[p.get_param('name', header='content-disposition'),
                               p.get_payload(decode=True).decode('utf-8')] for p in parts]))
            """
        let output: Data = try await withCheckedThrowingContinuation { continuation in
            // Waited for on a dispatch thread, never on one of the cooperative pool's few threads.
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let process = Process()
                        process.executableURL = python
                        process.arguments = ["-c", script, file.path]
                        let out = Pipe()
                        process.standardOutput = out
                        process.standardError = FileHandle.nullDevice
                        try process.run()
                        let data = out.fileHandleForReading.readDataToEndOfFile()
                        process.waitUntilExit()
                        return data
                    })
            }
        }
        return try JSONDecoder().decode([[String]].self, from: output)
    }

    private func isInvalidRequest(_ error: any Error) -> Bool {
        if case .invalidRequest? = error as? CRUDError { return true }
        return false
    }

    @Test func aBoundaryWithASpecialCharacterIsQuotedAndATokenIsNot() {
        for special in Self.specials {
            let form = MultipartForm(boundary: "a\(special)b")
            #expect(form.contentType == "multipart/form-data; boundary=\"a\(special)b\"")
        }
        #expect(MultipartForm(boundary: "a+_-.b9Z").contentType == "multipart/form-data; boundary=a+_-.b9Z")
        #expect(MultipartForm().contentType.hasPrefix("multipart/form-data; boundary=CRUDKit-"))
    }

    @Test(.enabled(if: python != nil), arguments: specials + ["+", "_", "-", "."])
    func aStrictParserReadsEveryPart(special: Character) async throws {
        var form = MultipartForm(boundary: "x\(special)\(special)y")
        form.append(name: "title", value: "Holiday")
        form.append(name: "note", data: Data("line 1\r\nline 2".utf8), filename: "n.txt", contentType: "text/plain")

        let parts = try await Self.pythonParts(contentType: form.contentType, body: try form.encodedData())

        #expect(parts == [["title", "Holiday"], ["note", "line 1\r\nline 2"]])
    }

    /// A text field whose value holds the delimiter and a field of its own: refused, never written.
    @Test func aFieldCannotInjectAnotherField() async throws {
        var form = MultipartForm(boundary: "B")
        form.append(name: "comment", value: "hi\r\n--B\r\nContent-Disposition: form-data; name=\"role\"\r\n\r\nadmin")
        form.append(name: "role", value: "user")

        #expect { try form.encodedData() } throws: { isInvalidRequest($0) }
        await #expect { try await form.withTemporaryBody { $0 } } throws: { isInvalidRequest($0) }
        let target = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-mp-\(UUID().uuidString)")
        #expect { try form.write(to: target) } throws: { isInvalidRequest($0) }
        #expect(!FileManager.default.fileExists(atPath: target.path))
    }

    @Test(.enabled(if: python != nil)) func aStrictParserSeesTheInjectionWithoutTheCheck() async throws {
        // What the refused body would have done: the parser reads role=admin before the real role.
        let body = Data(
            ("--B\r\nContent-Disposition: form-data; name=\"comment\"\r\n\r\nhi\r\n--B\r\nContent-Disposition: "
                + "form-data; name=\"role\"\r\n\r\nadmin\r\n--B\r\nContent-Disposition: form-data; name=\"role\"\r\n\r\n"
                + "user\r\n--B--\r\n").utf8)
        let parts = try await Self.pythonParts(contentType: "multipart/form-data; boundary=B", body: body)
        #expect(parts.map { $0[0] } == ["comment", "role", "role"])
        #expect(parts[1] == ["role", "admin"])
    }

    @Test func theBoundaryInANameFileNameOrContentTypeIsRefused() {
        var named = MultipartForm(boundary: "Bnd")
        named.append(name: "a--Bnd", value: "1")
        var filed = MultipartForm(boundary: "Bnd")
        filed.append(name: "f", data: Data("x".utf8), filename: "--Bnd.txt")
        var typed = MultipartForm(boundary: "Bnd")
        typed.append(name: "f", data: Data("x".utf8), filename: "x", contentType: "text/plain; x=--Bnd")
        for form in [named, filed, typed] {
            #expect { try form.encodedData() } throws: { isInvalidRequest($0) }
        }
        // The boundary without the two dashes before it is not a delimiter.
        var harmless = MultipartForm(boundary: "Bnd")
        harmless.append(name: "Bnd", value: "-Bnd Bnd--")
        #expect(throws: Never.self) { try harmless.encodedData() }
    }

    /// A file part holding the delimiter at its very start, its very end, or split across the 1 MB chunks it is read
    /// in is refused while the body is written; the same file without it goes through whole.
    @Test(arguments: [0, (1 << 20) - 3, (1 << 20) - 9, 1 << 20, (2 << 20) + 100 - 10])
    func aFilePartHoldingTheDelimiterIsRefused(offset: Int) async throws {
        let delimiter = Data("--Bound:ry".utf8)
        var bytes = Data(repeating: 0x2D, count: (2 << 20) + 100)  // all dashes: every near miss starts here
        bytes.replaceSubrange(offset..<offset + delimiter.count, with: delimiter)
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-mp-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm(boundary: "Bound:ry")
        form.append(name: "video", fileURL: file)

        #expect { try form.encodedData() } throws: { isInvalidRequest($0) }
        await #expect { try await form.withTemporaryBody { $0 } } throws: { isInvalidRequest($0) }
        // Measuring does not read the file, so it does not check it.
        #expect(try form.encodedLength() > bytes.count)
    }

    @Test func aFileWithoutTheDelimiterIsWrittenWhole() throws {
        // Near misses everywhere, across both chunk ends: the delimiter less its last byte.
        var bytes = Data()
        let nearMiss = Data("--Bound:r".utf8)
        while bytes.count < (2 << 20) + 100 { bytes.append(nearMiss) }
        let file = FileManager.default.temporaryDirectory.appendingPathComponent("crudkit-mp-\(UUID().uuidString)")
        try bytes.write(to: file)
        defer { try? FileManager.default.removeItem(at: file) }
        var form = MultipartForm(boundary: "Bound:ry")
        form.append(name: "video", fileURL: file, filename: "v.bin")

        let body = try form.encodedData()

        #expect(body.count == (try form.encodedLength()))
        #expect(body.range(of: bytes) != nil)
    }
}
