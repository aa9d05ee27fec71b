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

    /// Parses JSON or YAML (JSON is YAML), without recursion limits beyond the parser's own: nesting comes from
    /// Yams' node tree, which the conversion below walks with an explicit stack.
    static func parse(_ text: String) throws -> Node {
        guard let root = try Yams.compose(yaml: text) else { return .object([]) }
        return convert(root)
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

/// JSON pointer helpers (RFC 6901).
enum Pointer {
    static func escape(_ token: String) -> String {
        token.replacingOccurrences(of: "~", with: "~0").replacingOccurrences(of: "/", with: "~1")
    }

    static func unescape(_ token: String) -> String {
        token.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
    }

    static func join(_ base: String, _ tokens: String...) -> String {
        tokens.reduce(base) { $0 + "/" + escape($1) }
    }
}
