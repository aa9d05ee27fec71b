import CRUDKit
import CRUDKitTesting
import Foundation

/// The request script of `DRFFidelityTests`: raw requests, run in order through `Transport.send`, with the ids of
/// created objects captured by name and put into later paths as `{a}`.
struct FidelityStep: Sendable {
    var name: String
    var method: HTTPMethod
    var path: String
    var body: String?
    var contentType = "application/json"
    var headers: [String: String] = [:]
    /// The name the `id` of the answer's object is kept under.
    var captures: String?

    /// The script for one run; `tag` is the unique last name of its people (the live server is shared).
    static func script(tag: String) -> [FidelityStep] {
        let ada = #"{"first_name": "Ada", "last_name": "\#(tag)", "age": 36, "nickname": "x"}"#
        let alan = #"{"first_name": "Alan", "last_name": "\#(tag)", "favorite_color": "green"}"#
        let grace = #"{"first_name": "Grace", "last_name": "\#(tag)", "email": "g@example.com"}"#
        let list = "/people/?last_name=\(tag)"
        let missing = "/people/987654321/"
        return [
            .init(name: "create a", method: .post, path: "/people/", body: ada, captures: "a"),
            .init(name: "create b", method: .post, path: "/people/", body: alan, captures: "b"),
            .init(name: "create c", method: .post, path: "/people/", body: grace, captures: "c"),
            .init(name: "read", method: .get, path: "/people/{a}/"),
            .init(name: "head", method: .head, path: "/people/{a}/"),
            .init(name: "list page 1", method: .get, path: list + "&page_size=2"),
            .init(name: "list page 2", method: .get, path: list + "&page_size=2&page=2"),
            .init(name: "list past the end", method: .get, path: list + "&page_size=2&page=3"),
            .init(name: "list page 0", method: .get, path: list + "&page=0"),
            .init(name: "list page abc", method: .get, path: list + "&page=abc"),
            .init(name: "list page last", method: .get, path: list + "&page_size=2&page=last"),
            .init(name: "list page size 0", method: .get, path: list + "&page_size=0"),
            .init(name: "list page size junk", method: .get, path: list + "&page_size=junk"),
            .init(name: "list page size 1000", method: .get, path: list + "&page_size=1000"),
            .init(name: "list nobody", method: .get, path: "/people/?last_name=\(tag)-nobody"),
            .init(name: "list filtered", method: .get, path: list + "&first_name=Alan"),
            .init(
                name: "PUT leaving out an optional", method: .put, path: "/people/{b}/",
                body: #"{"first_name": "Alan", "last_name": "\#(tag)"}"#),
            .init(
                name: "PUT leaving out a required field", method: .put, path: "/people/{b}/",
                body: #"{"first_name": "Alan"}"#),
            .init(name: "PATCH {}", method: .patch, path: "/people/{a}/", body: "{}"),
            .init(name: "PATCH null clears", method: .patch, path: "/people/{a}/", body: #"{"age": null}"#),
            .init(name: "PATCH sets", method: .patch, path: "/people/{a}/", body: #"{"favorite_color": "red"}"#),
            .init(name: "PATCH null required", method: .patch, path: "/people/{a}/", body: #"{"first_name": null}"#),
            .init(
                name: "PATCH object rule", method: .patch, path: "/people/{a}/", body: #"{"first_name": "\#(tag)"}"#),
            .init(name: "PATCH ignores id", method: .patch, path: "/people/{a}/", body: #"{"id": 5, "age": 37}"#),
            .init(name: "POST {}", method: .post, path: "/people/", body: "{}"),
            .init(name: "POST empty body", method: .post, path: "/people/", body: ""),
            .init(
                name: "POST negative age", method: .post, path: "/people/",
                body: #"{"first_name": "N", "last_name": "\#(tag)", "age": -1}"#),
            .init(name: "POST array", method: .post, path: "/people/", body: "[]"),
            .init(name: "POST null", method: .post, path: "/people/", body: "null"),
            .init(name: "POST malformed JSON", method: .post, path: "/people/", body: #"{"first_name": "#),
            .init(name: "POST text/plain", method: .post, path: "/people/", body: "hello", contentType: "text/plain"),
            .init(name: "read missing", method: .get, path: missing),
            .init(name: "read non-integer id", method: .get, path: "/people/abc/"),
            .init(name: "PUT missing", method: .put, path: missing, body: alan),
            .init(name: "DELETE missing", method: .delete, path: missing),
            .init(name: "If-None-Match *", method: .get, path: "/people/{a}/", headers: ["If-None-Match": "*"]),
            .init(name: "If-None-Match tag", method: .get, path: "/people/{a}/", headers: ["If-None-Match": #""1""#]),
            .init(
                name: "If-Modified-Since future", method: .get, path: "/people/{a}/",
                headers: ["If-Modified-Since": "Fri, 01 Jan 2100 00:00:00 GMT"]),
            .init(
                name: "PUT If-Match bogus", method: .put, path: "/people/{c}/", body: grace,
                headers: ["If-Match": #""bogus""#]),
            .init(
                name: "PATCH If-Unmodified-Since past", method: .patch, path: "/people/{c}/", body: #"{"age": 50}"#,
                headers: ["If-Unmodified-Since": "Sat, 01 Jan 2000 00:00:00 GMT"]),
            .init(
                name: "PATCH If-None-Match *", method: .patch, path: "/people/{c}/", body: #"{"age": 51}"#,
                headers: ["If-None-Match": "*"]),
            .init(name: "PATCH without slash", method: .patch, path: "/people/{a}", body: #"{"age": 1}"#),
            .init(name: "DELETE without slash", method: .delete, path: "/people/{a}"),
            .init(name: "POST without slash", method: .post, path: "/people?x=1", body: ada),
            .init(name: "DELETE collection", method: .delete, path: "/people/"),
            .init(name: "POST to a member", method: .post, path: "/people/{a}/", body: ada),
            .init(name: "OPTIONS", method: .options, path: "/people/"),
            .init(
                name: "create post", method: .post, path: "/people/{a}/posts/",
                body: #"{"title": "Hello", "body": "World", "person": 987654321}"#, captures: "p"),
            .init(name: "create post without title", method: .post, path: "/people/{a}/posts/", body: "{}"),
            .init(name: "list posts", method: .get, path: "/people/{a}/posts/"),
            .init(name: "posts of a missing person", method: .get, path: "/people/987654321/posts/"),
            .init(name: "PATCH post", method: .patch, path: "/people/{a}/posts/{p}/", body: #"{"body": "Changed"}"#),
            .init(name: "post under another person", method: .get, path: "/people/{b}/posts/{p}/"),
            .init(name: "DELETE If-Match bogus", method: .delete, path: "/people/{a}/", headers: ["If-Match": "\"x\""]),
            .init(name: "read deleted", method: .get, path: "/people/{a}/"),
            .init(name: "posts after cascade", method: .get, path: "/people/{a}/posts/"),
            .init(name: "delete b", method: .delete, path: "/people/{b}/"),
            .init(name: "delete c", method: .delete, path: "/people/{c}/"),
        ]
    }

    /// The request, with captured ids put into the path.
    func request(base: URL, ids: [String: String]) throws -> HTTPRequest {
        var path = self.path
        for (name, id) in ids { path = path.replacingOccurrences(of: "{\(name)}", with: id) }
        guard let url = URL(string: base.absoluteString + path) else { throw CRUDError.invalidRequest(reason: path) }
        var headers = HTTPHeaders(["Accept": "application/json"])
        for (name, value) in self.headers { headers[name] = value }
        var request = HTTPRequest(method: method, url: url, headers: headers)
        if let body {
            request.headers["Content-Type"] = contentType
            request.body = .data(Data(body.utf8))
        }
        return request
    }
}
