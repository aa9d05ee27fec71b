import CRUDKit
import Foundation

extension InMemoryBackend {
    /// A request resolved to a collection: which one, under which parents, and which member if any.
    struct Resolved {
        var collection: Collection
        var table: TableKey
        var id: String?
        var target: RequestTarget
        var request: HTTPRequest
    }

    /// Answers `recorded` by the collection rules (called with the lock held), errors in the style's shape.
    static func answer(_ recorded: RecordedRequest, style: Style, time: Date, state: inout State) -> HTTPResponse {
        let response = routedAnswer(recorded, style: style, time: time, state: &state)
        if style.errors == .laravel || style.responseKey != nil {
            return laravelAnswer(response, to: recorded, style: style, state: state)
        }
        return style.errors == .vapor ? vaporError(response) : response
    }

    private static func routedAnswer(
        _ recorded: RecordedRequest, style: Style, time: Date, state: inout State
    ) -> HTTPResponse {
        let target = recorded.target
        let request = recorded.request
        guard let resolved = resolve(target, request: request, in: state) else {
            return detailResponse(404, "Not found.")
        }
        switch (style.trailingSlash, target.hasTrailingSlash) {
        case (.always, false):
            var location = recorded.path + "/"
            if let query = URLComponents(url: request.url, resolvingAgainstBaseURL: false)?.percentEncodedQuery {
                location += "?" + query
            }
            return HTTPResponse(
                status: 301, headers: ["Content-Type": "text/html; charset=utf-8", "Location": location])
        case (.never, true):
            return detailResponse(404, "Not found.")
        default:
            break
        }
        if let parentKey = resolved.collection.parentCollectionKey, state.collections[parentKey] != nil {
            let parentTable = TableKey(collection: parentKey, scope: Array(resolved.table.scope.dropLast()))
            guard let parentID = resolved.table.scope.last, state.tables[parentTable]?[parentID] != nil else {
                return detailResponse(404, "Not found.")
            }
        }
        let allowed = resolved.id == nil ? "GET, POST, HEAD, OPTIONS" : "GET, PUT, PATCH, DELETE, HEAD, OPTIONS"
        switch (request.method, resolved.id) {
        case (.get, nil), (.head, nil):
            return withoutBodyForHead(list(resolved, style: style, state: state), request)
        case (.post, nil):
            return create(resolved, style: style, time: time, state: &state)
        case (.get, let id?), (.head, let id?):
            return withoutBodyForHead(read(resolved, id: id, state: state), request)
        case (.put, let id?), (.patch, let id?):
            return update(resolved, id: id, style: style, time: time, state: &state)
        case (.delete, let id?):
            return delete(resolved, id: id, state: &state)
        case (.options, _):
            return HTTPResponse(status: 200, headers: ["Allow": allowed])
        default:
            return detailResponse(405, "Method \"\(request.method)\" not allowed.", headers: ["Allow": allowed])
        }
    }

    /// The collection, parents and member a request path names: the longest registered collection whose
    /// segments end the path (as a member when one segment follows, else as the list).
    static func resolve(_ target: RequestTarget, request: HTTPRequest, in state: State) -> Resolved? {
        let segments = target.segments
        let collections = state.collections.values.sorted { $0.segments.count > $1.segments.count }
        for collection in collections {
            let length = collection.segments.count
            if segments.count > length, let scope = collection.scope(of: segments.dropLast().suffix(length)) {
                return Resolved(
                    collection: collection, table: TableKey(collection: collection.key, scope: scope),
                    id: segments.last, target: target, request: request)
            }
            if segments.count >= length, let scope = collection.scope(of: segments.suffix(length)) {
                return Resolved(
                    collection: collection, table: TableKey(collection: collection.key, scope: scope), id: nil,
                    target: target, request: request)
            }
        }
        return nil
    }

    private static func withoutBodyForHead(_ response: HTTPResponse, _ request: HTTPRequest) -> HTTPResponse {
        guard request.method == .head else { return response }
        var response = response
        response.headers["Content-Length"] = String(response.body.count)
        response.body = Data()
        return response
    }

    // MARK: - Reads

    static func list(_ resolved: Resolved, style: Style, state: State) -> HTTPResponse {
        let skipped = style.pagination.parameters.union(style.ignoredQueryParameters)
        let rows = state.tables[resolved.table]?.rows ?? []
        let fields = Set(rows.flatMap(\.object.keys))
        let filters = resolved.target.query.filter { item in
            !skipped.contains(item.name) && fields.contains(item.name.components(separatedBy: "__")[0])
        }
        let items = rows.filter { matches($0.object, filters) }.map { JSON.object($0.object) }
        return page(
            items, pagination: style.pagination, errors: style.errors, target: resolved.target,
            url: resolved.request.url,
            collectionKey: resolved.collection.collectionKey)
    }

    static func read(_ resolved: Resolved, id: String, state: State) -> HTTPResponse {
        guard let row = state.tables[resolved.table]?[id] else { return detailResponse(404, "Not found.") }
        let headers = resolved.request.headers
        let unchanged: Bool
        if let tags = headers["If-None-Match"] {
            unchanged = tagList(tags, contains: row.etag, weak: true)
        } else if let since = headers["If-Modified-Since"].flatMap(HTTPDate.parse) {
            unchanged = row.modified.timeIntervalSince1970.rounded(.down) <= since.timeIntervalSince1970
        } else {
            unchanged = false
        }
        if unchanged {
            return HTTPResponse(
                status: 304, headers: ["ETag": row.etag, "Last-Modified": HTTPDate.format(row.modified)])
        }
        return objectResponse(200, row, collection: resolved.collection)
    }

    static func delete(_ resolved: Resolved, id: String, state: inout State) -> HTTPResponse {
        guard let row = state.tables[resolved.table]?[id] else { return detailResponse(404, "Not found.") }
        if let failed = precondition(resolved.request, row) { return failed }
        state.tables[resolved.table]?[id] = nil
        removeChildren(of: resolved.table, id: id, state: &state)
        return HTTPResponse(status: 204)
    }

    /// Deletes the nested collections under a deleted object, recursively.
    static func removeChildren(of table: TableKey, id: String, state: inout State) {
        let scope = table.scope + [id]
        for child in state.collections.values where child.parentCollectionKey == table.collection {
            let childTable = TableKey(collection: child.key, scope: scope)
            for row in state.tables[childTable]?.rows ?? [] {
                removeChildren(of: childTable, id: row.id, state: &state)
            }
            state.tables[childTable] = nil
        }
    }

    // MARK: - Conditional requests

    /// 412 when the request's `If-Match` does not name `row`'s current tag.
    static func precondition(_ request: HTTPRequest, _ row: Row) -> HTTPResponse? {
        guard let tags = request.headers["If-Match"], !tagList(tags, contains: row.etag, weak: false) else {
            return nil
        }
        return detailResponse(412, "Precondition failed.", headers: ["ETag": row.etag])
    }

    /// Whether the `If-Match`/`If-None-Match` value `list` names `tag` (or is `*`); `weak` ignores `W/`.
    static func tagList(_ list: String, contains tag: String, weak: Bool) -> Bool {
        list.split(separator: ",").contains { item in
            var candidate = item.trimmingCharacters(in: .whitespaces)
            if candidate == "*" { return true }
            if weak, candidate.hasPrefix("W/") { candidate.removeFirst(2) }
            return candidate == tag
        }
    }

    /// A single object answer: wrapped in the object key, with `ETag` and `Last-Modified`.
    static func objectResponse(
        _ status: Int, _ row: Row, collection: Collection, headers: HTTPHeaders = [:]
    )
        -> HTTPResponse
    {
        let object = JSON.object(row.object)
        let body = collection.objectKey.map { JSON.object(JSON.Object([($0, object)])) } ?? object
        let fields = HTTPHeaders(["ETag": row.etag, "Last-Modified": HTTPDate.format(row.modified)]).merging(headers)
        return jsonResponse(status, body, headers: fields)
    }
}
