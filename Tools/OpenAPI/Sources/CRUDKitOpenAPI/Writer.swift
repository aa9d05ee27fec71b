import Foundation

/// Writes generated files to a folder, touching only files whose contents changed (so a build does not recompile
/// unchanged models).
public enum Writer {
    /// Writes `files` into `folder`.
    /// - Parameters:
    ///   - files: The files.
    ///   - folder: The folder (it must exist).
    ///   - removingOthers: Whether `.swift` files in the folder that are not in `files` are removed.
    /// - Returns: How many files were written (new or changed).
    /// - Throws: What the file system throws.
    @discardableResult
    public static func write(_ files: [GeneratedFile], to folder: URL, removingOthers: Bool = false) throws -> Int {
        var changed = 0
        let names = Set(files.map(\.name))
        for file in files {
            let url = folder.appendingPathComponent(file.name)
            let data = Data(file.contents.utf8)
            if (try? Data(contentsOf: url)) == data { continue }
            try data.write(to: url, options: .atomic)
            changed += 1
        }
        if removingOthers {
            let existing = try FileManager.default.contentsOfDirectory(atPath: folder.path)
            for name in existing where name.hasSuffix(".swift") && !names.contains(name) {
                try FileManager.default.removeItem(at: folder.appendingPathComponent(name))
            }
        }
        return changed
    }
}

/// The plugin's configuration file, `crudkit-openapi.yaml`:
///
/// ```yaml
/// conventions: drf        # drf, rails, fastapi, vapor, laravel, jsonapi, standard; recognized when left out
/// only: [people, posts]   # all resources when left out
/// strict: true
/// access: internal        # or public (the default)
/// ```
public enum Configuration {
    /// Reads a configuration file over `options`.
    /// - Parameters:
    ///   - url: The file.
    ///   - options: The options it changes.
    /// - Returns: The changed options.
    /// - Throws: What reading throws, or ``GeneratorError/invalidDocument(_:)`` for an unknown key or value.
    public static func read(_ url: URL, into options: GeneratorOptions) throws -> GeneratorOptions {
        let text = try String(contentsOf: url, encoding: .utf8)
        let node: Node
        do {
            node = try LargeStack.run { try Node.parse(text) }
        } catch {
            throw GeneratorError.invalidDocument("configuration \(url.lastPathComponent): \(error)")
        }
        var options = options
        for member in node.members {
            switch member.key {
            case "conventions":
                guard let value = member.value.string.flatMap(GeneratorOptions.Conventions.init(rawValue:)) else {
                    throw GeneratorError.invalidDocument("configuration: unknown conventions \(member.value)")
                }
                options.conventions = value
            case "only":
                options.only =
                    member.value.items.isEmpty
                    ? (member.value.string?.split(separator: ",").map { String($0) } ?? [])
                    : member.value.items.compactMap(\.string)
            case "strict": options.strict = member.value.bool
            case "access": options.accessLevel = member.value.string == "internal" ? "internal" : "public"
            default:
                throw GeneratorError.invalidDocument("configuration: unknown key \(member.key)")
            }
        }
        return options
    }
}
