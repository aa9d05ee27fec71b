/// A value in a form body or query string: text, a list, or nested fields.
///
/// Lists and nested fields are written in the bracket style Rails and PHP read (`tags[]=a`, `person[name]=Ada`;
/// see ``FormParameters``); numbers and booleans become their text (`3`, `1.5`, `true`).
///
/// ```swift
/// let parameters: FormParameters = [
///     "tags": ["a", "b"],                              // tags[]=a&tags[]=b
///     "person": ["name": "Ada", "age": 36],            // person[name]=Ada&person[age]=36
///     "active": true,                                  // active=true
/// ]
/// ```
public indirect enum FormValue: Sendable, Hashable, ExpressibleByStringLiteral, ExpressibleByIntegerLiteral,
    ExpressibleByFloatLiteral, ExpressibleByBooleanLiteral, ExpressibleByArrayLiteral,
    ExpressibleByDictionaryLiteral
{
    /// One text value.
    case string(String)
    /// A list, written as `name[]=…` once per element.
    case list([FormValue])
    /// Nested fields, written as `name[field]=…`.
    case fields(FormParameters)

    /// Creates a text value from anything that converts losslessly to a string (`Int`, `Double`, `Bool`, …).
    public init(_ value: some LosslessStringConvertible) { self = .string(value.description) }

    /// Creates a text value from a string literal.
    public init(stringLiteral value: String) { self = .string(value) }

    /// Creates a text value from an integer literal.
    public init(integerLiteral value: Int) { self = .string(String(value)) }

    /// Creates a text value from a floating-point literal.
    public init(floatLiteral value: Double) { self = .string(String(value)) }

    /// Creates `true` or `false`.
    public init(booleanLiteral value: Bool) { self = .string(value ? "true" : "false") }

    /// Creates a list.
    public init(arrayLiteral elements: FormValue...) { self = .list(elements) }

    /// Creates nested fields, in the order written.
    public init(dictionaryLiteral elements: (String, FormValue)...) { self = .fields(FormParameters(elements)) }
}
