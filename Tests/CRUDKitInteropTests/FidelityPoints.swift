import CRUDKit
import Foundation

/// What `DRFFidelityTests` compares of one answer, as `point: value` pairs that do not depend on which server
/// answered: ids become the names they were captured under, times and absolute URLs their shape.
enum FidelityPoints {
    /// Keys whose values differ between runs by nature: ids, the parent's id, creation times.
    static let volatile: Set<String> = ["id", "person", "created_at"]

    static func of(_ response: HTTPResponse, json: JSON?, base: URL, ids: [String: String]) -> [(String, String)] {
        var points: [(String, String)] = [("status", String(response.status))]
        let type = response.headers["Content-Type"].map { $0.split(separator: ";")[0].lowercased() }
        points.append(("content type", response.body.isEmpty ? "(no body)" : type ?? "(none)"))
        for name in ["ETag", "Last-Modified"] {
            points.append(("\(name) header", response.headers[name] == nil ? "absent" : "present"))
        }
        points.append(("Location", response.headers["Location"].map { normalized($0, base: base, ids: ids) } ?? "-"))
        if response.status == 405 { points.append(("Allow", response.headers["Allow"] ?? "-")) }
        guard let json else { return points }
        if case .object(let object) = json, object.keys.contains("results") {
            points.append(("page keys", object.keys.joined(separator: ",")))
            points.append(("count", json["count"].description))
            for link in ["next", "previous"] {
                points.append((link, json[link].string.map { normalized($0, base: base, ids: ids) } ?? "null"))
            }
            let results = json["results"].array ?? []
            points.append(("results", String(results.count)))
            for (index, item) in results.enumerated() { points += members(of: item, prefix: "results[\(index)] ") }
        } else if response.status >= 400 {
            points.append(("error shape", shape(of: json)))
            if let detail = json["detail"].string { points.append(("detail", detail)) }
            for (field, messages) in (json.object ?? JSON.Object()) where field != "detail" {
                points.append(("\(field) messages", messages.description))
            }
        } else {
            points += members(of: json, prefix: "")
        }
        return points
    }

    /// An object's key order and every non-volatile member's value (what a write kept, set or cleared).
    static func members(of json: JSON, prefix: String) -> [(String, String)] {
        guard case .object(let object) = json else { return [(prefix + "body", kind(json))] }
        var points = [(prefix + "keys", object.keys.joined(separator: ","))]
        for (key, value) in object where !volatile.contains(key) { points.append((prefix + key, value.description)) }
        if let created = object["created_at"] { points.append((prefix + "created_at", timeShape(created))) }
        return points
    }

    /// `age: [string], detail: string`: each key with the kind of its value.
    static func shape(of json: JSON) -> String {
        guard case .object(let object) = json else { return kind(json) }
        return object.map { key, value in
            if case .array(let items) = value { return "\(key): [\(items.first.map(kind) ?? "")]" }
            return "\(key): \(kind(value))"
        }.joined(separator: ", ")
    }

    /// The kind of a value, without the value.
    static func kind(_ json: JSON) -> String {
        switch json {
        case .null: "null"
        case .bool: "bool"
        case .number: "number"
        case .string: "string"
        case .array: "array"
        case .object: "object"
        }
    }

    /// `2026-11-27T10:13:44.517429Z` as `date.6Z`: the form of a time, not its value. DRF writes the microseconds
    /// Python's `isoformat()` gives, which leaves out a microsecond of 0: `2026-11-27T10:13:44Z` is DRF's form of
    /// such a time, `date.6Z` too. (Read as a string, it failed the comparison with the double's `.000000` or
    /// `.517429` one run in a million per time DRF wrote.)
    static func timeShape(_ value: JSON) -> String {
        guard let text = value.string else { return kind(value) }
        guard let dot = text.firstIndex(of: ".") else {
            return text.wholeMatch(of: /[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9]{2}:[0-9]{2}:[0-9]{2}Z/) != nil
                ? "date.6Z" : kind(value)
        }
        return "date.\(text[text.index(after: dot)...].dropLast().count)Z"
    }

    /// A URL or path with the base URL and captured ids replaced by names.
    static func normalized(_ text: String, base: URL, ids: [String: String]) -> String {
        var result = text.replacingOccurrences(of: base.absoluteString, with: "")
        for (name, id) in ids.sorted(by: { $0.value.count > $1.value.count }) {
            result = result.replacingOccurrences(of: "/\(id)/", with: "/{\(name)}/")
        }
        return result
    }
}
