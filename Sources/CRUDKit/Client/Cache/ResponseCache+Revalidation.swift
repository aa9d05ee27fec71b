import Foundation

extension ResponseCache {
    /// Request headers that make a request the caller's own conditional or partial request, which the cache leaves
    /// alone.
    static let callerConditionalHeaders = [
        "If-None-Match", "If-Modified-Since", "If-Match", "If-Unmodified-Since", "If-Range", "Range",
    ]

    /// Header fields a 304 does not update in the stored response (RFC 9111 §3.2): they describe the 304's own
    /// framing, not the stored body.
    static let framingHeaders: Set<String> = [
        "content-length", "content-encoding", "transfer-encoding", "content-range", "connection", "keep-alive",
    ]

    /// The response to `request`: sent through `send` with the stored validators when there is a stored response,
    /// the stored body served on `304 Not Modified`, and the answer stored or forgotten as it allows.
    ///
    /// Requests the cache does not handle (not a `GET`, a body, the caller's own conditional or `Range` headers)
    /// go through `send` untouched.
    /// - Throws: What `send` throws.
    package func response(
        for request: HTTPRequest,
        send: (HTTPRequest) async throws -> HTTPResponse
    ) async throws -> HTTPResponse {
        guard Self.handles(request) else { return try await send(request) }
        let key = Key(request)
        let (stored, generation) = storage.withLock { storage in
            (storage.entry(for: key).flatMap { $0.matches(request) ? $0 : nil }, storage.generation)
        }
        var conditional = request
        if let stored {
            if let etag = stored.etag { conditional.headers["If-None-Match"] = etag }
            if let lastModified = stored.lastModified { conditional.headers["If-Modified-Since"] = lastModified }
        }
        var response = try await send(conditional)
        if response.status == 304, let stored {
            if Self.confirms(response, stored) {
                let served = Self.refreshed(stored.response, with: response)
                // The 304's headers may now forbid storing (`no-store`, `Vary: *`): served once, then forgotten.
                if Self.isStorable(served, for: request) {
                    store(served, for: request, key: key, since: generation)
                } else {
                    storage.withLock { $0.remove(key) }
                }
                return served
            }
            // A 304 naming another representation (RFC 9111 §4.3.4) does not select the stored one: forget it and
            // ask again without validators, so the body served is the server's current one.
            storage.withLock { $0.remove(key) }
            response = try await send(request)
        }
        if Self.isStorable(response, for: request) {
            store(response, for: request, key: key, since: generation)
        } else if response.isSuccess || response.status == 404 || response.status == 410 {
            storage.withLock { $0.remove(key) }
        }
        return response
    }

    /// Forgets what a write invalidates, once it has been answered or has failed: the stored responses of its
    /// path, of the parent path, and of the `Location` and `Content-Location` it was answered with (same server
    /// only); and stops reads in flight from storing what they read.
    package func invalidate(afterWrite request: HTTPRequest, response: HTTPResponse?) {
        var paths = Set<String>()
        if let path = Self.path(of: request.url) {
            paths.insert(path)
            if let parent = Self.parent(of: path) { paths.insert(parent) }
        }
        let origin = Self.path(of: request.url).flatMap(Self.origin(of:))
        for name in ["Location", "Content-Location"] {
            guard let value = response?.headers[name], let url = URL(string: value, relativeTo: request.url),
                let path = Self.path(of: url), Self.origin(of: path) == origin
            else { continue }
            paths.insert(path)
        }
        storage.withLock { storage in
            storage.generation += 1
            storage.removeAll { paths.contains($0.path) }
        }
    }

    // MARK: - Rules

    /// Whether the cache takes part in `request` at all.
    static func handles(_ request: HTTPRequest) -> Bool {
        request.method == .get && request.body.isEmpty
            && !callerConditionalHeaders.contains { request.headers.contains($0) }
            && !cacheControl(request.headers).contains("no-store")
    }

    /// Whether `response` to `request` may be stored (see ``ResponseCache`` for the rules).
    static func isStorable(_ response: HTTPResponse, for request: HTTPRequest) -> Bool {
        response.isSuccess && response.status != 206
            && (response.headers["ETag"] != nil || response.headers["Last-Modified"] != nil)
            && !cacheControl(response.headers).contains("no-store")
            && !varyingHeaders(response).contains("*")
    }

    /// Whether `notModified` confirms `stored` (RFC 9111 §4.3.4): its `ETag`, when it sends one, is the stored one
    /// (compared weakly, as `If-None-Match` is); without an `ETag`, its `Last-Modified`, when it sends one, is the
    /// stored one. A 304 with no validator confirms the one stored response it was asked about.
    static func confirms(_ notModified: HTTPResponse, _ stored: Entry) -> Bool {
        if let tag = notModified.headers["ETag"] {
            guard let storedTag = stored.etag else { return false }
            return opaque(tag) == opaque(storedTag)
        }
        if let modified = notModified.headers["Last-Modified"] { return modified == stored.lastModified }
        return true
    }

    /// An entity tag without its weakness mark (`W/"a"` → `"a"`), for the weak comparison.
    private static func opaque(_ tag: String) -> Substring {
        let trimmed = tag.trimmingCharacters(in: .whitespaces)
        return trimmed.hasPrefix("W/") ? trimmed.dropFirst(2) : Substring(trimmed)
    }

    /// The stored response brought up to date by a 304: its headers merged over the stored ones (except framing),
    /// the stored status and body, and the 304's final URL.
    static func refreshed(_ stored: HTTPResponse, with notModified: HTTPResponse) -> HTTPResponse {
        var headers = stored.headers
        var replaced = Set<String>()
        for field in notModified.headers {
            let name = field.name.lowercased()
            if framingHeaders.contains(name) { continue }
            if replaced.insert(name).inserted { headers[field.name] = nil }
            headers.add(name: field.name, value: field.value)
        }
        return HTTPResponse(
            status: stored.status, headers: headers, body: stored.body, url: notModified.url ?? stored.url)
    }

    /// The directive names of every `Cache-Control` field, lower-cased (`max-age=60, private` → `max-age`, `private`).
    static func cacheControl(_ headers: HTTPHeaders) -> Set<String> {
        Set(
            headers.values(for: "Cache-Control").flatMap { $0.split(separator: ",") }.compactMap { directive in
                directive.split(separator: "=", maxSplits: 1).first?.trimmingCharacters(in: .whitespaces)
                    .lowercased()
            })
    }

    /// The request header names `response`'s `Vary` fields list, lower-cased.
    static func varyingHeaders(_ response: HTTPResponse) -> [String] {
        response.headers.values(for: "Vary").flatMap { $0.split(separator: ",") }
            .map { $0.trimmingCharacters(in: .whitespaces).lowercased() }.filter { !$0.isEmpty }
    }

    // MARK: - Storing

    /// Stores `response` for `key`, unless a write invalidated anything since the read began (`generation`) or the
    /// response exceeds the byte limit.
    private func store(_ response: HTTPResponse, for request: HTTPRequest, key: Key, since generation: UInt64) {
        guard let path = Self.path(of: request.url) else { return }
        let vary = Self.varyingHeaders(response).map { (name: $0, value: Key.value(of: $0, in: request.headers)) }
        // Everything the entry keeps counts: the body and headers, the URL and the path writes invalidate by, the
        // request headers it is filed under, and the values its `Vary` names.
        let size =
            response.body.count + key.url.utf8.count + path.utf8.count + key.headerBytes
            + response.headers.reduce(0) { $0 + $1.name.utf8.count + $1.value.utf8.count + 4 }
            + vary.reduce(0) { $0 + $1.name.utf8.count + ($1.value?.utf8.count ?? 0) }
        let entry = Entry(
            response: response, etag: response.headers["ETag"], lastModified: response.headers["Last-Modified"],
            vary: vary, path: path, size: size)
        storage.withLock { storage in
            guard storage.generation == generation else { return }
            guard size <= byteLimit, entryLimit > 0 else {
                storage.remove(key)
                return
            }
            storage.insert(entry, for: key, entryLimit: entryLimit, byteLimit: byteLimit)
        }
    }

    /// `scheme://host:port` of a path made by ``path(of:)``.
    private static func origin(of path: String) -> String? {
        guard let schemeEnd = path.range(of: "://") else { return nil }
        let rest = path[schemeEnd.upperBound...]
        return String(path[..<(rest.firstIndex(of: "/") ?? path.endIndex)])
    }
}
