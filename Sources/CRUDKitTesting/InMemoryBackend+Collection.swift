import CRUDKit
import Foundation

extension InMemoryBackend {
    /// Checks an object before it is stored: returns field errors (`[field: [message]]`, empty when valid).
    ///
    /// It receives the whole object as it would be stored: the POST body on create (`isCreate` is `true`), the
    /// PUT body or the PATCHed result on update. Use ``InMemoryBackend/nonFieldErrorsKey`` for errors about the
    /// object as a whole.
    public typealias Validator = @Sendable (_ object: JSON, _ isCreate: Bool) -> [String: [String]]

    /// How a collection assigns ids to created objects.
    public enum IDStrategy: Sendable, Hashable {
        /// 1, 2, 3, … as JSON numbers, counted per collection (across parents, as database ids are).
        case incrementing
        /// Lower-case version-4-shaped UUID strings, derived from a counter so every run gives the same ids.
        case uuid
        /// The same UUIDs upper-case, as Swift's `UUID` (and so Vapor) writes them.
        case uppercaseUUID
    }

    /// A registered collection.
    struct Collection: Sendable {
        var segments: [PathPattern.Segment]
        var key: String
        var ids: IDStrategy
        var idKey: String
        var objectKey: String?
        var collectionKey: String?
        /// A key request bodies may be wrapped in; answers are bare.
        var requestKey: String?
        var parentKey: String?
        var validate: Validator?
        /// The columns every object has, in order, with their defaults; `nil` keeps whatever is sent.
        var columns: JSON.Object?
        /// The collection's own pagination, or `nil` for the style's.
        var pagination: InMemoryBackend.Pagination?
        /// The collection's own timestamps, or `nil` for the style's.
        var timestamps: InMemoryBackend.Timestamps?
        var created = 0

        /// The key of the collection this one is nested in (the segments before the last capture).
        var parentCollectionKey: String? {
            guard let last = segments.lastIndex(where: { if case .capture = $0 { true } else { false } }) else {
                return nil
            }
            return Self.key(of: Array(segments[..<last]))
        }

        /// `people/:/posts` for `people/{id}/posts`.
        static func key(of segments: [PathPattern.Segment]) -> String {
            segments.map { segment in
                if case .literal(let text) = segment { return text }
                return ":"
            }.joined(separator: "/")
        }

        /// The next id, as stored in the object.
        mutating func nextID() -> JSON {
            created += 1
            switch ids {
            case .incrementing: return JSON(created)
            case .uuid, .uppercaseUUID:
                var generator = SplitMix64(seed: UInt64(created) &* 0x2545_f491_4f6c_dd1d)
                let high = generator.next()
                let low = generator.next()
                let hex = { (value: UInt64, digits: Int) in
                    let text = String(value, radix: 16)
                    return String(repeating: "0", count: max(digits - text.count, 0)) + text.suffix(digits)
                }
                let timeHigh = (high & 0x0fff) | 0x4000
                let variant = (low >> 48 & 0x3fff) | 0x8000
                let text =
                    "\(hex(high >> 32, 8))-\(hex(high >> 16 & 0xffff, 4))-\(hex(timeHigh, 4))-"
                    + "\(hex(variant, 4))-\(hex(low & 0xffff_ffff_ffff, 12))"
                return .string(ids == .uppercaseUUID ? text.uppercased() : text)
            }
        }

        /// Whether `candidate` (the path segments without the id) names this collection; returns the parent ids.
        func scope(of candidate: ArraySlice<String>) -> [String]? {
            guard candidate.count == segments.count else { return nil }
            var scope: [String] = []
            for (segment, value) in zip(segments, candidate) {
                switch segment {
                case .literal(let text): if text != value { return nil }
                case .capture, .any, .rest: scope.append(value)
                }
            }
            return scope
        }
    }

    /// One stored object with its version.
    struct Row: Sendable {
        var id: String
        var object: JSON.Object
        var revision: Int
        var modified: Date
    }

    /// The objects of one collection under one parent, in creation order.
    struct Table: Sendable {
        var rows: [Row] = []
        var positions: [String: Int] = [:]

        subscript(id: String) -> Row? {
            get { positions[id].map { rows[$0] } }
            set {
                if let index = positions[id] {
                    if let newValue {
                        rows[index] = newValue
                    } else {
                        rows.remove(at: index)
                        positions = [:]
                        for (position, row) in rows.enumerated() { positions[row.id] = position }
                    }
                } else if let newValue {
                    positions[id] = rows.count
                    rows.append(newValue)
                }
            }
        }
    }

    /// Where a table is: its collection and the ids of its parents.
    struct TableKey: Sendable, Hashable {
        var collection: String
        var scope: [String]
    }

    /// The text of an id as it appears in a path: `12` for the number 12, the string itself for a string.
    static func idText(_ id: JSON) -> String {
        if case .string(let text) = id { return text }
        return id.description
    }
}
