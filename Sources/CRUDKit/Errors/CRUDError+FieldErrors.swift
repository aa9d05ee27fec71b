import Foundation

/// The field errors and messages a server put in the body of a failed answer.
///
/// Read from the common shapes (``ServerErrorShape``): Rails `{"errors": {"age": ["must be…"]}}`, Django REST
/// framework `{"age": ["…"], "non_field_errors": ["…"]}` and `{"detail": "…"}`, FastAPI/pydantic
/// `{"detail": [{"loc": ["body", "age"], "msg": "…"}]}`, Vapor `{"error": true, "reason": "…"}` (a validation
/// reason `"age is less than minimum of 0, email is not …"` also split into `age` and `email`), Laravel
/// `{"message": "…", "errors": {"age": ["…"]}}`, JSON:API `{"errors": [{"source": {"pointer":
/// "/data/attributes/age"}, "detail": "…"}]}`, and RFC 9457 problem details (`title`, `detail`, and `errors` with
/// `pointer` or `invalid-params` with `name`/`reason`). Nested fields are named by key paths (`address.city`,
/// `tags[1].name`). Messages that belong to no field (`non_field_errors`, Rails' `base`, `detail`, `title`) are
/// in ``messages``.
///
/// ```swift
/// catch let error as CRUDError where !error.fieldErrors.isEmpty {
///     form.show(error.fieldErrors["age"] ?? [])      // ["Ensure this value is greater than or equal to 0."]
/// }
/// ```
public struct ServerErrorDetails: Sendable, Hashable {
    /// Messages per field, by key path (`age`, `address.city`).
    public var fieldErrors: [String: [String]]
    /// Messages about the whole request, in the order the server gave them.
    public var messages: [String]

    /// Creates details.
    /// - Parameters:
    ///   - fieldErrors: Messages per field.
    ///   - messages: Messages about the whole request.
    package init(fieldErrors: [String: [String]] = [:], messages: [String] = []) {
        self.fieldErrors = fieldErrors
        self.messages = messages
    }

    /// The details in a response body, or `nil` when the body is not JSON (an HTML error page) or holds none.
    /// - Parameters:
    ///   - response: The failed response.
    ///   - shape: The shape to read; ``ServerErrorShape/automatic`` recognises each.
    package init?(response: HTTPResponse, shape: ServerErrorShape = .automatic) {
        guard !response.body.isEmpty, let json = try? JSON(data: response.body) else { return nil }
        self.init(json: json, shape: shape)
        if fieldErrors.isEmpty && messages.isEmpty { return nil }
    }

    /// The details in a parsed error document (empty when it holds none).
    /// - Parameters:
    ///   - json: The document.
    ///   - shape: The shape to read; ``ServerErrorShape/automatic`` recognises each.
    package init(json: JSON, shape: ServerErrorShape = .automatic) {
        self.init()
        var reader = ErrorBodyReader()
        reader.read(json, shape: shape)
        fieldErrors = reader.fields
        messages = reader.messages
    }

    /// The first message about the whole request, else every field's messages as `field: message`, fields in
    /// name order and separated by `; ` (`"age: A valid integer is required.; email: Enter a valid email address."`).
    public var message: String? {
        if let first = messages.first { return first }
        let parts = fieldErrors.keys.sorted().compactMap { field -> String? in
            guard let texts = fieldErrors[field], !texts.isEmpty else { return nil }
            return "\(field): \(texts.joined(separator: " "))"
        }
        return parts.isEmpty ? nil : parts.joined(separator: "; ")
    }
}

/// The error body shapes ``ServerErrorDetails`` reads.
public enum ServerErrorShape: Sendable, Hashable {
    /// Recognise the shape from the document.
    case automatic
    /// Rails: `{"errors": {"field": ["…"]}}` (`base` holds messages), `{"errors": ["…"]}`, the scaffold's bare
    /// `{"field": ["…"]}` (`render json: @person.errors`) and the production `{"status": 404, "error": "Not Found"}`.
    case rails
    /// Django REST framework: `{"field": ["…"], "non_field_errors": ["…"]}` or `{"detail": "…"}`.
    case djangoREST
    /// FastAPI / pydantic: `{"detail": [{"loc": ["body", "field"], "msg": "…"}]}` or `{"detail": "…"}`.
    case fastAPI
    /// JSON:API: `{"errors": [{"source": {"pointer": "/data/attributes/field"}, "detail": "…"}]}`.
    case jsonAPI
    /// RFC 9457 problem details: `title`, `detail`, and `errors` (with `pointer`) or `invalid-params`.
    case problemDetails
}

extension CRUDError {
    /// What the server said in the body of a failed answer, read in any common shape; `nil` without a response
    /// or when the body holds nothing readable (see ``ServerErrorDetails``), and for
    /// ``CRUDError/writeAccepted(_:failure:)`` (its response is a success, not an error body).
    public var serverErrors: ServerErrorDetails? {
        if case .writeAccepted = self { return nil }
        return response.flatMap { ServerErrorDetails(response: $0) }
    }

    /// The messages per field the server sent (`["age": ["Ensure this value is …"]]`); empty when none.
    public var fieldErrors: [String: [String]] { serverErrors?.fieldErrors ?? [:] }

    /// The server's message about the whole request (`detail`, `title`, `non_field_errors`…), if any.
    public var serverMessage: String? { serverErrors?.message }
}

extension ServerErrorDetails {
    /// Installs, once, the reader ``CRUDError``'s descriptions use to show an error body's parsed messages.
    static let describesErrors: Void = {
        CRUDError.bodyReader.withLock { reader in
            reader = { response in
                guard let details = ServerErrorDetails(response: response) else { return nil }
                let fields = details.fieldErrors.keys.sorted().map { ($0, details.fieldErrors[$0] ?? []) }
                return CRUDError.BodySummary(messages: details.messages, fields: fields)
            }
        }
    }()
}

/// Collects field errors and messages from the shapes of ``ServerErrorShape``.
private struct ErrorBodyReader {
    var fields: [String: [String]] = [:]
    var messages: [String] = []

    private static let locationRoots: Set<String> = ["body", "query", "path", "header", "cookie"]

    mutating func read(_ json: JSON, shape: ServerErrorShape) {
        guard case .object(let object) = json else {
            collect(json, field: nil)
            return
        }
        switch shape {
        case .automatic: readAutomatically(object)
        case .rails: readErrorsMember(object)
        case .djangoREST: readDjango(object)
        case .fastAPI: readFastAPI(object)
        case .jsonAPI, .problemDetails: readProblem(object)
        }
    }

    private mutating func readAutomatically(_ object: JSON.Object) {
        if object["errors"] != nil {
            readProblemTitle(object)
            readErrorsMember(object)
        } else if let detail = object["detail"]?.array, detail.contains(where: { $0.object != nil }) {
            readFastAPI(object)
        } else if object["type"]?.string != nil || object["title"]?.string != nil || object["invalid-params"] != nil {
            // A problem document's `type` and `title` are strings; `{"title": ["…"]}` is a field error (DRF, a
            // model with a `title` field), read below.
            readProblem(object)
        } else {
            readDjango(object)
        }
    }

    /// Rails' `errors` object, or a JSON:API / RFC 9457 `errors` array.
    private mutating func readErrorsMember(_ object: JSON.Object) {
        switch object["errors"] {
        case .object(let errors)?:
            for (key, value) in errors { collect(value, field: key == "base" ? nil : key) }
        case .array(let errors)?:
            for error in errors { readErrorEntry(error) }
        case let value?:
            collect(value, field: nil)
        case nil:
            // The scaffold's bare `@person.errors` hash, or `{"status": 404, "error": "Not Found"}`.
            readDjango(object)
        }
    }

    private mutating func readDjango(_ object: JSON.Object) {
        // Vapor's ErrorMiddleware: `{"error": true, "reason": "…"}`; `reason` is the message, not a field.
        let vapor = object["error"]?.bool != nil
        for (key, value) in object {
            switch key {
            case "non_field_errors", "detail", "message", "error": collect(value, field: nil)
            case "reason" where vapor:
                collect(value, field: nil)
                for (field, message) in Self.vaporFieldErrors(in: value.string ?? "") {
                    fields[field, default: []].append(message)
                }
            default: collect(value, field: key)
            }
        }
    }

    /// The words a Vapor validator's failure starts with, after the key (`is less than minimum of 0`, `contains an
    /// invalid character`, `does not match`…).
    private static let vaporVerbs: Set<Substring> = ["is", "are", "contains", "does", "must", "has", "cannot", "was"]

    /// The field errors in a Vapor `Validatable` failure's joined reason, `"age is less than minimum of 0, email is
    /// not a valid email address"` → `age`, `email`; none when a part does not have that shape (`"Not Found"`).
    ///
    /// Each part (split at `, `) is a key and a failure starting with a validator's verb; a part without a key
    /// continues the previous message (`"role is not admin, user, or guest"`).
    static func vaporFieldErrors(in reason: String) -> [(field: String, message: String)] {
        var found: [(field: String, message: String)] = []
        for part in reason.components(separatedBy: ", ") {
            let words = part.split(separator: " ", maxSplits: 2, omittingEmptySubsequences: false)
            if words.count == 3, isKey(words[0]), vaporVerbs.contains(words[1]) {
                found.append((String(words[0]), String(part.dropFirst(words[0].count + 1))))
            } else if let last = found.indices.last {
                found[last].message += ", " + part
            } else {
                return []
            }
        }
        return found
    }

    /// Whether `word` reads as a key: a letter or `_`, then letters, digits, `_`, `.`, `[` or `]`.
    private static func isKey(_ word: Substring) -> Bool {
        guard let first = word.unicodeScalars.first, first == "_" || CharacterSet.letters.contains(first) else {
            return false
        }
        return word.unicodeScalars.allSatisfy {
            "_.[]".unicodeScalars.contains($0) || CharacterSet.alphanumerics.contains($0)
        }
    }

    private mutating func readFastAPI(_ object: JSON.Object) {
        guard let entries = object["detail"]?.array else {
            if let detail = object["detail"] { collect(detail, field: nil) }
            return
        }
        for entry in entries {
            guard let message = entry["msg"].string ?? entry["message"].string else { continue }
            var location = entry["loc"].array ?? []
            if let first = location.first?.string, Self.locationRoots.contains(first) { location.removeFirst() }
            add(message, field: location.isEmpty ? nil : Self.keyPath(location))
        }
    }

    private mutating func readProblem(_ object: JSON.Object) {
        readProblemTitle(object)
        if object["errors"] != nil { readErrorsMember(object) }
        for entry in object["invalid-params"]?.array ?? [] {
            guard let reason = entry["reason"].string ?? entry["detail"].string else { continue }
            add(reason, field: entry["name"].string)
        }
    }

    /// A problem document's `detail` (else its `title`) as the message about the whole request.
    private mutating func readProblemTitle(_ object: JSON.Object) {
        if let detail = object["detail"]?.string ?? object["title"]?.string ?? object["message"]?.string {
            messages.append(detail)
        }
    }

    /// One entry of an `errors` array: a string, or an object with a message and perhaps a field.
    private mutating func readErrorEntry(_ entry: JSON) {
        guard case .object(let object) = entry else {
            collect(entry, field: nil)
            return
        }
        let text = ["detail", "title", "message", "msg", "reason"].lazy.compactMap { object[$0]?.string }.first
        guard let text else { return }
        let source = object["source"] ?? .null
        var field: String?
        if let pointer = source["pointer"].string ?? object["pointer"]?.string {
            field = Self.field(fromPointer: pointer)
        } else if let parameter = source["parameter"].string ?? object["field"]?.string ?? object["name"]?.string {
            field = parameter
        } else if let location = object["loc"]?.array, !location.isEmpty {
            field = Self.keyPath(location)
        }
        add(text, field: field)
    }

    /// Strings, arrays of strings and nested objects of them under `field` (key paths for nesting), walked with an
    /// explicit stack (in document order), so nesting never reaches the thread's stack.
    private mutating func collect(_ value: JSON, field: String?) {
        var pending = [(value, field)]
        while let (value, field) = pending.popLast() {
            switch value {
            case .string(let text):
                add(text, field: field)
            case .array(let values):
                for (index, element) in values.enumerated().reversed() {
                    pending.append((element, element.string != nil ? field : field.map { "\($0)[\(index)]" }))
                }
            case .object(let object):
                for (key, nested) in object.reversed() {
                    pending.append((nested, key == "non_field_errors" ? field : field.map { "\($0).\(key)" } ?? key))
                }
            default:
                break
            }
        }
    }

    private mutating func add(_ message: String, field: String?) {
        guard let field, !field.isEmpty else {
            messages.append(message)
            return
        }
        fields[field, default: []].append(message)
    }

    /// `/data/attributes/age` → `age`; `#/address/city` → `address.city`; `/data` → `nil`.
    static func field(fromPointer pointer: String) -> String? {
        var tokens = pointer.split(separator: "/", omittingEmptySubsequences: true).map {
            $0.replacingOccurrences(of: "~1", with: "/").replacingOccurrences(of: "~0", with: "~")
        }
        if tokens.first == "#" { tokens.removeFirst() }
        if tokens.first == "data" {
            tokens.removeFirst()
            if let kind = tokens.first, kind == "attributes" || kind == "relationships" { tokens.removeFirst() }
        }
        guard !tokens.isEmpty else { return nil }
        return keyPath(tokens.map { Int($0).map { JSON($0) } ?? JSON($0) })
    }

    /// `["address", 0, "city"]` → `address[0].city`.
    static func keyPath(_ location: [JSON]) -> String {
        var path = ""
        for step in location {
            if let index = step.int {
                path += "[\(index)]"
            } else {
                let key = step.string ?? step.description
                path += path.isEmpty ? key : ".\(key)"
            }
        }
        return path
    }
}
