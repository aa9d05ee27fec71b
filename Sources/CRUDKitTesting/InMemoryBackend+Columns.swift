import CRUDKit
import Foundation

extension InMemoryBackend {
    /// The read-only timestamps a framework adds to every stored object: set on create (both) and on each write
    /// that changes something (`updated`); a value sent for them is ignored.
    public struct Timestamps: Sendable, Hashable {
        /// The key of the creation time, or `nil` for none.
        public var created: String?
        /// The key of the last change's time, or `nil` for none.
        public var updated: String?
        /// How many fraction digits the ISO 8601 UTC times have (`0` for `2026-11-27T10:13:44Z`).
        public var fractionDigits: Int

        /// Creates timestamps with these keys.
        ///
        /// - Parameters:
        ///   - created: The key of the creation time, or `nil`.
        ///   - updated: The key of the last change's time, or `nil`.
        ///   - fractionDigits: Fraction digits of the times (0 to 9).
        public init(created: String?, updated: String?, fractionDigits: Int) {
            self.created = created
            self.updated = updated
            self.fractionDigits = min(max(fractionDigits, 0), 9)
        }

        /// Rails' `t.timestamps`: `created_at` and `updated_at`, milliseconds (`2026-11-27T10:13:44.517Z`).
        public static let rails = Timestamps(created: "created_at", updated: "updated_at", fractionDigits: 3)
        /// Fluent's `@Timestamp var createdAt` and `updatedAt`: keys as the properties are named, whole seconds
        /// (Vapor's ISO 8601 encoder).
        public static let vapor = Timestamps(created: "createdAt", updated: "updatedAt", fractionDigits: 0)

        /// The keys, in order.
        var keys: [String] { [created, updated].compactMap { $0 } }
    }

    /// `members` as the collection stores them: the id and parent first, then the registered columns in order (a
    /// column `members` lacks takes its default) with members that name no column dropped, or every member when no
    /// columns are registered; then the timestamps (kept from `stored`, the object before this write, else taken
    /// from `members` when `keepsTimestamps` (fixtures), else `time`; `updated` moves to `time` when the object
    /// changed).
    static func shaped(
        _ members: JSON.Object, id: JSON, parent: JSON?, stored: JSON.Object?, collection: Collection, style: Style,
        time: Date, keepsTimestamps: Bool = false
    ) -> JSON.Object {
        var object = JSON.Object([(collection.idKey, id)])
        if let parentKey = collection.parentKey, let parent { object[parentKey] = parent }
        let timestamps = collection.timestamps ?? style.timestamps
        let stamps = timestamps?.keys ?? []
        let reserved = Set([collection.idKey] + [collection.parentKey].compactMap { $0 } + stamps)
        if let columns = collection.columns {
            for (key, initial) in columns where !reserved.contains(key) {
                object[key] = members[key] ?? initial
            }
        } else {
            for (key, value) in members where !reserved.contains(key) { object[key] = value }
        }
        guard let timestamps else { return object }
        let now = JSON.string(HTTPDate.iso8601(time, fractionDigits: timestamps.fractionDigits))
        let given = { (key: String) in keepsTimestamps ? members[key] : nil }
        if let created = timestamps.created { object[created] = stored?[created] ?? given(created) ?? now }
        if let updated = timestamps.updated {
            var current = object
            var old = stored ?? [:]
            for key in stamps {
                _ = current.removeValue(forKey: key)
                _ = old.removeValue(forKey: key)
            }
            let unchanged = stored != nil && current == old
            object[updated] = (unchanged ? stored?[updated] : given(updated)) ?? now
        }
        return object
    }

    /// The order field errors are listed in: the registered columns' order, then the other fields by name, then
    /// ``nonFieldErrorsKey``.
    static func fieldOrder(_ fields: some Sequence<String>, columns: JSON.Object?) -> [String] {
        let position = Dictionary((columns?.keys ?? []).enumerated().map { ($1, $0) }, uniquingKeysWith: { a, _ in a })
        return fields.sorted { left, right in
            let a = (left == nonFieldErrorsKey ? 2 : position[left] == nil ? 1 : 0, position[left] ?? 0, left)
            let b = (right == nonFieldErrorsKey ? 2 : position[right] == nil ? 1 : 0, position[right] ?? 0, right)
            return a < b
        }
    }
}
