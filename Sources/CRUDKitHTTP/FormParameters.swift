import CRUDKitCore
import Foundation

/// Ordered name/value pairs for a query string or an `application/x-www-form-urlencoded` body.
///
/// Written in one documented style:
/// - text: `name=value`;
/// - a list: `name[]=a&name[]=b` (an empty list writes nothing); with ``ArrayStyle/repeatedKeys``,
///   `name=a&name=b` instead (what Django's `QueryDict.getlist` reads);
/// - nested fields: `person[name]=Ada`, to any depth (`person[address][city]=Paris`,
///   `people[][name]=Ada` for a list of objects).
///
/// Every byte outside the unreserved set `A–Z a–z 0–9 - . _ ~` is percent-encoded as UTF-8 with upper-case
/// hex digits: a space is `%20` (never `+`), `+` is `%2B`, `&` is `%26`, `=` is `%3D`, brackets are `%5B` and
/// `%5D`, `é` is `%C3%A9`.
///
/// ```swift
/// let query: FormParameters = ["q": "a b&c", "tags": ["x", "y"]]
/// query.percentEncoded()  // "q=a%20b%26c&tags%5B%5D=x&tags%5B%5D=y"
/// ```
///
/// It is the one query type of CRUDKit: model operations (`Person.list(["age_gte": 30])`), `api.get` and the other
/// calls, `Request`, `download` and `API` defaults all take it. A dictionary literal is one, values written as
/// text, numbers, interpolations (`"\(page)"`), lists or nested fields. The calls that took `[String: String]`
/// (`api.get`, `api.post`…, `Request`, `download`, `configure`) take any ``FormParametersConvertible``, so a
/// `[String: String]` (`["q": text]`) still works there; a literal that mixes lists or numbers with text is
/// written `query: ["q": .string(text), "tags": ["a", "b"]] as FormParameters`.
public struct FormParameters: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence {
    /// How lists are written.
    public enum ArrayStyle: Sendable, Hashable {
        /// `tags[]=a&tags[]=b`, as Rails and PHP read it; the default.
        case brackets
        /// `tags=a&tags=b` (Django REST framework filters, Go's `url.Values`).
        case repeatedKeys
    }

    /// One named value.
    public struct Field: Sendable, Hashable {
        /// The name, before any brackets are added.
        public var name: String
        /// The value.
        public var value: FormValue

        /// Creates a field.
        public init(name: String, value: FormValue) {
            self.name = name
            self.value = value
        }
    }

    /// The fields in the order they are written.
    public var fields: [Field]

    /// Creates empty parameters.
    public init() { fields = [] }

    /// Creates parameters from pairs, keeping their order.
    public init(_ pairs: [(String, FormValue)]) { fields = pairs.map { Field(name: $0.0, value: $0.1) } }

    /// Creates parameters from a dictionary, sorted by name so the output is stable.
    public init(_ dictionary: [String: FormValue]) {
        self.init(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Creates parameters from text values, sorted by name so the output is stable: a `[String: String]` query you
    /// already hold, for any call that takes ``FormParameters``.
    ///
    /// ```swift
    /// let filters: [String: String] = ["last_name": "Lovelace"]
    /// let people: [Person] = try await api.get("people", query: FormParameters(filters))
    /// ```
    /// - Parameter dictionary: Names and their text values.
    public init(_ dictionary: [String: String]) {
        self.init(dictionary.sorted { $0.key < $1.key }.map { ($0.key, FormValue.string($0.value)) })
    }

    /// Creates parameters from a dictionary literal, keeping the order written.
    public init(dictionaryLiteral elements: (String, FormValue)...) { self.init(elements) }

    /// The value of the first field named `name`; setting replaces it (or appends), `nil` removes every such field.
    public subscript(name: String) -> FormValue? {
        get { fields.first { $0.name == name }?.value }
        set {
            guard let newValue else {
                fields.removeAll { $0.name == name }
                return
            }
            if let index = fields.firstIndex(where: { $0.name == name }) {
                fields[index].value = newValue
            } else {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// Appends a field, keeping any earlier field of the same name.
    public mutating func append(_ name: String, _ value: FormValue) { fields.append(Field(name: name, value: value)) }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// The flattened `(name, value)` pairs before percent-encoding, such as `("person[name]", "Ada")`.
    ///
    /// - Parameter style: How lists are written.
    @_spi(TransportKit) public func flattened(style: ArrayStyle = .brackets) -> [(name: String, value: String)] {
        var pairs: [(name: String, value: String)] = []
        for field in fields { Self.flatten(field.value, name: field.name, style: style, into: &pairs) }
        return pairs
    }

    /// The parameters as `name=value` pairs joined with `&`, percent-encoded (no leading `?`).
    ///
    /// - Parameter style: How lists are written.
    /// - Returns: Text ready for a URL's query or a form body.
    @_spi(TransportKit) public func percentEncoded(style: ArrayStyle = .brackets) -> String {
        flattened(style: style).map { Self.percentEncode($0.name) + "=" + Self.percentEncode($0.value) }
            .joined(separator: "&")
    }

    private static func flatten(
        _ value: FormValue,
        name: String,
        style: ArrayStyle,
        into pairs: inout [(name: String, value: String)]
    ) {
        switch value {
        case .string(let text):
            pairs.append((name, text))
        case .list(let elements):
            let elementName = style == .brackets ? name + "[]" : name
            for element in elements { flatten(element, name: elementName, style: style, into: &pairs) }
        case .fields(let nested):
            for field in nested.fields {
                flatten(field.value, name: name + "[" + field.name + "]", style: style, into: &pairs)
            }
        }
    }

    /// Percent-encodes every byte of `text` outside `A–Z a–z 0–9 - . _ ~`.
    package static func percentEncode(_ text: String) -> String {
        // Most names, values and path segments need no escape: they come back as they are, without a copy.
        if text.utf8.allSatisfy(isUnreserved) { return text }
        var bytes: [UInt8] = []
        bytes.reserveCapacity(text.utf8.count)
        let hex = Array("0123456789ABCDEF".utf8)
        for byte in text.utf8 {
            switch byte {
            case 65...90, 97...122, 48...57, 45, 46, 95, 126:
                bytes.append(byte)
            default:
                bytes += [37, hex[Int(byte >> 4)], hex[Int(byte & 15)]]
            }
        }
        return String(decoding: bytes, as: UTF8.self)
    }

    /// RFC 3986 `unreserved`: letters, digits, `-`, `.`, `_`, `~`.
    private static func isUnreserved(_ byte: UInt8) -> Bool {
        switch byte {
        case 65...90, 97...122, 48...57, 45, 46, 95, 126: true
        default: false
        }
    }

    /// Splits `name=value&…` text back into decoded pairs (`+` read as a space, as HTML forms send it).
    ///
    /// A part with a malformed escape (`%zz`) or escapes that do not form UTF-8 is kept as written, with only `+`
    /// read as a space.
    /// - Parameter text: A query string or form body, without a leading `?`.
    /// - Returns: The pairs in order; a pair without `=` has an empty value.
    @_spi(TransportKit) public static func decodePairs(_ text: String) -> [(name: String, value: String)] {
        // Split on bytes, not Characters: an `&` or `=` followed by a combining mark is one Character with it.
        text.utf8.split(separator: UInt8(ascii: "&"), omittingEmptySubsequences: true).map { pair in
            let parts = pair.split(separator: UInt8(ascii: "="), maxSplits: 1, omittingEmptySubsequences: false)
            let name = percentDecode(Substring(parts[0]))
            return (name, parts.count > 1 ? percentDecode(Substring(parts[1])) : "")
        }
    }

    /// Decodes `+` and `%XX` byte by byte (Foundation's `removingPercentEncoding` drops a leading U+FEFF on Linux,
    /// found by the encoding fuzzer).
    private static func percentDecode(_ part: Substring) -> String {
        var bytes: [UInt8] = []
        bytes.reserveCapacity(part.utf8.count)
        var iterator = part.utf8.makeIterator()
        let asWritten = { part.replacingScalars(["+": " "]) }
        while let byte = iterator.next() {
            switch byte {
            case 43:
                bytes.append(32)
            case 37:
                guard let high = iterator.next().flatMap(hexValue), let low = iterator.next().flatMap(hexValue) else {
                    return asWritten()
                }
                bytes.append(high << 4 | low)
            default:
                bytes.append(byte)
            }
        }
        let isInvalid = transcode(bytes.makeIterator(), from: UTF8.self, to: UTF32.self, stoppingOnError: true) { _ in }
        return isInvalid ? asWritten() : String(decoding: bytes, as: UTF8.self)
    }

    private static func hexValue(_ byte: UInt8) -> UInt8? {
        switch byte {
        case 48...57: byte - 48
        case 65...70: byte - 55
        case 97...102: byte - 87
        default: nil
        }
    }
}

/// A string with interpolations is a text value, so `["page": "\(page)"]` reads as it did when queries were
/// `[String: String]`.
extension FormValue: ExpressibleByStringInterpolation {}

/// What a call's `query:` takes: ``FormParameters``, or a `[String: String]` (as `api.get` took before).
///
/// ```swift
/// let text = "Ada"
/// let people: [Person] = try await api.get("people", query: ["q": text])  // [String: String]
/// let tagged: [Person] = try await api.get("people", query: ["tags": ["a", "b"]] as FormParameters)
/// ```
public protocol FormParametersConvertible: Sendable {
    /// The parameters, in the order they are written.
    var formParameters: FormParameters { get }
}

extension FormParameters: FormParametersConvertible {
    /// The parameters themselves.
    public var formParameters: FormParameters { self }
}

extension Dictionary: FormParametersConvertible where Key == String, Value == String {
    /// The pairs as text fields, sorted by name so the output is stable.
    public var formParameters: FormParameters { FormParameters(self) }
}

extension FormParameters: CustomStringConvertible {
    /// The parameters as ``percentEncoded(style:)`` writes them, with the values of secret names (`password`,
    /// `api_key`, `token[]`, any name that names a secret by the standard ``Redaction``) hidden: printing a query or
    /// a form shows no credential. Read the values themselves through ``fields``.
    public var description: String {
        flattened(style: .brackets).map { pair in
            let value = Redaction.standard.hidesQueryParameter(pair.name) ? Redaction.placeholder : pair.value
            return Self.percentEncode(pair.name) + "=" + Self.percentEncode(value)
        }
        .joined(separator: "&")
    }
}

extension FormParameters.Field: CustomStringConvertible {
    /// The field as ``FormParameters`` describes it: `name=value`, the value hidden when the name names a secret.
    public var description: String { FormParameters([(name, value)]).description }
}
