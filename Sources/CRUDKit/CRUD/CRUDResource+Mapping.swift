import Foundation

// The default mappings of response documents to models: `Decodable` through the API's `JSONCoding`, or the hand
// mapping of `JSONConvertible`; a type that is both is mapped by hand.

extension CRUDResource where Self: Decodable {
    /// Decodes the object at `path` with `coding`.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the object sits.
    ///   - coding: The API's coding settings.
    /// - Returns: The model.
    /// - Throws: `DecodingError` or ``JSONMappingError`` naming the key path.
    public static func decodeResource(from json: JSON, at path: String, coding: JSONCoding) throws -> Self {
        try coding.decode(Self.self, from: json, at: path)
    }

    /// Decodes the array at `path` with `coding`.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the array sits.
    ///   - coding: The API's coding settings.
    /// - Returns: The models.
    /// - Throws: `DecodingError` or ``JSONMappingError`` naming the key path.
    public static func decodeResources(from json: JSON, at path: String, coding: JSONCoding) throws -> [Self] {
        try coding.decode([Self].self, from: json, at: path)
    }
}

extension CRUDResource where Self: JSONConvertible {
    /// Maps the object at `path` with ``JSONConvertible/init(json:)``.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the object sits.
    ///   - coding: Not used by a hand mapping.
    /// - Returns: The model.
    /// - Throws: ``JSONMappingError`` naming the key path.
    public static func decodeResource(from json: JSON, at path: String, coding: JSONCoding) throws -> Self {
        try json.convert(Self.self, at: path)
    }

    /// Maps the array at `path` with ``JSONConvertible/init(json:)``.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the array sits.
    ///   - coding: Not used by a hand mapping.
    /// - Returns: The models.
    /// - Throws: ``JSONMappingError`` naming the key path.
    public static func decodeResources(from json: JSON, at path: String, coding: JSONCoding) throws -> [Self] {
        try json.convert([Self].self, at: path)
    }
}

extension CRUDResource where Self: JSONConvertible & Decodable {
    /// Maps the object at `path` by hand: for a type that is both, ``JSONConvertible`` wins.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the object sits.
    ///   - coding: Not used by a hand mapping.
    /// - Returns: The model.
    /// - Throws: ``JSONMappingError`` naming the key path.
    public static func decodeResource(from json: JSON, at path: String, coding: JSONCoding) throws -> Self {
        try json.convert(Self.self, at: path)
    }

    /// Maps the array at `path` by hand: for a type that is both, ``JSONConvertible`` wins.
    /// - Parameters:
    ///   - json: The whole document.
    ///   - path: Where the array sits.
    ///   - coding: Not used by a hand mapping.
    /// - Returns: The models.
    /// - Throws: ``JSONMappingError`` naming the key path.
    public static func decodeResources(from json: JSON, at path: String, coding: JSONCoding) throws -> [Self] {
        try json.convert([Self].self, at: path)
    }
}
