import Foundation

// The calls for endpoints that are not models: one pair per method, each answering either the whole
// `HTTPResponse` or a decoded value. Both go through `send(_:)`, so middleware, retries and logging apply.

extension API {
    // twin: future
    /// Reads `endpoint` with `GET` and answers the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: The response, whose status is a success.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func get(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        try await send(Request(.get, endpoint, query: query, headers: headers, decoder: .response))
    }

    // twin: future
    /// Reads `endpoint` with `GET` and decodes the answer as `Value` with the API's decoder, or only the value
    /// under `path` in it.
    ///
    /// ```swift
    /// let people: [Person] = try await api.get("people", query: ["age_gte": "30"])
    /// let person: Person = try await api.get("people/12", at: "data")         // {"data": {…}}
    /// let inner = try await api.get("people", at: "data.people", as: [Person].self)
    /// ```
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - path: Where the value sits: a key (`"data"`) or a key path (`"data.person"`, `"results[0]"`); `nil`
    ///     (the default) for the whole answer.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: The decoded answer.
    /// - Throws: ``CRUDError``; ``CRUDError/decoding(_:)`` naming the first missing key when `path` is not there.
    @_disfavoredOverload
    public func get<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        at path: String? = nil,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) async throws -> Value {
        try await send(Request<Value>(.get, endpoint, at: path, query: query, headers: headers))
    }

    // twin: future, noasync: the request; spell the type
    /// Creates or runs an action at `endpoint` with `POST` and answers the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body (`.json(value)`, `.form(fields)`, `.data(bytes)`).
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: The response, whose status is a success.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func post(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        try await send(Request(.post, endpoint, query: query, body: body, headers: headers, decoder: .response))
    }

    // twin: future, noasync: the request; spell the type
    /// Creates or runs an action at `endpoint` with `POST` and decodes the answer as `Value` with the API's decoder.
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body (`.json(value)`, `.form(fields)`, `.data(bytes)`).
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: The decoded answer.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func post<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) async throws -> Value {
        try await send(Request<Value>(.post, endpoint, query: query, body: body, headers: headers))
    }

    // twin: future, noasync: the request; spell the type
    /// Replaces `endpoint` with `PUT` and answers the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body (`.json(value)`, `.form(fields)`, `.data(bytes)`).
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: The response, whose status is a success.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func put(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        try await send(Request(.put, endpoint, query: query, body: body, headers: headers, decoder: .response))
    }

    // twin: future, noasync: the request; spell the type
    /// Replaces `endpoint` with `PUT` and decodes the answer as `Value` with the API's decoder.
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body (`.json(value)`, `.form(fields)`, `.data(bytes)`).
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: The decoded answer.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func put<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) async throws -> Value {
        try await send(Request<Value>(.put, endpoint, query: query, body: body, headers: headers))
    }

    // twin: future, noasync: the request; spell the type
    /// Changes part of `endpoint` with `PATCH` and answers the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body (`.json(value)`, `.form(fields)`, `.data(bytes)`).
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: The response, whose status is a success.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func patch(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        try await send(Request(.patch, endpoint, query: query, body: body, headers: headers, decoder: .response))
    }

    // twin: future, noasync: the request; spell the type
    /// Changes part of `endpoint` with `PATCH` and decodes the answer as `Value` with the API's decoder.
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body (`.json(value)`, `.form(fields)`, `.data(bytes)`).
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: The decoded answer.
    /// - Throws: ``CRUDError``.
    @_disfavoredOverload
    public func patch<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) async throws -> Value {
        try await send(Request<Value>(.patch, endpoint, query: query, body: body, headers: headers))
    }

    // twin: future, noasync: the request; spell the type
    /// Deletes `endpoint` with `DELETE` and answers the whole response (a `DELETE` whose answer you decode:
    /// `api.send(Request<Value>(.delete, endpoint))`).
    /// - Parameters:
    ///   - endpoint: A path under the base URL (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: The response, whose status is a success.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func delete(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:]
    ) async throws -> HTTPResponse {
        try await send(Request(.delete, endpoint, query: query, headers: headers, decoder: .response))
    }

    // twin: future
    /// Downloads `endpoint` with `GET` into `destination` (replaced if it exists), through the same middleware
    /// and retries; a partly written file is removed on failure and cancellation.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - destination: The file to write.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    ///   - progress: Told the bytes received so far and the bytes expected.
    /// - Returns: The response, whose body is empty: it went to the file.
    /// - Throws: ``CRUDError``.
    @discardableResult
    @_disfavoredOverload
    public func download(
        _ endpoint: some EndpointConvertible,
        to destination: URL,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) async throws -> HTTPResponse {
        var request = Request(.get, endpoint, query: query, headers: headers, decoder: .response)
        request.observer = TransferObserver(download: progress)
        return try await download(request, to: destination)
    }
}
