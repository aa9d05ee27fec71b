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
///
/// An index's text is made only when asked for (an error, a `codingPath`): every element decoded from an array
/// gets such a key in its path. The key fits in an existential's inline buffer, so a path step holding one needs
/// no second allocation.
struct JSONCodingKey: CodingKey {
    private enum Storage {
        case name(String)
        case integer(Int)
        case index(Int)
    }

    private let storage: Storage

    var stringValue: String {
        switch storage {
        case .name(let name): return name
        case .integer(let value): return String(value)
        case .index(let index): return "Index \(index)"
        }
    }

    var intValue: Int? {
        switch storage {
        case .name: return nil
        case .integer(let value), .index(let value): return value
        }
    }

    init(stringValue: String) {
        storage = .name(stringValue)
    }

    init(intValue: Int) {
        storage = .integer(intValue)
    }

    init(index: Int) {
        storage = .index(index)
    }

    static let `super` = JSONCodingKey(stringValue: "super")
}
