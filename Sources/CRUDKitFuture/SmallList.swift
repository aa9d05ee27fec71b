/// A list that stores zero or one element without allocating: most futures have at most one observer.
@usableFromInline
package enum SmallList<Element> {
    case none
    case one(Element)
    case many([Element])

    /// Whether the list holds nothing.
    @inlinable
    package var isEmpty: Bool {
        if case .none = self { return true }
        return false
    }

    /// Adds `element` at the end.
    @inlinable
    mutating func append(_ element: Element) {
        switch self {
        case .none:
            self = .one(element)
        case .one(let first):
            self = .many([first, element])
        case .many(var all):
            self = .none
            all.append(element)
            self = .many(all)
        }
    }

    /// Calls `body` on each element, in order.
    @inlinable
    func forEach(_ body: (Element) -> Void) {
        switch self {
        case .none: return
        case .one(let element): body(element)
        case .many(let all): all.forEach(body)
        }
    }
}

extension SmallList: Sendable where Element: Sendable {}
