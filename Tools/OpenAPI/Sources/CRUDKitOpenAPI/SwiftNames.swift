import Foundation

/// Swift spellings of the document's names: types in UpperCamelCase, properties in lowerCamelCase, keywords
/// escaped.
enum SwiftNames {
    static let keywords: Set<String> = [
        "associatedtype", "class", "deinit", "enum", "extension", "fileprivate", "func", "import", "init", "inout",
        "internal", "let", "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows",
        "static", "struct", "subscript", "typealias", "var", "break", "case", "catch", "continue", "default",
        "defer", "do", "else", "fallthrough", "for", "guard", "if", "in", "repeat", "return", "throw", "switch",
        "where", "while", "Any", "as", "await", "false", "is", "nil", "self", "Self", "super", "throws", "true",
        "try", "Type", "Protocol",
    ]

    /// The words of a name: split at anything not a letter or digit and at lower→upper case changes.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        var previous: Character?
        for character in name {
            if !(character.isLetter || character.isNumber) || !character.isASCII {
                if !current.isEmpty { words.append(current) }
                current = ""
                previous = nil
                continue
            }
            if let previous, character.isUppercase, previous.isLowercase || previous.isNumber {
                words.append(current)
                current = ""
            }
            current.append(character)
            previous = character
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `person_request` → `PersonRequest`; never empty, never starting with a digit.
    static func typeName(_ name: String) -> String {
        var result = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        if result.isEmpty { result = "Value" }
        if result.first?.isNumber == true { result = "_" + result }
        if keywords.contains(result) || reservedTypeNames.contains(result) { result += "Value" }
        return result
    }

    /// The type names generated code uses and so must not declare: a generated `struct String` or `struct
    /// Readable` would hide the type every other file means (Swift's, Foundation's, CRUDKit's, or a support type
    /// of `APIDocument.swift`). A schema with such a name gets `Value` appended (`StringValue`).
    static let reservedTypeNames: Set<String> = [
        // Swift and Foundation.
        "Swift", "Foundation", "String", "Substring", "Character", "Int", "Int8", "Int16", "Int32", "Int64", "UInt",
        "UInt8", "UInt16", "UInt32", "UInt64", "Bool", "Double", "Float", "Decimal", "Date", "UUID", "Data", "URL",
        "Array", "Dictionary", "Set", "Optional", "Result", "Error", "Never", "Void", "AnyObject", "AnyHashable",
        "Codable", "Decodable", "Encodable", "Decoder", "Encoder", "CodingKey", "CodingKeys", "Hashable", "Hasher",
        "Equatable", "Sendable", "RawRepresentable", "CustomStringConvertible", "LosslessStringConvertible",
        "DecodingError", "EncodingError", "KeyedDecodingContainer", "KeyedEncodingContainer",
        // CRUDKit.
        "CRUDKit", "JSON", "JSONAttribute", "APIConventions", "FormParameters", "Okay", "ResourceScope",
        "CRUDResource", "CRUDError", "Readable", "Creatable", "Updatable", "Deletable", "Enumeratable",
        // The support types of APIDocument.swift.
        "APIDocument", "AnyCodingKey", "Indirect", "CalendarDate",
    ]

    /// Names that backticks do not make usable as a member (`x.self`, `self.init`, `x.Type`), or that every
    /// generated type already has (`hashValue`, from `Hashable`), and so get `Value` appended instead.
    static let unusableMemberNames: Set<String> = ["self", "Self", "init", "super", "Type", "Protocol", "hashValue"]

    /// `first_name` → `firstName`; keywords escaped with backticks (`default` → `` `default` ``), and the names no
    /// backticks make a usable member (`self`, `init`) suffixed: `selfValue`. A name with no ASCII letter or digit
    /// (`🎉`, `""`) is `value`; callers make names unique.
    static func propertyName(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "value" }
        var result = first.lowercased()
        if first.count > 1, first == first.uppercased() { result = first.lowercased() }
        for word in parts.dropFirst() { result += word.prefix(1).uppercased() + word.dropFirst() }
        if result.first?.isNumber == true { result = "_" + result }
        if unusableMemberNames.contains(result) { result += "Value" }
        return escaped(result)
    }

    /// A case name for an enum value: `in_progress` → `inProgress`, `""` → `empty`; never a member the enum
    /// itself declares (`unknown`, `rawValue`).
    static func caseName(_ value: String) -> String {
        let name = value.isEmpty ? "empty" : propertyName(value)
        return ["unknown", "rawValue", "hashValue"].contains(name) ? name + "Value" : name
    }

    /// A case name for an integer enum value: `1` → `value1`, `-1` → `valueMinus1`.
    static func caseName(integer value: String) -> String {
        value.hasPrefix("-") ? "valueMinus" + value.dropFirst() : "value" + value
    }

    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// The name without backticks, for making other names from it.
    static func bare(_ name: String) -> String { name.replacingOccurrences(of: "`", with: "") }

    /// A Swift string literal of `text`.
    static func literal(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 || scalar.value == 0x7F {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }

    /// `people` → `Person`, `categories` → `Category`: the singular of a collection's last segment.
    static func singular(_ word: String) -> String {
        let irregular = ["people": "person", "children": "child", "men": "man", "women": "woman", "data": "datum"]
        let lower = word.lowercased()
        for (plural, single) in irregular where lower.hasSuffix(plural) {
            return String(word.dropLast(plural.count)) + single
        }
        if lower.hasSuffix("ies") { return String(word.dropLast(3)) + "y" }
        if lower.hasSuffix("sses") || lower.hasSuffix("xes") || lower.hasSuffix("ches") || lower.hasSuffix("shes") {
            return String(word.dropLast(2))
        }
        if lower.hasSuffix("s"), !lower.hasSuffix("ss"), !lower.hasSuffix("us") { return String(word.dropLast()) }
        return word
    }
}

/// Doc comment lines from a schema's description (each line prefixed with `///`).
enum DocComment {
    static func lines(_ text: String?, indent: String) -> [String] {
        guard let text, !text.trimmingCharacters(in: .whitespacesAndNewlines).isEmpty else { return [] }
        var lines: [String] = []
        for raw in text.split(separator: "\n", omittingEmptySubsequences: false) {
            let line = raw.trimmingCharacters(in: .whitespaces)
            lines.append(line.isEmpty ? "\(indent)///" : "\(indent)/// \(line)")
        }
        while lines.last == "\(indent)///" { lines.removeLast() }
        return lines
    }
}

/// Names made unique by numbering (`name`, `name2`, `name3`, …) in constant time per name, however many names
/// share a base: the first number not yet tried is kept for each base (names are never released, so every number
/// below it stays taken).
struct UniqueNames {
    private(set) var used: Set<String>
    private var next: [String: Int] = [:]

    init(_ used: Set<String> = []) { self.used = used }

    func contains(_ name: String) -> Bool { used.contains(name) }

    mutating func insert(_ name: String) { used.insert(name) }

    /// `base` when it is free, otherwise `base` followed by the first free number from 2; not claimed.
    mutating func free(_ base: String, taken: (String) -> Bool) -> String {
        guard taken(base) else { return base }
        var counter = next[base] ?? 2
        while taken(base + "\(counter)") { counter += 1 }
        next[base] = counter
        return base + "\(counter)"
    }

    /// `base` when it is not used yet, otherwise `base` followed by the first unused number from 2; claimed.
    mutating func claim(_ base: String) -> String {
        var name = base
        if used.contains(base) {
            var counter = next[base] ?? 2
            while used.contains(base + "\(counter)") { counter += 1 }
            next[base] = counter + 1
            name = base + "\(counter)"
        }
        used.insert(name)
        return name
    }
}
