import CRUDKit
import CRUDKitTesting
import Foundation

/// The base URL the in-process tests pretend to talk to (the backend matches paths on their last segments).
let backendBase = "https://api.example.com/v1"

/// Sends `method path` to `transport`, with a JSON body when given.
func call(
    _ transport: any Transport, _ method: HTTPMethod, _ path: String, json: JSON? = nil, headers: HTTPHeaders = [:]
) async throws -> HTTPResponse {
    var request = HTTPRequest(method: method, url: URL(string: backendBase + path)!, headers: headers)
    if let json {
        request.body = .data(try json.data())
        request.headers["Content-Type"] = "application/json"
    }
    return try await transport.send(request)
}

extension HTTPResponse {
    /// The body parsed as JSON (`null` when empty or not JSON).
    var json: JSON { (try? JSON(data: body)) ?? .null }
}

/// A validator like the DRF interop server's: names required on create, age an integer ≥ 0, names differ.
let personValidator: InMemoryBackend.Validator = { person, isCreate in
    var errors: [String: [String]] = [:]
    for field in ["first_name", "last_name"] where (person[field].string ?? "").isEmpty {
        errors[field] = ["This field is required."]
    }
    if let age = person["age"].int, age < 0 {
        errors["age"] = ["Ensure this value is greater than or equal to 0."]
    }
    if !(person["first_name"].string ?? "").isEmpty, person["first_name"] == person["last_name"] {
        errors[InMemoryBackend.nonFieldErrorsKey] = ["first_name and last_name must differ."]
    }
    return errors
}

/// A backend with `people` (validated) and `people/{id}/posts`, in `style`.
func makePeopleBackend(_ style: InMemoryBackend.Style = InMemoryBackend.Style()) -> InMemoryBackend {
    let backend = InMemoryBackend(style: style)
    backend.register("people", validate: personValidator)
    backend.register("people/{person_id}/posts", parentKey: "person")
    return backend
}

/// Stores `count` people named `First<n> Last<n>`, aged n.
func seedPeople(_ backend: InMemoryBackend, count: Int) {
    for number in 1...count {
        backend.insert(
            ["first_name": .string("First\(number)"), "last_name": .string("Last\(number)"), "age": JSON(number)],
            into: "people")
    }
}

extension InMemoryBackend.Style {
    /// `.drf` as a test models an app that adds conditional requests (DRF alone sends no `ETag` or
    /// `Last-Modified` and ignores `If-Match`): strong tags, `Last-Modified`, 304s, `If-Match` and
    /// `If-Unmodified-Since` honoured.
    static var drfWithConditionalRequests: Self {
        var style = Self.drf
        style.entityTags = .strong
        style.sendsLastModified = true
        style.notModified = .rfc9110
        style.honoursIfMatch = true
        style.honoursIfUnmodifiedSince = true
        return style
    }
}
