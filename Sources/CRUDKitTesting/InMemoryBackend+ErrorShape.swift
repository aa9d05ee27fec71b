import CRUDKit
import Foundation

extension InMemoryBackend {
    /// The shape in which the backend reports field errors from a collection's validator.
    ///
    /// A validator returns `[field: [message]]`; the key ``InMemoryBackend/nonFieldErrorsKey``
    /// (`"non_field_errors"`) holds errors about the object as a whole. Fields are listed in the order of the
    /// collection's registered columns (as serializers and validations declare them), others by name.
    public enum ErrorShape: Sendable, Hashable {
        /// Django REST framework: 400 `{"age": ["…"], "non_field_errors": ["…"]}`.
        case drf
        /// A Rails API that wraps its errors: 422 `{"errors": {"age": ["…"], "base": ["…"]}}`
        /// (`render json: {errors: @person.errors}`).
        case rails
        /// Rails' scaffold: 422 with the bare errors hash, `{"age": ["…"], "base": ["…"]}`
        /// (`render json: @person.errors, status: :unprocessable_entity`).
        case railsScaffold
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

    /// A validation failure rendered in `shape`, fields in `columns`' order.
    static func validationResponse(
        _ errors: [String: [String]], shape: ErrorShape, columns: JSON.Object? = nil
    ) -> HTTPResponse {
        let fields = fieldOrder(errors.keys, columns: columns).map { ($0, errors[$0] ?? []) }
        let isObject = { (field: String) in field == nonFieldErrorsKey }
        let body: JSON
        var contentType = "application/json"
        switch shape {
        case .drf:
            body = .object(JSON.Object(fields.map { ($0.0, JSON.array($0.1.map(JSON.string))) }))
        case .rails, .railsScaffold:
            let members = fields.map { (isObject($0.0) ? "base" : $0.0, JSON.array($0.1.map(JSON.string))) }
            body = shape == .rails ? ["errors": .object(JSON.Object(members))] : .object(JSON.Object(members))
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

    /// `response` in the shape the framework of `style` gives its own errors when it is a `{"detail": …}` error
    /// (a missing object or route, a method, a parse failure, a precondition): Vapor's `{"error": true, "reason":
    /// …}` (`"Not Found"` for a 404), Rails' `{"status": 404, "error": "Not Found"}` (an empty `text/html` body
    /// when the request does not accept JSON), Starlette's `{"detail": "Not Found"}`; any other response as it is.
    static func frameworkError(_ response: HTTPResponse, style: Style, request: HTTPRequest) -> HTTPResponse {
        guard response.status >= 400, let detail = (try? JSON(data: response.body))?["detail"].string else {
            return response
        }
        let phrase = reasonPhrase(response.status)
        var headers = response.headers
        switch style.errors {
        case .vapor:
            headers["Content-Type"] = "application/json; charset=utf-8"
            let reason = response.status == 404 ? phrase : detail
            return jsonResponse(response.status, ["error": true, "reason": .string(reason)], headers: headers)
        case .railsScaffold:
            guard request.headers["Accept"]?.lowercased().contains("json") == true else {
                headers["Content-Type"] = "text/html; charset=utf-8"
                return HTTPResponse(status: response.status, headers: headers)
            }
            headers["Content-Type"] = "application/json; charset=utf-8"
            return jsonResponse(
                response.status, ["status": JSON(response.status), "error": .string(phrase)], headers: headers)
        case .fastAPI where response.status == 404 || response.status == 405:
            return jsonResponse(response.status, ["detail": .string(phrase)], headers: headers)
        default:
            return response
        }
    }

    /// FastAPI's 422 for a body that is not an object its pydantic model can read (checked with FastAPI 0.165 and
    /// pydantic 2.14): no body is `missing`, malformed JSON `json_invalid` at its byte offset, any other JSON
    /// value or media type `model_attributes_type` with the input; `nil` for an object or a form.
    static func pydanticBodyFailure(_ data: Data, type: String?) -> HTTPResponse? {
        let item: JSON
        if data.isEmpty {
            item = ["type": "missing", "loc": ["body"], "msg": "Field required", "input": nil]
        } else if type == nil || type == "application/json" || type?.hasSuffix("+json") == true {
            let parsed: JSON
            do {
                parsed = try JSON(data: data)
            } catch {
                let offset = (error as? JSONError)?.offset ?? 0
                item = [
                    "type": "json_invalid", "loc": ["body", JSON(offset)], "msg": "JSON decode error", "input": [:],
                    "ctx": ["error": .string(String(describing: error))],
                ]
                return jsonResponse(422, ["detail": [item]])
            }
            if case .object = parsed { return nil }
            item = modelAttributesType(parsed)
        } else if type == "application/x-www-form-urlencoded" {
            return nil
        } else {
            item = modelAttributesType(.string(String(decoding: data, as: UTF8.self)))
        }
        return jsonResponse(422, ["detail": [item]])
    }

    private static func modelAttributesType(_ input: JSON) -> JSON {
        [
            "type": "model_attributes_type", "loc": ["body"],
            "msg": "Input should be a valid dictionary or object to extract fields from", "input": input,
        ]
    }

    /// The reason phrase of `status` (RFC 9110), as frameworks write it in their error bodies.
    static func reasonPhrase(_ status: Int) -> String {
        switch status {
        case 400: "Bad Request"
        case 401: "Unauthorized"
        case 403: "Forbidden"
        case 404: "Not Found"
        case 405: "Method Not Allowed"
        case 406: "Not Acceptable"
        case 409: "Conflict"
        case 412: "Precondition Failed"
        case 415: "Unsupported Media Type"
        case 422: "Unprocessable Entity"
        case 428: "Precondition Required"
        case 429: "Too Many Requests"
        case 500: "Internal Server Error"
        case 503: "Service Unavailable"
        default: "Error"
        }
    }

    /// `{"detail": message}` with `status`, the shape Django REST framework uses for every non-field error.
    static func detailResponse(_ status: Int, _ message: String, headers: HTTPHeaders = [:]) -> HTTPResponse {
        jsonResponse(status, ["detail": .string(message)], headers: headers)
    }
}
