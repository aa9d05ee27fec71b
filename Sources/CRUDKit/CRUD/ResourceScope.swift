@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// Where a model's operations go: which ``API``, and under which parent path.
///
/// Every model operation runs through a scope. `Person.read(id: 12)` uses the default one (the model's
/// ``CRUDResource/api``, no parent); ``CRUDResource/scoped(to:api:)`` puts a child collection under a parent
/// (`/people/12/posts/7`), and ``CRUDResource/using(_:)`` names another API for a call. The scope's calls follow
/// the model's conventions (``CRUDResource/conventions(from:)`` of the API's).
///
/// ```swift
/// let posts = Post.scoped(to: ada)                      // /people/12/posts
/// let first = try await posts.read(id: 7)               // GET /people/12/posts/7
/// let made = try await posts.create(Post(title: "Hi"))  // POST /people/12/posts
/// let staging = try await Person.using(stagingAPI).read(id: 12)
/// ```
public struct ResourceScope<Model: CRUDResource>: Sendable {
    /// The API requests go to.
    public let api: API
    /// The path segments in front of the model's collection path (`["people", "12"]`); empty at the top level.
    package let parentSegments: [String]

    /// Creates a scope.
    /// - Parameters:
    ///   - model: The model type.
    ///   - api: The API; `nil` uses the model's ``CRUDResource/api``.
    ///   - parentSegments: Path segments in front of the collection, each sent as one percent-encoded segment.
    package init(_ model: Model.Type = Model.self, api: API? = nil, parentSegments: [String] = []) {
        self.api = api ?? Model.api
        self.parentSegments = parentSegments
        self.refusal = nil
    }

    /// Why every operation of this scope is refused before sending (its parent's origin is ambiguous or gone).
    let refusal: String?

    /// A scope whose every operation is refused with `refusal`.
    init(api: API, parentSegments: [String], refusal: String) {
        self.api = api
        self.parentSegments = parentSegments
        self.refusal = refusal
    }

    // MARK: - Paths

    /// The collection endpoint of `operation` (`people`, or `people/12/posts` under a parent).
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when the URL cannot be built.
    package func collectionEndpoint(for operation: CRUDOperation) throws -> Endpoint {
        try endpoint(parentSegments + Self.segments(of: Model.path(for: operation)))
    }

    /// The member endpoint of `operation` for `id` (`people/12`); the id is always exactly one segment.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` for an empty id or a URL that cannot be built.
    package func memberEndpoint(for operation: CRUDOperation, id: Model.ID) throws -> Endpoint {
        try memberEndpoint(for: operation, segment: Model.segment(for: id, operation: operation))
    }

    func memberEndpoint(for operation: CRUDOperation, segment: String) throws -> Endpoint {
        try endpoint(parentSegments + Self.segments(of: Model.path(for: operation)) + [segment])
    }

    func memberEndpoint(for operation: CRUDOperation, of model: Model) throws -> Endpoint {
        try memberEndpoint(for: operation, segment: model.requireID(for: operation))
    }

    /// The endpoint of an action's segments (collection path, perhaps id, action name) under this scope's parent.
    func actionEndpoint(_ segments: [String]) throws -> Endpoint {
        try endpoint(parentSegments + segments)
    }

    /// Segments as an endpoint, or as a URL built with the model's own trailing-slash rule when it differs.
    private func endpoint(_ segments: [String]) throws -> Endpoint {
        if let refusal { throw CRUDError.invalidRequest(reason: refusal) }
        if parentSegments.isEmpty, let parent = Model.parentPath {
            throw CRUDError.invalidRequest(
                reason: "\(Model.self) lives only under \(parent)/{id}/\(Model.path), and this call has no parent: "
                    + "send it through \(Model.self).scoped(to: parent) (a value read that way writes back there)")
        }
        let slash = conventions.trailingSlash
        if slash != api.configuration.conventions.trailingSlash {
            let builder = PathBuilder(baseURL: api.configuration.baseURL, trailingSlash: slash)
            return .url(try builder.url(segments: segments))
        }
        return .segments(segments)
    }

    private static func segments(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }

    // MARK: - Exchanges

    /// Sends one request through the API's pipeline and answers the validated response.
    func exchange(
        _ method: HTTPMethod,
        _ endpoint: Endpoint,
        query: FormParameters = [:],
        body: JSON? = nil,
        headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        var request = Request(
            method, endpoint, headers: mediaHeaders(hasBody: body != nil).merging(headers), decoder: .response)
        request.query = styled(query)
        if let body { request.body = .json(body) }
        return try await MiddlewareContext.$urlTemplate.withValue(urlTemplate(of: endpoint)) {
            try await api.send(request)
        }
    }

    /// The conventions this scope's calls follow: the model's ``CRUDResource/conventions(from:)`` of the API's.
    var conventions: APIConventions { Model.conventions(from: api.configuration.conventions) }

    /// The coding this scope's requests and answers use: the conventions' coding, writing decimals as they say
    /// (``APIConventions/writesDecimalsAsStrings``).
    var coding: JSONCoding { conventions.bodyCoding }

    /// `query` as the API writes it, with its lists already written in the model's query style when that differs
    /// from the API's (each list item becomes a field of its own, which every style writes the same way).
    func styled(_ query: FormParameters) -> FormParameters {
        let style = conventions.queryStyle
        guard !query.isEmpty, style != api.configuration.conventions.queryStyle else { return query }
        return FormParameters(query.flattened(style: style).map { ($0.name, FormValue.string($0.value)) })
    }

    /// Parses a response body as JSON (errors as ``CRUDError/decoding(_:)``).
    func document(_ response: HTTPResponse) throws -> JSON {
        do {
            return readable(try JSON(data: response.body, options: coding.parsing))
        } catch {
            throw CRUDError.decoding(error, in: response)
        }
    }

    /// Maps one model from a response: under its root key when the answer holds one (``objectPath(in:)``), else
    /// the answer itself. A bare answer that does not map either says which root key it lacked (and, for
    /// ``CRUDResource/objectKey``, that a server answering bare objects wants ``CRUDResource/requestKey``).
    func decodeOne(_ response: HTTPResponse) throws -> Model {
        let json = try document(response)
        let place = objectPath(in: json)
        do {
            return try Model.decodeResource(from: json, at: place.path, coding: coding)
        } catch {
            let failure = CRUDError.decoding(error, in: response)
            guard case .decoding(var details) = failure else { throw failure }
            details.keyPath = wirePath(details.keyPath, under: place.path)
            guard let missing = place.missingKey else {
                details.found += wrapperAdvice(for: json)
                throw CRUDError.decoding(details)
            }
            details.found +=
                " (the answer has no `\(missing)` key, so it was read as a bare object"
                + (missing == Model.objectKey
                    ? "; a server that takes {\"\(missing)\": …} and answers bare objects wants requestKey, "
                        + "not objectKey)" : ")")
            throw CRUDError.decoding(details)
        }
    }

    /// A decoding failure's key path as the wire spells it: each Swift property name in its `snake_case` form when
    /// the coding converts keys, under `objectPath` (`data.first_name`, not `firstName`).
    func wirePath(_ keyPath: String, under objectPath: String) -> String {
        var components = keyPath.split(separator: ".", omittingEmptySubsequences: false).map(String.init)
        if coding.convertsSnakeCase {
            components = components.map { component in
                let name = component.prefix { $0 != "[" }
                return JSONKeyConversion.snakeCase(fromCamelCase: String(name)) + component.dropFirst(name.count)
            }
        }
        let path = components.joined(separator: ".")
        guard !objectPath.isEmpty, path != objectPath, !path.hasPrefix(objectPath + ".") else { return path }
        return path.isEmpty ? objectPath : objectPath + "." + path
    }

    /// For an answer that is an object with one member holding an object or array the conventions do not unwrap: a
    /// sentence naming the preset or setting that reads it; else empty.
    func wrapperAdvice(for json: JSON) -> String {
        guard answerKey == nil, let object = json.object, object.count == 1,
            let member = object.first(where: { _ in true }),
            member.value.object != nil || member.value.array != nil
        else { return "" }
        let key = member.key
        let presets = key == "data" ? "the .laravel conventions read it (responseKey \"data\"), or " : ""
        return " (the answer is wrapped in `\(key)`: \(presets)set the conventions' responseKey to \"\(key)\", or the "
            + "model's objectKey)"
    }

    /// The key single objects arrive under in answers: the model's ``CRUDResource/objectKey``, else the
    /// ``APIConventions/responseKey`` of the model's conventions, else `data` for ``ResourceFormat/jsonAPI``
    /// (its primary data; a model that maps whole documents itself with ``ResourceFormat/plain`` is handed them).
    var answerKey: String? {
        Model.objectKey ?? conventions.responseKey ?? (speaksJSONAPI ? "data" : nil)
    }

    /// Where one model sits in `json`, and the answer key it lacked when it is read bare.
    ///
    /// Under ``answerKey`` when the document is an object holding an object there (else the document itself);
    /// without one, under ``CRUDResource/requestKey`` when the document is an object with that key as its only
    /// member (else the document itself).
    func objectPath(in json: JSON) -> (path: String, missingKey: String?) {
        if let key = answerKey {
            return json.value(forKey: key)?.object != nil ? (key, nil) : ("", key)
        }
        guard let key = Model.requestKey, let object = json.object, object.count == 1, object[key]?.object != nil
        else { return ("", nil) }
        return (key, nil)
    }

    /// Reads one model at `endpoint`.
    func fetchOne(_ endpoint: Endpoint, headers: HTTPHeaders = [:]) async throws -> (Model, HTTPResponse) {
        let response = try await exchange(.get, endpoint, headers: headers)
        let model = try decodeOne(response)
        remember(model)
        return (model, response)
    }

    /// The model a write answered with: its body, or (for 204 or an empty 201) a read of the `Location` header,
    /// or a read of `id`. The server accepted the write, so a failure to read its answer (or to read the value
    /// back) is ``CRUDError/writeAccepted(_:failure:)``, which says so and keeps the write's response; only
    /// cancellation is reported as itself.
    func written(_ response: HTTPResponse, id: String?) async throws -> (Model, HTTPResponse) {
        do {
            let written = try await readWritten(response, id: id)
            remember(written.0)
            return written
        } catch let error as CRUDError {
            if error.isCancelled { throw error }
            throw CRUDError.writeAccepted(response, failure: error)
        } catch {
            throw CRUDError.writeAccepted(response, failure: CRUDError.decoding(error, in: response))
        }
    }

    private func readWritten(_ response: HTTPResponse, id: String?) async throws -> (Model, HTTPResponse) {
        if !Self.isBlank(response.body) { return (try decodeOne(response), response) }
        if let location = response.headers["Location"], let url = resolve(location, against: response.url) {
            // Read with the API's credentials, so only on the API's origin; elsewhere, by id when there is one.
            if isOnAPIOrigin(url, reference: response.url) { return try await fetchOne(.url(url)) }
            if id == nil { try checkOrigin(of: url, link: "the Location of the answer", reference: response.url) }
        }
        if let id {
            return try await fetchOne(try memberEndpoint(for: .read, segment: id))
        }
        throw CRUDError.decoding(
            CRUDError.DecodingFailure(
                keyPath: "", expected: "the written \(Model.self), a Location header or an id to read it back",
                found: "an empty body with status \(response.status)", body: response.body,
                credentials: response.sentCredentials))
    }

    /// Refuses a `link` the server gave (a `next` page, a `Location`) to another scheme, host or port than the API's
    /// base URL (or `reference`'s, without one): it would be read with the API's credentials.
    func checkOrigin(of url: URL, link: String, reference: URL?) throws {
        guard !isOnAPIOrigin(url, reference: reference), let home = api.configuration.baseURL ?? reference else {
            return
        }
        // The usual cause of an `http` link from an `https` API: a framework behind a TLS proxy that was not told.
        let advice =
            url.scheme?.lowercased() == "http" && home.scheme?.lowercased() == "https"
                && url.host?.lowercased() == home.host?.lowercased()
            ? " (the server writes http:// links: behind a TLS proxy, have the proxy send X-Forwarded-Proto and "
                + "the framework trust it, as Django's SECURE_PROXY_SSL_HEADER does)" : ""
        throw CRUDError.invalidRequest(
            reason: "\(link) \(url.absoluteString) leads away from \(Self.origin(of: home)); not followed\(advice)")
    }

    /// Whether `url` has the scheme, host and port of the API's base URL (or `reference`'s, without one; `true`
    /// when there is neither).
    private func isOnAPIOrigin(_ url: URL, reference: URL?) -> Bool {
        guard let home = api.configuration.baseURL ?? reference else { return true }
        return Self.origin(of: url) == Self.origin(of: home)
    }

    /// The scheme, host and port of `url` (the scheme's default port when none is given).
    private static func origin(of url: URL) -> String {
        let scheme = url.scheme?.lowercased() ?? ""
        let port = url.port ?? (scheme == "https" ? 443 : scheme == "http" ? 80 : -1)
        return "\(scheme)://\(url.host?.lowercased() ?? ""):\(port)"
    }

    /// `reference` as an absolute URL, relative to the response's URL or the API's base URL.
    func resolve(_ reference: String, against url: URL?) -> URL? {
        guard let base = url ?? api.configuration.baseURL else { return URL(string: reference) }
        return URL(string: reference, relativeTo: base)?.absoluteURL
    }

    private static func isBlank(_ body: Data) -> Bool {
        body.allSatisfy { $0 == 0x20 || $0 == 0x0A || $0 == 0x0D || $0 == 0x09 }
    }
}

extension CRUDResource {
    /// The scope `Person.read(id:)` and the other operations use: the model's ``api``, no parent.
    package static var scope: ResourceScope<Self> { ResourceScope() }

    /// This model's operations on another API, for one call or a few.
    ///
    /// ```swift
    /// let copy = try await Person.using(backupAPI).read(id: 12)
    /// ```
    /// - Parameter api: The API to talk to.
    /// - Returns: A scope on that API.
    public static func using(_ api: API) -> ResourceScope<Self> {
        ResourceScope(api: api)
    }

    /// This model's collection under a parent value: `Post.scoped(to: ada)` reaches `people/12/posts` and
    /// `people/12/posts/7` for all five operations.
    ///
    /// The parent's segments are its ``path`` and its id; a parent without an id fails each operation with
    /// ``CRUDError/invalidRequest(reason:)`` before anything is sent. Without `api`, the scope is on the API the
    /// parent was read, created or listed through (so children of a parent read with ``using(_:)`` go there too);
    /// when that origin is ambiguous or its API is gone, each operation is refused before sending.
    /// - Parameters:
    ///   - parent: The parent value.
    ///   - api: The API; `nil` uses the API the parent came from, else (a parent built by hand) this model's ``api``.
    /// - Returns: The nested scope.
    public static func scoped<Parent: CRUDResource>(to parent: Parent, api: API? = nil) -> ResourceScope<Self> {
        let idSegment = parent.id.map(\.description) ?? ""
        let segments = Self.segments(of: Parent.path) + [idSegment]
        if let api { return ResourceScope(api: api, parentSegments: segments) }
        switch parent.origin() {
        case .origin(let origin, _): return ResourceScope(api: origin, parentSegments: segments)
        case .unknown: return ResourceScope(api: nil, parentSegments: segments)
        case .refused(let why):
            return ResourceScope(
                api: Self.api, parentSegments: segments,
                refusal:
                    "\(Self.self) not sent, because of its parent \(Parent.self) \(idSegment): \(why); name the API: "
                    + "\(Self.self).scoped(to: parent, api: api)")
        }
    }

    /// This model's collection under a parent known by its id: `Post.scoped(to: Person.self, id: 12)`.
    /// - Parameters:
    ///   - parent: The parent type.
    ///   - id: The parent's id.
    ///   - api: The API; `nil` uses this model's ``api``.
    /// - Returns: The nested scope.
    public static func scoped<Parent: CRUDResource>(
        to parent: Parent.Type, id: Parent.ID, api: API? = nil
    ) -> ResourceScope<Self> {
        ResourceScope(api: api, parentSegments: Self.segments(of: Parent.path) + [id.description])
    }

    private static func segments(of path: String) -> [String] {
        path.split(separator: "/", omittingEmptySubsequences: true).map(String.init)
    }
}
