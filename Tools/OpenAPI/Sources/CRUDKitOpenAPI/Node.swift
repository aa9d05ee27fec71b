import Foundation
import Yams

/// A parsed JSON or YAML value, objects keeping their members in document order (the order of properties in the
/// generated code).
indirect enum Node: Sendable, Hashable {
    /// A scalar as written; `quoted` tells a YAML `"null"` string from the `null` literal.
    case scalar(String, quoted: Bool)
    case array([Node])
    case object([(key: String, value: Node)])

    static func == (lhs: Node, rhs: Node) -> Bool {
        switch (lhs, rhs) {
        case (.scalar(let a, let qa), .scalar(let b, let qb)): a == b && qa == qb
        case (.array(let a), .array(let b)): a == b
        case (.object(let a), .object(let b)):
            a.count == b.count && zip(a, b).allSatisfy { $0.key == $1.key && $0.value == $1.value }
        default: false
        }
    }

    func hash(into hasher: inout Hasher) {
        switch self {
        case .scalar(let text, let quoted):
            hasher.combine(text)
            hasher.combine(quoted)
        case .array(let items): hasher.combine(items)
        case .object(let members):
            for member in members {
                hasher.combine(member.key)
                hasher.combine(member.value)
            }
        }
    }

    subscript(key: String) -> Node? {
        guard case .object(let members) = self else { return nil }
        return members.first { $0.key == key }?.value
    }

    var members: [(key: String, value: Node)] {
        if case .object(let members) = self { return members }
        return []
    }

    var items: [Node] {
        if case .array(let items) = self { return items }
        return []
    }

    /// The text of a scalar that is not the `null` literal.
    var string: String? {
        guard case .scalar(let text, _) = self, !isNull else { return nil }
        return text
    }

    var bool: Bool { string == "true" }

    /// The YAML/JSON `null` literal.
    var isNull: Bool {
        guard case .scalar(let text, let quoted) = self, !quoted else { return false }
        return text == "null" || text == "~" || text == "Null" || text == "NULL"
    }

    /// Parses JSON or YAML (JSON is YAML). Yams' composer recurses once per level, so the text's nesting is
    /// checked first (``NestingDepth``); the conversion below walks Yams' node tree with an explicit stack.
    static func parse(_ text: String) throws -> Node {
        try NestingDepth.check(text)
        guard let root = try Yams.compose(yaml: joiningSurrogatePairs(text)) else { return .object([]) }
        if mayHoldAliases(text) { try checkAliasExpansion(root, textSize: text.utf8.count) }
        return convert(root)
    }

    /// The most nodes YAML aliases may add to a document once expanded. Yams' composer shares an aliased node
    /// instead of copying it, so a small document of nested aliases ("billion laughs": nine levels of ten aliases
    /// each) composes quickly but expands to 10^9 nodes in anything that walks it.
    static let aliasExpansionLimit = 1_000_000

    /// Throws ``AliasExpansionError`` when the text's aliases expand to more than ``aliasExpansionLimit`` nodes
    /// beyond what its size allows without aliases; composes YAML text only when it may hold an alias.
    static func checkAliasExpansion(_ text: String) throws {
        guard mayHoldAliases(text) else { return }
        guard let root = try Yams.compose(yaml: text) else { return }
        try checkAliasExpansion(root, textSize: text.utf8.count)
    }

    /// An alias is written `*name` after an anchor `&name`: a text without both holds none.
    static func mayHoldAliases(_ text: String) -> Bool {
        text.utf8.contains(UInt8(ascii: "*")) && text.utf8.contains(UInt8(ascii: "&"))
    }

    /// Counts the nodes of `root` as if its aliases were expanded, and stops at the limit: a text of `n` bytes
    /// holds at most about `n / 2` nodes without aliases, and aliases may add ``aliasExpansionLimit``. An alias
    /// is its anchor's node itself, with that node's place in the text, so each collection's size is computed
    /// once, by its kind, place and count (Yams holds anchors weakly: they are gone once the document is composed).
    static func checkAliasExpansion(_ root: Yams.Node, textSize: Int) throws {
        let limit = textSize / 2 + 1 + aliasExpansionLimit
        struct Place: Hashable {
            var mapping: Bool
            var line: Int
            var column: Int
            var count: Int
        }
        enum Frame {
            case enter(Yams.Node)
            case exit(Place?, children: Int)
        }
        var sizes: [Place: Int] = [:]
        var frames: [Frame] = [.enter(root)]
        var values: [Int] = []
        while let frame = frames.popLast() {
            switch frame {
            case .enter(let node):
                var children: [Yams.Node] = []
                switch node {
                case .scalar, .alias: break
                case .sequence(let sequence): children = Array(sequence)
                case .mapping(let mapping):
                    for pair in mapping {
                        children.append(pair.key)
                        children.append(pair.value)
                    }
                }
                if children.isEmpty {
                    values.append(1)
                    continue
                }
                var key: Place?
                if let mark = node.mark {
                    key = Place(
                        mapping: node.mapping != nil, line: mark.line, column: mark.column, count: children.count)
                }
                if let key, let size = sizes[key] {
                    values.append(size)
                    continue
                }
                frames.append(.exit(key, children: children.count))
                for child in children.reversed() { frames.append(.enter(child)) }
            case .exit(let key, let count):
                var size = 1
                for value in values.suffix(count) { size += value }
                values.removeLast(count)
                if size > limit { throw AliasExpansionError(limit: limit) }
                if let key { sizes[key] = size }
                values.append(size)
            }
        }
    }

    /// A JSON document with each `\uD83C\uDF89` escape (a UTF-16 surrogate pair, valid JSON that Python's
    /// `json.dumps` writes for any character beyond U+FFFF) replaced by its character, which YAML's scanner
    /// would refuse. Only within strings of a document that starts with `{` or `[`; any other text is returned
    /// as it is.
    static func joiningSurrogatePairs(_ text: String) -> String {
        let scalars = Array(text.unicodeScalars)
        guard let first = scalars.first(where: { !" \t\r\n\u{FEFF}".unicodeScalars.contains($0) }),
            first == "{" || first == "[", text.contains("\\u")
        else { return text }
        func hex(at index: Int) -> UInt32? {
            guard index + 6 <= scalars.count, scalars[index] == "\\", scalars[index + 1] == "u" else { return nil }
            var value: UInt32 = 0
            for scalar in scalars[(index + 2)..<(index + 6)] {
                guard let digit = Character(scalar).hexDigitValue else { return nil }
                value = value * 16 + UInt32(digit)
            }
            return value
        }
        var result = String.UnicodeScalarView()
        var inString = false
        var index = 0
        while index < scalars.count {
            let scalar = scalars[index]
            if !inString {
                if scalar == "\"" { inString = true }
                result.append(scalar)
                index += 1
            } else if scalar == "\"" {
                inString = false
                result.append(scalar)
                index += 1
            } else if scalar == "\\" {
                if let high = hex(at: index), (0xD800...0xDBFF).contains(high), let low = hex(at: index + 6),
                    (0xDC00...0xDFFF).contains(low),
                    let joined = Unicode.Scalar(0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00))
                {
                    result.append(joined)
                    index += 12
                } else {
                    result.append(scalar)
                    if index + 1 < scalars.count { result.append(scalars[index + 1]) }
                    index += 2
                }
            } else {
                result.append(scalar)
                index += 1
            }
        }
        return String(result)
    }

    private static func convert(_ root: Yams.Node) -> Node {
        // Post-order conversion with an explicit stack, so a deeply nested document does not reach the thread's
        // stack limit.
        enum Frame {
            case enter(Yams.Node)
            case buildArray(Int)
            case buildObject([String])
        }
        var frames: [Frame] = [.enter(root)]
        var values: [Node] = []
        while let frame = frames.popLast() {
            switch frame {
            case .enter(let node):
                switch node {
                case .scalar(let scalar):
                    values.append(.scalar(scalar.string, quoted: scalar.style != .plain && scalar.style != .any))
                case .alias:
                    values.append(.scalar("", quoted: true))
                case .sequence(let sequence):
                    let children = Array(sequence)
                    frames.append(.buildArray(children.count))
                    for child in children.reversed() { frames.append(.enter(child)) }
                case .mapping(let mapping):
                    let pairs = Array(mapping)
                    frames.append(.buildObject(pairs.map { $0.key.string ?? "" }))
                    for pair in pairs.reversed() { frames.append(.enter(pair.value)) }
                }
            case .buildArray(let count):
                let children = Array(values.suffix(count))
                values.removeLast(count)
                values.append(.array(children))
            case .buildObject(let keys):
                let children = Array(values.suffix(keys.count))
                values.removeLast(keys.count)
                values.append(.object(Array(zip(keys, children).map { (key: $0, value: $1) })))
            }
        }
        return values.last ?? .object([])
    }
}

/// A YAML document whose aliases expand to more nodes than the generator reads (an alias bomb).
struct AliasExpansionError: Error, CustomStringConvertible {
    var limit: Int

    var description: String {
        "YAML aliases expand this document to more than \(limit) nodes (an alias bomb?); it is refused before "
            + "expanding"
    }
}

/// JSON pointer helpers (RFC 6901).
enum Pointer {
    static func escape(_ token: String) -> String {
        guard token.utf8.contains(where: { $0 == UInt8(ascii: "~") || $0 == UInt8(ascii: "/") }) else { return token }
        return token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static func unescape(_ token: String) -> String {
        guard token.utf8.contains(UInt8(ascii: "~")) else { return token }
        return token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    static func join(_ base: String, _ tokens: String...) -> String {
        tokens.reduce(base) { $0 + "/" + escape($1) }
    }
}
