import Foundation

/// How a successful response becomes a value: the one answer-reading idea of CRUDKit, used by a ``Request`` and by
/// a model's custom actions (``ResourceScope/action(_:_:on:query:body:as:)->Result``).
///
/// ```swift
/// Request<[Person]>(.get, "people")                                        // Decodable: .decodable() is implied
/// Request(.get, "people", decoder: .mapping([Person].self, at: "results")) // a JSONConvertible mapping
/// Request(.get, "stats", decoder: .json { json in json["total"].int ?? 0 })
/// Request(.post, "session/logout", decoder: .okay)
/// let found = try await Person.action(.get, "search", query: ["q": "ada"], as: .models(Person.self))
/// try await ada.action(.post, "notify", as: .okay)
/// ```
///
/// The standard decoders: ``decodable(_:at:)`` (with the API's ``JSONCoding``), ``mapping(_:at:)``
/// (``JSONReadable`` types: `JSONConvertible` models, the standard types), ``json(_:)`` (a closure over the parsed
/// document), ``json``, ``data``, ``okay``, ``response``, and for models ``model(_:)`` and ``models(_:)`` (under the
/// model's keys and envelopes). Make your own with ``init(_:)``. An error a decoder throws is reported as
/// ``CRUDError/decoding(_:)``, with the response.
public struct ResponseDecoder<Value: Sendable>: Sendable {
    private let read: @Sendable (HTTPResponse, API) throws -> Value

    /// A decoder that reads the value by `read`.
    ///
    /// ```swift
    /// let etag = ResponseDecoder { response, _ in response.headers["ETag"] ?? "" }
    /// ```
    /// - Parameter read: Reads the value from the validated response and the API it came from (for its coding
    ///   settings); errors it throws become ``CRUDError/decoding(_:)``.
    public init(_ read: @escaping @Sendable (HTTPResponse, API) throws -> Value) {
        self.read = read
    }

    /// The value of a validated response.
    package func decode(_ response: HTTPResponse, api: API) throws -> Value {
        try read(response, api)
    }
}

extension ResponseDecoder where Value: Decodable {
    /// The value decoded with the API's ``JSONCoding``, from the whole answer or from under an envelope: a root key
    /// (`"person"`), a collection key (`"results"`) or a key path (`"data.people"`).
    ///
    /// For the whole answer, `Data` is the raw body and ``JSON`` the parsed document (with the coding's parsing
    /// options), as `api.get(path, as: Data.self)` says.
    /// - Parameters:
    ///   - type: The type (usually inferred).
    ///   - path: Where the value sits in the answer; `nil` (the default) for the whole answer.
    /// - Returns: The decoder.
    public static func decodable(_ type: Value.Type = Value.self, at path: String? = nil) -> Self {
        Self { response, api in
            let coding = api.configuration.coding
            guard let path else {
                if let raw = response.body as? Value { return raw }
                if Value.self == JSON.self {
                    let json = try JSON(data: response.body, options: coding.parsing)
                    if let json = json as? Value { return json }
                }
                return try coding.decode(Value.self, from: response.body)
            }
            return try coding.decode(Value.self, from: response.body, at: path)
        }
    }
}

extension ResponseDecoder where Value: JSONReadable {
    /// The value mapped by hand (``JSONConvertible``) or read as a standard type (``JSONReadable``), from the whole
    /// answer or from under an envelope (`"results"`, `"data.people"`); an error names the whole key path.
    /// - Parameters:
    ///   - type: The type (usually inferred).
    ///   - path: Where the value sits in the answer; empty (the default) for the whole answer.
    /// - Returns: The decoder.
    public static func mapping(_ type: Value.Type = Value.self, at path: String = "") -> Self {
        Self { response, api in
            try JSON(data: response.body, options: api.configuration.coding.parsing).convert(Value.self, at: path)
        }
    }
}

extension ResponseDecoder {
    /// The value read by `map` from the parsed ``JSON`` document.
    /// - Parameter map: Reads the value; errors it throws become ``CRUDError/decoding(_:)``.
    /// - Returns: The decoder.
    public static func json(_ map: @escaping @Sendable (JSON) throws -> Value) -> Self {
        Self { response, api in try map(JSON(data: response.body, options: api.configuration.coding.parsing)) }
    }
}

extension ResponseDecoder where Value == JSON {
    /// The parsed document; ``JSON/null`` for an empty body.
    public static var json: Self {
        Self { response, api in
            response.body.isEmpty ? .null : try JSON(data: response.body, options: api.configuration.coding.parsing)
        }
    }
}

extension ResponseDecoder where Value == Data {
    /// The raw body.
    public static var data: Self { Self { response, _ in response.body } }
}

extension ResponseDecoder where Value == Okay {
    /// ``Okay``, whatever the body.
    public static var okay: Self { Self { _, _ in Okay() } }
}

extension ResponseDecoder where Value == HTTPResponse {
    /// The whole response: status, headers and body.
    public static var response: Self { Self { response, _ in response } }
}
