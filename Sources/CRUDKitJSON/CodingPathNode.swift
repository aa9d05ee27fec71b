import Foundation

/// A coding path as a linked list, so extending it costs one small allocation and reading it is only needed
/// when an error is reported or a model asks for `codingPath`.
indirect enum CodingPathNode {
    case root
    case node(any CodingKey, CodingPathNode)

    /// A path made of key-path steps (the envelope a value was unwrapped from).
    init(_ components: [JSONPathComponent]) {
        var node = CodingPathNode.root
        for component in components {
            switch component {
            case .key(let key): node = .node(JSONCodingKey(stringValue: key), node)
            case .index(let index): node = .node(JSONCodingKey(index: index), node)
            }
        }
        self = node
    }

    /// The path one key further.
    func appending(_ key: any CodingKey) -> CodingPathNode { .node(key, self) }

    /// The path one array index further.
    func appending(index: Int) -> CodingPathNode { .node(JSONCodingKey(index: index), self) }

    /// The keys from the root.
    var keys: [any CodingKey] {
        var keys: [any CodingKey] = []
        var current = self
        while case .node(let key, let parent) = current {
            keys.append(key)
            current = parent
        }
        return keys.reversed()
    }
}

/// A coding key made at run time: an object key, or an array index shown as `Index 3` like Foundation's.
struct JSONCodingKey: CodingKey {
    let stringValue: String
    let intValue: Int?

    init(stringValue: String) {
        self.stringValue = stringValue
        intValue = nil
    }

    init(intValue: Int) {
        stringValue = String(intValue)
        self.intValue = intValue
    }

    init(index: Int) {
        stringValue = "Index \(index)"
        intValue = index
    }

    static let `super` = JSONCodingKey(stringValue: "super")
}
