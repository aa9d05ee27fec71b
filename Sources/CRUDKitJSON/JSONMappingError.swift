import Foundation

/// A document that parsed but did not have the shape a model expects: which key path, what was expected there
/// and what was found.
///
/// Thrown by ``JSONConvertible`` helpers such as ``JSON/required(_:as:)`` and by `JSON/unwrap(_:)`; a
/// Foundation `DecodingError` converts to the same triple with `init(_:in:)`.
///
/// ```swift
/// // expected Int at `results[3].age` but found a string "forty"
/// ```
public struct JSONMappingError: Error, Sendable, Hashable, CustomStringConvertible {
    /// The path to the value that failed, such as `results[3].age`; empty for the document itself.
    public var keyPath: String { JSONPathComponent.format(components) }
    /// What the mapping expected there, such as `Int` or `an object`.
    public var expected: String
    /// What the document held there, such as `a string "forty"` or `nothing`.
    public var found: String

    var components: [JSONPathComponent]

    /// Creates an error at a key path.
    /// - Parameters:
    ///   - keyPath: A path such as `results[3].age`.
    ///   - expected: What was expected.
    ///   - found: What was found.
    public init(keyPath: String, expected: String, found: String) {
        self.init(components: JSONPathComponent.parse(keyPath), expected: expected, found: found)
    }

    init(components: [JSONPathComponent] = [], expected: String, found: String) {
        self.components = components
        self.expected = expected
        self.found = found
    }

    /// The error for a value of the wrong kind.
    static func mismatch(expected: String, found value: JSON) -> JSONMappingError {
        JSONMappingError(expected: expected, found: value.kindDescription)
    }

    /// The same error, one step further from the value that failed.
    func prefixed(with component: JSONPathComponent) -> JSONMappingError {
        var copy = self
        copy.components.insert(component, at: 0)
        return copy
    }

    /// The same error under a path (used by unwrapping, so errors name the whole path from the document root).
    func prefixed(with path: [JSONPathComponent]) -> JSONMappingError {
        var copy = self
        copy.components.insert(contentsOf: path, at: 0)
        return copy
    }

    /// One line naming the key path, the expectation and what was found.
    public var description: String {
        let place = components.isEmpty ? "the document" : "`\(keyPath)`"
        return "expected \(expected) at \(place) but found \(found)"
    }
}

extension JSONMappingError: LocalizedError {
    /// The same text as ``description``.
    public var errorDescription: String? { description }
}

// MARK: - From Foundation's DecodingError

extension JSONMappingError {
    /// The key path, expectation and finding of a Foundation `DecodingError`.
    ///
    /// When the document is given, what was found is described from the document itself (`a string "forty"`);
    /// otherwise it is taken from the error's description.
    /// - Parameters:
    ///   - error: The error a `Decoder` threw.
    ///   - document: The parsed document that was being decoded, if available.
    package init(_ error: DecodingError, in document: JSON? = nil) {
        let context: DecodingError.Context
        var expected: String
        var found: String?
        var extraStep: JSONPathComponent?
        switch error {
        case .typeMismatch(let type, let errorContext):
            context = errorContext
            expected = "\(type)"
        case .valueNotFound(let type, let errorContext):
            context = errorContext
            expected = "\(type)"
            found = "null"
        case .keyNotFound(let key, let errorContext):
            context = errorContext
            expected = "a value"
            found = "nothing"
            extraStep = Self.component(for: key)
        case .dataCorrupted(let errorContext):
            context = errorContext
            expected = "valid data"
            found = errorContext.debugDescription
        @unknown default:
            context = DecodingError.Context(codingPath: [], debugDescription: "\(error)")
            expected = "a decodable value"
        }
        var components = context.codingPath.map(Self.component(for:))
        if let extraStep { components.append(extraStep) }
        if let document { components = Self.documentKeys(components, in: document) }
        if found == nil, let document, let value = document.value(along: components) {
            found = value.kindDescription
        }
        if found == nil {
            found = Self.foundPhrase(in: context.debugDescription) ?? context.debugDescription
        }
        if case .dataCorrupted = error, let document, let value = document.value(along: components) {
            expected = context.debugDescription
            found = value.kindDescription
        }
        self.init(components: components, expected: expected, found: found ?? "something else")
    }

    /// Swift property names in a coding path replaced by the keys the document uses (`createdAt` becomes
    /// `created_at` where the document says so, or where its neighbouring keys are snake_case).
    private static func documentKeys(_ components: [JSONPathComponent], in document: JSON) -> [JSONPathComponent] {
        var current: JSON? = document
        var result: [JSONPathComponent] = []
        for component in components {
            var chosen = component
            if case .key(let key) = component, case .object(let object)? = current, object[key] == nil {
                let snake = JSONKeyConversion.snakeCase(fromCamelCase: key)
                if snake != key, object[snake] != nil || object.keys.contains(where: { $0.contains("_") }) {
                    chosen = .key(snake)
                }
            }
            result.append(chosen)
            current = current?.step(chosen)
        }
        return result
    }

    private static func component(for key: any CodingKey) -> JSONPathComponent {
        if let index = key.intValue, key.stringValue.hasPrefix("Index ") || key.stringValue == String(index) {
            return .index(index)
        }
        return .key(key.stringValue)
    }

    /// Pulls "a string" out of "Expected to decode Int but found a string instead."
    private static func foundPhrase(in text: String) -> String? {
        guard let start = text.range(of: "but found "),
            let end = text.range(of: " instead", range: start.upperBound..<text.endIndex)
        else { return nil }
        return String(text[start.upperBound..<end.lowerBound])
    }
}
