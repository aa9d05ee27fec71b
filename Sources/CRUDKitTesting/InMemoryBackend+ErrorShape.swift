import CRUDKit
import Foundation

extension InMemoryBackend {
    /// The shape in which the backend reports field errors from a collection's validator.
    ///
    /// A validator returns `[field: [message]]`; the key ``InMemoryBackend/nonFieldErrorsKey``
    /// (`"non_field_errors"`) holds errors about the object as a whole. Fields are listed in key order.
    public enum ErrorShape: Sendable, Hashable {
        /// Django REST framework: 400 `{"age": ["…"], "non_field_errors": ["…"]}`.
        case drf
        /// Rails: 422 `{"errors": {"age": ["…"], "base": ["…"]}}`.
        case rails
        /// FastAPI / pydantic: 422 `{"detail": [{"loc": ["body", "age"], "msg": "…", "type": "value_error"}]}`
        /// (object-level errors have `"loc": ["body"]`).
        case fastAPI
        /// JSON:API: 422 `application/vnd.api+json`
        /// `{"errors": [{"status": "422", "source": {"pointer": "/data/attributes/age"}, "detail": "…"}]}`
        /// (object-level errors point at `/data`).
        case jsonAPI
        /// RFC 9457 problem details: 422 `application/problem+json` with `type`, `title`, `status`, `detail`,
        /// `errors` (`[{"detail": "…", "pointer": "#/age"}]`) and `invalid-params` (`[{"name": "age",
        /// "reason": "…"}]`, the RFC 7807 example's form).
        case problemDetails
        /// Vapor's `ErrorMiddleware`: 400 `{"error": true, "reason": "age …, email …"}` (every message in one
        /// `reason`, each after its field); a missing object is 404 `{"error": true, "reason": "Not Found"}`.
        case vapor
        /// Laravel's FormRequest validation: 422 `{"message": "The given data was invalid.", "errors": {"age":
        /// ["…"]}}`; a missing model is 404 `{"message": "No query results for model [App\\Models\\Person] 7"}`.
        case laravel

        /// The status a validation failure answers.
        public var status: Int {
            switch self {
            case .drf, .vapor: 400
            default: 422
            }
        }
    }

    /// The validator key for errors about the whole object rather than one field.
    public static let nonFieldErrorsKey = "non_field_errors"

    /// A validation failure rendered in `shape`.
    static func validationResponse(_ errors: [String: [String]], shape: ErrorShape) -> HTTPResponse {
        let fields = errors.keys.sorted().map { ($0, errors[$0] ?? []) }
        let isObject = { (field: String) in field == nonFieldErrorsKey }
        let body: JSON
        var contentType = "application/json"
        switch shape {
        case .drf:
            body = .object(JSON.Object(fields.map { ($0.0, JSON.array($0.1.map(JSON.string))) }))
        case .rails:
            let members = fields.map { (isObject($0.0) ? "base" : $0.0, JSON.array($0.1.map(JSON.string))) }
            body = ["errors": .object(JSON.Object(members))]
        case .fastAPI:
            let details: [JSON] = fields.flatMap { field, messages in
                messages.map { message -> JSON in
                    let location: JSON = isObject(field) ? ["body"] : ["body", .string(field)]
                    return ["type": "value_error", "loc": location, "msg": .string(message)]
                }
            }
            body = ["detail": .array(details)]
        case .jsonAPI:
            contentType = "application/vnd.api+json"
            let details: [JSON] = fields.flatMap { field, messages in
                messages.map { message -> JSON in
                    let pointer = isObject(field) ? "/data" : "/data/attributes/\(field)"
                    return [
                        "status": "422", "source": ["pointer": .string(pointer)], "title": "Invalid Attribute",
                        "detail": .string(message),
                    ]
                }
            }
            body = ["errors": .array(details)]
        case .vapor:
            let reasons = fields.flatMap { field, messages in
                messages.map { isObject(field) ? $0 : "\(field) \($0)" }
            }
            body = ["error": true, "reason": .string(reasons.joined(separator: ", "))]
        case .laravel:
            body = laravelValidation(fields)
        case .problemDetails:
            contentType = "application/problem+json"
            let pairs = fields.flatMap { field, messages in messages.map { (field, $0) } }
            let errors: [JSON] = pairs.map { field, message in
                ["detail": .string(message), "pointer": .string(isObject(field) ? "#" : "#/\(field)")]
            }
            let invalid: [JSON] = pairs.map { ["name": .string(isObject($0.0) ? "" : $0.0), "reason": .string($0.1)] }
            body = [
                "type": "about:blank", "title": "Unprocessable Content", "status": 422,
                "detail": "The request body is not valid.", "errors": .array(errors), "invalid-params": .array(invalid),
            ]
        }
        return jsonResponse(shape.status, body, contentType: contentType)
    }

    /// A JSON response with `status` and `body`.
    static func jsonResponse(
        _ status: Int, _ body: JSON, headers: HTTPHeaders = [:], contentType: String = "application/json"
    ) -> HTTPResponse {
        var fields: HTTPHeaders = ["Content-Type": contentType]
        fields = fields.merging(headers)
        return HTTPResponse(status: status, headers: fields, body: (try? body.data()) ?? Data())
    }

    /// `response` in Vapor's shape when it is a `{"detail": …}` error: `{"error": true, "reason": …}`, with
    /// `"Not Found"` for a 404 (what `Abort(.notFound)` says); any other response as it is.
    static func vaporError(_ response: HTTPResponse) -> HTTPResponse {
        guard response.status >= 400, let detail = (try? JSON(data: response.body))?["detail"].string else {
            return response
        }
        let reason = response.status == 404 ? "Not Found" : detail
        var headers = response.headers
        headers["Content-Type"] = "application/json; charset=utf-8"
        return jsonResponse(response.status, ["error": true, "reason": .string(reason)], headers: headers)
    }

    /// `{"detail": message}` with `status`, the shape Django REST framework uses for every non-field error.
    static func detailResponse(_ status: Int, _ message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        jsonResponse(status, ["detail": .string(message)], headers: headers)
    }
}
