import Dispatch
import Foundation

// The `Future` overloads of the calls: the same names as the `async` ones, for code outside `async` functions.
// Each runs the `async` call in a `Task`; callbacks run on the API's `callbackQueue` (or `Future`'s default), and
// cancelling the future cancels the task, and with it the request (`CRUDError.cancelled`).

extension API {
    /// Sends a typed request and answers a ``Future`` of its answer (the `async` overload's twin).
    ///
    /// ```swift
    /// api.send(PeopleEndpoints.adults(page: 1))
    ///     .onSuccess { people in show(people) }
    ///     .onFailure { error in report(error) }
    /// ```
    /// - Returns: A future that completes with the answer or a ``CRUDError``; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    @discardableResult
    public func send<Response>(_ request: Request<Response>) -> Future<Response> {
        Future(callbackQueue: configuration.callbackQueue) { try await self.send(request) }
    }

    /// Sends a built request through the pipeline and answers a ``Future`` of the response.
    /// - Returns: A future that completes with the validated response or a ``CRUDError``.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    @discardableResult
    public func send(_ request: HTTPRequest) -> Future<HTTPResponse> {
        Future(callbackQueue: configuration.callbackQueue) { try await self.send(request) }
    }

    /// Reads `endpoint` with `GET` and answers a ``Future`` of the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: A future of the response; cancel it to cancel the request.
    @discardableResult
    public func get(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:]
    ) -> Future<HTTPResponse> {
        send(Request<HTTPResponse>(.get, endpoint, query: query, headers: headers))
    }

    /// Reads `endpoint` with `GET` and answers a ``Future`` of the answer decoded as `Value`.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: A future of the decoded answer; cancel it to cancel the request.
    public func get<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Future<Value> {
        send(Request<Value>(.get, endpoint, query: query, headers: headers))
    }

    /// Creates or runs an action at `endpoint` with `POST` and answers a ``Future`` of the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: A future of the response; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    @discardableResult
    public func post(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:]
    ) -> Future<HTTPResponse> {
        send(Request<HTTPResponse>(.post, endpoint, query: query, body: body, headers: headers))
    }

    /// Creates or runs an action at `endpoint` with `POST` and answers a ``Future`` of the answer decoded as `Value`.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: A future of the decoded answer; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    public func post<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Future<Value> {
        send(Request<Value>(.post, endpoint, query: query, body: body, headers: headers))
    }

    /// Replaces `endpoint` with `PUT` and answers a ``Future`` of the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: A future of the response; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    @discardableResult
    public func put(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:]
    ) -> Future<HTTPResponse> {
        send(Request<HTTPResponse>(.put, endpoint, query: query, body: body, headers: headers))
    }

    /// Replaces `endpoint` with `PUT` and answers a ``Future`` of the answer decoded as `Value`.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: A future of the decoded answer; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    public func put<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Future<Value> {
        send(Request<Value>(.put, endpoint, query: query, body: body, headers: headers))
    }

    /// Changes part of `endpoint` with `PATCH` and answers a ``Future`` of the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: A future of the response; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    @discardableResult
    public func patch(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:]
    ) -> Future<HTTPResponse> {
        send(Request<HTTPResponse>(.patch, endpoint, query: query, body: body, headers: headers))
    }

    /// Changes part of `endpoint` with `PATCH` and answers a ``Future`` of the answer decoded as `Value`.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: A future of the decoded answer; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    public func patch<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Future<Value> {
        send(Request<Value>(.patch, endpoint, query: query, body: body, headers: headers))
    }

    /// Deletes `endpoint` with `DELETE` and answers a ``Future`` of the whole response.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    /// - Returns: A future of the response; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    @discardableResult
    public func delete(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:]
    ) -> Future<HTTPResponse> {
        send(Request<HTTPResponse>(.delete, endpoint, query: query, headers: headers))
    }

    /// Deletes `endpoint` with `DELETE` and answers a ``Future`` of the answer decoded as `Value`.
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: A future of the decoded answer; cancel it to cancel the request.
    @available(
        *, noasync,
        message: "Future overload: only starts the request. In async code (main.swift too) use @main, or spell the type"
    )
    public func delete<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Future<Value> {
        send(Request<Value>(.delete, endpoint, query: query, headers: headers))
    }

    /// Downloads `endpoint` into `destination` and answers a ``Future`` of the response (whose body went to the
    /// file).
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - destination: The file to write.
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    ///   - progress: Told the bytes received so far and the bytes expected.
    /// - Returns: A future of the response; cancel it to cancel the download.
    @discardableResult
    public func download(
        _ endpoint: some EndpointConvertible,
        to destination: URL,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:],
        progress: (@Sendable (TransferProgress) -> Void)? = nil
    ) -> Future<HTTPResponse> {
        let endpoint = endpoint.endpoint
        return Future(callbackQueue: configuration.callbackQueue) {
            try await self.download(endpoint, to: destination, query: query, headers: headers, progress: progress)
        }
    }
}

// MARK: - A value under an envelope key

extension API {
    /// Reads `endpoint` with `GET` and answers a ``Future`` of the value under `path` decoded as `Value`.
    ///
    /// ```swift
    /// api.get("people/12", at: "data.person", as: Person.self)
    ///     .onSuccess { person in show(person) }
    /// ```
    /// - Parameters:
    ///   - endpoint: A path under the base URL, an ``Endpoint``, or an absolute `URL`.
    ///   - path: Where the value sits: a key (`"data"`) or a key path (`"data.person"`, `"results[0]"`).
    ///   - query: Query parameters, after the API's defaults.
    ///   - headers: Headers set over the API's defaults.
    ///   - type: The type to decode; usually inferred.
    /// - Returns: A future of the decoded value; cancel it to cancel the request.
    public func get<Value: Decodable & Sendable>(
        _ endpoint: some EndpointConvertible,
        at path: String,
        query: some FormParametersConvertible = FormParameters(),
        headers: HTTPHeaders = [:],
        as type: Value.Type = Value.self
    ) -> Future<Value> {
        send(Request<Value>(.get, endpoint, at: path, query: query, headers: headers))
    }
}
