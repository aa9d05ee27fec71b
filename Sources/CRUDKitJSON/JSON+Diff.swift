import Foundation

extension JSON {
    /// The changes from `original` to this value, as a JSON Merge Patch (RFC 7396): the body of a PATCH request.
    ///
    /// For two objects the patch holds the keys whose values differ (with their new values), and, when
    /// `clearsRemovedKeys` is `true` (the default, RFC 7396's removal), `null` for the keys this value no longer has.
    /// With `false` a key this value does not have is left out of the patch (the server keeps it, as
    /// ``JSONAttribute/absent`` means), and only a key set to `null` clears a field: what
    /// `JSONAttributable.jsonValue` diffs need, whose `.absent` attributes are left out of the object. Nested
    /// objects are diffed member by member when `recursive` is `true` (the default, as RFC 7396 intends) and sent
    /// whole otherwise; arrays are always sent whole. When either side is not an object the patch is this value
    /// itself. An unchanged object gives `{}`.
    ///
    /// Merge patches cannot say "set to null" (null means "remove"): a key changed to `null` is sent as `null`,
    /// which most servers treat as clearing it.
    ///
    /// ```swift
    /// let patch = edited.diff(from: original)   // {"favorite_color": "green"}
    /// let partial = edited.diff(from: original, clearsRemovedKeys: false)   // a missing key is not sent
    /// ```
    /// - Parameters:
    ///   - original: The value as the server last sent it.
    ///   - recursive: Whether to diff nested objects instead of sending them whole.
    ///   - clearsRemovedKeys: Whether a key `original` has and this value has not is sent as `null` (`true`, the
    ///     default) or left out of the patch (`false`).
    /// - Returns: The merge patch; `original.applyingMergePatch(patch)` gives back this value (up to `null`s, and
    ///   up to the keys left alone when `clearsRemovedKeys` is `false`).
    public func diff(from original: JSON, recursive: Bool = true, clearsRemovedKeys: Bool = true) -> JSON {
        guard case .object(let new) = self, case .object(let old) = original else { return self }
        // Objects being diffed, outermost first: nested objects are diffed on this explicit stack, not by
        // recursion, so nesting never reaches the thread's stack.
        var frames = [DiffFrame(new: new, old: old, key: "")]
        while true {
            let top = frames.count - 1
            let position = frames[top].next
            if position < frames[top].entries.count {
                frames[top].next += 1
                let (key, value) = (frames[top].entries[position].key, frames[top].entries[position].value)
                guard let before = frames[top].old[key] else {
                    frames[top].patch[key] = value
                    continue
                }
                guard before != value else { continue }
                if recursive, case .object(let newer) = value, case .object(let older) = before {
                    frames.append(DiffFrame(new: newer, old: older, key: key))
                } else {
                    frames[top].patch[key] = value
                }
                continue
            }
            var finished = frames.removeLast()
            if clearsRemovedKeys {
                for (key, _) in finished.old where finished.new[key] == nil {
                    finished.patch[key] = .null
                }
            }
            guard !frames.isEmpty else { return .object(finished.patch) }
            frames[frames.count - 1].patch[finished.key] = .object(finished.patch)
        }
    }

    /// This value with a JSON Merge Patch (RFC 7396) applied: what a server does with a PATCH body.
    /// - Parameter patch: The merge patch.
    /// - Returns: The patched value.
    public func applyingMergePatch(_ patch: JSON) -> JSON {
        guard case .object(let changes) = patch else { return patch }
        // Objects being patched, outermost first (an explicit stack, not recursion).
        var frames = [PatchFrame(target: object ?? Object(), changes: changes.entries, key: "")]
        while true {
            let top = frames.count - 1
            let position = frames[top].next
            if position < frames[top].changes.count {
                frames[top].next += 1
                let (key, change) = (frames[top].changes[position].key, frames[top].changes[position].value)
                if change.isNull {
                    frames[top].target[key] = nil
                } else if case .object(let nested) = change {
                    let target = frames[top].target[key]?.object ?? Object()
                    frames.append(PatchFrame(target: target, changes: nested.entries, key: key))
                } else {
                    frames[top].target[key] = change
                }
                continue
            }
            let finished = frames.removeLast()
            guard !frames.isEmpty else { return .object(finished.target) }
            frames[frames.count - 1].target[finished.key] = .object(finished.target)
        }
    }
}

/// An object being diffed by `diff(from:recursive:)`.
private struct DiffFrame {
    let new: JSON.Object
    /// The members of the new object, and the next one to look at.
    let entries: [JSON.Object.Entry]
    var next = 0
    let old: JSON.Object
    /// The patch so far.
    var patch = JSON.Object()
    /// Where the patch goes in the enclosing patch.
    let key: String

    init(new: JSON.Object, old: JSON.Object, key: String) {
        self.new = new
        entries = new.entries
        self.old = old
        self.key = key
    }
}

/// An object being patched by `applyingMergePatch(_:)`.
private struct PatchFrame {
    var target: JSON.Object
    /// The members of the patch, and the next one to apply.
    let changes: [JSON.Object.Entry]
    var next = 0
    /// Where the target goes in the enclosing target.
    let key: String

    init(target: JSON.Object, changes: [JSON.Object.Entry], key: String) {
        self.target = target
        self.changes = changes
        self.key = key
    }
}
