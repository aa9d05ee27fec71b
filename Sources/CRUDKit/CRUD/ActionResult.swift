import Foundation

/// What a custom action (``CRUDResource``'s `action(_:_:query:body:as:)`)
/// can answer: a model, an array of models, ``JSON``, ``Okay``, raw `Data` or the whole ``HTTPResponse``.
public protocol ActionResult: Sendable {
    /// Reads the answer of a successful action.
    /// - Parameters:
    ///   - response: The validated response.
    ///   - api: The API it came from (for its coding settings).
    /// - Returns: The answer.
    /// - Throws: A mapping error (reported as ``CRUDError/decoding(_:)``).
    static func actionResult(from response: HTTPResponse, api: API) throws -> Self
}

extension CRUDResource {
    /// The model in the body, under ``objectKey`` when there is one.
    /// - Parameters:
    ///   - response: The validated response.
    ///   - api: The API it came from.
    /// - Returns: The model.
    /// - Throws: ``CRUDError/decoding(_:)``.
    public static func actionResult(from response: HTTPResponse, api: API) throws -> Self {
        try ResourceScope<Self>(api: api).decodeOne(response)
    }
}

extension Array: ActionResult where Element: CRUDResource {
    /// The models in the body: under the model's ``CRUDResource/collectionKey``, in an envelope
    /// (`results`, `data`, `items`), or a plain array.
    /// - Parameters:
    ///   - response: The validated response.
    ///   - api: The API it came from.
    /// - Returns: The models.
    /// - Throws: ``CRUDError/decoding(_:)``.
    public static func actionResult(from response: HTTPResponse, api: API) throws -> [Element] {
        let scope = ResourceScope<Element>(api: api)
        let json = try scope.document(response)
        let path = Pagination.automatic.itemsPath(in: json, collectionKey: Element.collectionKey)
        do {
            return try Element.decodeResources(from: json, at: path, coding: scope.coding)
        } catch {
            throw CRUDError.decoding(error, in: response)
        }
    }
}

extension JSON: ActionResult {
    /// The parsed body (`null` for an empty one).
    /// - Parameters:
    ///   - response: The validated response.
    ///   - api: The API it came from.
    /// - Returns: The document.
    /// - Throws: ``JSONError`` when the body is not JSON.
    public static func actionResult(from response: HTTPResponse, api: API) throws -> JSON {
        response.body.isEmpty ? .null : try JSON(data: response.body, options: api.configuration.coding.parsing)
    }
}

extension Okay: ActionResult {
    /// ``Okay``, whatever the body.
    /// - Parameters:
    ///   - response: The validated response.
    ///   - api: The API it came from.
    /// - Returns: ``Okay``.
    public static func actionResult(from response: HTTPResponse, api: API) -> Okay { Okay() }
}

extension HTTPResponse: ActionResult {
    /// The whole response.
    /// - Parameters:
    ///   - response: The validated response.
    ///   - api: The API it came from.
    /// - Returns: The response.
    public static func actionResult(from response: HTTPResponse, api: API) -> HTTPResponse { response }
}

extension Data: ActionResult {
    /// The raw body.
    /// - Parameters:
    ///   - response: The validated response.
    ///   - api: The API it came from.
    /// - Returns: The body.
    public static func actionResult(from response: HTTPResponse, api: API) -> Data { response.body }
}
