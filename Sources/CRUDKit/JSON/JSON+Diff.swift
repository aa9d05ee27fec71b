import Foundation

extension JSON {
    /// The changes from `original` to this value, as a JSON Merge Patch (RFC 7396): the body of a PATCH request.
    ///
    /// For two objects the patch holds the keys whose values differ (with their new values), and `null` for the
    /// keys this value no longer has. Nested objects are diffed member by member when `recursive` is `true` (the
    /// default, as RFC 7396 intends) and sent whole otherwise; arrays are always sent whole. When either side is
    /// not an object the patch is this value itself. An unchanged object gives `{}`.
    ///
    /// Merge patches cannot say "set to null" (null means "remove"): a key changed to `null` is sent as `null`,
    /// which most servers treat as clearing it.
    ///
    /// ```swift
    /// let patch = edited.diff(from: original)   // {"favorite_color": "green"}
    /// ```
    /// - Parameters:
    ///   - original: The value as the server last sent it.
    ///   - recursive: Whether to diff nested objects instead of sending them whole.
    /// - Returns: The merge patch; `original.applyingMergePatch(patch)` gives back this value (up to `null`s).
    public func diff(from original: JSON, recursive: Bool = true) -> JSON {
        guard case .object(let new) = self, case .object(let old) = original else { return self }
        var patch = Object()
        for (key, value) in new {
            guard let before = old[key] else {
                patch[key] = value
                continue
            }
            guard before != value else { continue }
            if recursive, case .object = value, case .object = before {
                patch[key] = value.diff(from: before, recursive: true)
            } else {
                patch[key] = value
            }
        }
        for (key, _) in old where new[key] == nil {
            patch[key] = .null
        }
        return .object(patch)
    }

    /// This value with a JSON Merge Patch (RFC 7396) applied: what a server does with a PATCH body.
    /// - Parameter patch: The merge patch.
    /// - Returns: The patched value.
    public func applyingMergePatch(_ patch: JSON) -> JSON {
        guard case .object(let changes) = patch else { return patch }
        var target = object ?? Object()
        for (key, change) in changes {
            if change.isNull {
                target[key] = nil
            } else {
                target[key] = (target[key] ?? .null).applyingMergePatch(change)
            }
        }
        return .object(target)
    }
}
