import CRUDKit
import Foundation

extension InMemoryBackend {
    /// Whether `object` passes every filter in `filters` (`field=value`, `field__gte=value`, …).
    static func matches(_ object: JSON.Object, _ filters: [(name: String, value: String)]) -> Bool {
        filters.allSatisfy { filter in
            let parts = filter.name.components(separatedBy: "__")
            let field = parts[0]
            let operation = parts.count > 1 ? parts[parts.count - 1] : "exact"
            let stored = object[field] ?? .null
            let text = filterText(stored)
            switch operation {
            case "gte": return compare(stored, filter.value).map { $0 >= 0 } ?? false
            case "lte": return compare(stored, filter.value).map { $0 <= 0 } ?? false
            case "gt": return compare(stored, filter.value).map { $0 > 0 } ?? false
            case "lt": return compare(stored, filter.value).map { $0 < 0 } ?? false
            case "ne": return text != filter.value
            case "in": return filter.value.split(separator: ",").contains { String($0) == text }
            case "contains": return text.contains(filter.value)
            default: return text == filter.value
            }
        }
    }

    /// A stored value as a query parameter would spell it: `12`, `Ada`, `true`, `null`.
    static func filterText(_ value: JSON) -> String {
        if case .string(let text) = value { return text }
        return value.description
    }

    /// The order of a stored value and a query value: numerically when both are numbers, else as text; `nil` when
    /// the stored value is null or not comparable.
    static func compare(_ stored: JSON, _ value: String) -> Int? {
        switch stored {
        case .number(let number):
            guard let other = Double(value) else { return nil }
            let mine = number.doubleValue
            return mine < other ? -1 : (mine > other ? 1 : 0)
        case .string(let text):
            return text < value ? -1 : (text > value ? 1 : 0)
        default:
            return nil
        }
    }
}
