import Foundation

/// The body of a ``Request``, encoded when the request is built, with the API's JSON encoder where needed.
///
/// ```swift
/// try await api.post("people", body: .json(Person(firstName: "Ada", lastName: "Lovelace")))
/// try await api.post("login", body: .form(["user": "ada", "password": "s3cret"]))
/// try await api.put("avatar", body: .data(png, contentType: "image/png"))
/// ```
public struct RequestBody: Sendable {
    private enum Storage: Sendable {
        case none
        case data(Data, contentType: String?)
        case file(URL, contentType: String?)
        case encodable(@Sendable (JSONEncoder) throws -> Data)
        case form([URLQueryItem])
    }

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// No body.
    public static let none = RequestBody(.none)

    /// Raw bytes, sent as they are.
    /// - Parameters:
    ///   - data: The bytes.
    ///   - contentType: The `Content-Type` to send, unless the request's headers name one.
    public static func data(_ data: Data, contentType: String? = nil) -> RequestBody {
        RequestBody(.data(data, contentType: contentType))
    }

    /// The contents of a local file, streamed from disk by the transport.
    /// - Parameters:
    ///   - url: The file.
    ///   - contentType: The `Content-Type` to send, unless the request's headers name one.
    public static func file(_ url: URL, contentType: String? = nil) -> RequestBody {
        RequestBody(.file(url, contentType: contentType))
    }

    /// An `Encodable` value written as JSON by the API's encoder, with `Content-Type: application/json`.
    public static func json<Value: Encodable & Sendable>(_ value: Value) -> RequestBody {
        RequestBody(.encodable { encoder in try encoder.encode(value) })
    }

    /// Fields sent as `application/x-www-form-urlencoded`, percent-encoded (`+`, `&`, `=` and spaces included).
    public static func form(_ items: [URLQueryItem]) -> RequestBody {
        RequestBody(.form(items))
    }

    /// Fields sent as `application/x-www-form-urlencoded`, in the order of their names.
    public static func form(_ fields: [String: String]) -> RequestBody {
        form(fields.sorted { $0.key < $1.key }.map { URLQueryItem(name: $0.key, value: $0.value) })
    }

    /// Whether there is no body.
    public var isNone: Bool {
        if case .none = storage { return true }
        return false
    }

    /// The encoded body and its content type.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when an `Encodable` value cannot be encoded.
    package func encoded(using makeEncoder: () -> JSONEncoder) throws -> (body: HTTPBody, contentType: String?) {
        switch storage {
        case .none:
            return (.none, nil)
        case .data(let data, let contentType):
            return (.data(data), contentType)
        case .file(let url, let contentType):
            return (.file(url), contentType)
        case .encodable(let encode):
            do {
                return (.data(try encode(makeEncoder())), "application/json")
            } catch {
                throw CRUDError.invalidRequest(reason: "the body could not be encoded as JSON: \(error)")
            }
        case .form(let items):
            let text = PercentEncoding.query(items.lazy.map { (name: $0.name, value: $0.value) })
            return (.data(Data(text.utf8)), "application/x-www-form-urlencoded")
        }
    }
}
