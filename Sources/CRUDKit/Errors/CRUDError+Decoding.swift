import Foundation

extension CRUDError {
    /// The ``CRUDError/decoding(_:)`` error for a body that could not be mapped, whichever mapping style failed.
    ///
    /// A ``JSONError`` (the body is not JSON) names its line and column; a ``JSONMappingError`` (hand mapping or
    /// a missing envelope key) and a Foundation `DecodingError` (a `Codable` model) name the key path, what was
    /// expected and what was found, described from the body itself when it parses. Any other error is kept
    /// as its description.
    /// - Parameters:
    ///   - error: What the mapping threw.
    ///   - body: The response body (its first 200 bytes are kept).
    /// - Returns: The decoding error.
    package static func decoding(_ error: any Error, body: Data) -> CRUDError {
        decoding(error, body: body, credentials: .none)
    }

    /// The ``CRUDError/decoding(_:)`` error for `response`'s body, keeping the credentials its request sent and the
    /// API's ``Redaction`` so that the error's descriptions hide them (a body may echo the request). A decoding
    /// error `error` already is gets them too when it has none.
    package static func decoding(_ error: any Error, in response: HTTPResponse) -> CRUDError {
        decoding(error, body: response.body, credentials: response.sentCredentials)
    }

    private static func decoding(_ error: any Error, body: Data, credentials: SentCredentials) -> CRUDError {
        let failure: DecodingFailure
        switch error {
        case CRUDError.decoding(var failure) where !failure.credentials.knowsRequest && credentials.knowsRequest:
            failure.credentials = credentials
            return .decoding(failure)
        case let error as CRUDError:
            return error
        case let error as JSONError:
            failure = DecodingFailure(
                keyPath: "",
                expected: error.expected,
                found: "\(error) (line \(error.line), column \(error.column))",
                body: body, credentials: credentials
            )
        case let error as JSONMappingError:
            failure = DecodingFailure(
                keyPath: error.keyPath, expected: error.expected, found: error.found, body: body,
                credentials: credentials)
        case let error as DecodingError:
            let mapped = JSONMappingError(error, in: try? JSON(data: body))
            failure = DecodingFailure(
                keyPath: mapped.keyPath, expected: mapped.expected, found: mapped.found, body: body,
                credentials: credentials)
        default:
            failure = DecodingFailure(
                keyPath: "", expected: "a decodable body", found: "\(error)", body: body, credentials: credentials)
        }
        return .decoding(failure)
    }
}
