import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

#if canImport(FoundationNetworking)
import FoundationNetworking
#endif

extension NetworkTests {
    /// The `.laravel` preset through `URLSessionTransport` against a scripted Laravel exchange: the exact bytes a
    /// Laravel 11 API sends (`Connection: close` and no `Content-Length`, `X-RateLimit-*` on every answer, dates
    /// with microseconds, a 429 with `Retry-After`), issue 25 item 3.
    @Suite struct LaravelExchangeTests {
        /// Answers the list's first request with 429 once.
        actor Throttle {
            private var listRequests = 0
            func isThrottled() -> Bool {
                listRequests += 1
                return listRequests == 1
            }
        }

        static let stamp = "2026-11-27T07:56:34.000000Z"

        /// A reply of raw bytes, as Laravel behind `php artisan serve` writes it, then the connection closes.
        static func raw(_ status: String, _ body: String = "", extra: [String] = []) -> LoopbackReply {
            var head =
                "HTTP/1.1 \(status)\r\nHost: 127.0.0.1\r\nConnection: close\r\n"
                + "Cache-Control: no-cache, private\r\nX-RateLimit-Limit: 60\r\nX-RateLimit-Remaining: 57\r\n"
                + "Access-Control-Allow-Origin: *\r\n"
            if !body.isEmpty { head += "Content-Type: application/json\r\n" }
            for line in extra { head += line + "\r\n" }
            return .fault(.raw(Data((head + "\r\n" + body).utf8)))
        }

        static func person(_ id: Int, _ name: String, age: Int? = nil) -> String {
            let age = age.map(String.init) ?? "null"
            return #"{"id":\#(id),"first_name":"\#(name)","age":\#(age),"nickname":null,"#
                + #""created_at":"\#(stamp)","updated_at":"\#(stamp)"}"#
        }

        static func page(_ number: Int, _ base: String) -> String {
            let ids = number == 1 ? Array(1...15) : Array(16...20)
            let data = ids.map { person($0, "P\($0)") }.joined(separator: ",")
            let next = number == 1 ? #""\#(base)/api/people?page=2""# : "null"
            let prev = number == 1 ? "null" : #""\#(base)/api/people?page=1""#
            return #"{"data":[\#(data)],"links":{"first":"\#(base)/api/people?page=1","#
                + #""last":"\#(base)/api/people?page=2","prev":\#(prev),"next":\#(next)},"meta":{"current_page":"#
                + #"\#(number),"from":\#(ids[0]),"last_page":2,"links":[],"path":"\#(base)/api/people","#
                + #""per_page":15,"to":\#(ids[ids.count - 1]),"total":20}}"#
        }

        static func answer(_ request: LoopbackRequest, throttle: Throttle) async -> LoopbackReply {
            guard request.headers["Accept"]?.contains("application/json") == true else {
                return raw("302 Found", extra: ["Location: http://127.0.0.1/"])
            }
            let base = "http://127.0.0.1:\(request.port)"
            let body = (try? JSON(data: request.body)) ?? .null
            switch (request.method, request.path) {
            case ("POST", "/api/people"):
                guard body["first_name"].string != nil, body.object?["person"] == nil else {
                    return raw(
                        "422 Unprocessable Content",
                        #"{"message":"The given data was invalid.","errors":{"first_name":["The first name field is required."]}}"#
                    )
                }
                if let age = body["age"].int, age < 0 {
                    return raw(
                        "422 Unprocessable Content",
                        #"{"message":"The given data was invalid.","errors":{"age":["The age must be at least 0."]}}"#)
                }
                return raw(
                    "201 Created", #"{"data":\#(person(7, (body["first_name"].string ?? ""), age: body["age"].int))}"#)
            case ("PUT", "/api/people/7"):
                return raw(
                    "200 OK", #"{"data":\#(person(7, (body["first_name"].string ?? ""), age: body["age"].int))}"#)
            case ("GET", "/api/people/8"):
                return raw("404 Not Found", #"{"message":"No query results for model [App\\Models\\Person] 8"}"#)
            case ("GET", "/api/people"):
                if await throttle.isThrottled() {
                    return raw(
                        "429 Too Many Requests", #"{"message":"Too Many Attempts."}"#,
                        extra: ["Retry-After: 0", "X-RateLimit-Reset: 1795658194"])
                }
                return raw("200 OK", page(request.query?.contains("page=2") == true ? 2 : 1, base))
            case ("DELETE", "/api/people/7"):
                return raw("204 No Content")
            default:
                return raw("404 Not Found", #"{"message":"The route \#(request.path) could not be found."}"#)
            }
        }

        @Test func thePresetWalksAScriptedLaravelExchange() async throws {
            let throttle = Throttle()
            let server = LoopbackServer { request in await Self.answer(request, throttle: throttle) }
            try server.start()
            defer { server.stop() }
            let api = API(
                baseURL: server.baseURL.appendingPathComponent("api"), conventions: .laravel,
                transport: URLSessionTransport(), middleware: .standard.inserting(RetryMiddleware(policy: .standard)))
            let people = LaravelPerson.using(api)

            let made = try await people.create(LaravelPerson(firstName: "Ada", age: 36))
            var changed = made
            changed.age = 37
            let updated = try await people.update(changed)
            let invalid = await crudError { try await people.create(LaravelPerson(firstName: "Bo", age: -1)) }
            let missing = await crudError { try await people.read(id: 8) }
            let everyone = try await people.all().collect()
            let deleted = try await people.delete(id: 7)

            #expect(made.id == 7 && made.firstName == "Ada" && made.age == 36)
            #expect(made.createdAt == Date(timeIntervalSince1970: 1_795_766_194))  // 2026-11-27T07:56:34.000000Z
            #expect(updated.age == 37)
            #expect(invalid?.status == 422)
            #expect(invalid?.fieldErrors == ["age": ["The age must be at least 0."]])
            #expect(invalid?.serverMessage == "The given data was invalid.")
            #expect(missing?.isNotFound == true)
            #expect(missing?.serverMessage == "No query results for model [App\\Models\\Person] 8")
            #expect(everyone.map(\.id) == (1...20).map { $0 })
            #expect(deleted == Okay())
            let sent = server.requests
            #expect(sent.allSatisfy { $0.headers["Accept"] == "application/json" })
            #expect(sent.first.map { (try? JSON(data: $0.body)) ?? .null } == ["first_name": "Ada", "age": 36])
            let lists = sent.filter { $0.method == "GET" && $0.path == "/api/people" }.map { $0.query ?? "" }
            #expect(lists == ["", "", "page=2"])  // the 429 answered once, then the two pages
        }
    }
}
