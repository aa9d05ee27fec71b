/// The differences between the DRF interop server and `InMemoryBackend(style: .drf)` that `DRFFidelityTests`
/// accepts, each with its reason: `"<step>: <point>"` as the test names them, or `"<step>: *"` for every point of a
/// step. A listed difference that no longer occurs fails the test, so remove its line when the double learns it.
enum DRFFidelityAllowList {
    static let entries: [String: String] = [
        "read missing: detail": notFound,
        "read deleted: detail": notFound,
        "PUT missing: detail": notFound,
        "DELETE missing: detail": notFound,
        "posts of a missing person: detail": notFound,
        "posts after cascade: detail": notFound,
        "post under another person: detail": notFound,
        "POST malformed JSON: detail":
            "the message after `JSON parse error - ` is the parser's own: Python's json module on the server, "
            + "CRUDKit's parser in the double; status and shape agree",
        "PUT leaving out a required field: *":
            "DRF's PUT is a full update: a required field the body leaves out is a 400. The double's validator gets "
            + "the object as it would be stored (a PUT keeps a left-out key under `.drf`), so it cannot tell; a "
            + "test that needs this 400 checks the PUT body in a custom route",
        "OPTIONS: *":
            "DRF answers OPTIONS with its metadata (name, description, renders, parses, the serializer's fields); "
            + "the double answers 200 with `Allow` and no body",
    ]

    static let notFound =
        "DRF names the model in a missing object's 404 (`No Person matches the given query.`, from "
        + "get_object_or_404); the double knows no model names and says `Not found.`; status and shape agree"

    /// The reason a difference at `point` is accepted, or `nil`.
    static func reason(for point: String) -> String? {
        entries.first { matches($0.key, point) }?.value
    }

    /// Whether the entry `key` covers `point`.
    static func matches(_ key: String, _ point: String) -> Bool {
        key.hasSuffix(": *") ? point.hasPrefix(key.dropLast()) : key == point
    }
}
