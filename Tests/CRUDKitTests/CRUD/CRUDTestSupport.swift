import Foundation
import Testing

@testable import CRUDKit

/// A member of the test collection `people`.
struct Member: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
    var age: Int?
    var favoriteColor: String?
    var address: Address?

    struct Address: Codable, Hashable {
        var city: String
        var zip: String?
    }

    init(id: Int? = nil, firstName: String, lastName: String, age: Int? = nil, favoriteColor: String? = nil) {
        self.id = id
        self.firstName = firstName
        self.lastName = lastName
        self.age = age
        self.favoriteColor = favoriteColor
    }
}

/// A post nested under a member.
struct Note: CRUDModel, Codable, Hashable {
    static let path = "posts"
    var id: Int?
    var title: String
}

/// A small REST server kept in memory, answering like Django REST framework (or plain arrays, or `Link`
/// headers): used in-process as a `Transport` and over the network behind a `LoopbackServer`.
final class FakeREST: Transport {
    enum Listing: Sendable { case envelope, plain, link, pageNumber, offset }

    struct Options: Sendable {
        var prefix = "/v1"
        var trailingSlash = false
        var listing = Listing.envelope
        var pageSize = 2
        var etags = false
        /// 201 with only `Location` for creates, 204 for updates.
        var emptyWrites = false
    }

    private struct State {
        var collections: [String: [(id: Int, json: JSON.Object)]] = [:]
        var nextID = 1
        var versions: [String: Int] = [:]
        var log: [String] = []
    }

    let options: Options
    private let state = Locked(State())

    init(_ options: Options = Options()) { self.options = options }

    /// Every request as `METHOD /raw/path?query body`.
    var log: [String] { state.withLock { $0.log } }

    /// Seeds `count` people named `Person <n>`.
    func seed(_ count: Int, under collection: String = "people") {
        for index in 1...count {
            _ = insert(["first_name": .string("Person"), "last_name": .string("\(index)")], into: collection)
        }
    }

    func send(_ request: HTTPRequest) async throws -> HTTPResponse { handle(request) }

    func handle(_ request: HTTPRequest) -> HTTPResponse {
        let components = URLComponents(url: request.url, resolvingAgainstBaseURL: false)
        let rawPath = components?.percentEncodedPath ?? request.url.path
        let query = components?.percentEncodedQuery
        let body = request.body.data.map { String(decoding: $0, as: UTF8.self) } ?? ""
        state.withLock {
            $0.log.append(
                "\(request.method.rawValue) \(rawPath)\(query.map { "?\($0)" } ?? "")\(body.isEmpty ? "" : " \(body)")")
        }
        guard rawPath.hasPrefix(options.prefix) else { return reply(404, ["detail": "Not found."]) }
        var path = String(rawPath.dropFirst(options.prefix.count))
        if options.trailingSlash {
            guard path.hasSuffix("/") else { return HTTPResponse(status: 301, headers: ["Location": rawPath + "/"]) }
            path.removeLast()
        }
        let segments = path.split(separator: "/").map { $0.removingPercentEncoding ?? String($0) }
        let pairs = FormParameters.decodePairs(query ?? "")
        let parameters = Dictionary(pairs.map { ($0.name, $0.value) }, uniquingKeysWith: { first, _ in first })
        let json = request.body.data.flatMap { try? JSON(data: $0) }
        return route(request, segments: segments, parameters: parameters, body: json)
    }

    private func route(
        _ request: HTTPRequest, segments: [String], parameters: [String: String], body: JSON?
    ) -> HTTPResponse {
        switch (request.method, segments.count) {
        case (.get, 2) where segments[1] == "search":
            let found = all("people").filter { $0.json["first_name"]?.string == parameters["q"] }
            return reply(200, .array(found.map { .object($0.json) }))
        case (.post, 3) where segments[2] == "activate":
            guard var item = find(segments[0], segments[1]) else { return notFound() }
            item["active"] = true
            return reply(200, .object(item))
        case (_, let count) where count % 2 == 1:
            let collection = segments.joined(separator: "/")
            if count == 3, find(segments[0], segments[1]) == nil { return notFound() }
            if request.method == .get { return list(collection, parameters: parameters, url: request.url) }
            guard request.method == .post else { return reply(405, ["detail": "Method not allowed."]) }
            guard var object = body?.object else { return reply(400, ["non_field_errors": ["No data provided"]]) }
            if let age = object["age"]?.int, age < 0 {
                return reply(400, ["age": ["Ensure this value is greater than or equal to 0."]])
            }
            object["id"] = nil
            let id = insert(object, into: collection)
            if options.emptyWrites {
                return HTTPResponse(status: 201, headers: ["Location": "\(options.prefix)/\(collection)/\(id)"])
            }
            return reply(201, .object(find(collection, String(id)) ?? [:]), etag: etag(collection, id))
        default:
            return member(request, segments: segments, body: body)
        }
    }

    private func member(_ request: HTTPRequest, segments: [String], body: JSON?) -> HTTPResponse {
        let collection = segments.dropLast().joined(separator: "/")
        let key = segments.last ?? ""
        guard let current = find(collection, key), let id = Int(key) else { return notFound() }
        let tag = etag(collection, id)
        if let expected = request.headers["If-Match"], expected != tag {
            return reply(412, ["detail": "Precondition failed."])
        }
        switch request.method {
        case .get:
            return reply(200, .object(current), etag: tag)
        case .put, .patch:
            guard var object = body?.object else { return reply(400, ["non_field_errors": ["No data provided"]]) }
            if request.method == .patch {
                object = current.jsonValue.applyingMergePatch(.object(object)).objectValue
            }
            object["id"] = .number(.int(Int64(id)))
            replace(collection, id, with: object)
            if options.emptyWrites { return HTTPResponse(status: 204) }
            return reply(200, .object(object), etag: etag(collection, id))
        case .delete:
            state.withLock { $0.collections[collection]?.removeAll { $0.id == id } }
            return HTTPResponse(status: 204)
        default:
            return reply(405, ["detail": "Method not allowed."])
        }
    }

    private func list(_ collection: String, parameters: [String: String], url: URL) -> HTTPResponse {
        var items = all(collection)
        if let minimum = parameters["age__gte"].flatMap(Int.init) {
            items = items.filter { ($0.json["age"]?.int ?? -1) >= minimum }
        }
        let everything = items.map { JSON.object($0.json) }
        let size = options.pageSize
        switch options.listing {
        case .plain:
            return reply(200, .array(everything))
        case .offset:
            let offset = parameters["offset"].flatMap(Int.init) ?? 0
            let limit = parameters["limit"].flatMap(Int.init) ?? size
            return reply(200, .array(Array(everything.dropFirst(offset).prefix(limit))))
        case .envelope, .link, .pageNumber:
            let page = parameters["page"].flatMap(Int.init) ?? 1
            let slice = Array(everything.dropFirst((page - 1) * size).prefix(size))
            let more = page * size < everything.count
            var next = URLComponents(url: url, resolvingAgainstBaseURL: false)
            let kept = (next?.queryItems ?? []).filter { $0.name != "page" }
            next?.queryItems = kept + [URLQueryItem(name: "page", value: "\(page + 1)")]
            let nextURL = more ? next?.url?.absoluteString : nil
            switch options.listing {
            case .envelope:
                return reply(
                    200,
                    [
                        "count": .number(.int(Int64(everything.count))), "next": nextURL.map(JSON.string) ?? .null,
                        "previous": .null, "results": .array(slice),
                    ])
            case .link:
                var headers: HTTPHeaders = ["X-Total-Count": "\(everything.count)"]
                if let nextURL { headers["Link"] = "<\(nextURL)>; rel=\"next\", <\(url)>; rel=\"first\"" }
                return reply(200, .array(slice), headers: headers)
            default:
                return reply(200, .array(slice))
            }
        }
    }

    // MARK: - Storage

    private func all(_ collection: String) -> [(id: Int, json: JSON.Object)] {
        state.withLock { $0.collections[collection] ?? [] }
    }

    private func find(_ collection: String, _ key: String) -> JSON.Object? {
        guard let id = Int(key) else { return nil }
        return state.withLock { $0.collections[collection]?.first { $0.id == id }?.json }
    }

    private func insert(_ object: JSON.Object, into collection: String) -> Int {
        state.withLock { state in
            let id = state.nextID
            state.nextID += 1
            var stored = JSON.Object()
            stored["id"] = .number(.int(Int64(id)))
            for (key, value) in object where key != "id" { stored[key] = value }
            state.collections[collection, default: []].append((id, stored))
            state.versions["\(collection)/\(id)"] = 1
            return id
        }
    }

    private func replace(_ collection: String, _ id: Int, with object: JSON.Object) {
        state.withLock { state in
            guard let index = state.collections[collection]?.firstIndex(where: { $0.id == id }) else { return }
            state.collections[collection]?[index].json = object
            state.versions["\(collection)/\(id)", default: 1] += 1
        }
    }

    private func etag(_ collection: String, _ id: Int) -> String? {
        guard options.etags else { return nil }
        return state.withLock { "\"v\($0.versions["\(collection)/\(id)"] ?? 0)\"" }
    }

    private func notFound() -> HTTPResponse { reply(404, ["detail": "Not found."]) }

    private func reply(_ status: Int, _ json: JSON, etag: String? = nil, headers: HTTPHeaders = [:]) -> HTTPResponse {
        var headers = headers
        headers["Content-Type"] = "application/json"
        if let etag { headers["ETag"] = etag }
        return HTTPResponse(status: status, headers: headers, body: (try? json.data()) ?? Data())
    }
}

extension FakeREST {
    /// An API on this server, in-process.
    func api(conventions: APIConventions = .standard) -> API {
        var configuration = APIConfiguration(baseURL: URL(string: "https://api.example.com\(options.prefix)")!)
        configuration.transport = self
        configuration.apply(conventions)
        return API(configuration: configuration)
    }
}
