import CRUDKitCore
import Foundation

/// A `multipart/form-data` body: text fields and files, from memory or from disk.
///
/// Each part is written as browsers write it: `Content-Disposition: form-data; name="…"` (plus `filename="…"`
/// and a `Content-Type` for files), with `"`, CR and LF in names escaped as `%22`, `%0D`, `%0A`.
///
/// ```swift
/// var form = MultipartForm()
/// form.append(name: "title", value: "Holiday")
/// form.append(name: "photo", fileURL: photoURL, contentType: "image/jpeg")
/// let response = try await form.withTemporaryBody { body in
///     try await transport.send(
///         HTTPRequest(method: .post, url: uploadURL, headers: ["Content-Type": form.contentType], body: body))
/// }
/// ```
public struct MultipartForm: Sendable, Hashable {
    /// One part of the form.
    public struct Part: Sendable, Hashable {
        /// Where a part's bytes come from.
        public enum Content: Sendable, Hashable {
            /// Bytes in memory.
            case data(Data)
            /// A local file, read in pieces while writing the body.
            case file(URL)
        }

        /// The field name.
        public var name: String
        /// The file name sent for file parts; `nil` for a plain field.
        public var filename: String?
        /// The part's `Content-Type`; `nil` sends none (plain fields).
        public var contentType: String?
        /// The bytes.
        public var content: Content

        /// Creates a part.
        public init(name: String, filename: String? = nil, contentType: String? = nil, content: Content) {
            self.name = name
            self.filename = filename
            self.contentType = contentType
            self.content = content
        }
    }

    /// The boundary between parts: 1 to 70 letters, digits or `'()+_,-./:=?` (RFC 2046); a random one by default.
    ///
    /// A boundary with a character outside a token (`(),/:=?`) is quoted in ``contentType``, as RFC 2046 requires,
    /// and so is one with `'` (which strict parsers read as RFC 2231's charset marker). It must not occur in any part: a part whose name, file name, content type or bytes contain
    /// `--` and the boundary (which a parser would take for the start of the next part: a field's value could add
    /// fields of its own) makes writing the body fail with ``CRUDError/invalidRequest(reason:)``. File parts are
    /// checked as they are read, in the same pass that writes them.
    public var boundary: String
    /// The parts in order.
    public var parts: [Part]

    /// Creates an empty form.
    ///
    /// - Parameter boundary: The boundary; a random one by default.
    public init(boundary: String = "CRUDKit-" + UUID().uuidString.replacingOccurrences(of: "-", with: "")) {
        self.boundary = boundary
        self.parts = []
    }

    /// The `Content-Type` header value for this form, boundary included (quoted when it has one of `'(),/:=?`, such
    /// as `multipart/form-data; boundary="a:b"`).
    public var contentType: String {
        let isToken = boundary.utf8.allSatisfy { !Self.separators.contains($0) }
        return "multipart/form-data; boundary=" + (isToken ? boundary : "\"\(boundary)\"")
    }

    /// The boundary characters quoted in ``contentType``: those that are not token characters (RFC 2045 `tspecials`),
    /// and `'`, which strict parsers (Python's `email`) read as RFC 2231's charset marker when it is not quoted.
    private static let separators = Set("'(),/:=?".utf8)

    /// Appends a text field.
    public mutating func append(name: String, value: String) {
        parts.append(Part(name: name, content: .data(Data(value.utf8))))
    }

    /// Appends a file held in memory.
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - data: The file's bytes.
    ///   - filename: The file name to send.
    ///   - contentType: The file's media type.
    public mutating func append(
        name: String,
        data: Data,
        filename: String,
        contentType: String = "application/octet-stream"
    ) {
        parts.append(Part(name: name, filename: filename, contentType: contentType, content: .data(data)))
    }

    /// Appends a file read from disk while the body is written (never loaded whole by `write(to:)` or
    /// `withTemporaryBody(_:)`).
    ///
    /// - Parameters:
    ///   - name: The field name.
    ///   - fileURL: The local file.
    ///   - filename: The file name to send; the URL's last path component by default.
    ///   - contentType: The file's media type.
    public mutating func append(
        name: String,
        fileURL: URL,
        filename: String? = nil,
        contentType: String = "application/octet-stream"
    ) {
        parts.append(
            Part(
                name: name,
                filename: filename ?? fileURL.lastPathComponent,
                contentType: contentType,
                content: .file(fileURL)
            )
        )
    }

    /// Whether any part is a file on disk.
    package var hasFileParts: Bool {
        parts.contains { if case .file = $0.content { true } else { false } }
    }

    /// The number of bytes the encoded body will have.
    ///
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a file cannot be read or a part is invalid.
    @_spi(TransportKit) public func encodedLength() throws -> Int {
        var length = 0
        try encode {
            length += $0.count
        } fileSize: { url in
            try Self.size(of: url)
        }
        return length
    }

    /// The whole body in memory (file parts are read now): for small forms.
    ///
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a file cannot be read or a part is invalid.
    @_spi(TransportKit) public func encodedData() throws -> Data {
        var data = Data()
        try encode { data.append($0) }
        return data
    }

    /// Writes the body to `url`, reading file parts in pieces so memory stays bounded.
    ///
    /// The body is written to an owner-only partial file beside `url` and moved into place by the rules of
    /// ``PrivateFiles/moveIntoPlace(_:to:)``: a new file is `0600` whatever the umask, a regular file of yours is
    /// replaced atomically keeping its mode, a directory or a symbolic link is refused and left as it is.
    /// - Parameter url: The file to create or replace.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a file cannot be read or written, or a part is invalid.
    @_spi(TransportKit) public func write(to url: URL) throws {
        try PrivateFiles.checkDestination(url)
        let partial = PrivateFiles.partialFile(for: url)
        defer { try? FileManager.default.removeItem(at: partial) }
        do {
            try write(into: try PrivateFiles.create(at: partial))
        } catch {
            throw error as? CRUDError ?? CRUDError.invalidRequest(reason: "cannot write the multipart body: \(error)")
        }
        try PrivateFiles.moveIntoPlace(partial, to: url)
    }

    /// Writes the body through `handle`, then closes it.
    private func write(into handle: FileHandle) throws {
        defer { try? handle.close() }
        try encode { try handle.write(contentsOf: $0) }
    }

    /// Calls `body` with the encoded form as an ``HTTPBody``, then cleans up.
    ///
    /// A form with file parts is written to a temporary file first and passed as ``HTTPBody/file(_:)`` (so a
    /// 50 MB video is streamed from disk, not loaded); the file is owner-only in CRUDKit's private directory (see
    /// `PrivateFiles`) and removed when `body` returns or throws.
    /// A form of in-memory parts only is passed as ``HTTPBody/data(_:)``.
    /// - Parameter body: Sends the request; retries inside it can re-send the same body.
    /// - Returns: What `body` returns.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when the body cannot be written; what `body` throws.
    @_spi(TransportKit) public func withTemporaryBody<Result>(
        _ body: (HTTPBody) async throws -> Result
    ) async throws -> Result {
        guard hasFileParts else { return try await body(.data(try encodedData())) }
        let (url, handle) = try PrivateFiles.create("multipart")
        defer { try? FileManager.default.removeItem(at: url) }
        do {
            try write(into: handle)
        } catch {
            throw error as? CRUDError ?? CRUDError.invalidRequest(reason: "cannot write the multipart body: \(error)")
        }
        return try await body(.file(url))
    }
}
