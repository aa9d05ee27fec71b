/// An ordered list of HTTP header fields whose names compare case-insensitively.
///
/// Servers differ in how they spell names (FastAPI sends `content-type`, Django `Content-Type`);
/// lookups ignore case, while the spelling first given is kept for sending.
///
/// ```swift
/// var headers: HTTPHeaders = ["Accept": "application/json"]
/// headers["authorization"] = "Bearer abc"
/// headers["ACCEPT"]  // "application/json"
/// ```
public struct HTTPHeaders: Sendable, Hashable, ExpressibleByDictionaryLiteral, Sequence, CustomStringConvertible {
    /// One header field as sent on the wire.
    public struct Field: Sendable, Hashable {
        /// The field name, in the spelling it was given.
        public var name: String
        /// The field value.
        public var value: String

        /// Creates a field.
        public init(name: String, value: String) {
            self.name = name
            self.value = value
        }
    }

    /// The fields, in the order they were added.
    public private(set) var fields: [Field]

    /// Creates an empty list of headers.
    public init() { fields = [] }

    /// Creates headers from name/value pairs; a later pair replaces an earlier one of the same name.
    public init(_ pairs: [(String, String)]) {
        fields = []
        for (name, value) in pairs { self[name] = value }
    }

    /// Creates headers from a dictionary.
    public init(_ dictionary: [String: String]) {
        self.init(dictionary.sorted { $0.key < $1.key }.map { ($0.key, $0.value) })
    }

    /// Creates headers from a dictionary literal.
    public init(dictionaryLiteral elements: (String, String)...) {
        self.init(elements)
    }

    /// The value of the first field named `name` (ignoring case); setting replaces every field of that name,
    /// and setting `nil` removes them.
    public subscript(name: String) -> String? {
        get { fields.first { $0.name.caseInsensitiveEquals(name) }?.value }
        set {
            if let index = fields.firstIndex(where: { $0.name.caseInsensitiveEquals(name) }) {
                if let newValue {
                    fields[index].value = newValue
                    let later = fields.index(after: index)
                    fields[later...].removeAll { $0.name.caseInsensitiveEquals(name) }
                } else {
                    fields.removeAll { $0.name.caseInsensitiveEquals(name) }
                }
            } else if let newValue {
                fields.append(Field(name: name, value: newValue))
            }
        }
    }

    /// Every value of the fields named `name` (ignoring case), in order; for repeated fields such as `Set-Cookie`.
    public func values(for name: String) -> [String] {
        fields.filter { $0.name.caseInsensitiveEquals(name) }.map(\.value)
    }

    /// Adds a field without removing existing fields of the same name.
    public mutating func add(name: String, value: String) {
        fields.append(Field(name: name, value: value))
    }

    /// Whether a field named `name` (ignoring case) is present.
    public func contains(_ name: String) -> Bool {
        fields.contains { $0.name.caseInsensitiveEquals(name) }
    }

    /// Returns these headers with every field of `other` set over them.
    public func merging(_ other: HTTPHeaders) -> HTTPHeaders {
        var merged = self
        var replaced = Set<String>()
        for field in other.fields {
            let key = field.name.lowercased()
            if replaced.insert(key).inserted {
                merged[field.name] = field.value
            } else {
                merged.add(name: field.name, value: field.value)
            }
        }
        return merged
    }

    /// The number of fields.
    public var count: Int { fields.count }

    /// Whether there are no fields.
    public var isEmpty: Bool { fields.isEmpty }

    /// Iterates over the fields in order.
    public func makeIterator() -> IndexingIterator<[Field]> { fields.makeIterator() }

    /// Headers as `Name: value` lines, secret values hidden by the standard ``Redaction`` (`Authorization`,
    /// `Cookie`, `Set-Cookie`, any header whose name names a secret): `print(response.headers)` shows no credential.
    /// Read a value itself with the subscript or by iterating.
    public var description: String {
        Redaction.standard.redact(self).fields.map { "\($0.name): \($0.value)" }.joined(separator: "\n")
    }

    /// Equal when both hold the same fields in the same order, names compared ignoring case.
    public static func == (lhs: HTTPHeaders, rhs: HTTPHeaders) -> Bool {
        lhs.fields.count == rhs.fields.count
            && zip(lhs.fields, rhs.fields).allSatisfy {
                $0.name.caseInsensitiveEquals($1.name) && $0.value == $1.value
            }
    }

    /// Hashes names ignoring case, consistently with `==`.
    public func hash(into hasher: inout Hasher) {
        for field in fields {
            hasher.combine(field.name.lowercased())
            hasher.combine(field.value)
        }
    }
}

extension String {
    /// ASCII case-insensitive comparison, as HTTP field names require.
    package func caseInsensitiveEquals(_ other: String) -> Bool {
        let lhs = utf8
        let rhs = other.utf8
        guard lhs.count == rhs.count else { return false }
        for (a, b) in zip(lhs, rhs) where a != b {
            let la = (a >= 65 && a <= 90) ? a + 32 : a
            let lb = (b >= 65 && b <= 90) ? b + 32 : b
            if la != lb { return false }
        }
        return true
    }
}

extension HTTPHeaders.Field: CustomStringConvertible {
    /// `Name: value`, the value hidden when the standard ``Redaction`` hides the header.
    public var description: String {
        "\(name): \(Redaction.standard.hidesHeader(name) ? Redaction.placeholder : Redaction.standard.redact(text: value))"
    }
}
