import Foundation

extension JSON {
    /// The members of a JSON object, in order, with fast lookup by key.
    ///
    /// Keys are unique: setting a key that exists replaces its value in place; when parsing a document that
    /// repeats a key, the last value wins and keeps the position of the first occurrence.
    ///
    /// Small objects (up to 16 members, the usual case for API models) are searched linearly, which is faster
    /// than hashing; larger ones keep a dictionary from key to position.
    ///
    /// Two objects are equal when they hold the same keys with equal values, in any order.
    public struct Object: Sendable {
        /// A member: a key and its value.
        public typealias Member = (key: String, value: JSON)

        private var storage: [Member]
        private var positions: [String: Int]?

        /// Above this many members an object keeps a dictionary of positions.
        static let indexThreshold = 16

        /// An empty object.
        public init() {
            storage = []
        }

        /// An object with the members of a dictionary, in the dictionary's (unspecified) order.
        /// - Parameter dictionary: The members.
        public init(_ dictionary: [String: JSON]) {
            storage = dictionary.map { (key: $0.key, value: $0.value) }
            reindex()
        }

        /// An object with these members in this order; a repeated key keeps its last value.
        /// - Parameter members: Keys and values.
        public init(_ members: some Sequence<(String, JSON)>) {
            storage = []
            for (key, value) in members { self[key] = value }
        }

        /// Members already known to have unique keys (the parser checks).
        init(uniqueMembers: [Member]) {
            storage = uniqueMembers
            reindex()
        }

        private mutating func reindex() {
            guard storage.count > Self.indexThreshold else {
                positions = nil
                return
            }
            var map = [String: Int](minimumCapacity: storage.count)
            for (position, member) in storage.enumerated() { map[member.key] = position }
            positions = map
        }

        /// The position of `key`, or `nil` when the object does not have it.
        /// - Parameter key: The key to look for.
        /// - Returns: Its position in ``members``.
        /// - Complexity: O(1) on average for large objects, O(*n*) (with a small constant) for up to 16 members.
        public func index(forKey key: String) -> Int? {
            if let positions { return positions[key] }
            return storage.firstIndex { $0.key == key }
        }

        /// The value for `key`; `nil` when the key is absent. Setting `nil` removes the key.
        public subscript(key: String) -> JSON? {
            get {
                guard let position = index(forKey: key) else { return nil }
                return storage[position].value
            }
            set {
                if let position = index(forKey: key) {
                    if let newValue {
                        storage[position].value = newValue
                    } else {
                        storage.remove(at: position)
                        reindex()
                    }
                } else if let newValue {
                    storage.append((key: key, value: newValue))
                    if positions != nil {
                        positions?[key] = storage.count - 1
                    } else if storage.count > Self.indexThreshold {
                        reindex()
                    }
                }
            }
        }

        /// Removes `key` and returns its value, if it was there.
        /// - Parameter key: The key to remove.
        /// - Returns: The removed value.
        @discardableResult
        public mutating func removeValue(forKey key: String) -> JSON? {
            let old = self[key]
            self[key] = nil
            return old
        }

        /// The members in order.
        public var members: [Member] { storage }

        /// The keys in order.
        public var keys: [String] { storage.map(\.key) }

        /// The values in key order.
        public var values: [JSON] { storage.map(\.value) }

        /// The number of members.
        public var count: Int { storage.count }

        /// Whether the object has no members.
        public var isEmpty: Bool { storage.isEmpty }

        /// The members as a dictionary (order is lost).
        public var dictionary: [String: JSON] {
            Dictionary(storage.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }
}

extension JSON.Object: Sequence {
    /// Iterates over the members in order.
    /// - Returns: An iterator over `(key, value)` pairs.
    public func makeIterator() -> IndexingIterator<[Member]> { storage.makeIterator() }

    /// The number of members.
    public var underestimatedCount: Int { storage.count }
}

extension JSON.Object: Hashable {
    /// Whether both objects hold the same keys with equal values, in any order.
    public static func == (lhs: JSON.Object, rhs: JSON.Object) -> Bool {
        guard lhs.count == rhs.count else { return false }
        for (position, member) in lhs.storage.enumerated() {
            // The same order is the common case: compare in place before searching.
            if position < rhs.storage.count, rhs.storage[position].key == member.key {
                guard rhs.storage[position].value == member.value else { return false }
            } else {
                guard let value = rhs[member.key], value == member.value else { return false }
            }
        }
        return true
    }

    /// Hashes the members without regard to their order.
    /// - Parameter hasher: The hasher to feed.
    public func hash(into hasher: inout Hasher) {
        var combined = 0
        for member in storage {
            var memberHasher = Hasher()
            memberHasher.combine(member.key)
            memberHasher.combine(member.value)
            combined ^= memberHasher.finalize()
        }
        hasher.combine(count)
        hasher.combine(combined)
    }
}

extension JSON.Object: ExpressibleByDictionaryLiteral {
    /// An object with the literal's members in the literal's order.
    /// - Parameter elements: Keys and values.
    public init(dictionaryLiteral elements: (String, JSON)...) {
        self.init(elements)
    }
}
