import Foundation

/// The `Codable` settings an API uses to turn response bytes into models and models into request bodies.
///
/// The defaults suit most REST servers: Swift's `firstName` is `first_name` on the wire, and dates are ISO-8601
/// timestamps, read with or without fractional seconds (`2024-05-01T12:30:00Z`, `2024-05-01T12:30:00.250123Z`)
/// and written in UTC with the fraction digits the date holds (3, 6 or 9; none for a whole second), so a timestamp
/// comes back as it was read. ``plain`` switches both off
/// (keys as declared, dates as `Date`'s own `Codable` form).
///
/// Keys (``convertsSnakeCase``) and dates (``dates``) are chosen separately: ``camelCase`` keeps the keys as
/// declared with the default ISO-8601 dates, and ``vapor`` keeps them as declared with whole-second ISO-8601
/// dates, what a Vapor server's default coders read and write.
///
/// ```swift
/// let coding = JSONCoding.default
/// let people = try coding.decode([Person].self, from: body, at: "results")
/// let body = try coding.encode(person)
/// let vapor = JSONCoding(convertsSnakeCase: false, dates: .iso8601WholeSeconds)   // the same as .vapor
/// ```
///
/// Decoding parses the bytes with CRUDKit's parser and reads the models straight from the parsed tree, which is
/// faster than `JSONDecoder` and gives the same values and the same `DecodingError`s (case and coding path; a
/// number out of range for its type names its coding path, which `JSONDecoder` on Linux leaves empty). Code that
/// needs Foundation's own coders gets them configured the same way from ``makeJSONDecoder()`` and
/// ``makeJSONEncoder()``.
public struct JSONCoding: Sendable, Hashable {
    /// How dates are read and written.
    public enum DateCoding: Sendable, Hashable {
        /// ISO-8601 timestamps: read with or without fractional seconds and with any offset; written in UTC
        /// with the fraction digits the date holds (3, 6 or 9; none for a whole second). A date outside the years
        /// 0000–9999 (or not finite) cannot be written: an `EncodingError`.
        case iso8601
        /// ISO-8601 timestamps written in whole seconds, in UTC (`2026-11-23T21:04:13Z`; a fraction is cut off),
        /// and read like ``iso8601``. This is what Foundation's `.iso8601` strategy writes (Vapor's default
        /// coders), and what it reads everywhere: on Apple platforms it refuses a timestamp with a fraction.
        case iso8601WholeSeconds
        /// `Date`'s own `Codable` form (seconds since 2001-01-01 as a number).
        case deferredToDate
        /// Seconds since 1970-01-01 as a number.
        case secondsSince1970
        /// Milliseconds since 1970-01-01 as a number.
        case millisecondsSince1970
    }

    /// What the encoder writes for a `nil` optional property (a keyed `encodeIfPresent` of `nil`).
    public enum NilEncoding: Sendable, Hashable {
        /// The key is left out (what `JSONEncoder` does): the server keeps its value or applies its default.
        case omit
        /// The key is written with `null`: the server clears the field. ``JSONAttribute/absent`` is still left
        /// out, and a hand-written `encode(to:)` that skips a key still skips it.
        case null
    }

    /// Which implementation turns bytes into models and back (the library's own tests compare the two).
    package enum Engine: Sendable, Hashable {
        /// CRUDKit's parser, tree decoder and writer (the default: fastest, ordered output).
        case native
        /// Foundation's `JSONDecoder` and `JSONEncoder`.
        case foundation
    }

    /// Whether `camelCase` property names are `snake_case` keys on the wire (default `true`).
    public var convertsSnakeCase: Bool
    /// How dates are read and written (default ``DateCoding/iso8601``).
    public var dates: DateCoding
    /// The nesting limit and other parsing options.
    public var parsing: JSON.ParsingOptions
    /// How encoded bodies are laid out (default compact).
    public var writing: JSON.WritingOptions
    /// Which implementation to use (default `.native`).
    package var engine: Engine
    /// What a `nil` optional property becomes when encoding (default ``NilEncoding/omit``). CRUDKit sets it to
    /// ``NilEncoding/null`` for the body of a `PUT` (see `APIConventions.putNilEncoding`). With
    /// ``NilEncoding/null`` the native encoder is used even where ``makeJSONEncoder()``'s would be: `JSONEncoder`
    /// has no such option.
    public var nilEncoding: NilEncoding
    /// Whether a `Decimal` property is written as a JSON string of its exact digits (`"123456789012345678.91"`)
    /// instead of a number (default `false`). A `Decimal` reads either form.
    ///
    /// Django REST framework, Rails and FastAPI send decimal amounts as strings and read a JSON number as a
    /// `Double` before making it a decimal, so a number with more than 15 significant digits is rounded on the
    /// server: `123456789012345678.91` was stored as `123456789012345680.00` by DRF. Their conventions
    /// (`APIConventions.djangoREST` and the others) set this. `JSONEncoder` has no such option, and `JSONDecoder`
    /// reads a `Decimal` only from a number; CRUDKit's decoder reads both.)
    public var writesDecimalsAsStrings: Bool

    /// Settings; the defaults convert snake_case keys and use ISO-8601 dates.
    /// - Parameters:
    ///   - convertsSnakeCase: Whether `camelCase` properties are `snake_case` keys.
    ///   - dates: How dates are read and written.
    ///   - parsing: Parsing options.
    ///   - writing: Layout of encoded bodies.
    ///   - nilEncoding: What a `nil` optional property becomes when encoding.
    ///   - writesDecimalsAsStrings: Whether a `Decimal` is written as a string of its digits.
    public init(
        convertsSnakeCase: Bool = true,
        dates: DateCoding = .iso8601,
        parsing: JSON.ParsingOptions = .default,
        writing: JSON.WritingOptions = [],
        nilEncoding: NilEncoding = .omit,
        writesDecimalsAsStrings: Bool = false
    ) {
        self.init(
            convertsSnakeCase: convertsSnakeCase, dates: dates, parsing: parsing, writing: writing, engine: .native,
            nilEncoding: nilEncoding, writesDecimalsAsStrings: writesDecimalsAsStrings)
    }

    /// Settings with the implementation chosen: the library's tests run both engines side by side.
    package init(
        convertsSnakeCase: Bool = true,
        dates: DateCoding = .iso8601,
        parsing: JSON.ParsingOptions = .default,
        writing: JSON.WritingOptions = [],
        engine: Engine,
        nilEncoding: NilEncoding = .omit,
        writesDecimalsAsStrings: Bool = false
    ) {
        self.convertsSnakeCase = convertsSnakeCase
        self.dates = dates
        self.parsing = parsing
        self.writing = writing
        self.engine = engine
        self.nilEncoding = nilEncoding
        self.writesDecimalsAsStrings = writesDecimalsAsStrings
    }

    /// snake_case keys and ISO-8601 dates.
    public static let `default` = JSONCoding()

    /// Keys as declared and dates in `Date`'s own `Codable` form: what a bare `JSONDecoder` does.
    public static let plain = JSONCoding(convertsSnakeCase: false, dates: .deferredToDate)

    /// Keys as declared (`firstName`) and ISO-8601 dates as in ``default``.
    public static let camelCase = JSONCoding(convertsSnakeCase: false)

    /// Keys as declared and ISO-8601 dates in whole seconds (`"2026-11-23T21:04:13Z"`): what Vapor's default
    /// `JSONEncoder`/`JSONDecoder` (`.iso8601` dates) write and accept.
    public static let vapor = JSONCoding(convertsSnakeCase: false, dates: .iso8601WholeSeconds)

    // MARK: - Decoding

    /// Decodes a model from response bytes, optionally from under an envelope key.
    /// - Parameters:
    ///   - type: The model type (a single model or an array).
    ///   - data: The UTF-8 JSON bytes.
    ///   - path: Where the model sits: `""` for the document, `"person"`, `"results"`, `"data.people"`.
    /// - Returns: The model.
    /// - Throws: ``JSONError`` when the bytes are not JSON, ``JSONMappingError`` when the envelope key is
    ///   missing, `DecodingError` (with the coding path from the document root) when the model does not match.
    public func decode<T: Decodable>(_ type: T.Type, from data: Data, at path: String = "") throws -> T {
        if engine == .foundation, path.isEmpty {
            return try makeJSONDecoder().decode(T.self, from: data)
        }
        return try decode(T.self, from: JSON(data: data, options: parsing), at: path)
    }

    /// Decodes a model from a parsed value, optionally from under an envelope key.
    /// - Parameters:
    ///   - type: The model type.
    ///   - json: The parsed document.
    ///   - path: Where the model sits: `""` for the document, `"person"`, `"results"`, `"data.people"`.
    /// - Returns: The model.
    /// - Throws: ``JSONMappingError`` when the envelope key is missing, `DecodingError` when the model does not
    ///   match.
    package func decode<T: Decodable>(_ type: T.Type, from json: JSON, at path: String = "") throws -> T {
        let components = JSONPathComponent.parse(path)
        let value = try json.unwrap(components)
        switch engine {
        case .native:
            return try JSONTreeDecoder(value: value, coding: self, path: .init(components)).decodeRoot(T.self)
        case .foundation:
            do {
                return try makeJSONDecoder().decode(T.self, from: value.data())
            } catch let error as DecodingError {
                throw error.prefixed(with: CodingPathNode(components).keys)
            }
        }
    }

    // MARK: - Encoding

    /// Encodes a model as a request body.
    ///
    /// Compact output is written straight to bytes as the model encodes it; ``JSON/WritingOptions/sortedKeys`` and
    /// ``JSON/WritingOptions/prettyPrinted`` build the ``JSON`` value first, as `encodeJSON(_:)` does.
    /// - Parameter value: The model.
    /// - Returns: UTF-8 JSON bytes.
    /// - Throws: `EncodingError` when a value cannot be encoded (such as a non-finite double).
    public func encode<T: Encodable>(_ value: T) throws -> Data {
        if engine == .foundation, nilEncoding == .omit, !writesDecimalsAsStrings {
            return try makeJSONEncoder().encode(value)
        }
        // Sorted or indented output needs the whole tree; compact output is written as the model encodes it.
        guard writing.isEmpty else { return try encodeJSON(value).data(options: writing) }
        return try JSONByteEncoder.encode(value, coding: self)
    }

    /// Encodes a model as a ``JSON`` value (in the order the model encodes its keys).
    /// - Parameter value: The model.
    /// - Returns: The value.
    /// - Throws: `EncodingError` when a value cannot be encoded (such as a non-finite double).
    package func encodeJSON<T: Encodable>(_ value: T) throws -> JSON {
        if nilEncoding == .null || writesDecimalsAsStrings {
            return try JSONTreeEncoder.encodeRoot(value, coding: self)
        }
        switch engine {
        case .native: return try JSONTreeEncoder.encodeRoot(value, coding: self)
        case .foundation: return try JSON(data: makeJSONEncoder().encode(value))
        }
    }

    // MARK: - Foundation equivalents

    /// A `JSONDecoder` with these settings.
    /// - Returns: A new decoder.
    public func makeJSONDecoder() -> JSONDecoder {
        let decoder = JSONDecoder()
        if convertsSnakeCase { decoder.keyDecodingStrategy = .convertFromSnakeCase }
        switch dates {
        case .iso8601, .iso8601WholeSeconds:
            decoder.dateDecodingStrategy = .custom { decoder in
                let container = try decoder.singleValueContainer()
                let text = try container.decode(String.self)
                guard let date = ISO8601Timestamp.date(from: text) else {
                    throw DecodingError.dataCorruptedError(
                        in: container, debugDescription: JSONTreeDecoder.invalidDateDescription)
                }
                return date
            }
        case .deferredToDate: decoder.dateDecodingStrategy = .deferredToDate
        case .secondsSince1970: decoder.dateDecodingStrategy = .secondsSince1970
        case .millisecondsSince1970: decoder.dateDecodingStrategy = .millisecondsSince1970
        }
        return decoder
    }

    /// A `JSONEncoder` with these settings.
    /// - Returns: A new encoder.
    public func makeJSONEncoder() -> JSONEncoder {
        let encoder = JSONEncoder()
        if convertsSnakeCase { encoder.keyEncodingStrategy = .convertToSnakeCase }
        var formatting: JSONEncoder.OutputFormatting = [.withoutEscapingSlashes]
        if writing.contains(.prettyPrinted) { formatting.insert(.prettyPrinted) }
        if writing.contains(.sortedKeys) { formatting.insert(.sortedKeys) }
        encoder.outputFormatting = formatting
        switch dates {
        case .iso8601, .iso8601WholeSeconds:
            let wholeSeconds = dates == .iso8601WholeSeconds
            encoder.dateEncodingStrategy = .custom { date, encoder in
                let text =
                    wholeSeconds
                    ? ISO8601Timestamp.string(wholeSecondsOf: date) : ISO8601Timestamp.string(from: date)
                guard let text else {
                    // The seconds, not the date: describing an infinite `Date` traps inside Foundation.
                    throw EncodingError.invalidValue(
                        date.timeIntervalSince1970,
                        .init(
                            codingPath: encoder.codingPath,
                            debugDescription: ISO8601Timestamp.unrepresentable(date)))
                }
                var container = encoder.singleValueContainer()
                try container.encode(text)
            }
        case .deferredToDate: encoder.dateEncodingStrategy = .deferredToDate
        case .secondsSince1970: encoder.dateEncodingStrategy = .secondsSince1970
        case .millisecondsSince1970: encoder.dateEncodingStrategy = .millisecondsSince1970
        }
        return encoder
    }
}

extension JSON {
    /// A value encoded from any `Encodable`, keys converted as `coding` says.
    ///
    /// ```swift
    /// let json = try JSON(encoding: person)   // {"id": 1, "first_name": "Ada", …}
    /// ```
    /// - Parameters:
    ///   - value: The value to encode.
    ///   - coding: Key and date settings (``JSONCoding/default`` unless given).
    /// - Throws: `EncodingError` when a value cannot be encoded.
    public init<T: Encodable>(encoding value: T, coding: JSONCoding = .default) throws {
        self = try coding.encodeJSON(value)
    }

    /// Decodes a model from this value, keys converted as `coding` says.
    ///
    /// ```swift
    /// let person = try json.decode(Person.self)
    /// ```
    /// - Parameters:
    ///   - type: The model type.
    ///   - path: Where the model sits (`""` for this value itself).
    ///   - coding: Key and date settings (``JSONCoding/default`` unless given).
    /// - Returns: The model.
    /// - Throws: ``JSONMappingError`` when the path is missing, `DecodingError` when the model does not match.
    public func decode<T: Decodable>(_ type: T.Type, at path: String = "", coding: JSONCoding = .default) throws -> T {
        try coding.decode(T.self, from: self, at: path)
    }
}

extension DecodingError {
    /// The same error with `prefix` in front of its coding path (for values decoded from under an envelope).
    func prefixed(with prefix: [any CodingKey]) -> DecodingError {
        guard !prefix.isEmpty else { return self }
        func context(_ old: Context) -> Context {
            Context(
                codingPath: prefix + old.codingPath, debugDescription: old.debugDescription,
                underlyingError: old.underlyingError)
        }
        switch self {
        case .typeMismatch(let type, let old): return .typeMismatch(type, context(old))
        case .valueNotFound(let type, let old): return .valueNotFound(type, context(old))
        case .keyNotFound(let key, let old): return .keyNotFound(key, context(old))
        case .dataCorrupted(let old): return .dataCorrupted(context(old))
        @unknown default: return self
        }
    }
}

extension ISO8601Timestamp {
    /// The timestamp for a date in whole seconds, in UTC: a fraction is cut off (as Foundation's `.iso8601`
    /// strategy does), so the text never has one.
    static func string(wholeSecondsOf date: Date) -> String? {
        string(from: Date(timeIntervalSince1970: date.timeIntervalSince1970.rounded(.down)))
    }

    /// Why `date` has no timestamp, for an `EncodingError`.
    static func unrepresentable(_ date: Date) -> String {
        "Unable to encode the date \(date.timeIntervalSince1970) s after 1970 as an ISO-8601 timestamp: only years "
            + "0000–9999 have one."
    }
}
