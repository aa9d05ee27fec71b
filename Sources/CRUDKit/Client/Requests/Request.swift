import Foundation

/// An endpoint declared once: method, where, query, body, headers, and how to read the answer (its
/// ``ResponseDecoder``), in the spirit of Netto's `Resource<A>` and Get's `Request<Response>`.
///
/// Send it with ``API/send(_:)->Response``. A `Decodable` answer needs no decoder: it is decoded with the API's
/// ``JSONCoding`` (``ResponseDecoder/decodable(_:at:)``); any other answer names its decoder.
///
/// ```swift
/// enum PeopleEndpoints {
///     static func adults(page: Int) -> Request<[Person]> {
///         Request(.get, "people", query: ["age_gte": "18", "page": "\(page)"])
///     }
/// }
/// let adults = try await api.send(PeopleEndpoints.adults(page: 1))
/// let logout = Request(.post, "session/logout", decoder: .okay)
/// let total = Request(.get, "people/stats", decoder: .json { json in json["total"].int ?? 0 })
/// ```
public struct Request<Response: Sendable>: Sendable {
    /// The method.
    public var method: HTTPMethod
    /// Where the request goes.
    public var endpoint: Endpoint
    /// Query parameters, after the API's defaults (a name given here replaces a default of that name); set it to
    /// send lists or nested fields (`request.query = ["tags": ["a", "b"]]`).
    public var query: FormParameters
    /// The body.
    public var body: RequestBody
    /// Headers, set over the API's default headers.
    public var headers: HTTPHeaders
    /// The idle timeout of this request; `nil` uses the API's (and, when the API sets none, the transport's).
    public var timeout: TimeInterval?
    /// The total time this request may take; `nil` uses the API's (``APIConfiguration/deadline``, or
    /// ``APIConfiguration/downloadDeadline`` for a download to a file); `.infinity` for none.
    public var deadline: TimeInterval?
    /// Told how the upload and the download progress.
    public var observer: TransferObserver
    /// The retry policy of this request; `nil` uses the API's.
    public var retryPolicy: RetryPolicy?
    /// Middleware for this request alone, run outside (before) the API's ``APIConfiguration/middleware``: it sees
    /// the request once, as built, and the final response or error.
    public var middleware: [any Middleware] = []
    /// Reads the answer from a successful, validated response.
    public var decoder: ResponseDecoder<Response>

    /// Creates a request whose answer is read by `decoder`.
    /// - Parameters:
    ///   - method: The method.
    ///   - endpoint: A path (`"people/12"`), an ``Endpoint``, or an absolute `URL`.
    ///   - query: Query parameters, in the order written; lists and nested fields too (`["tags": ["a", "b"]]`).
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    ///   - timeout: The idle timeout; `nil` uses the API's.
    ///   - decoder: Reads the answer (``ResponseDecoder/okay``, ``ResponseDecoder/response``,
    ///     ``ResponseDecoder/mapping(_:at:)``, …); errors it throws become ``CRUDError/decoding(_:)``.
    public init(
        _ method: HTTPMethod = .get,
        _ endpoint: some EndpointConvertible,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil,
        decoder: ResponseDecoder<Response>
    ) {
        self.method = method
        self.endpoint = endpoint.endpoint
        self.query = query.formParameters
        self.body = body
        self.headers = headers
        self.timeout = timeout
        self.retryPolicy = nil
        self.deadline = nil
        self.observer = .none
        self.decoder = decoder
    }
}

extension Request where Response: Decodable {
    /// Creates a request whose answer is decoded as `Response` with the API's ``JSONCoding``, from the whole answer
    /// or from under an envelope: a root key (`"person"`), a collection key (`"results"`) or a key path
    /// (`"data.people"`); see ``ResponseDecoder/decodable(_:at:)``.
    ///
    /// `Data` is the raw body and ``JSON`` the parsed document (so `api.get(path, as: Data.self)` does what it
    /// says).
    /// - Parameters:
    ///   - method: The method.
    ///   - endpoint: A path, an ``Endpoint``, or an absolute `URL`.
    ///   - path: Where the value sits in the answer; `nil` (the default) for the whole answer.
    ///   - query: Query parameters, in the order written.
    ///   - body: The body.
    ///   - headers: Headers set over the API's defaults.
    ///   - timeout: The idle timeout; `nil` uses the API's.
    public init(
        _ method: HTTPMethod = .get,
        _ endpoint: some EndpointConvertible,
        at path: String? = nil,
        query: some FormParametersConvertible = FormParameters(),
        body: RequestBody = .none,
        headers: HTTPHeaders = [:],
        timeout: TimeInterval? = nil
    ) {
        self.init(
            method, endpoint, query: query, body: body, headers: headers, timeout: timeout,
            decoder: .decodable(at: path))
    }
}

extension Request: CustomStringConvertible {
    /// The method, the endpoint, the query, the headers and the body, secrets hidden by the standard ``Redaction``:
    /// `POST people?token=REDACTED [Authorization: REDACTED], form: name=Ada&password=REDACTED`.
    public var description: String {
        let shownHeaders = Redaction.standard.redact(headers).map { "\($0.name): \($0.value)" }
        let shownQuery = query.fields.isEmpty ? "" : "?\(query)"
        return "\(method.rawValue) \(endpoint)\(shownQuery) [\(shownHeaders.joined(separator: "; "))], \(body)"
    }
}
