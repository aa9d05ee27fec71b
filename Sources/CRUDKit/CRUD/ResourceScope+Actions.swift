import Foundation

// Custom member actions (`POST /people/12/activate`) and collection actions (`GET /people/search?q=…`).

extension ResourceScope {
    // twin: future, noasync: the action; spell the type
    /// Runs a collection action (`GET /people/search?q=ada`, `POST /people/import`), or with `model`, a member
    /// action on it (`POST /people/12/activate`).
    ///
    /// ```swift
    /// let found: [Person] = try await Person.using(api).action(.get, "search", query: ["q": "ada"], as: .models())
    /// let active: Person = try await Person.using(api).action(.post, "activate", on: ada, as: .model())
    /// ```
    /// - Parameters:
    ///   - method: The method.
    ///   - name: The action's path under the collection, or under the member with `model` (`"search"`, or
    ///     several segments `"reports/daily"`).
    ///   - model: The value a member action is about (it needs an id); `nil` (the default) for a collection action.
    ///   - query: Query parameters.
    ///   - body: The body.
    ///   - decoder: How the answer is read: ``ResponseDecoder/model(_:)``, ``ResponseDecoder/models(_:)``,
    ///     ``ResponseDecoder/json``, ``ResponseDecoder/okay``, ``ResponseDecoder/data``,
    ///     ``ResponseDecoder/decodable(_:at:)``, ``ResponseDecoder/mapping(_:at:)`` or one of your own.
    /// - Returns: The answer.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when `model` has no id; otherwise
    ///   ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func action<Result>(
        _ method: HTTPMethod,
        _ name: String,
        on model: Model? = nil,
        query: FormParameters = [:],
        body: RequestBody = .none,
        as decoder: ResponseDecoder<Result>
    ) async throws -> Result {
        let id = try model.map { try $0.requireID(for: .read) }
        return try await performAction(method, name, id: id, query: query, body: body, decoder: decoder)
    }

    func performAction<Result>(
        _ method: HTTPMethod, _ name: String, id: String?, query: FormParameters, body: RequestBody,
        decoder: ResponseDecoder<Result>
    ) async throws -> Result {
        var segments = Model.path.split(separator: "/").map(String.init)
        if let id { segments.append(id) }
        segments += name.split(separator: "/").map(String.init)
        let endpoint = try actionEndpoint(segments)
        let headers = mediaHeaders(hasBody: body.isJSON)
        let template = urlTemplate(of: endpoint, member: id != nil, action: name)
        return try await MiddlewareContext.$urlTemplate.withValue(template) {
            try await api.send(
                Request(method, endpoint, query: styled(query), body: body, headers: headers, decoder: decoder))
        }
    }
}

extension CRUDResource {
    // twin: future, noasync: the action; spell the type
    /// Runs a collection action: `GET /people/search?q=ada`
    /// (see ``ResourceScope/action(_:_:on:query:body:as:)->Result``).
    ///
    /// ```swift
    /// let found: [Person] = try await Person.action(.get, "search", query: ["q": "ada"], as: .models())
    /// ```
    /// - Parameters:
    ///   - method: The method.
    ///   - name: The action's path under the collection.
    ///   - query: Query parameters.
    ///   - body: The body.
    ///   - decoder: How the answer is read: ``ResponseDecoder/model(_:)``, ``ResponseDecoder/models(_:)``,
    ///     ``ResponseDecoder/json``, ``ResponseDecoder/okay``, ``ResponseDecoder/data``,
    ///     ``ResponseDecoder/decodable(_:at:)``, ``ResponseDecoder/mapping(_:at:)`` or one of your own.
    /// - Returns: The answer.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public static func action<Result>(
        _ method: HTTPMethod,
        _ name: String,
        query: FormParameters = [:],
        body: RequestBody = .none,
        as decoder: ResponseDecoder<Result>
    ) async throws -> Result {
        try await scope.performAction(method, name, id: nil, query: query, body: body, decoder: decoder)
    }

    // twin: future, noasync: the action; spell the type
    /// Runs a member action on this value: `POST /people/12/activate`.
    ///
    /// ```swift
    /// let active: Person = try await ada.action(.post, "activate", as: .model())
    /// try await ada.action(.post, "notify", as: Okay.self)
    /// ```
    /// - Parameters:
    ///   - method: The method.
    ///   - name: The action's path under the member.
    ///   - query: Query parameters.
    ///   - body: The body.
    ///   - decoder: How the answer is read: ``ResponseDecoder/model(_:)``, ``ResponseDecoder/models(_:)``,
    ///     ``ResponseDecoder/json``, ``ResponseDecoder/okay``, ``ResponseDecoder/data``,
    ///     ``ResponseDecoder/decodable(_:at:)``, ``ResponseDecoder/mapping(_:at:)`` or one of your own.
    /// - Returns: The answer.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` before sending when there is no id; otherwise ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func action<Result>(
        _ method: HTTPMethod,
        _ name: String,
        query: FormParameters = [:],
        body: RequestBody = .none,
        as decoder: ResponseDecoder<Result>
    ) async throws -> Result {
        let id = try requireID(for: .read)
        return try await home(for: .read).performAction(
            method, name, id: id, query: query, body: body, decoder: decoder)
    }
}
