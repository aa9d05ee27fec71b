import CRUDKit
import Foundation

extension InMemoryBackend {
    /// Which entity tag a single-object answer carries.
    public enum EntityTags: Sendable, Hashable {
        /// None: Django REST framework, FastAPI and Vapor send no `ETag` unless the app adds one.
        case none
        /// A strong tag that changes on every write (`"7"`), as an app that versions its rows sends.
        case strong
        /// A weak tag digesting the answer's body (`W/"3f2a…"`), as Rails' `Rack::ETag` adds to every 200 and 201
        /// with a body: the same content gives the same tag.
        case weak
    }

    /// When a `GET` or `HEAD` of an object answers 304 Not Modified.
    public enum NotModified: Sendable, Hashable {
        /// Never: the conditional headers are ignored (Django REST framework, FastAPI, Vapor).
        case never
        /// As RFC 9110 says: `If-None-Match` names the current tag (weak comparison, `*` for any), or, without it,
        /// `If-Modified-Since` is at or after `Last-Modified` (to the second).
        case rfc9110
        /// As Rails' `Rack::ConditionalGet` (Rack 2): `If-None-Match` is exactly the `ETag` the answer carries
        /// (a list or `*` never matches); `If-Modified-Since` only counts when the answer carries `Last-Modified`.
        case exactTag
    }

    /// The 412 answer when `request`'s preconditions fail for `row` under `style` (PUT, PATCH and DELETE), in the
    /// order RFC 9110 §13.2.2 evaluates them: `If-Match` (strong comparison, so a weak tag never matches; `*`
    /// matches the existing object), else `If-Unmodified-Since` (412 when the object changed after that second:
    /// HTTP dates have no fraction, so a change within the same second passes), then `If-None-Match` (412 when
    /// it names the current tag or is `*`).
    static func precondition(_ request: HTTPRequest, _ row: Row, collection: Collection, style: Style) -> HTTPResponse?
    {
        let tag = entityTag(row, collection: collection, style: style)
        var failed = false
        if style.honoursIfMatch, let tags = request.headers["If-Match"] {
            failed = !tagList(tags, contains: tag, weak: false)
        } else if style.honoursIfUnmodifiedSince,
            let since = request.headers["If-Unmodified-Since"].flatMap(HTTPDate.parse)
        {
            failed = row.modified.timeIntervalSince1970.rounded(.down) > since.timeIntervalSince1970
        }
        if !failed, style.honoursIfMatch, let tags = request.headers["If-None-Match"] {
            failed = tagList(tags, contains: tag, weak: true)
        }
        guard failed else { return nil }
        return detailResponse(412, "Precondition failed.", headers: validatorHeaders(row, tag: tag, style: style))
    }

    /// Whether a `GET` or `HEAD` of `row` answers 304 under `style`.
    static func isNotModified(_ request: HTTPRequest, _ row: Row, tag: String?, style: Style) -> Bool {
        let headers = request.headers
        let modified = row.modified.timeIntervalSince1970.rounded(.down)
        switch style.notModified {
        case .never:
            return false
        case .rfc9110:
            if let tags = headers["If-None-Match"] { return tagList(tags, contains: tag, weak: true) }
            guard style.sendsLastModified, let since = headers["If-Modified-Since"].flatMap(HTTPDate.parse) else {
                return false
            }
            return modified <= since.timeIntervalSince1970
        case .exactTag:
            if let tags = headers["If-None-Match"] { return tag != nil && tags == tag }
            guard style.sendsLastModified, let since = headers["If-Modified-Since"].flatMap(HTTPDate.parse) else {
                return false
            }
            return modified <= since.timeIntervalSince1970
        }
    }

    /// Whether the `If-Match`/`If-None-Match` value `list` names `tag` (or is `*`, which names any existing
    /// object); `weak` compares weakly (ignoring `W/`), otherwise a weak tag on either side never matches.
    static func tagList(_ list: String, contains tag: String?, weak: Bool) -> Bool {
        list.split(separator: ",").contains { item in
            var candidate = item.trimmingCharacters(in: .whitespaces)
            if candidate == "*" { return true }
            guard var current = tag else { return false }
            if weak {
                if candidate.hasPrefix("W/") { candidate.removeFirst(2) }
                if current.hasPrefix("W/") { current.removeFirst(2) }
            } else if candidate.hasPrefix("W/") || current.hasPrefix("W/") {
                return false
            }
            return candidate == current
        }
    }

    /// The tag `row` carries under `style`, or `nil` when the style sends none.
    static func entityTag(_ row: Row, collection: Collection, style: Style) -> String? {
        switch style.entityTags {
        case .none: nil
        case .strong: "\"\(row.revision)\""
        case .weak: weakTag(of: representation(row, collection: collection))
        }
    }

    /// `W/"…"` with a digest of `body` (64-bit FNV-1a, twice with two seeds: 32 hex digits, as long as Rack's).
    static func weakTag(of body: Data) -> String {
        var first: UInt64 = 0xcbf2_9ce4_8422_2325
        var second: UInt64 = 0x84222325_cbf29ce4
        for byte in body {
            first = (first ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
            second = (second ^ UInt64(byte)) &* 0x0000_0100_0000_01b3
        }
        let hex = { (value: UInt64) in
            let text = String(value, radix: 16)
            return String(repeating: "0", count: 16 - text.count) + text
        }
        return "W/\"\(hex(first))\(hex(second))\""
    }

    /// The `ETag` and `Last-Modified` headers `style` sends for `row`.
    static func validatorHeaders(_ row: Row, tag: String?, style: Style) -> HTTPHeaders {
        var headers: HTTPHeaders = [:]
        if let tag { headers["ETag"] = tag }
        if style.sendsLastModified { headers["Last-Modified"] = HTTPDate.format(row.modified) }
        return headers
    }

    /// `row` as its answer's body: wrapped in the collection's object key when it has one.
    static func representation(_ row: Row, collection: Collection) -> Data {
        let object = JSON.object(row.object)
        let body = collection.objectKey.map { JSON.object(JSON.Object([($0, object)])) } ?? object
        return (try? body.data()) ?? Data()
    }

    /// A single object answer, wrapped in the object key, with the validators `style` sends.
    static func objectResponse(
        _ status: Int, _ row: Row, collection: Collection, style: Style, headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        let body = representation(row, collection: collection)
        let tag = entityTag(row, collection: collection, style: style)
        var fields: HTTPHeaders = ["Content-Type": "application/json"]
        fields = fields.merging(validatorHeaders(row, tag: tag, style: style)).merging(headers)
        return HTTPResponse(status: status, headers: fields, body: body)
    }
}
