import Foundation

/// Turns errors thrown while reading a response body into ``CRUDError/decoding(_:)``.
package enum ResponseDecoding {
    /// The ``CRUDError`` for `error`, thrown while reading `body` as `expected`.
    ///
    /// A `CRUDError` stays as it is; a Foundation `DecodingError` gives its coding path, the expected type and what
    /// was found; anything else is reported at the document itself.
    package static func failure(_ error: any Error, expected: Any.Type, body: Data) -> CRUDError {
        if let error = error as? CRUDError { return error }
        if let error = error as? DecodingError { return .decoding(failure(error, body: body)) }
        return .decoding(
            CRUDError.DecodingFailure(keyPath: "", expected: "\(expected)", found: "\(error)", body: body))
    }

    private static func failure(_ error: DecodingError, body: Data) -> CRUDError.DecodingFailure {
        switch error {
        case .typeMismatch(let type, let context):
            return .init(
                keyPath: keyPath(context.codingPath), expected: "\(type)", found: context.debugDescription, body: body)
        case .valueNotFound(let type, let context):
            return .init(keyPath: keyPath(context.codingPath), expected: "\(type)", found: "null", body: body)
        case .keyNotFound(let key, let context):
            return .init(
                keyPath: keyPath(context.codingPath + [key]), expected: "a value", found: "nothing", body: body)
        case .dataCorrupted(let context):
            let found = (context.underlyingError.map { "\($0)" }) ?? context.debugDescription
            return .init(
                keyPath: keyPath(context.codingPath), expected: "valid JSON", found: found, body: body)
        @unknown default:
            return .init(keyPath: "", expected: "a decodable value", found: "\(error)", body: body)
        }
    }

    /// `results[3].age` from a coding path.
    private static func keyPath(_ path: [any CodingKey]) -> String {
        var text = ""
        for key in path {
            if let index = key.intValue {
                text += "[\(index)]"
            } else {
                if !text.isEmpty { text += "." }
                text += key.stringValue
            }
        }
        return text
    }
}
