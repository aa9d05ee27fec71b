/// Who registered an observer, so that it can take the observer back: a derived future, an `await`, a combinator
/// waiting on several futures (one `slot` for each), or nobody (`owner == nil`, a callback kept until completion).
@usableFromInline
package struct ObserverKey: Hashable, Sendable {
    /// The object that registered the observer and may remove it; `nil` for a callback that stays to the end.
    @usableFromInline let owner: ObjectIdentifier?
    /// Tells apart the observers one owner registers on the same future.
    @usableFromInline let slot: Int

    /// The key of the observer `owner` registers in `slot`.
    @inlinable
    init(owner: AnyObject, slot: Int = 0) {
        self.owner = ObjectIdentifier(owner)
        self.slot = slot
    }

    /// The key of a callback nobody removes; `order` makes it unique among the observers of its future.
    @inlinable
    init(anonymous order: Int) {
        owner = nil
        slot = order
    }

    /// Whether the key belongs to a callback nobody removes.
    @inlinable
    var isAnonymous: Bool { owner == nil }
}

/// The observers of a pending future, in registration order, each removable by its key in O(1).
///
/// Zero or one observer (most futures) costs no allocation; more sit in a dictionary by key, each with its
/// registration number, and are put back in order when the future completes. Removing an observer frees its
/// entry at once, so a future awaited and given up a million times holds no more than the observers still there.
@usableFromInline
package enum ObserverList<Observer> {
    case none
    case one(ObserverKey, Observer)
    case many(Table)

    /// More than one observer: each by its key, with the number that keeps registration order.
    @usableFromInline
    package struct Table {
        @usableFromInline var entries: [ObserverKey: (order: Int, observer: Observer)]
        @usableFromInline var nextOrder: Int

        @inlinable
        init(entries: [ObserverKey: (order: Int, observer: Observer)], nextOrder: Int) {
            self.entries = entries
            self.nextOrder = nextOrder
        }
    }

    /// Whether the list holds nothing.
    @inlinable
    package var isEmpty: Bool {
        if case .none = self { return true }
        return false
    }

    /// How many observers the list holds.
    @inlinable
    package var count: Int {
        switch self {
        case .none: return 0
        case .one: return 1
        case .many(let table): return table.entries.count
        }
    }

    /// Adds `observer` after the others, under `key` (`nil`: a callback nobody removes).
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func append(_ observer: Observer, key: ObserverKey?) {
        switch self {
        case .none:
            self = .one(key ?? ObserverKey(anonymous: 0), observer)
        case .one(let firstKey, let first):
            let secondKey = key ?? ObserverKey(anonymous: 1)
            var entries: [ObserverKey: (order: Int, observer: Observer)] = [:]
            entries.reserveCapacity(2)
            entries[firstKey] = (0, first)
            entries[secondKey] = (1, observer)
            self = .many(Table(entries: entries, nextOrder: 2))
        case .many(var table):
            self = .none
            let order = table.nextOrder
            table.nextOrder += 1
            table.entries[key ?? ObserverKey(anonymous: order)] = (order, observer)
            self = .many(table)
        }
    }

    /// Removes the observer registered under `key`; `false` when there is none.
    ///
    /// - Complexity: O(1) amortized.
    @inlinable
    mutating func remove(_ key: ObserverKey) -> Bool {
        switch self {
        case .none:
            return false
        case .one(let only, _):
            guard only == key else { return false }
            self = .none
            return true
        case .many(var table):
            self = .none
            let removed = table.entries.removeValue(forKey: key) != nil
            self = table.entries.isEmpty ? .none : .many(table)
            return removed
        }
    }

    /// The observers in registration order, to hand an outcome to.
    ///
    /// - Complexity: O(1) for one observer; O(n log n) for n.
    @inlinable
    var ordered: SmallList<Observer> {
        switch self {
        case .none: return .none
        case .one(_, let observer): return .one(observer)
        case .many(let table):
            return .many(table.entries.values.sorted { $0.order < $1.order }.map(\.observer))
        }
    }
}

extension ObserverList: Sendable where Observer: Sendable {}
extension ObserverList.Table: Sendable where Observer: Sendable {}
