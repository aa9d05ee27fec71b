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
        if style.speaksJSONAPI { return jsonAPIAnswer(recorded, style: style, time: time, state: &state) }
        let response = routedAnswer(recorded, style: style, time: time, state: &state)
        if style.errors == .laravel || style.responseKey != nil {
            return laravelAnswer(response, to: recorded, style: style, state: state)
        }
        return frameworkError(response, style: style, request: recorded.request)
    }

    static func routedAnswer(
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
        case (.redirectsToNone, true):
            var components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
            while components?.percentEncodedPath.hasSuffix("/") == true { components?.percentEncodedPath.removeLast() }
            components?.fragment = nil
            let location = components?.string ?? request.url.absoluteString
            return HTTPResponse(status: 307, headers: ["Location": location, "Content-Length": "0"])
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
            return withoutBodyForHead(read(resolved, id: id, style: style, state: state), request)
        case (.put, let id?), (.patch, let id?):
            return update(resolved, id: id, style: style, time: time, state: &state)
        case (.delete, let id?):
            return delete(resolved, id: id, style: style, state: &state)
        case _ where !style.answersMethodNotAllowed:
            return detailResponse(404, "Not found.")  // a router with no such route (Rails, Vapor)
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
        let skipped = style.pagination.parameters.union(resolved.collection.pagination?.parameters ?? [])
            .union(style.nestedPagination?.parameters ?? []).union(style.ignoredQueryParameters)
        let rows = state.tables[resolved.table]?.rows ?? []
        // Only a query parameter naming a field filters; without one, no row is read beyond the page it shows.
        var filters = resolved.target.query.filter { !skipped.contains($0.name) }
        if !filters.isEmpty {
            let fields = Set(rows.flatMap(\.object.keys))
            filters.removeAll { !fields.contains($0.name.components(separatedBy: "__")[0]) }
        }
        let matching = filters.isEmpty ? rows : rows.filter { matches($0.object, filters) }
        let items = matching.lazy.map { JSON.object($0.object) }
        let nested = resolved.collection.parentCollectionKey != nil
        let pagination =
            resolved.collection.pagination ?? (nested ? style.nestedPagination : nil) ?? style.pagination
        return page(
            items, pagination: pagination, errors: style.errors, target: resolved.target,
            url: resolved.request.url,
            collectionKey: resolved.collection.collectionKey)
    }

    static func read(_ resolved: Resolved, id: String, style: Style, state: State) -> HTTPResponse {
        guard let row = state.tables[resolved.table]?[id] else { return detailResponse(404, "Not found.") }
        let tag = entityTag(row, collection: resolved.collection, style: style)
        if isNotModified(resolved.request, row, tag: tag, style: style) {
            return HTTPResponse(status: 304, headers: validatorHeaders(row, tag: tag, style: style))
        }
        return objectResponse(200, row, collection: resolved.collection, style: style)
    }

    static func delete(_ resolved: Resolved, id: String, style: Style, state: inout State) -> HTTPResponse {
        guard let row = state.tables[resolved.table]?[id] else { return detailResponse(404, "Not found.") }
        if let failed = precondition(resolved.request, row, collection: resolved.collection, style: style) {
            return failed
        }
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
}
