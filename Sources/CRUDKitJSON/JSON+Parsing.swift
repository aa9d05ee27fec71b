import Foundation

extension JSON {
    /// How strictly to read JSON.
    public struct ParsingOptions: Sendable, Hashable {
        /// The deepest nesting of arrays and objects accepted; deeper input fails with
        /// ``JSONError/Reason/tooDeep(limit:)``. Defaults to 512. Parsing does not recurse, but Swift frees nested
        /// arrays and objects recursively: on a 512 KB thread 2,000 levels are freed safely and 5,000 are not, so
        /// keep a raised limit in the low thousands.
        public var maxDepth: Int

        /// Options with a nesting limit.
        /// - Parameter maxDepth: The deepest nesting accepted (512 unless given).
        public init(maxDepth: Int = 512) {
            self.maxDepth = maxDepth
        }

        /// The defaults: a nesting limit of 512.
        public static let `default` = ParsingOptions()
    }

    /// Parses a JSON document from UTF-8 bytes.
    ///
    /// The reader follows RFC 8259 strictly (any value may be the top level; a leading UTF-8 byte order mark is
    /// skipped). When an object repeats a key, the last value wins, in the position of the first occurrence.
    /// Integers that fit in `Int64` stay exact; other numbers become `Double`.
    ///
    /// ```swift
    /// let json = try JSON(data: response.body)
    /// ```
    /// - Parameters:
    ///   - data: UTF-8 encoded JSON.
    ///   - options: The nesting limit.
    /// - Throws: ``JSONError`` saying what was expected, with the byte offset, line and column.
    public init(data: Data, options: ParsingOptions = .default) throws {
        let result: Result<JSON, JSONError> = data.withUnsafeBytes { raw in
            Result { () throws(JSONError) -> JSON in
                try JSONParser.parse(raw.assumingMemoryBound(to: UInt8.self), options: options)
            }
        }
        self = try result.get()
    }

    /// Parses a JSON document from a string.
    /// - Parameters:
    ///   - string: JSON text.
    ///   - options: The nesting limit.
    /// - Throws: ``JSONError`` saying what was expected, with the byte offset, line and column.
    public init(string: String, options: ParsingOptions = .default) throws {
        var text = string
        let result = text.withUTF8 { buffer in
            Result { () throws(JSONError) -> JSON in try JSONParser.parse(buffer, options: options) }
        }
        self = try result.get()
    }

    /// Parses a JSON document from UTF-8 bytes.
    /// - Parameters:
    ///   - bytes: UTF-8 encoded JSON.
    ///   - options: The nesting limit.
    /// - Throws: ``JSONError`` saying what was expected, with the byte offset, line and column.
    public init(bytes: [UInt8], options: ParsingOptions = .default) throws {
        let result = bytes.withUnsafeBufferPointer { buffer in
            Result { () throws(JSONError) -> JSON in try JSONParser.parse(buffer, options: options) }
        }
        self = try result.get()
    }
}
