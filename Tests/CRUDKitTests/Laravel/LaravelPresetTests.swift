import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A model of a Laravel API: snake_case keys, Eloquent timestamps with microseconds.
struct LaravelPerson: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var age: Int?
    var nickname: String?
    var createdAt: Date?
}

/// Laravel as the sixth preset, against `InMemoryBackend(style: .laravel)` (issue 25, item 3).
@Suite struct LaravelPresetTests {
    private static let base = URL(string: "https://shop.example.com/api")!

    /// A Laravel backend whose FormRequest wants a first name and an age of at least 0.
    static func backend(perPage: Int = 15, clock: @escaping @Sendable () -> Date = { Date() }) -> InMemoryBackend {
        var style = InMemoryBackend.Style.laravel
        style.pagination = .laravel(perPage: perPage)
        let backend = InMemoryBackend(style: style, clock: clock)
        backend.register("people") { person, isCreate in
            var errors: [String: [String]] = [:]
            if isCreate, (person["first_name"].string ?? "").isEmpty {
                errors["first_name"] = ["The first name field is required."]
            }
            if let age = person["age"].int, age < 0 { errors["age"] = ["The age must be at least 0."] }
            return errors
        }
        return backend
    }

    @Test func theBackendAnswersLikeLaravel() async throws {
        let server = Self.backend(perPage: 2)
        let json: HTTPHeaders = ["Accept": "application/json"]
        let made = try await call(server, .post, "/api/people", json: ["first_name": "Ada", "age": 36], headers: json)
        _ = try await call(server, .post, "/api/people", json: ["first_name": "Bo"], headers: json)
        _ = try await call(server, .post, "/api/people", json: ["first_name": "Cy"], headers: json)
        let put = try await call(server, .put, "/api/people/1", json: ["age": 37], headers: json)
        let second = try await call(server, .get, "/api/people?page=2&per_page=2&first_name=Cy", headers: json)
        let page = try await call(server, .get, "/api/people?page=2&per_page=2", headers: json).json
        let wrapped = try await call(
            server, .post, "/api/people", json: ["person": ["first_name": "Di"]], headers: json)
        let invalid = try await call(
            server, .post, "/api/people", json: ["first_name": "Ed", "age": -1], headers: json)
        let missing = try await call(server, .get, "/api/people/7", headers: json)
        let browser = try await call(server, .post, "/api/people", json: ["age": -1], headers: ["Accept": "text/html"])
        let browserMissing = try await call(server, .get, "/api/people/7", headers: ["Accept": "*/*"])
        let deleted = try await call(server, .delete, "/api/people/3", headers: json)

        #expect(made.status == 201 && made.headers["Location"] == nil)
        #expect(Self.withoutTimestamps(made.json) == ["data": ["id": 1, "first_name": "Ada", "age": 36]])
        // PUT keeps what it leaves out
        #expect(Self.withoutTimestamps(put.json) == ["data": ["id": 1, "first_name": "Ada", "age": 37]])
        for answer in [made.json, put.json] {  // Eloquent's timestamps, with microseconds in UTC
            for key in ["created_at", "updated_at"] {
                let stamp = try #require(answer["data"][key].string)
                #expect(stamp.count == 27 && stamp.hasSuffix("Z") && stamp.dropLast(7).hasSuffix("."))
            }
        }
        #expect(second.json["data"] == .array([]))  // the filter matched one person, on page 1
        #expect((page["data"].array ?? []).map(\.["first_name"]) == ["Cy"])
        #expect(
            page["links"]
                == [
                    "first": .string("\(backendBase)/api/people?page=1"),
                    "last": .string("\(backendBase)/api/people?page=2"),
                    "prev": .string("\(backendBase)/api/people?page=1"), "next": .null,
                ])
        #expect(page["meta"]["current_page"] == 2 && page["meta"]["last_page"] == 2 && page["meta"]["total"] == 3)
        #expect(page["meta"]["per_page"] == 2 && page["meta"]["from"] == 3 && page["meta"]["to"] == 3)
        #expect(page["meta"]["path"].string == "\(backendBase)/api/people")
        #expect(wrapped.status == 422)  // a wrapped body is refused
        #expect(
            invalid.json == [
                "message": "The given data was invalid.", "errors": ["age": ["The age must be at least 0."]],
            ])
        #expect(invalid.status == 422)
        #expect(missing.status == 404)
        #expect(missing.json == ["message": "No query results for model [App\\Models\\Person] 7"])
        #expect(browser.status == 302 && browser.headers["Location"] == "\(Self.origin)/")
        #expect(browserMissing.status == 404 && browserMissing.headers["Content-Type"]?.hasPrefix("text/html") == true)
        #expect(deleted.status == 204)
    }

    /// `json` without Eloquent's `created_at`/`updated_at` in its `data` object.
    private static func withoutTimestamps(_ json: JSON) -> JSON {
        guard var data = json["data"].object else { return json }
        _ = data.removeValue(forKey: "created_at")
        _ = data.removeValue(forKey: "updated_at")
        return ["data": .object(data)]
    }

    /// The instant `stamp` names, read as a model reads it.
    private static func instant(_ stamp: String) throws -> Date {
        struct Stamped: Decodable { var at: Date }
        return try JSONCoding.default.decode(Stamped.self, from: Data(#"{"at":"\#(stamp)"}"#.utf8)).at
    }

    /// What the test requests' URLs start with (`call` sends to `backendBase`).
    private static var origin: String {
        let url = URL(string: backendBase)!
        return "\(url.scheme ?? "http")://\(url.host ?? "")" + (url.port.map { ":\($0)" } ?? "")
    }

    /// The server's clock is pinned: with the system clock, one run in a thousand stamped a time whose microseconds
    /// end in `000`, which goes back as the same instant written with three digits, and the length check failed.
    @Test(arguments: [1_795_000_000.123456, 1_795_000_000.120000, 1_795_000_000])
    func thePresetCreatesReadsUpdatesListsAndDeletes(time: Double) async throws {
        let server = Self.backend(clock: { Date(timeIntervalSince1970: time) })
        let people = LaravelPerson.using(API(baseURL: Self.base, conventions: .laravel, transport: server))

        var made = try await people.create(LaravelPerson(firstName: "Ada", age: 36, nickname: "A"))
        made.age = 37
        made.nickname = nil
        let updated = try await people.update(made)
        let read = try await people.read(id: try #require(made.id))
        let stamped = try #require(server.record(in: "people", id: 1)?["created_at"].string)
        for number in 2...25 {
            _ = try await people.create(LaravelPerson(firstName: "P\(number)"))
        }
        let everyone = try await people.all().collect()
        let firstPage = try await people.list()
        _ = try await people.delete(id: 1)

        #expect(made.id == 1 && made.firstName == "Ada")
        #expect(updated.age == 37 && updated.nickname == nil)  // `null` clears on a partial PUT
        #expect(read == updated)
        #expect(everyone.count == 25 && everyone.map(\.id) == (1...25).map { $0 })
        #expect(firstPage.count == 15)
        #expect(server.count(in: "people") == 24)
        let requests = server.recorder.requests
        #expect(requests.first?.json == ["first_name": "Ada", "age": 36, "nickname": "A"])  // bare
        var put = try #require(requests[1].json.object)
        let createdAt = put.removeValue(forKey: "created_at")?.string  // read back from the answer, sent as read
        #expect(JSON.object(put) == ["id": 1, "first_name": "Ada", "age": 37, "nickname": nil])
        #expect(try Self.instant(try #require(createdAt)) == Self.instant(stamped))  // the same instant
        if time == 1_795_000_000.123456 { #expect(createdAt == stamped && stamped.count == 27) }
        #expect(requests.allSatisfy { $0.header("Accept") == "application/json" })
        #expect(requests.allSatisfy { $0.path.hasPrefix("/api/people") && !$0.path.hasSuffix("/") })
    }

    @Test func validationAndMissingModelsAreReadAsFieldErrorsAndMessages() async throws {
        let people = LaravelPerson.using(API(baseURL: Self.base, conventions: .laravel, transport: Self.backend()))

        let invalid = await crudError { try await people.create(LaravelPerson(firstName: "", age: -1)) }
        let missing = await crudError { try await people.read(id: 7) }

        #expect(invalid?.status == 422)
        #expect(
            invalid?.fieldErrors
                == ["age": ["The age must be at least 0."], "first_name": ["The first name field is required."]])
        #expect(invalid?.serverMessage == "The given data was invalid.")
        #expect(missing?.isNotFound == true)
        #expect(missing?.serverMessage == "No query results for model [App\\Models\\Person] 7")
    }

    @Test func withoutAcceptJSONLaravelRedirectsAFailedValidation() async throws {
        // A caller that overrides `Accept` meets what a browser gets: a 302 to the previous page, not a 422.
        let api = API(
            baseURL: Self.base, conventions: .laravel, headers: ["Accept": "text/html"], transport: Self.backend())
        let error = await crudError { try await LaravelPerson.using(api).create(LaravelPerson(firstName: "")) }
        #expect(error?.status == 302)
        #expect(error?.fieldErrors == [:])
    }

    @Test func thePresetSaysWhatLaravelExpects() {
        let laravel = APIConventions.laravel
        #expect(laravel.name == "laravel" && laravel.trailingSlash == .never && laravel.queryStyle == .brackets)
        #expect(laravel.pagination == .laravel && laravel.responseKey == "data")
        #expect(laravel.authorization(token: "t") == ["Authorization": "Bearer t"])
        #expect(laravel.writesDecimalsAsStrings && !laravel.diffsNestedObjects)
        #expect(APIConventions.standard.responseKey == nil && APIConventions.vapor.responseKey == nil)
    }
}
