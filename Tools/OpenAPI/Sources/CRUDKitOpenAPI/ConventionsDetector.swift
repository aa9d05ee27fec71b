import Foundation

/// Recognizes the framework behind a document from what it publishes: page envelopes, error schemas, media
/// types and trailing slashes.
struct ConventionsDetector {
    let mapper: SchemaMapper

    /// The envelope a list schema is (`nil` for a plain array or an unknown object).
    enum Envelope: Equatable {
        case djangoREST, vapor, laravel, jsonAPI

        var pagination: String {
            switch self {
            case .djangoREST: ".djangoREST"
            case .vapor: ".vapor"
            case .laravel: ".laravel"
            case .jsonAPI: ".envelope(items: \"data\", next: \"links.next\", total: \"meta.total\")"
            }
        }

        var itemsKey: String {
            switch self {
            case .djangoREST: "results"
            case .vapor: "items"
            case .laravel, .jsonAPI: "data"
            }
        }
    }

    func envelope(_ schema: Node) -> Envelope? {
        let keys = Set(mapper.members(of: schema, pointer: "#", notes: false).members.map(\.key))
        if keys.isSuperset(of: ["results", "next"]) && (keys.contains("count") || keys.contains("previous")) {
            return .djangoREST
        }
        if keys.isSuperset(of: ["items", "metadata"]) { return .vapor }
        if keys.isSuperset(of: ["data", "links", "meta"]) {
            let meta = mapper.members(of: schema, pointer: "#", notes: false).members.first { $0.key == "meta" }
            let metaKeys =
                meta.map { Set(mapper.members(of: $0.schema, pointer: "#", notes: false).members.map(\.key)) } ?? []
            return metaKeys.contains("current_page") || metaKeys.contains("last_page") ? .laravel : .jsonAPI
        }
        if keys.contains("data"), keys.contains("links") { return .jsonAPI }
        return nil
    }

    func mediaTypes() -> Set<String> {
        var types: Set<String> = []
        for path in mapper.root["paths"]?.members ?? [] {
            for method in ResourceExtractor.methods {
                guard let operation = path.value[method] else { continue }
                for response in operation["responses"]?.members ?? [] {
                    let resolved = mapper.resolve(response.value, pointer: "#").node
                    for content in resolved["content"]?.members ?? [] { types.insert(content.key) }
                }
                let body = mapper.resolve(operation["requestBody"] ?? .object([]), pointer: "#").node
                for content in body["content"]?.members ?? [] { types.insert(content.key) }
            }
        }
        return types
    }

    func usesProblemDetails() -> Bool { mediaTypes().contains("application/problem+json") }

    func detect() -> GeneratorOptions.Conventions {
        let schemas = mapper.root["components"]?["schemas"]?.members ?? []
        if schemas.contains(where: { $0.key == "HTTPValidationError" }) { return .fastapi }
        if mediaTypes().contains("application/vnd.api+json") { return .jsonapi }
        var found: [Envelope] = []
        for schema in schemas {
            // A component that is only a `$ref` to another is that one, which is checked on its own.
            if let reference = schema.value["$ref"]?.string, mapper.componentKey(ofReference: reference) != nil {
                continue
            }
            if let envelope = envelope(schema.value) { found.append(envelope) }
        }
        if found.contains(.djangoREST) { return .drf }
        if found.contains(.laravel) { return .laravel }
        if found.contains(.vapor) { return .vapor }
        if found.contains(.jsonAPI) { return .jsonapi }
        let paths = mapper.root["paths"]?.members.map(\.key) ?? []
        if !paths.isEmpty, paths.filter({ $0.hasSuffix("/") && $0 != "/" }).count * 2 > paths.count { return .drf }
        return .standard
    }
}
