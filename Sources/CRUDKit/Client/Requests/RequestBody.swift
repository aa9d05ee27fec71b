@_spi(TransportKit) import CRUDKitHTTP
import Foundation

/// The body of a ``Request``, encoded when the request is built, with the API's JSON encoder where needed.
///
/// ```swift
/// try await api.post("people", body: .json(Person(firstName: "Ada", lastName: "Lovelace")))
/// try await api.post("login", body: .form(["user": "ada", "password": "s3cret"]))
/// try await api.post("avatars", body: .multipart(form))
/// try await api.put("avatar", body: .data(png, contentType: "image/png"))
/// ```
public struct RequestBody: Sendable {
    private enum Storage: Sendable {
        case none
        case data(Data, contentType: String?)
        case file(URL, contentType: String?)
        case encodable(@Sendable (JSONCoding) throws -> Data)
        case json(JSON)
        case form(FormParameters, FormParameters.ArrayStyle)
        case multipart(MultipartForm)
    }

    private let storage: Storage

    private init(_ storage: Storage) { self.storage = storage }

    /// No body.
    public static let none = RequestBody(.none)

    /// Whether the body is JSON (`.json(…)`), sent as the conventions' media type.
    var isJSON: Bool {
        switch storage {
        case .encodable, .json: true
        default: false
        }
    }

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

    /// An `Encodable` value written as JSON with the API's ``JSONCoding``, with `Content-Type: application/json`.
    public static func json<Value: Encodable & Sendable>(_ value: Value) -> RequestBody {
        RequestBody(.encodable { coding in try coding.encode(value) })
    }

    /// A ``JSON`` value written as it is (keys unchanged), with `Content-Type: application/json`; for a hand-mapped
    /// model, pass its `jsonValue`.
    public static func json(_ value: JSON) -> RequestBody {
        RequestBody(.json(value))
    }

    /// Fields sent as `application/x-www-form-urlencoded`, percent-encoded (`+`, `&`, `=` and spaces included),
    /// lists and nested fields written as ``FormParameters`` documents.
    /// - Parameters:
    ///   - parameters: The fields, in order.
    ///   - style: How lists are written.
    public static func form(_ parameters: FormParameters, style: FormParameters.ArrayStyle = .brackets) -> RequestBody {
        RequestBody(.form(parameters, style))
    }

    /// A `multipart/form-data` body, encoded in memory when the request is built (file parts are read then).
    ///
    /// For large files, stream the form from a temporary file instead:
    ///
    /// ```swift
    /// try await form.withTemporaryBody { body in
    ///     try await api.send(Request(.post, "uploads", body: .http(body, contentType: form.contentType), decoder: .okay))
    /// }
    /// ```
    public static func multipart(_ form: MultipartForm) -> RequestBody {
        RequestBody(.multipart(form))
    }

    /// An ``HTTPBody`` as it is (bytes or a file streamed from disk), with its content type.
    public static func http(_ body: HTTPBody, contentType: String?) -> RequestBody {
        switch body {
        case .none: RequestBody(.none)
        case .data(let data): RequestBody(.data(data, contentType: contentType))
        case .file(let url): RequestBody(.file(url, contentType: contentType))
        }
    }

    /// Whether there is no body.
    package var isNone: Bool {
        if case .none = storage { return true }
        return false
    }

    /// The encoded body and its content type.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when an `Encodable` value cannot be encoded or a multipart
    ///   file cannot be read.
    package func encoded(using coding: JSONCoding) throws -> (body: HTTPBody, contentType: String?) {
        switch storage {
        case .none:
            return (.none, nil)
        case .data(let data, let contentType):
            return (.data(data), contentType)
        case .file(let url, let contentType):
            return (.file(url), contentType)
        case .encodable(let encode):
            do {
                return (.data(try encode(coding)), "application/json")
            } catch {
                throw CRUDError.invalidRequest(reason: "the body could not be encoded as JSON: \(error)")
            }
        case .json(let value):
            do {
                return (.data(try value.data()), "application/json")
            } catch {
                throw CRUDError.invalidRequest(reason: "the body could not be written as JSON: \(error)")
            }
        case .form(let parameters, let style):
            return (.data(Data(parameters.percentEncoded(style: style).utf8)), "application/x-www-form-urlencoded")
        case .multipart(let form):
            return (.data(try form.encodedData()), form.contentType)
        }
    }
}

extension RequestBody: CustomStringConvertible {
    /// What the body is, never its content unredacted: `no body`, `42 B`, `the file /tmp/photo.jpg`, `an Encodable
    /// value as JSON`, `JSON`, `form: name=Ada&password=REDACTED` (secret fields hidden as in ``FormParameters``),
    /// `multipart form, 2 parts`.
    public var description: String {
        switch storage {
        case .none: "no body"
        case .data(let data, _): "\(data.count) B"
        case .file(let url, _): "the file \(url.path)"
        case .encodable: "an Encodable value as JSON"
        case .json: "JSON"
        case .form(let parameters, _): "form: \(parameters)"
        case .multipart(let form): "multipart form, \(form.parts.count) parts"
        }
    }
}
