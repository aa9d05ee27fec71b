import Foundation

/// One step along a key path: a key in an object or an index in an array.
enum JSONPathComponent: Hashable, Sendable {
    case key(String)
    case index(Int)

    /// Splits `"data.people"`, `"results.3.age"` or `"results[3].age"` into steps. A bare number such as `3`
    /// is kept as a key and also works as an index when it meets an array.
    static func parse(_ path: String) -> [JSONPathComponent] {
        var components: [JSONPathComponent] = []
        for part in path.split(separator: ".", omittingEmptySubsequences: true) {
            var rest = part[...]
            if let open = rest.firstIndex(of: "[") {
                if open > rest.startIndex { components.append(.key(String(rest[..<open]))) }
                rest = rest[open...]
                while rest.first == "[", let close = rest.firstIndex(of: "]") {
                    let inside = rest[rest.index(after: rest.startIndex)..<close]
                    components.append(Int(inside).map { .index($0) } ?? .key(String(inside)))
                    rest = rest[rest.index(after: close)...]
                }
                if !rest.isEmpty { components.append(.key(String(rest))) }
            } else {
                components.append(.key(String(rest)))
            }
        }
        return components
    }

    /// Writes steps the way error messages show them: `results[3].age`.
    static func format(_ components: some Sequence<JSONPathComponent>) -> String {
        var text = ""
        for component in components {
            switch component {
            case .key(let key): text += text.isEmpty ? key : "." + key
            case .index(let index): text += "[\(index)]"
            }
        }
        return text
    }
}

extension JSON {
    /// The value along a dotted key path such as `"data.people"`, `"results.3.age"` or `"results[3].age"`;
    /// ``null`` when any step is missing. An empty path is the value itself.
    ///
    /// A number step indexes an array (and is a key in an object). Keys that contain dots need the array form,
    /// ``subscript(path:)-([String])``.
    public subscript(path path: String) -> JSON {
        value(along: JSONPathComponent.parse(path)) ?? .null
    }

    /// The value along a list of keys such as `["data", "people"]`; ``null`` when any step is missing.
    ///
    /// Each string is one key, taken literally (dots included); a number string also indexes an array.
    public subscript(path path: [String]) -> JSON {
        value(along: path.map { .key($0) }) ?? .null
    }

    /// The value along a dotted key path, or `nil` when a step is missing (a `null` value is returned as
    /// ``null``).
    /// - Parameter path: A path such as `"data.people"` or `"results[3].age"`.
    /// - Returns: The value there, or `nil`.
    package func value(atPath path: String) -> JSON? {
        value(along: JSONPathComponent.parse(path))
    }

    func value(along components: [JSONPathComponent]) -> JSON? {
        var current = self
        for component in components {
            guard let next = current.step(component) else { return nil }
            current = next
        }
        return current
    }

    func step(_ component: JSONPathComponent) -> JSON? {
        switch (component, self) {
        case (.key(let key), .object(let object)):
            return object[key]
        case (.key(let key), .array(let values)):
            guard let index = Int(key), values.indices.contains(index) else { return nil }
            return values[index]
        case (.index(let index), .array(let values)):
            guard values.indices.contains(index) else { return nil }
            return values[index]
        case (.index(let index), .object(let object)):
            return object[String(index)]
        default:
            return nil
        }
    }
}
