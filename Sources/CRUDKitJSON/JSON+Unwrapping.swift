import Foundation

extension JSON {
    /// The sub-document under a root key, a collection key or a key path: the one place envelopes are opened,
    /// for both mapping styles.
    ///
    /// ```swift
    /// let person = try json.unwrap("person")       // {"person": {…}}
    /// let people = try json.unwrap("results")      // DRF: {"count": …, "results": […]}
    /// let nested = try json.unwrap("data.people")  // {"data": {"people": […]}}
    /// ```
    /// An empty path is the document itself.
    /// - Parameter path: A key, or a dotted path such as `data.people` or `results[0]`.
    /// - Returns: The value there (which may be `null`).
    /// - Throws: ``JSONMappingError`` naming the first missing step.
    package func unwrap(_ path: String) throws -> JSON {
        try unwrap(JSONPathComponent.parse(path))
    }

    func unwrap(_ components: [JSONPathComponent]) throws(JSONMappingError) -> JSON {
        var current = self
        for (position, component) in components.enumerated() {
            guard let next = current.step(component) else {
                let isContainer = current.object != nil || current.array != nil
                throw JSONMappingError(
                    components: Array(components[...position]),
                    expected: "a value",
                    found: isContainer ? "nothing" : current.kindDescription + " around it"
                )
            }
            current = next
        }
        return current
    }

    /// Maps the value at `path` with a hand mapping; errors name the whole path from the document root
    /// (`results[3].age`).
    ///
    /// ```swift
    /// let people = try json.convert([Person].self, at: "results")
    /// ```
    /// - Parameters:
    ///   - type: The type to map to.
    ///   - path: Where the value sits (empty for the document itself).
    /// - Returns: The mapped value.
    /// - Throws: ``JSONMappingError``.
    public func convert<T: JSONReadable>(_ type: T.Type, at path: String = "") throws -> T {
        let components = JSONPathComponent.parse(path)
        let value = try unwrap(components)
        do {
            return try T._read(from: value)
        } catch let error as JSONMappingError {
            throw error.prefixed(with: components)
        }
    }
}
