@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// Builds request URLs under a base URL, percent-encoding every path segment and query component: what
/// ``API/url(for:query:)`` does for an ``Endpoint`` (the one public way to name a URL).
///
/// `PathBuilder` joins paths the way people expect: `https://x/v1` + `people` and `https://x/v1/` + `/people` both
/// give `https://x/v1/people`. The CRUD layer builds model paths with ``url(segments:query:)`` so that ids are
/// always exactly one segment.
///
/// ```swift
/// let builder = PathBuilder(baseURL: URL(string: "https://api.example.com/v1")!, trailingSlash: .never)
/// try builder.url(segments: ["people", "a/b"])  // https://api.example.com/v1/people/a%2Fb
/// ```
package struct PathBuilder: Sendable, Hashable {
    /// The URL every path is relative to; `nil` when only absolute URLs can be built.
    package let baseURL: URL?
    /// Whether built paths end with `/`.
    package let trailingSlash: TrailingSlash
    /// How lists in query parameters are written.
    package let queryStyle: FormParameters.ArrayStyle
    /// The base URL's text up to its path, without any trailing `/`.
    private let prefix: String
    /// The base URL's own query, kept in front of the added items.
    private let baseQuery: String?
    /// Whether the base URL's path was written with a trailing `/` (kept for an empty path under `.asGiven`).
    private let baseEndsWithSlash: Bool

    /// Creates a builder.
    /// - Parameters:
    ///   - baseURL: The absolute URL paths are relative to (its own query is kept); `nil` allows only absolute URLs.
    ///   - trailingSlash: Whether built paths end with `/`.
    ///   - queryStyle: How lists in query parameters are written (`tags[]=a` or `tags=a`).
    package init(
        baseURL: URL?,
        trailingSlash: TrailingSlash = .asGiven,
        queryStyle: FormParameters.ArrayStyle = .brackets
    ) {
        self.baseURL = baseURL
        self.trailingSlash = trailingSlash
        self.queryStyle = queryStyle
        var text = baseURL?.absoluteString ?? ""
        if let hash = text.firstIndex(of: "#") { text = String(text[..<hash]) }
        if let question = text.firstIndex(of: "?") {
            let query = String(text[text.index(after: question)...])
            baseQuery = query.isEmpty ? nil : query
            text = String(text[..<question])
        } else {
            baseQuery = nil
        }
        baseEndsWithSlash = text.hasSuffix("/")
        while text.hasSuffix("/") { text.removeLast() }
        prefix = text
    }

    /// The URL of `endpoint` with `query` appended.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a segment is empty, there is no base URL for a
    ///   relative endpoint, or the result is not a valid URL.
    package func url(for endpoint: Endpoint, query: FormParameters = [:]) throws -> URL {
        switch endpoint {
        case .path(let path): try url(path: path, query: query)
        case .segments(let segments): try url(segments: segments, query: query)
        case .url(let url): try appending(query: query, to: url)
        }
    }

    /// The URL of a path string: `/` separates segments, each of which is percent-encoded; empty segments
    /// (a leading `/`, `//`) are skipped. A string beginning with `http://` or `https://` is taken as an absolute URL.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when there is no base URL or the result is not a valid URL.
    package func url(path: String, query: FormParameters = [:]) throws -> URL {
        if Self.isAbsolute(path) {
            guard let url = URL(string: path) else {
                throw CRUDError.invalidRequest(reason: "`\(path)` is not a valid URL")
            }
            return try appending(query: query, to: url)
        }
        if Self.isPlain(path) {
            // Already its own encoded form (the usual `people/12`): no splitting, no encoding. No trailing `/` was
            // written, so only `.always` adds one.
            return try build(joined: path, trailingSlash: trailingSlash == .always, query: query)
        }
        let segments = path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
        let slash: Bool
        switch trailingSlash {
        case .always: slash = true
        case .never: slash = false
        case .asGiven: slash = segments.isEmpty ? (path.isEmpty ? baseEndsWithSlash : true) : path.hasSuffix("/")
        }
        return try build(segments.map(PercentEncoding.segment), trailingSlash: slash, query: query)
    }

    /// The URL of path segments, each percent-encoded as exactly one segment (`/` inside one becomes `%2F`,
    /// and `.` and `..` are encoded so they cannot step out of the collection).
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a segment is empty, there is no base URL, or the result
    ///   is not a valid URL.
    package func url(segments: [String], query: FormParameters = [:]) throws -> URL {
        var encoded: [String] = []
        encoded.reserveCapacity(segments.count)
        for segment in segments {
            guard !segment.isEmpty else {
                throw CRUDError.invalidRequest(
                    reason: "the path \(segments) has an empty segment (a model without its id?)")
            }
            encoded.append(PercentEncoding.segment(segment))
        }
        return try build(encoded, trailingSlash: trailingSlash == .always, query: query)
    }

    private func build(_ encodedSegments: [String], trailingSlash slash: Bool, query: FormParameters) throws -> URL {
        try build(joined: encodedSegments.joined(separator: "/"), trailingSlash: slash, query: query)
    }

    /// The URL of `joined`, encoded segments joined by `/` (empty for none), under the base URL.
    private func build(joined: String, trailingSlash slash: Bool, query: FormParameters) throws -> URL {
        guard baseURL != nil else {
            throw CRUDError.invalidRequest(
                reason: "no base URL is configured for the relative path `\(joined)`;"
                    + " set API.shared to an API with a base URL or pass an absolute URL")
        }
        var text = prefix
        if !joined.isEmpty {
            text += "/"
            text += joined
        }
        if slash && !text.hasSuffix("/") { text += "/" }
        let added = query.percentEncoded(style: queryStyle)
        switch (baseQuery, added.isEmpty) {
        case (let base?, true): text += "?" + base
        case (let base?, false): text += "?" + base + "&" + added
        case (nil, false): text += "?" + added
        case (nil, true): break
        }
        guard let url = URL(string: text) else {
            throw CRUDError.invalidRequest(reason: "`\(text)` is not a valid URL")
        }
        return url
    }

    private func appending(query: FormParameters, to url: URL) throws -> URL {
        guard !query.isEmpty else { return url }
        var text = url.absoluteString
        var fragment = ""
        if let hash = text.firstIndex(of: "#") {
            fragment = String(text[hash...])
            text = String(text[..<hash])
        }
        let added = query.percentEncoded(style: queryStyle)
        text += (text.contains("?") ? (text.hasSuffix("?") || text.hasSuffix("&") ? "" : "&") : "?") + added
        guard let result = URL(string: text + fragment) else {
            throw CRUDError.invalidRequest(reason: "`\(text)` is not a valid URL")
        }
        return result
    }

    /// Whether `path` is already what `url(path:)` makes of it: segments of letters, digits, `-`, `.`, `_` and `~`
    /// (which percent-encoding leaves alone) joined by single `/`, none of them `.` or `..`, with no `/` at either end.
    private static func isPlain(_ path: String) -> Bool {
        var length = 0
        var onlyDots = true
        for byte in path.utf8 {
            switch byte {
            case UInt8(ascii: "/"):
                if length == 0 || (onlyDots && length <= 2) { return false }
                length = 0
                onlyDots = true
            case UInt8(ascii: "."):
                length += 1
            case 65...90, 97...122, 48...57, UInt8(ascii: "-"), UInt8(ascii: "_"), UInt8(ascii: "~"):
                length += 1
                onlyDots = false
            default:
                return false
            }
        }
        return length > 0 && !(onlyDots && length <= 2)
    }

    private static func isAbsolute(_ path: String) -> Bool {
        let lower = path.prefix(8).lowercased()
        return lower.hasPrefix("http://") || lower.hasPrefix("https://")
    }
}
