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
    public static func decoding(_ error: any Error, body: Data) -> CRUDError {
        let failure: DecodingFailure
        switch error {
        case let error as CRUDError:
            return error
        case let error as JSONError:
            failure = DecodingFailure(
                keyPath: "",
                expected: error.expected,
                found: "\(error) (line \(error.line), column \(error.column))",
                body: body
            )
        case let error as JSONMappingError:
            failure = DecodingFailure(keyPath: error.keyPath, expected: error.expected, found: error.found, body: body)
        case let error as DecodingError:
            let mapped = JSONMappingError(error, in: try? JSON(data: body))
            failure = DecodingFailure(
                keyPath: mapped.keyPath, expected: mapped.expected, found: mapped.found, body: body)
        default:
            failure = DecodingFailure(keyPath: "", expected: "a decodable body", found: "\(error)", body: body)
        }
        return .decoding(failure)
    }
}
