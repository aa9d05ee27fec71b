import Foundation

/// Where values came from: the API and parent path each model value was read, created or listed through, so that
/// its instance writes (`update()`, `update(from:)`, `delete()`, `read()`, member actions) go back there, as
/// ActiveResource's records keep `site` and `prefix_options`.
///
/// A Swift struct cannot carry hidden state, and a model must not change what it encodes, so the origin lives beside
/// the values, keyed by the model type and the id's `description`: a scope records every value it decodes, and an
/// instance write looks its value up. The rules (the Models article states them):
///
/// - One origin recorded for the key: the write goes there.
/// - None: the value was built by hand (or forgotten, see below): the model's own scope (``CRUDResource/api``, the
///   top-level path).
/// - Several (the same id read from two APIs, or under two parents): the ones recorded in the current
///   `API.withShared(_:operation:)` block are kept when they agree on one origin (two walks, each in its own block,
///   do not disturb each other); otherwise the write is refused as ambiguous, never guessed.
/// - The API an origin names is held weakly: an origin whose API no longer exists is set aside when another is
///   alive (a test suite's earlier API, say), and a value whose only origins are gone is refused, not sent elsewhere.
/// - Memory is bounded: two generations of at most ``generationSize`` keys each; a key not looked up for a whole
///   generation is forgotten, and the origins it named are summarised per model type, so that a value whose origin
///   was forgotten and may not have been the model's own scope is refused rather than sent to the default.
final class ValueOrigins: Sendable {
    /// A model type and an id.
    struct Key: Hashable {
        let type: ObjectIdentifier
        let id: String
    }

    /// An API (by identity) and a parent path.
    struct Place: Hashable {
        let api: ObjectIdentifier
        let parent: [String]
    }

    /// A server and a parent path: where a write lands, whichever `API` value sends it.
    struct Location: Hashable {
        let server: URL?
        let parent: [String]
    }

    /// One recorded origin: the place, the API itself (weakly), and the `withShared` block it was recorded in.
    struct Entry {
        let place: Place
        weak var api: API?
        let context: UInt64?
    }

    /// What is remembered for one key: its origins, or that there were too many to keep.
    struct Record {
        var entries: [Entry] = []
        /// The APIs (weakly) of origins dropped to keep at most ``originsPerKey`` places: while one of them is alive,
        /// the value may be one of theirs, and a write is refused.
        var dropped: [Holder] = []
        var tooMany = false
    }

    /// What was forgotten of one model type: the places its forgotten keys named (each with its API, weakly, so that
    /// a new API allocated where a gone one was is not taken for it), or too many to list.
    enum Forgotten {
        case places([Place: Holder])
        case many
    }

    /// An API held weakly; `nil` once it is gone (or when two APIs were seen at one address).
    struct Holder {
        weak var api: API?
    }

    struct State {
        var current: [Key: Record] = [:]
        var previous: [Key: Record] = [:]
        var forgotten: [ObjectIdentifier: Forgotten] = [:]
    }

    /// Where a write of a value goes.
    enum Resolution {
        /// Back where it came from.
        case origin(API, parent: [String])
        /// Nothing is known: the model's own scope.
        case unknown
        /// Refused before sending, for this reason.
        case refused(String)
    }

    /// The most keys one generation holds.
    let generationSize: Int
    /// The most distinct origins one key keeps; older ones are dropped, and refuse writes while their API lives.
    static let originsPerKey = 8
    /// The most places remembered per model type among forgotten keys before any unknown value of it is refused.
    static let forgottenPlaces = 16

    private let state = Locked(State())

    /// The registry every model operation uses.
    static let shared = ValueOrigins(generationSize: 32_768)

    init(generationSize: Int) {
        self.generationSize = max(1, generationSize)
    }

    /// Records that the value of `type` with `id` came through `api` under `parent`.
    func record(_ type: Any.Type, id: String, api: API, parent: [String], context: UInt64?) {
        record(type, ids: CollectionOfOne(id), api: api, parent: parent, context: context)
    }

    /// Records that the values of `type` with `ids` (a page of a list, say) came through `api` under `parent`, under
    /// one lock.
    func record(_ type: Any.Type, ids: some Sequence<String>, api: API, parent: [String], context: UInt64?) {
        let entry = Entry(place: Place(api: ObjectIdentifier(api), parent: parent), api: api, context: context)
        let type = ObjectIdentifier(type)
        state.withLock { state in
            for id in ids where !id.isEmpty {
                add(entry, for: Key(type: type, id: id), in: &state)
            }
        }
    }

    /// Adds `entry` to the origins of `key`.
    private func add(_ entry: Entry, for key: Key, in state: inout State) {
        // The common case, a value read again from the one place (and block) it came from, in this generation:
        // nothing changes, and one lookup tells.
        if let index = state.current.index(forKey: key), Self.holdsOnly(entry, state.current.values[index]) {
            return
        }
        guard var record = take(key, from: &state) else {
            store(Record(entries: [entry]), for: key, in: &state)
            return
        }
        if Self.holdsOnly(entry, record) {
            store(record, for: key, in: &state)
            return
        }
        if !record.tooMany {
            // Origins whose API is gone are set aside beside this live one: they must not count as origins.
            record.entries.removeAll {
                $0.api == nil || ($0.place == entry.place && $0.context == entry.context)
            }
            record.dropped.removeAll { $0.api == nil }
            record.entries.append(entry)
            // Many blocks reading the same id from the same place: keep the newest few of each place.
            while record.entries.count > 2 * Self.originsPerKey,
                let old = record.entries.indices.first(where: { index in
                    record.entries[(index + 1)...].contains { $0.place == record.entries[index].place }
                })
            {
                record.entries.remove(at: old)
            }
            // More places than kept (there cannot be, with no more entries than that): drop the oldest, remembering
            // its API while it lives.
            while record.entries.count > Self.originsPerKey,
                Set(record.entries.map(\.place)).count > Self.originsPerKey, let oldest = record.entries.first
            {
                record.dropped.append(Holder(api: oldest.api))
                record.entries.removeAll { $0.place == oldest.place }
            }
            if record.dropped.count > 4 * Self.originsPerKey { record.tooMany = true }
        }
        store(record, for: key, in: &state)
    }

    /// Whether `record` holds `entry` as its one origin and nothing else (adding it again changes nothing).
    private static func holdsOnly(_ entry: Entry, _ record: Record) -> Bool {
        guard !record.tooMany, record.dropped.isEmpty, record.entries.count == 1, let only = record.entries.first
        else { return false }
        return only.place == entry.place && only.context == entry.context && only.api === entry.api
    }

    /// Where a write of the value of `type` with `id` goes.
    /// - Parameters:
    ///   - home: The model's own place (its API now, no parent), the answer for a value nothing is known of.
    ///   - context: The current `withShared` block, if any.
    func resolve(_ type: Any.Type, id: String, home: Place, context: UInt64?) -> Resolution {
        let key = Key(type: ObjectIdentifier(type), id: id)
        return state.withLock { state in
            guard let record = take(key, from: &state) else {
                return forgottenRisk(key.type, home: home, in: state)
            }
            store(record, for: key, in: &state)
            if record.tooMany || record.dropped.contains(where: { $0.api != nil }) {
                return .refused("it was read through more than \(Self.originsPerKey) origins")
            }
            // An API that is gone cannot be written to; when another origin is alive, the value is one of its.
            var candidates = record.entries.filter { $0.api != nil }
            guard !candidates.isEmpty else { return .refused("the API it was read through no longer exists") }
            if Set(candidates.map(\.place)).count > 1 {
                let here = candidates.filter { $0.context == context && context != nil }
                if !here.isEmpty, Set(here.map(\.place)).count == 1 { candidates = here }
            }
            // Several APIs on one server under one parent (the same base URL with other conventions, middleware or
            // credentials: `api.with { … }`) are one origin: the write goes through the one read through last.
            let locations = Set(
                candidates.map { Location(server: $0.api?.configuration.baseURL, parent: $0.place.parent) })
            guard locations.count == 1, let entry = candidates.last else {
                return .refused("it was read through several origins (\(Self.describe(record.entries)))")
            }
            guard let api = entry.api else {
                return .refused("the API it was read through no longer exists")
            }
            return .origin(api, parent: entry.place.parent)
        }
    }

    /// Forgets everything (for tests of this registry).
    func removeAll() {
        state.withLock { $0 = State() }
    }

    // MARK: - Generations

    /// Removes and returns the record of `key` from either generation.
    private func take(_ key: Key, from state: inout State) -> Record? {
        if let record = state.current.removeValue(forKey: key) { return record }
        return state.previous.removeValue(forKey: key)
    }

    /// Stores `record` in the current generation, starting a new one (and forgetting the oldest) when it is full.
    private func store(_ record: Record, for key: Key, in state: inout State) {
        if state.current.count >= generationSize {
            for (old, dropped) in state.previous { forget(dropped, of: old.type, in: &state) }
            state.previous = state.current
            state.current = [:]
        }
        state.current[key] = record
    }

    private func forget(_ record: Record, of type: ObjectIdentifier, in state: inout State) {
        if case .many = state.forgotten[type] { return }
        guard !record.tooMany, record.dropped.allSatisfy({ $0.api == nil }),
            case .places(var places) = state.forgotten[type] ?? .places([:])
        else {
            state.forgotten[type] = .many
            return
        }
        for entry in record.entries {
            if let known = places[entry.place] {
                // Two APIs at one address (one gone, one new), or the API gone: never the home API again.
                if known.api == nil || known.api !== entry.api { places[entry.place] = Holder(api: nil) }
            } else {
                places[entry.place] = Holder(api: entry.api)
            }
        }
        state.forgotten[type] = places.count > Self.forgottenPlaces ? .many : .places(places)
    }

    /// A value nothing is remembered of: the model's own scope, unless values of its type that came from elsewhere
    /// were forgotten (it may be one of them).
    private func forgottenRisk(_ type: ObjectIdentifier, home: Place, in state: State) -> Resolution {
        switch state.forgotten[type] {
        case nil: return .unknown
        case .many:
            return .refused("its origin may have been forgotten among the many values of this type read since")
        case .places(let places):
            // Only the home API itself (alive, so no other API has its address) was forgotten: the value goes home.
            return places.allSatisfy { $0.key == home && $0.value.api != nil }
                ? .unknown : .refused("its origin may have been forgotten among the values of this type read since")
        }
    }

    private static func describe(_ entries: [Entry]) -> String {
        var seen: [Place] = []
        var parts: [String] = []
        for entry in entries where !seen.contains(entry.place) {
            seen.append(entry.place)
            let base = entry.api?.configuration.baseURL.map { Redaction.standard.redact($0) } ?? "an API that is gone"
            parts.append(
                entry.place.parent.isEmpty ? base : "\(base) under \(entry.place.parent.joined(separator: "/"))")
        }
        return parts.joined(separator: "; ")
    }
}
