import Foundation

/// Finds the resources of a document in its paths: a collection (`/people`) and its members (`/people/{id}`),
/// nested collections (`/people/{person_pk}/posts`), and the custom actions under them.
struct ResourceExtractor {
    static let methods = ["get", "put", "post", "delete", "patch", "head", "options", "trace"]

    /// One path of the document, split.
    struct PathEntry {
        var spelled: String
        var item: Node
        var pointer: String
        var segments: [String]
        var trailingSlash: Bool
        /// The path with each segment that holds a parameter written `{}`, without slashes at either end.
        var normalized: String { segments.map { $0.contains("{") ? "{}" : $0 }.joined(separator: "/") }
        /// The last segment is one parameter and nothing else (`{id}`, not `{id}.json` or `{id}:activate`): a
        /// member path, whose id CRUDKit appends as the whole segment.
        var lastIsParameter: Bool {
            guard let last = segments.last, last.hasPrefix("{"), last.hasSuffix("}") else { return false }
            return last.dropFirst().dropLast().allSatisfy { $0 != "{" && $0 != "}" }
        }
    }

    /// A collection found in the paths.
    struct Found {
        var key: String
        var collection: PathEntry?
        var member: PathEntry?
        var actions: [(entry: PathEntry, subpath: String, onMember: Bool)] = []
    }

    let mapper: SchemaMapper

    func entries() -> [PathEntry] {
        (mapper.root["paths"]?.members ?? []).map { member in
            let trimmed = member.key.hasPrefix("/") ? String(member.key.dropFirst()) : member.key
            let trailing = trimmed.hasSuffix("/") && !trimmed.isEmpty
            let segments = trimmed.split(separator: "/").map(String.init)
            return PathEntry(
                spelled: member.key, item: mapper.resolve(member.value, pointer: "#").node,
                pointer: Pointer.join("#/paths", member.key), segments: segments, trailingSlash: trailing)
        }
    }

    func operations(_ entry: PathEntry) -> [String] { Self.methods.filter { entry.item[$0] != nil } }

    /// The collections, sorted by path, with their members and actions.
    func find() -> [Found] {
        var found: [String: Found] = [:]
        let all = entries()
        for entry in all where entry.segments.isEmpty {
            mapper.note(entry.pointer, "the root path is not a collection; no model or action is generated")
        }
        for entry in all where !entry.segments.isEmpty {
            if entry.lastIsParameter {
                let key = entry.segments.dropLast().map { $0.contains("{") ? "{}" : $0 }.joined(separator: "/")
                guard !key.isEmpty, !key.hasSuffix("{}") else { continue }
                found[key, default: Found(key: key)].member = entry
            }
        }
        for entry in all where !entry.segments.isEmpty && !entry.lastIsParameter {
            let key = entry.normalized
            // A last segment that holds a parameter beside other text (`{id}.json`) is no collection path.
            if key == "{}" || key.hasSuffix("/{}") { continue }
            let ops = operations(entry)
            let isCollection = found[key] != nil || (ops.contains("post") || ops.contains("get"))
            if isCollection && !isAction(entry, among: found) {
                found[key, default: Found(key: key)].collection = entry
            }
        }
        // Actions: a path under a collection's member (`people/{}/activate`) or beside it (`people/search`).
        var actions: [(PathEntry, String, String, Bool)] = []
        for entry in all where !entry.segments.isEmpty {
            let key = entry.normalized
            if found[key]?.collection?.spelled == entry.spelled || found[key]?.member?.spelled == entry.spelled
                || found[String(key.dropLast(3))]?.member?.spelled == entry.spelled
            {
                continue
            }
            if let (owner, subpath, onMember) = owner(of: entry, among: found) {
                actions.append((entry, owner, subpath, onMember))
            } else {
                mapper.note(entry.pointer, "not under a collection with members; no model or action is generated")
            }
        }
        for (entry, owner, subpath, onMember) in actions {
            found[owner]?.actions.append((entry, subpath, onMember))
        }
        // A collection with neither a member path nor a POST is an action-like listing only when GET-only.
        return found.values.sorted { $0.key < $1.key }
    }

    /// Whether a static path is better read as an action of a collection it lies under (`people/search`
    /// beside `people/{id}`), than as a collection of its own.
    func isAction(_ entry: PathEntry, among found: [String: Found]) -> Bool {
        let key = entry.normalized
        if found[key]?.member != nil { return false }
        return owner(of: entry, among: found) != nil
    }

    func owner(of entry: PathEntry, among found: [String: Found]) -> (String, String, Bool)? {
        let key = entry.normalized
        let parts = key.split(separator: "/").map(String.init)
        guard parts.count > 1 else { return nil }
        for cut in stride(from: parts.count - 1, through: 1, by: -1) {
            let prefix = parts[..<cut].joined(separator: "/")
            let rest = parts[cut...].joined(separator: "/")
            if prefix.hasSuffix("/{}"), found[String(prefix.dropLast(3))]?.member != nil {
                if rest.contains("{}") { return nil }
                return (String(prefix.dropLast(3)), rest, true)
            }
            if found[prefix]?.member != nil, !rest.contains("{}"), found[key]?.member == nil {
                return (prefix, rest, false)
            }
        }
        return nil
    }
}
