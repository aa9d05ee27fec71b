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

        /// A member as stored: a struct, whose copies the compiler specializes (tuples go through slower generic
        /// witnesses).
        struct Entry {
            var key: String
            var value: JSON
            /// Whether the member was removed from an indexed object and waits for the next compaction (the flag
            /// fits in the entry's padding).
            var isRemoved = false
        }

        /// The members; in an indexed object also the places of removed ones (``Entry/isRemoved``) until the next
        /// compaction: removing a member marks its place instead of moving every later member and rebuilding the
        /// positions, so removing *k* keys costs O(*k*), with one compaction whenever half the places are removed.
        private var storage: [Entry]
        /// For objects above ``indexThreshold`` members: the position of each member's key (compared by its bytes).
        /// It holds exactly the members not removed.
        private var positions: [JSONByteKey: Int]?

        /// Above this many members an object keeps a dictionary of positions.
        static let indexThreshold = 16

        /// An empty object.
        public init() {
            storage = []
        }

        /// An object with the members of a dictionary, in the dictionary's (unspecified) order.
        /// - Parameter dictionary: The members.
        public init(_ dictionary: [String: JSON]) {
            storage = dictionary.map { Entry(key: $0.key, value: $0.value) }
            reindex()
        }

        /// An object with these members in this order; a repeated key keeps its last value.
        /// - Parameter members: Keys and values.
        public init(_ members: some Sequence<(String, JSON)>) {
            self.init(entriesKeepingLast: members.map { Entry(key: $0.0, value: $0.1) })
        }

        /// Members that may repeat a key: the last value wins, at the position of the first occurrence.
        init(entriesKeepingLast entries: [Entry]) {
            var unique: [Entry] = []
            unique.reserveCapacity(entries.count)
            var map: [JSONByteKey: Int]? = entries.count > Self.indexThreshold ? [:] : nil
            for entry in entries {
                if map != nil {
                    if let position = map?[JSONByteKey(entry.key)] {
                        unique[position].value = entry.value
                    } else {
                        map?[JSONByteKey(entry.key)] = unique.count
                        unique.append(entry)
                    }
                    continue
                }
                let length = entry.key.utf8.count
                if let position = unique.firstIndex(where: { Self.sameKey($0.key, entry.key, length: length) }) {
                    unique[position].value = entry.value
                } else {
                    unique.append(entry)
                }
            }
            storage = unique
            positions = map
        }

        /// Members already known to have unique keys (the parser checks).
        init(uniqueEntries: [Entry]) {
            storage = uniqueEntries
            reindex()
        }

        /// The members as stored, for CRUDKit's own readers and writers.
        var entries: [Entry] {
            guard let positions, positions.count < storage.count else { return storage }
            return storage.filter { !$0.isRemoved }
        }

        /// The places in the storage, removed members waiting for compaction included (tests read it).
        package var storedCount: Int { storage.count }

        private mutating func reindex() {
            guard storage.count > Self.indexThreshold else {
                positions = nil
                return
            }
            var map = [JSONByteKey: Int](minimumCapacity: storage.count)
            for (position, member) in storage.enumerated() { map[JSONByteKey(member.key)] = position }
            positions = map
        }

        /// The position of `key` in ``members``, or `nil` when the object does not have it.
        /// - Parameter key: The key to look for.
        /// - Returns: Its position in ``members``.
        /// - Complexity: O(1) on average for large objects, O(*n*) (with a small constant) for up to 16 members, and
        ///   O(*n*) while removed members wait for compaction.
        package func index(forKey key: String) -> Int? {
            guard let place = place(forKey: key) else { return nil }
            guard let positions, positions.count < storage.count else { return place }
            return storage[..<place].reduce(0) { $1.isRemoved ? $0 : $0 + 1 }
        }

        /// The place of `key` in the storage, or `nil` when the object does not have it.
        private func place(forKey key: String) -> Int? {
            if let positions { return positions[JSONByteKey(key)] }
            let length = key.utf8.count
            for position in storage.indices where Self.sameKey(storage[position].key, key, length: length) {
                return position
            }
            return nil
        }

        /// Byte equality (RFC 8259 §8.3: keys are not normalized) with a cheap length check first: most keys in an
        /// object differ in length, and comparing the lengths of native strings costs far less than comparing the
        /// strings.
        @inline(__always)
        static func sameKey(_ candidate: String, _ key: String, length: Int) -> Bool {
            candidate.utf8.count == length && JSONByteKey.sameBytes(candidate, key)
        }

        /// The value for `key`; `nil` when the key is absent. Setting `nil` removes the key.
        ///
        /// Keys are compared by their UTF-8 bytes (RFC 8259 §8.3): `"é"` and `"e\u{301}"` are two keys.
        public subscript(key: String) -> JSON? {
            get {
                guard let position = place(forKey: key) else { return nil }
                return storage[position].value
            }
            set {
                if let position = place(forKey: key) {
                    if let newValue {
                        storage[position].value = newValue
                    } else {
                        remove(at: position, key: key)
                    }
                } else if let newValue {
                    storage.append(Entry(key: key, value: newValue))
                    if positions != nil {
                        positions?[JSONByteKey(key)] = storage.count - 1
                    } else if storage.count > Self.indexThreshold {
                        reindex()
                    }
                }
            }
        }

        /// Removes the member at `position`: in a small object at once, in an indexed one by marking its place (see
        /// ``storage``).
        private mutating func remove(at position: Int, key: String) {
            guard positions != nil else {
                storage.remove(at: position)
                return
            }
            positions?[JSONByteKey(key)] = nil
            storage[position] = Entry(key: "", value: .null, isRemoved: true)
            // Compact once half the places are removed: each compaction pays for the removals before it.
            guard let live = positions?.count, live * 2 <= storage.count else { return }
            storage.removeAll { $0.isRemoved }
            reindex()
        }

        /// Removes `key` and returns its value, if it was there.
        /// - Parameter key: The key to remove.
        /// - Returns: The removed value.
        /// - Complexity: O(1) on average for large objects (amortized), O(*n*) for up to 16 members.
        @discardableResult
        public mutating func removeValue(forKey key: String) -> JSON? {
            guard let position = place(forKey: key) else { return nil }
            let old = storage[position].value
            remove(at: position, key: key)
            return old
        }

        /// The members in order.
        public var members: [Member] { entries.map { (key: $0.key, value: $0.value) } }

        /// The keys in order.
        public var keys: [String] { entries.map(\.key) }

        /// The values in key order.
        public var values: [JSON] { entries.map(\.value) }

        /// The number of members.
        public var count: Int { positions?.count ?? storage.count }

        /// Whether the object has no members.
        public var isEmpty: Bool { count == 0 }

        /// The members as a dictionary (order is lost; keys that differ only in Unicode normalization, which
        /// `String` treats as one, keep the last).
        package var dictionary: [String: JSON] {
            Dictionary(entries.map { ($0.key, $0.value) }, uniquingKeysWith: { _, last in last })
        }
    }
}

extension JSON.Object: Sequence {
    /// Iterates over the members of an object in order.
    public struct Iterator: IteratorProtocol {
        private var base: IndexingIterator<[Entry]>

        init(_ entries: [Entry]) { base = entries.makeIterator() }

        /// The next member, or `nil` after the last.
        /// - Returns: The member.
        public mutating func next() -> Member? {
            base.next().map { (key: $0.key, value: $0.value) }
        }
    }

    /// Iterates over the members in order.
    /// - Returns: An iterator over `(key, value)` pairs.
    public func makeIterator() -> Iterator { Iterator(entries) }

    /// The number of members.
    public var underestimatedCount: Int { count }
}

extension JSON.Object: Hashable {
    /// Whether both objects hold the same keys with equal values, in any order.
    public static func == (lhs: JSON.Object, rhs: JSON.Object) -> Bool {
        guard lhs.count == rhs.count else { return false }
        let theirs = rhs.entries
        for (position, member) in lhs.entries.enumerated() {
            // The same order is the common case: compare in place before searching.
            if position < theirs.count, JSONByteKey.sameBytes(theirs[position].key, member.key) {
                guard theirs[position].value == member.value else { return false }
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
        for member in entries {
            var memberHasher = Hasher()
            memberHasher.combine(JSONByteKey(member.key))
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
