import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// The parts of a request URL the test doubles route on: decoded path segments and decoded query pairs.
struct RequestTarget: Sendable {
    /// The path segments, percent-decoded, without the empty ones a leading or trailing slash makes.
    var segments: [String]
    /// Whether the path ends with `/` (and is not just `/`).
    var hasTrailingSlash: Bool
    /// The query pairs, decoded, in order.
    var query: [(name: String, value: String)]

    init(_ url: URL) {
        let components = URLComponents(url: url, resolvingAgainstBaseURL: false)
        let path = components?.percentEncodedPath ?? url.path
        segments = path.split(separator: "/", omittingEmptySubsequences: true).map { part in
            part.removingPercentEncoding ?? String(part)
        }
        hasTrailingSlash = path.count > 1 && path.hasSuffix("/")
        query = FormParameters.decodePairs(components?.percentEncodedQuery ?? "")
    }

    /// The first value of the query parameter `name`.
    func queryValue(_ name: String) -> String? {
        query.first { $0.name == name }?.value
    }
}

/// A path pattern such as `/people/:id`, `people/{id}/posts` or `files/**`.
///
/// Segments are literals, captures (`:name` or `{name}`, one segment), `*` (any one segment) or `**` (any number
/// of segments, none included). A pattern that starts with `/` must match the whole path; one without matches the
/// last segments of the path, so `people/:id` matches `/v1/people/12` whatever the API's base path. A trailing
/// slash on either side is ignored.
struct PathPattern: Sendable, Hashable {
    enum Segment: Sendable, Hashable {
        case literal(String)
        case capture(String)
        case any
        case rest
    }

    /// The pattern as written.
    let text: String
    /// Whether the pattern must match from the first segment.
    let anchored: Bool
    /// The parsed segments.
    let segments: [Segment]

    init(_ text: String) {
        self.text = text
        anchored = text.hasPrefix("/")
        segments = text.split(separator: "/", omittingEmptySubsequences: true).map { part in
            if part == "*" { return .any }
            if part == "**" { return .rest }
            if part.hasPrefix(":"), part.count > 1 { return .capture(String(part.dropFirst())) }
            if part.hasPrefix("{"), part.hasSuffix("}"), part.count > 2 {
                return .capture(String(part.dropFirst().dropLast()))
            }
            return .literal(String(part))
        }
    }

    /// The names of the captures, in order.
    var captureNames: [String] {
        segments.compactMap { segment in
            if case .capture(let name) = segment { return name }
            return nil
        }
    }

    /// The captured values when `path` matches, `nil` otherwise.
    func match(_ path: [String]) -> [String: String]? {
        if anchored { return Self.match(segments[...], path[...]) }
        for start in stride(from: path.count - minimumLength, through: 0, by: -1) {
            if let captures = Self.match(segments[...], path[start...]) { return captures }
        }
        return nil
    }

    /// The number of path segments the pattern needs at least.
    var minimumLength: Int { segments.filter { $0 != .rest }.count }

    private static func match(_ pattern: ArraySlice<Segment>, _ path: ArraySlice<String>) -> [String: String]? {
        guard let first = pattern.first else { return path.isEmpty ? [:] : nil }
        if first == .rest {
            for split in path.startIndex...path.endIndex {
                if let captures = match(pattern.dropFirst(), path[split...]) { return captures }
            }
            return nil
        }
        guard let segment = path.first, var captures = match(pattern.dropFirst(), path.dropFirst()) else {
            return nil
        }
        switch first {
        case .literal(let literal): return literal == segment ? captures : nil
        case .capture(let name):
            captures[name] = segment
            return captures
        case .any, .rest: return captures
        }
    }
}
