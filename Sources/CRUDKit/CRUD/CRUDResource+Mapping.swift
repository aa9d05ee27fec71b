import Foundation

// The mappings of response documents to models and of models to request bodies: `Decodable`/`Encodable` through the
// API's `JSONCoding`, or the hand mapping of `JSONConvertible`/`JSONAttributable`; a type that is both is mapped by
// hand. Only the library calls them, so they are `package`: a third way of mapping is a `JSONConvertible` conformance.

extension CRUDResource {
    /// Maps the value at `path` of a response document (the object itself, or under a root key): by hand when the
    /// type is ``JSONConvertible`` (also when it is `Decodable` too), else with `Decodable` and `coding`.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the object sits (`""` for the document itself).
    ///   - coding: The coding settings of the call.
    /// - Returns: The model.
    /// - Throws: The mapping's error, naming the key path; ``CRUDError/invalidRequest(reason:)`` for a type that
    ///   is neither.
    package static func decodeResource(from json: JSON, at path: String, coding: JSONCoding) throws -> Self {
        if let convertible = Self.self as? any JSONConvertible.Type {
            return try cast(json.convert(convertible, at: path))
        }
        if let decodable = Self.self as? any Decodable.Type {
            return try cast(coding.decode(decodable, from: json, at: path))
        }
        throw unmappable("JSONConvertible or Decodable")
    }

    /// Maps the array at `path` of a response document; an error names the failing index (`results[3].age`).
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the array sits (`""` for the document itself).
    ///   - coding: The coding settings of the call.
    /// - Returns: The models, in order.
    /// - Throws: The mapping's error, naming the key path.
    package static func decodeResources(from json: JSON, at path: String, coding: JSONCoding) throws -> [Self] {
        if let convertible = Self.self as? any JSONConvertible.Type {
            return try cast(Self.convertArray(json, convertible, at: path))
        }
        if let decodable = Self.self as? any Decodable.Type {
            return try cast(Self.decodeArray(decodable, from: json, at: path, coding: coding))
        }
        throw unmappable("JSONConvertible or Decodable")
    }

    private static func convertArray<Element: JSONConvertible>(
        _ json: JSON, _ type: Element.Type, at path: String
    ) throws -> [Element] {
        try json.convert([Element].self, at: path)
    }

    private static func decodeArray<Element: Decodable>(
        _ type: Element.Type, from json: JSON, at path: String, coding: JSONCoding
    ) throws -> [Element] {
        try coding.decode([Element].self, from: json, at: path)
    }

    /// `value` as `Wanted` (the mapped type is always `Self`; a mismatch is reported, never trapped on).
    private static func cast<Wanted>(_ value: Any) throws -> Wanted {
        guard let wanted = value as? Wanted else { throw unmappable("JSONConvertible or Decodable") }
        return wanted
    }

    static func unmappable(_ protocols: String) -> CRUDError {
        CRUDError.invalidRequest(reason: "\(Self.self) conforms to neither \(protocols), so it cannot be mapped")
    }
}
