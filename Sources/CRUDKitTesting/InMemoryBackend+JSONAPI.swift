import CRUDKit
@_spi(TransportKit) import CRUDKitHTTP
import Foundation

// JSON:API as an `InMemoryBackend` style: Django REST framework with djangorestframework-jsonapi 8.1, configured as
// in Tests/Interop/drf/people/jsonapi.py (checked against it with curl). Requests are checked and turned into the
// plain objects the collection rules store; answers are turned back into JSON:API documents.

extension InMemoryBackend.Style {
    /// A JSON:API server as Django REST framework with djangorestframework-jsonapi 8.1 answers (its renderer,
    /// parser, `JsonApiPageNumberPagination` and exception handler, no `PUT`):
    ///
    /// - `Accept` must allow `application/vnd.api+json` (absent, `*/*` and `application/*` do): `Accept:
    ///   application/json` answers **406**; a body whose `Content-Type` is not `application/vnd.api+json` answers
    ///   **415**;
    /// - a POST or PATCH body is `{"data": {"type", "id", "attributes", "relationships"}}`: a `type` that is not
    ///   the collection's (its last path segment, `people`) or is missing answers **409**; a PATCH without `id`
    ///   answers **400**, with another id than the URL's **409**;
    /// - `PUT` answers **405** with `Allow: GET, PATCH, DELETE, HEAD, OPTIONS`;
    /// - objects answer as `{"data": {"type", "id": "12", "attributes": {…}}}`; a nested collection's `parentKey`
    ///   (given to `register`) is the relationship `{"person": {"data": {"type": "people", "id": "3"}}}`, which a create must
    ///   carry (400 `/data/relationships/person` "This field is required." otherwise) and which must name the parent
    ///   of the URL; other relationships are ignored, as a serializer ignores fields it does not declare;
    /// - lists are `{"links": {"first", "last", "next", "prev"}, "data": […], "meta": {"pagination": {"page",
    ///   "pages", "count"}}}` for `page[number]` and `page[size]` (10 by default, at most 100; `0` or junk is
    ///   10); a page past the end, `page[number]=0` or junk answers 404 "Invalid page."; `filter[name]=value`
    ///   filters as `name=value` does;
    /// - errors are `{"errors": [{"detail", "status", "source": {"pointer"}}]}`, a validation failure **400** with
    ///   `/data/attributes/age` (or `/data` for the whole object), all as `application/vnd.api+json`.
    ///
    /// 201 with the object and no `Location`; a PATCH keeps what it leaves out; DELETE 204. No `ETag`, no
    /// `Last-Modified`, no 304; conditional headers are ignored.
    public static let jsonAPI: Self = {
        var style = Self(
            trailingSlash: .never, pagination: .none, errors: .jsonAPI, createAnswer: .object, putOmissions: .kept,
            patchMergesObjects: false, entityTags: .none, sendsLastModified: false, notModified: .never,
            honoursIfMatch: false, honoursIfUnmodifiedSince: false)
        style.speaksJSONAPI = true
        return style
    }()
}

extension InMemoryBackend {
    /// The JSON:API media type.
    static let jsonAPIMediaType = "application/vnd.api+json"
    /// The page size of a JSON:API list when `page[size]` does not say, and the most it may say.
    static let jsonAPIPageSize = (default: 10, max: 100)

    /// Answers `recorded` as a JSON:API server does (called with the lock held).
    static func jsonAPIAnswer(
        _ recorded: RecordedRequest, style: Style, time: Date, state: inout State
    ) -> HTTPResponse {
        let request = recorded.request
        guard acceptsJSONAPI(request) else {
            return jsonAPIError(406, "Could not satisfy the request Accept header.", pointer: "/data")
        }
        let resolved = resolve(recorded.target, request: request, in: state)
        if request.method == .put {
            let allowed = resolved?.id == nil ? "GET, POST, HEAD, OPTIONS" : "GET, PATCH, DELETE, HEAD, OPTIONS"
            return jsonAPIError(405, "Method \"PUT\" not allowed.", pointer: "/data", headers: ["Allow": allowed])
        }
        var plain = request
        plain.url = filtersAsFields(request.url)
        if let resolved, request.method == .post || (request.method == .patch && exists(resolved, in: state)) {
            switch jsonAPIObject(request, resolved: resolved) {
            case .answer(let failure):
                return failure
            case .object(let object):
                plain.body = .data((try? JSON.object(object).data()) ?? Data())
                plain.headers["Content-Type"] = "application/json"
            }
        }
        let translated = RecordedRequest(plain, index: recorded.index)
        let response = routedAnswer(translated, style: style, time: time, state: &state)
        return jsonAPIResponse(response, to: recorded, resolved: resolved)
    }

    /// Whether `Accept` allows JSON:API: absent, `*/*`, `application/*` or `application/vnd.api+json` (parameters
    /// are not looked at, as DRF's negotiation does not).
    private static func acceptsJSONAPI(_ request: HTTPRequest) -> Bool {
        guard let accept = request.headers["Accept"] else { return true }
        return accept.split(separator: ",").contains { range in
            let type = mediaType(String(range))
            return type == "*/*" || type == "application/*" || type == jsonAPIMediaType
        }
    }

    /// A header value's media type, lower-cased, without parameters.
    private static func mediaType(_ value: String) -> String {
        (value.split(separator: ";").first.map(String.init) ?? value).trimmingCharacters(in: .whitespaces)
            .lowercased()
    }

    private static func exists(_ resolved: Resolved, in state: State) -> Bool {
        guard let id = resolved.id else { return false }
        return state.tables[resolved.table]?[id] != nil
    }

    /// `url` with each `filter[name]` query parameter renamed `name`.
    private static func filtersAsFields(_ url: URL) -> URL {
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: false),
            let query = components.percentEncodedQuery, query.contains("filter")
        else { return url }
        let pairs = FormParameters.decodePairs(query).map { pair -> (String, String) in
            guard pair.name.hasPrefix("filter["), pair.name.hasSuffix("]") else { return (pair.name, pair.value) }
            return (String(pair.name.dropFirst(7).dropLast()), pair.value)
        }
        components.percentEncodedQuery = pairs.map {
            FormParameters.percentEncode($0.0) + "=" + FormParameters.percentEncode($0.1)
        }.joined(separator: "&")
        return components.url ?? url
    }

    // MARK: - Requests

    /// The plain object a JSON:API write carries, or the error the server answers.
    private static func jsonAPIObject(_ request: HTTPRequest, resolved: Resolved) -> BodyResult {
        let type = request.headers["Content-Type"].map(mediaType) ?? ""
        guard type == jsonAPIMediaType else {
            return .answer(jsonAPIError(415, "Unsupported media type \"\(type)\" in request.", pointer: "/data"))
        }
        let data = RecordedRequest(request, index: 0).body
        let document: JSON
        do {
            document = try JSON(data: data)
        } catch {
            return .answer(jsonAPIError(400, "JSON parse error - \(error)", pointer: "/data"))
        }
        guard let primary = document.object?["data"] else {
            return .answer(jsonAPIError(400, "Received document does not contain primary data", pointer: "/data"))
        }
        guard let resource = primary.object else {
            return .answer(
                jsonAPIError(
                    400, "Received data is not a valid JSON:API Resource Identifier Object", pointer: "/data"))
        }
        let collectionType = resourceType(resolved.collection)
        let sentType = resource["type"]?.string
        guard sentType == collectionType else {
            return .answer(
                jsonAPIError(
                    409,
                    "The resource object's type (\(sentType ?? "None")) is not the type that constitute the "
                        + "collection represented by the endpoint (\(collectionType)).", pointer: "/data"))
        }
        let sentID = resource["id"].map(idText)
        if request.method == .patch, let urlID = resolved.id {
            guard let sentID, !sentID.isEmpty else {
                return .answer(
                    jsonAPIError(400, "The resource identifier object must contain an 'id' member", pointer: "/data"))
            }
            guard sentID == urlID else {
                return .answer(
                    jsonAPIError(
                        409, "The resource object's id (\(sentID)) does not match url's lookup id (\(urlID))",
                        pointer: "/data"))
            }
        }
        var object = JSON.Object()
        for (key, value) in resource["attributes"]?.object ?? JSON.Object() { object[key] = value }
        let relationships = resource["relationships"]?.object ?? JSON.Object()
        // Only the parent relationship is stored: a serializer ignores the fields it does not declare.
        for (key, member) in relationships where key == resolved.collection.parentKey {
            guard let linkage = member.object?["data"] else { continue }
            switch linkage {
            case .array(let items): object[key] = .array(items.map { storedID($0.object?["id"]) })
            case .object(let identifier): object[key] = storedID(identifier["id"])
            default: object[key] = .null
            }
        }
        if let failure = parentCheck(resolved, relationships: relationships, method: request.method) {
            return .answer(failure)
        }
        return .object(object)
    }

    /// A create in a nested collection must carry its parent as the `parentKey` relationship, of the parent's
    /// type and with the URL's parent id.
    private static func parentCheck(
        _ resolved: Resolved, relationships: JSON.Object, method: HTTPMethod
    ) -> HTTPResponse? {
        guard let key = resolved.collection.parentKey, let parentType = parentType(resolved.collection) else {
            return nil
        }
        let pointer = "/data/relationships/\(key)"
        guard let member = relationships[key] else {
            guard method == .post else { return nil }
            return jsonAPIError(400, "This field is required.", pointer: pointer)
        }
        guard let identifier = member.object?["data"]?.object else {
            return jsonAPIError(400, "This field may not be null.", pointer: pointer)
        }
        let sentType = identifier["type"]?.string ?? "None"
        guard sentType == parentType else {
            return jsonAPIError(
                409, "Incorrect relation type. Expected \(parentType), received \(sentType).", pointer: pointer)
        }
        guard identifier["id"].map(idText) == resolved.table.scope.last else {
            return jsonAPIError(400, "Does not match the parent in the URL.", pointer: pointer)
        }
        return nil
    }

    /// A related id as stored: a number when it is one.
    private static func storedID(_ id: JSON?) -> JSON {
        guard let id else { return .null }
        if case .string(let text) = id, let number = Int64(text) { return .number(.int(number)) }
        return id
    }

    // MARK: - Answers

    /// `response` (of the collection rules) as a JSON:API document.
    private static func jsonAPIResponse(
        _ response: HTTPResponse, to recorded: RecordedRequest, resolved: Resolved?
    ) -> HTTPResponse {
        var headers = response.headers
        headers["Content-Type"] = nil
        let json = response.body.isEmpty ? nil : try? JSON(data: response.body)
        guard let json, let resolved else {
            if response.status >= 400, json == nil, !response.body.isEmpty { return response }
            if response.body.isEmpty {
                // A HEAD (or an empty answer that names a type) names the renderer's media type.
                guard response.headers["Content-Type"] != nil else { return response }
                var answer = response
                answer.headers["Content-Type"] = jsonAPIMediaType
                return answer
            }
            return jsonResponse(response.status, json ?? .null, headers: headers, contentType: jsonAPIMediaType)
        }
        if response.status >= 400 {
            return jsonResponse(
                response.status == 422 ? 400 : response.status, jsonAPIErrors(json, response.status, resolved),
                headers: headers, contentType: jsonAPIMediaType)
        }
        if let object = json.object, resolved.id != nil || recorded.method == .post {
            return jsonResponse(
                response.status, ["data": resourceObject(object, resolved.collection)], headers: headers,
                contentType: jsonAPIMediaType)
        }
        if let items = json.array {
            return jsonAPIPage(items, collection: resolved.collection, url: recorded.request.url, headers: headers)
        }
        return jsonResponse(response.status, json, headers: headers, contentType: jsonAPIMediaType)
    }

    /// A stored object as a resource object: `type`, `id` as a string, the rest as `attributes`, and the parent
    /// key as a relationship.
    private static func resourceObject(_ object: JSON.Object, _ collection: Collection) -> JSON {
        var attributes = JSON.Object()
        for (key, value) in object where key != collection.idKey && key != collection.parentKey {
            attributes[key] = value
        }
        var resource: JSON.Object = [
            "type": .string(resourceType(collection)), "id": .string(idText(object[collection.idKey] ?? .null)),
            "attributes": .object(attributes),
        ]
        if let key = collection.parentKey, let parentType = parentType(collection), let parent = object[key] {
            let linkage: JSON = parent.isNull ? .null : ["type": .string(parentType), "id": .string(idText(parent))]
            resource["relationships"] = [key: ["data": linkage]]
        }
        return .object(resource)
    }

    /// One page of `items` as `JsonApiPageNumberPagination` answers it.
    private static func jsonAPIPage(
        _ items: [JSON], collection: Collection, url: URL, headers: HTTPHeaders
    ) -> HTTPResponse {
        let target = RequestTarget(url)
        let asked = Int(target.queryValue("page[size]") ?? "") ?? 0
        let size = asked > 0 ? min(asked, jsonAPIPageSize.max) : jsonAPIPageSize.default
        let pages = max(1, (items.count + size - 1) / size)
        let numberText = target.queryValue("page[number]")
        let number = numberText.map { Int($0) ?? 0 } ?? 1
        guard number >= 1, number <= pages else { return jsonAPIError(404, "Invalid page.", pointer: "/data") }
        let start = (number - 1) * size
        let slice = items[start..<min(start + size, items.count)].map { item in
            item.object.map { resourceObject($0, collection) } ?? item
        }
        let link = { (page: Int) -> JSON in
            let pairs = target.query.filter { $0.name != "page[number]" } + [("page[number]", String(page))]
            var components = URLComponents(url: url, resolvingAgainstBaseURL: false)
            components?.percentEncodedQuery = pairs.sorted { $0.0 < $1.0 }.map {
                FormParameters.percentEncode($0.0) + "=" + FormParameters.percentEncode($0.1)
            }.joined(separator: "&")
            return .string(components?.string ?? url.absoluteString)
        }
        let body: JSON = [
            "links": [
                "first": link(1), "last": link(pages), "next": number < pages ? link(number + 1) : .null,
                "prev": number > 1 ? link(number - 1) : .null,
            ],
            "data": .array(slice),
            "meta": ["pagination": ["page": JSON(number), "pages": JSON(pages), "count": JSON(items.count)]],
        ]
        return jsonResponse(200, body, headers: headers, contentType: jsonAPIMediaType)
    }

    /// An error body of the collection rules as JSON:API errors: `{"detail": …}` as one error, a validation
    /// failure's errors with status 400 and relationship keys pointed at `/data/relationships/…`.
    private static func jsonAPIErrors(_ json: JSON, _ status: Int, _ resolved: Resolved) -> JSON {
        if let detail = json["detail"].string {
            var error: JSON.Object = ["detail": .string(detail), "status": .string(String(status))]
            if status != 404 { error["source"] = ["pointer": "/data"] }
            return ["errors": [.object(error)]]
        }
        guard let errors = json["errors"].array else { return json }
        let shown = status == 422 ? 400 : status
        return [
            "errors": .array(
                errors.map { error in
                    guard var object = error.object else { return error }
                    object["status"] = .string(String(shown))
                    if let key = resolved.collection.parentKey,
                        object["source"]?.object?["pointer"]?.string == "/data/attributes/\(key)"
                    {
                        object["source"] = ["pointer": .string("/data/relationships/\(key)")]
                    }
                    return .object(object)
                })
        ]
    }

    /// A JSON:API error answer.
    private static func jsonAPIError(
        _ status: Int, _ detail: String, pointer: String?, headers: HTTPHeaders = [:]
    ) -> HTTPResponse {
        var error: JSON.Object = ["detail": .string(detail), "status": .string(String(status))]
        if let pointer { error["source"] = ["pointer": .string(pointer)] }
        return jsonResponse(status, ["errors": [.object(error)]], headers: headers, contentType: jsonAPIMediaType)
    }

    /// A collection's resource type: its last literal segment (`people/{id}/posts` → `posts`).
    static func resourceType(_ collection: Collection) -> String {
        literals(collection.segments).last ?? collection.key
    }

    /// The type of a nested collection's parent: the literal before the last capture.
    private static func parentType(_ collection: Collection) -> String? {
        guard let last = collection.segments.lastIndex(where: { if case .capture = $0 { true } else { false } })
        else { return nil }
        return literals(Array(collection.segments[..<last])).last
    }

    private static func literals(_ segments: [PathPattern.Segment]) -> [String] {
        segments.compactMap { segment in
            if case .literal(let text) = segment { return text }
            return nil
        }
    }
}
