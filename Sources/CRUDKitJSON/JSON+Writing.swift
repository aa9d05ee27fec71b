import Foundation

extension JSON {
    /// How to lay out written JSON.
    public struct WritingOptions: OptionSet, Sendable, Hashable {
        /// The raw bits.
        public let rawValue: Int

        /// Options from raw bits.
        /// - Parameter rawValue: The bits.
        public init(rawValue: Int) { self.rawValue = rawValue }

        /// One member or element per line, indented by two spaces, with a space after each colon.
        public static let prettyPrinted = WritingOptions(rawValue: 1 << 0)
        /// Object keys in ascending order of their UTF-8 bytes (Unicode code point order) instead of their own
        /// order.
        public static let sortedKeys = WritingOptions(rawValue: 1 << 1)
    }

    /// The value as UTF-8 encoded JSON text.
    ///
    /// Output is compact unless ``WritingOptions/prettyPrinted`` is given. Strings are escaped as JSON requires
    /// (quotes, backslashes and control characters), and U+2028/U+2029 are escaped too so the output is also
    /// safe inside JavaScript; `/` and other characters are written as they are, in UTF-8.
    ///
    /// ```swift
    /// let body = try JSON(["name": "Ada", "id": 9007199254740993]).data()  // {"name":"Ada","id":9007199254740993}
    /// ```
    /// - Parameter options: Layout options.
    /// - Returns: The JSON text.
    /// - Throws: ``JSONError`` with ``JSONError/Reason/nonFiniteNumber(path:)`` when a double is NaN or infinite.
    public func data(options: WritingOptions = []) throws -> Data {
        Data(try bytes(options: options))
    }

    /// The value as UTF-8 encoded JSON bytes.
    /// - Parameter options: Layout options.
    /// - Returns: The JSON text.
    /// - Throws: ``JSONError`` with ``JSONError/Reason/nonFiniteNumber(path:)`` when a double is NaN or infinite.
    public func bytes(options: WritingOptions = []) throws -> [UInt8] {
        var writer = JSONWriter(options: options, capacity: 256)
        try writer.write(self)
        return writer.output
    }

    /// The value as JSON text.
    /// - Parameter options: Layout options.
    /// - Returns: The JSON text.
    /// - Throws: ``JSONError`` with ``JSONError/Reason/nonFiniteNumber(path:)`` when a double is NaN or infinite.
    public func jsonString(options: WritingOptions = []) throws -> String {
        String(decoding: try bytes(options: options), as: UTF8.self)
    }
}
