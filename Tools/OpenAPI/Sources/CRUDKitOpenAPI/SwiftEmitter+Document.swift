import Foundation

extension SwiftEmitter {
    /// `APIDocument.swift`: the conventions the document shows, and the small support types the models use.
    func documentFile(
        title: String?, version: String?, conventions: GeneratorOptions.Conventions, problemDetails: Bool,
        calendarDate: Bool, indirect: Bool = false
    ) -> String {
        var lines = Self.header
        let name = [title, version].compactMap { $0 }.joined(separator: " ")
        lines.append(
            "/// What the OpenAPI document\(name.isEmpty ? "" : " of \(name.replacingOccurrences(of: "\n", with: " "))") says about its server."
        )
        lines.append("\(access) enum APIDocument {")
        lines.append(
            "    /// The conventions the document shows: `APIConventions\(conventions.swift)`, with keys as the document"
        )
        lines.append("    /// spells them (every model's `CodingKeys`; nothing is converted from snake_case).")
        lines.append("    ///")
        lines.append("    /// ```swift")
        lines.append(
            "    /// let api = API(baseURL: URL(string: \"https://api.example.com\")!, conventions: APIDocument.conventions)"
        )
        lines.append("    /// ```")
        lines.append("    \(access) static let conventions = APIConventions\(conventions.swift).with {")
        lines.append("        $0.coding.convertsSnakeCase = false")
        if problemDetails { lines.append("        $0.errorShape = .problemDetails") }
        lines.append("    }")
        lines.append("}")
        lines.append("")
        lines += [
            "/// A coding key for any member name: the discriminator of a union and `additionalProperties`.",
            "struct AnyCodingKey: CodingKey {",
            "    var stringValue: String",
            "    var intValue: Int? { nil }",
            "",
            "    init(_ stringValue: String) { self.stringValue = stringValue }",
            "",
            "    init?(stringValue: String) { self.stringValue = stringValue }",
            "",
            "    init?(intValue: Int) { nil }",
            "}",
        ]
        if indirect {
            lines += [
                "",
                "/// The storage of a property whose type contains the value that holds it (a recursive schema): a",
                "/// struct cannot contain itself, so the property's value is kept in a box; reading and writing it",
                "/// is as for any property.",
                "@propertyWrapper",
                "\(access) struct Indirect<Value: Hashable & Sendable>: Hashable, Sendable {",
                "    private final class Box: Sendable {",
                "        let value: Value",
                "        init(_ value: Value) { self.value = value }",
                "    }",
                "",
                "    private var box: Box",
                "",
                "    /// Boxes a value.",
                "    /// - Parameter wrappedValue: The value.",
                "    \(access) init(wrappedValue: Value) { box = Box(wrappedValue) }",
                "",
                "    /// The value.",
                "    \(access) var wrappedValue: Value {",
                "        get { box.value }",
                "        set { box = Box(newValue) }",
                "    }",
                "",
                "    /// Whether the values are equal.",
                "    \(access) static func == (lhs: Self, rhs: Self) -> Bool { lhs.wrappedValue == rhs.wrappedValue }",
                "",
                "    /// Hashes the value.",
                "    /// - Parameter hasher: The hasher.",
                "    \(access) func hash(into hasher: inout Hasher) { hasher.combine(wrappedValue) }",
                "}",
            ]
        }
        if calendarDate {
            lines += [
                "",
                "/// A calendar date without a time of day (`format: date`), written `2026-12-02`.",
                "\(access) struct CalendarDate: Codable, Hashable, Sendable, LosslessStringConvertible {",
                "    /// The year.",
                "    \(access) var year: Int",
                "    /// The month, 1–12.",
                "    \(access) var month: Int",
                "    /// The day of the month, 1–31.",
                "    \(access) var day: Int",
                "",
                "    /// A date.",
                "    /// - Parameters:",
                "    ///   - year: The year.",
                "    ///   - month: The month, 1–12.",
                "    ///   - day: The day, 1–31.",
                "    \(access) init(year: Int, month: Int, day: Int) {",
                "        self.year = year",
                "        self.month = month",
                "        self.day = day",
                "    }",
                "",
                "    /// Reads `YYYY-MM-DD`; `nil` for anything else.",
                "    /// - Parameter description: The text.",
                "    \(access) init?(_ description: String) {",
                "        let parts = description.split(separator: \"-\", omittingEmptySubsequences: false)",
                "        guard parts.count == 3, parts[0].count == 4, parts[1].count == 2, parts[2].count == 2,",
                "            let year = Int(parts[0]), let month = Int(parts[1]), let day = Int(parts[2]),",
                "            (1...12).contains(month), (1...31).contains(day)",
                "        else { return nil }",
                "        self.init(year: year, month: month, day: day)",
                "    }",
                "",
                "    /// `YYYY-MM-DD`.",
                "    \(access) var description: String {",
                "        func pad(_ value: Int, _ width: Int) -> String {",
                "            let text = String(value)",
                "            return String(repeating: \"0\", count: max(0, width - text.count)) + text",
                "        }",
                "        return \"\\(pad(year, 4))-\\(pad(month, 2))-\\(pad(day, 2))\"",
                "    }",
                "",
                "    /// Reads `YYYY-MM-DD`.",
                "    /// - Parameter decoder: The decoder.",
                "    /// - Throws: `DecodingError.dataCorrupted` for any other text.",
                "    \(access) init(from decoder: any Decoder) throws {",
                "        let container = try decoder.singleValueContainer()",
                "        let text = try container.decode(String.self)",
                "        guard let date = CalendarDate(text) else {",
                "            throw DecodingError.dataCorruptedError(",
                "                in: container, debugDescription: \"not a date (YYYY-MM-DD): \\(text)\")",
                "        }",
                "        self = date",
                "    }",
                "",
                "    /// Writes `YYYY-MM-DD`.",
                "    /// - Parameter encoder: The encoder.",
                "    /// - Throws: `EncodingError`.",
                "    \(access) func encode(to encoder: any Encoder) throws {",
                "        var container = encoder.singleValueContainer()",
                "        try container.encode(description)",
                "    }",
                "}",
            ]
        }
        return Self.wrapped(lines).joined(separator: "\n") + "\n"
    }

    /// The custom actions of a resource, in an extension: member actions on the value, collection actions on the
    /// type, or for a model under a parent, on `ResourceScope where Model == …` (`Post.scoped(to: ada).bulk(…)`).
    func actionLines(_ model: String, _ resource: ResourceInfo) -> [String] {
        let onScope = resource.parent != nil
        let members = resource.actions.filter { $0.onMember || !onScope }
        let collection = onScope ? resource.actions.filter { !$0.onMember } : []
        var lines: [String] = []
        if !members.isEmpty {
            lines += actionLines(members, extending: model, onScope: false)
        }
        if !collection.isEmpty {
            if !lines.isEmpty { lines.append("") }
            lines += actionLines(collection, extending: "ResourceScope where Model == \(model)", onScope: true)
        }
        return lines
    }

    func actionLines(_ actions: [Action], extending extended: String, onScope: Bool) -> [String] {
        var lines = ["extension \(extended) {"]
        for (index, action) in actions.enumerated() {
            if index > 0 { lines.append("") }
            lines += docLines(action.summary, fallback: "The `\(action.subpath)` action.", indent: "    ")
            lines.append("    ///")
            lines.append("    /// `\(action.spelled)`")
            var parameters: [String] = []
            if let body = action.bodyType { parameters.append("_ body: \(body)") }
            parameters.append("query: FormParameters = [:]")
            let result = action.resultType ?? "Okay"
            let decoder =
                action.resultIsModel
                ? ".model()"
                : action.resultIsModels
                    ? ".models()"
                    : action.resultType == nil ? ".okay" : ".decodable(\(result).self)"
            lines.append("    /// - Parameters:")
            if action.bodyType != nil { lines.append("    ///   - body: The request body.") }
            lines.append("    ///   - query: Query parameters.")
            lines.append("    /// - Returns: The answer.")
            lines.append("    /// - Throws: `CRUDError`.")
            lines.append("    @discardableResult")
            let prefix = action.onMember || onScope ? "" : "static "
            lines.append(
                "    \(access) \(prefix)func \(action.name)(\(parameters.joined(separator: ", "))) async throws -> \(result) {"
            )
            let body = action.bodyType == nil ? "" : ", body: .json(body)"
            let call =
                "try await action(.\(action.method), \(SwiftNames.literal(action.subpath)), query: query\(body), as: \(decoder))"
            if call.count + 8 <= 120 {
                lines.append("        \(call)")
            } else {
                lines.append("        try await action(")
                lines.append(
                    "            .\(action.method), \(SwiftNames.literal(action.subpath)), query: query\(body), as: \(decoder))"
                )
            }
            lines.append("    }")
        }
        lines.append("}")
        return lines
    }
}
