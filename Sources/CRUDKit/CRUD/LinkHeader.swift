/// Reading of RFC 8288 `Link` header values: `<https://x/people?page=2>; rel="next", <…>; rel="last"`.
enum LinkHeader {
    /// The target of the first link whose `rel` (a space-separated list) contains `relation`.
    static func target(of relation: String, in values: [String]) -> String? {
        for value in values {
            for link in links(in: value) where link.relations.contains(relation.lowercased()) {
                return link.target
            }
        }
        return nil
    }

    /// Every link in one header value, with its lower-cased relations.
    static func links(in value: String) -> [(target: String, relations: [String])] {
        var result: [(target: String, relations: [String])] = []
        var rest = Substring(value)
        while let open = rest.firstIndex(of: "<") {
            guard let close = rest[open...].firstIndex(of: ">") else { break }
            let target = String(rest[rest.index(after: open)..<close])
            rest = rest[rest.index(after: close)...]
            // The parameters run to the next comma outside quotes.
            var parameters = ""
            var quoted = false
            var index = rest.startIndex
            while index < rest.endIndex {
                let character = rest[index]
                if character == "\"" { quoted.toggle() }
                if character == ",", !quoted { break }
                parameters.append(character)
                index = rest.index(after: index)
            }
            rest = index < rest.endIndex ? rest[rest.index(after: index)...] : rest[rest.endIndex...]
            result.append((target, relations(in: parameters)))
        }
        return result
    }

    private static func relations(in parameters: String) -> [String] {
        for parameter in parameters.split(separator: ";") {
            let parts = parameter.split(separator: "=", maxSplits: 1)
            guard parts.count == 2, parts[0].trimmingSpaces.lowercased() == "rel" else { continue }
            var value = parts[1].trimmingSpaces
            if value.hasPrefix("\"") { value.removeFirst() }
            if value.hasSuffix("\"") { value.removeLast() }
            return value.split(separator: " ").map { $0.lowercased() }
        }
        return []
    }
}

extension Substring {
    fileprivate var trimmingSpaces: String {
        String(drop { $0 == " " || $0 == "\t" }.reversed().drop { $0 == " " || $0 == "\t" }.reversed())
    }
}
