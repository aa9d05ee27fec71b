import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

extension InMemoryBackend {
    static func create(_ resolved: Resolved, style: Style, time: Date, state: inout State) -> HTTPResponse {
        let collection = resolved.collection
        let members: JSON.Object
        switch body(of: resolved.request, collection: collection, style: style) {
        case .answer(let answer): return answer
        case .object(let object): members = object
        }
        var candidate = members
        _ = candidate.removeValue(forKey: collection.idKey)
        if let errors = collection.validate?(.object(candidate), true), !errors.isEmpty {
            return validationResponse(errors, shape: style.errors, columns: collection.columns)
        }
        let row = store(
            candidate, in: resolved.table, collection: collection, style: style, time: time, state: &state,
            keepID: false)
        let location = memberURL(resolved.request.url, id: row.id, slash: style.trailingSlash == .always)
        switch style.createAnswer {
        case .object:
            return objectResponse(201, row, collection: collection, style: style)
        case .objectWithLocation:
            return objectResponse(201, row, collection: collection, style: style, headers: ["Location": location])
        case .locationOnly:
            var headers = validatorHeaders(
                row, tag: entityTag(row, collection: collection, style: style), style: style)
            headers["Location"] = location
            return HTTPResponse(status: 201, headers: headers)
        case .objectWith200:
            return objectResponse(200, row, collection: collection, style: style)
        }
    }

    static func update(
        _ resolved: Resolved, id: String, style: Style, time: Date, state: inout State
    )
        -> HTTPResponse
    {
        let collection = resolved.collection
        guard var row = state.tables[resolved.table]?[id] else { return detailResponse(404, "Not found.") }
        if let failed = precondition(resolved.request, row, collection: collection, style: style) { return failed }
        let members: JSON.Object
        switch body(of: resolved.request, collection: collection, style: style) {
        case .answer(let answer): return answer
        case .object(let object): members = object
        }
        var merged: JSON.Object
        if resolved.request.method == .patch {
            merged = row.object
            for (key, change) in members where key != collection.idKey && key != collection.parentKey {
                if change.isNull, style.patchNulls == .ignore { continue }
                if style.patchMergesObjects, case .object = change, let current = merged[key], case .object = current {
                    merged[key] = current.applyingMergePatch(change)
                } else {
                    merged[key] = change
                }
            }
        } else if style.putOmissions == .kept {
            merged = row.object
            for (key, value) in members { merged[key] = value }
        } else {
            merged = members
        }
        let updated = shaped(
            merged, id: row.object[collection.idKey] ?? .null, parent: collection.parentKey.flatMap { row.object[$0] },
            stored: row.object, collection: collection, style: style, time: time)
        var candidate = updated
        _ = candidate.removeValue(forKey: collection.idKey)
        if let errors = collection.validate?(.object(candidate), false), !errors.isEmpty {
            return validationResponse(errors, shape: style.errors, columns: collection.columns)
        }
        state.revision += 1
        row.object = updated
        row.revision = state.revision
        row.modified = time
        state.tables[resolved.table]?[id] = row
        switch style.updateAnswer {
        case .object:
            return objectResponse(200, row, collection: collection, style: style)
        case .noContent:
            let tag = entityTag(row, collection: collection, style: style)
            return HTTPResponse(status: 204, headers: validatorHeaders(row, tag: tag, style: style))
        }
    }

    /// Stores `members` as a new object of `collection` under `table`, with a new id (or its own when `keepID`).
    static func store(
        _ members: JSON.Object, in table: TableKey, collection: Collection, style: Style, time: Date,
        state: inout State, keepID: Bool
    ) -> Row {
        var id: JSON
        if keepID, let given = members[collection.idKey], !given.isNull {
            id = given
            if let number = given.int, number > collection.created {
                state.collections[collection.key]?.created = number
            }
        } else {
            var updated = state.collections[collection.key] ?? collection
            id = updated.nextID()
            state.collections[collection.key] = updated
        }
        let parent = table.scope.last.map { parentID in Int(parentID).map { JSON($0) } ?? .string(parentID) }
        let object = shaped(
            members, id: id, parent: parent, stored: nil, collection: collection, style: style, time: time,
            keepsTimestamps: keepID)
        state.revision += 1
        let row = Row(id: idText(id), object: object, revision: state.revision, modified: time)
        state.tables[table, default: Table()][row.id] = row
        return row
    }

    /// The request body as an object (unwrapped from the collection's object key), or the error answer.
    static func body(of request: HTTPRequest, collection: Collection, style: Style) -> BodyResult {
        let shape = style.errors
        let data = RecordedRequest(request, index: 0).body
        let type = request.headers["Content-Type"].map { value in
            (value.split(separator: ";").first.map(String.init) ?? value).trimmingCharacters(in: .whitespaces)
                .lowercased()
        }
        if shape == .fastAPI, let failure = pydanticBodyFailure(data, type: type) { return .answer(failure) }
        let parsed: JSON
        if data.isEmpty {
            parsed = [:]
        } else if type == "application/x-www-form-urlencoded" {
            let pairs = FormParameters.decodePairs(String(decoding: data, as: UTF8.self))
            parsed = .object(JSON.Object(pairs.map { ($0.name, JSON.string($0.value)) }))
        } else if type == nil || type == "application/json" || type?.hasSuffix("+json") == true {
            do {
                parsed = try JSON(data: data)
            } catch {
                return .answer(detailResponse(400, "JSON parse error - \(error)"))
            }
        } else {
            return .answer(detailResponse(415, "Unsupported media type \"\(type ?? "")\" in request."))
        }
        var unwrapped = parsed
        if let key = collection.objectKey ?? collection.requestKey, case .object(let outer) = parsed,
            let inner = outer[key],
            case .object = inner
        {
            unwrapped = inner
        }
        switch unwrapped {
        case .object(let object):
            let known = collection.columns.map { columns in object.keys.contains { columns[$0] != nil } } ?? true
            if style.rejectsEmptyWrites, object.isEmpty || !known {
                return .answer(detailResponse(400, "Bad Request"))  // Rails' params.require finds nothing
            }
            return .object(object)
        case .null:
            if style.rejectsEmptyWrites { return .answer(detailResponse(400, "Bad Request")) }
            return .answer(validationResponse([nonFieldErrorsKey: ["No data provided"]], shape: shape))
        case .array:
            let message = "Invalid data. Expected a dictionary, but got list."
            return .answer(validationResponse([nonFieldErrorsKey: [message]], shape: shape))
        default:
            let message = "Invalid data. Expected a dictionary, but got \(unwrapped.kindDescription)."
            return .answer(validationResponse([nonFieldErrorsKey: [message]], shape: shape))
        }
    }

    /// The absolute URL of the member `id` of the collection `url` names.
    static func memberURL(_ url: URL, id: String, slash: Bool) -> String {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false) else {
            return url.absoluteString
        }
        var path = components.percentEncodedPath
        while path.hasSuffix("/") { path.removeLast() }
        components.percentEncodedPath = path + "/" + FormParameters.percentEncode(id) + (slash ? "/" : "")
        components.percentEncodedQuery = nil
        components.fragment = nil
        return components.string ?? url.absoluteString
    }
}

/// A request body read as an object, or the error answer when it is not one.
enum BodyResult {
    case object(JSON.Object)
    case answer(HTTPResponse)
}
