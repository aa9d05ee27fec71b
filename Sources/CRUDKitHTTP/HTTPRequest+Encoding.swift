import CRUDKitCore
import Foundation

extension HTTPRequest {
    /// Creates a request whose body is `json`, with `Content-Type: application/json` and
    /// `Accept: application/json` (each only when `headers` does not already set it).
    ///
    /// ```swift
    /// let body = try JSONEncoder().encode(person)
    /// let request = HTTPRequest.json(.post, url: peopleURL, body: body)
    /// ```
    /// - Parameters:
    ///   - method: The request method.
    ///   - url: The absolute URL.
    ///   - body: The encoded JSON document.
    ///   - headers: More header fields.
    /// - Returns: The request.
    package static func json(_ method: HTTPMethod, url: URL, body: Data, headers: HTTPHeaders = [:]) -> HTTPRequest {
        var request = HTTPRequest(method: method, url: url, headers: headers)
        request.setJSONBody(body)
        return request
    }

    /// Sets the body to `json` with `Content-Type: application/json`; adds `Accept: application/json` when no
    /// `Accept` is set.
    ///
    /// - Parameter json: The encoded JSON document.
    package mutating func setJSONBody(_ json: Data) {
        body = .data(json)
        headers["Content-Type"] = "application/json"
        if !headers.contains("Accept") { headers["Accept"] = "application/json" }
    }

    /// Sets the body to `parameters` as `application/x-www-form-urlencoded` (see ``FormParameters`` for the style).
    ///
    /// - Parameters:
    ///   - parameters: The fields.
    ///   - style: How lists are written.
    @_spi(TransportKit) public mutating func setFormBody(
        _ parameters: FormParameters, style: FormParameters.ArrayStyle = .brackets
    ) {
        body = .data(Data(parameters.percentEncoded(style: style).utf8))
        headers["Content-Type"] = "application/x-www-form-urlencoded"
    }

    /// Sets the body to `form`, held in memory (file parts are read now), with its multipart `Content-Type`.
    ///
    /// For large files use `MultipartForm/withTemporaryBody(_:)`, which streams the parts through a temporary
    /// file instead.
    /// - Parameter form: The form.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when a file cannot be read or a part name, file name or
    ///   content type is invalid.
    package mutating func setMultipartBody(_ form: MultipartForm) throws {
        body = .data(try form.encodedData())
        headers["Content-Type"] = form.contentType
    }

    /// Appends `parameters` to the URL's query (after any query it already has), percent-encoded in the style of
    /// ``FormParameters``.
    ///
    /// ```swift
    /// var request = HTTPRequest(url: URL(string: "https://api.example.com/people?page=2")!)
    /// try request.appendQuery(["name": "Ada Lovelace", "tags": ["a", "b"]])
    /// // https://api.example.com/people?page=2&name=Ada%20Lovelace&tags%5B%5D=a&tags%5B%5D=b
    /// ```
    /// - Parameters:
    ///   - parameters: The fields to add; nothing changes when empty.
    ///   - style: How lists are written.
    /// - Throws: ``CRUDError/invalidRequest(reason:)`` when the URL cannot hold a query.
    @_spi(TransportKit) public mutating func appendQuery(
        _ parameters: FormParameters, style: FormParameters.ArrayStyle = .brackets
    ) throws {
        let encoded = parameters.percentEncoded(style: style)
        guard !encoded.isEmpty else { return }
        guard var components = URLComponents(url: url, resolvingAgainstBaseURL: true) else {
            throw CRUDError.invalidRequest(reason: "the URL \(url) cannot take a query")
        }
        let existing = components.percentEncodedQuery ?? ""
        components.percentEncodedQuery = existing.isEmpty ? encoded : existing + "&" + encoded
        guard let appended = components.url else {
            throw CRUDError.invalidRequest(reason: "the URL \(url) cannot take a query")
        }
        url = appended
    }
}
