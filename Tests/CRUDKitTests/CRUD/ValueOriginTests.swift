import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// A value's instance writes go back where it came from (the API and parent path it was read, created or listed
    /// through), against two loopback servers: a primary (the default API) and a backup.
    @Suite struct ValueOriginTests {
        /// Two servers, each holding person 1 under its own name.
        private static func servers() throws -> (primary: ValueOriginServers, backup: ValueOriginServers) {
            (try ValueOriginServers(name: "Primary"), try ValueOriginServers(name: "Backup"))
        }

        @Test func usingThenUpdateWritesToTheAPIItCameFrom() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            try await API.withShared(primary.api) {
                var copy = try await Traveller.using(backup.api).read(id: 1)
                copy.lastName = "Edited"
                _ = try await copy.update()
                _ = try await copy.update(from: Traveller(id: 1, firstName: copy.firstName, lastName: "Backup"))
                _ = try await copy.read()
                let _: Okay = try await copy.action(.post, "activate", as: .okay)
                let future: Future<Traveller> = { copy.update() }()
                _ = try await future.value
                try await copy.delete()
            }
            #expect(primary.server.requests.isEmpty)
            #expect(
                backup.server.requests.map { "\($0.method) \($0.target)" } == [
                    "GET /people/1", "PUT /people/1", "PATCH /people/1", "GET /people/1", "POST /people/1/activate",
                    "PUT /people/1", "DELETE /people/1",
                ])
            #expect(primary.backend.record(in: "people", id: 1)?["last_name"].string == "Primary")
        }

        @Test func valuesFromListsPagesAndAllWriteBackToTheirAPI() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            try await API.withShared(primary.api) {
                let scope = Traveller.using(backup.api)
                let listed = try #require(try await scope.list().first)
                let paged = try #require(try await scope.page().items.first)
                let walked = try #require(try await scope.all().collect().first)
                let made = try await scope.create(Traveller(firstName: "New", lastName: "One"))
                for value in [listed, paged, walked, made] { _ = try await value.update() }
            }
            #expect(primary.server.requests.isEmpty)
            #expect(backup.server.requests.filter { $0.method == "PUT" }.count == 4)
        }

        @Test func scopedThenUpdateAndDeleteKeepTheParent() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            try await API.withShared(primary.api) {
                let ada = try await Traveller.using(backup.api).read(id: 1)
                var hello = try await Postcard.scoped(to: ada, api: backup.api).create(Postcard(title: "Hello"))
                hello.title = "Hello again"
                _ = try await hello.update()
                let listed = try #require(try await Postcard.scoped(to: ada, api: backup.api).list().first)
                _ = try await listed.read()
                let future: Future<Okay> = { hello.delete() }()
                _ = try await future.value
            }
            #expect(primary.server.requests.isEmpty)
            #expect(
                backup.server.requests.map { "\($0.method) \($0.target)" } == [
                    "GET /people/1", "POST /people/1/posts", "PUT /people/1/posts/1", "GET /people/1/posts",
                    "GET /people/1/posts/1", "DELETE /people/1/posts/1",
                ])
        }

        @Test func twoWalksStartedTogetherEachWriteToTheirOwnServer() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            try await withThrowingTaskGroup(of: Void.self) { group in
                for side in [primary, backup] {
                    group.addTask {
                        try await API.withShared(side.api) {
                            for index in 0..<5 {
                                var made = try await Traveller(firstName: side.name, lastName: "\(index)").create()
                                made.lastName = "Walked"
                                _ = try await made.update()
                            }
                        }
                    }
                }
                try await group.waitForAll()
            }
            for side in [primary, backup] {
                let people = side.backend.records(in: "people")
                #expect(people.count == 6)
                #expect(people.filter { $0["first_name"].string == side.name }.count == 6)
                #expect(people.filter { $0["last_name"].string == "Walked" }.count == 5)
            }
        }

        @Test func aValueBuiltByHandGoesToTheModelsAPI() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            try await API.withShared(primary.api) {
                // Another model type: `Traveller` 1 was read by the tests above through APIs now gone, and a value
                // whose only origins are gone is refused (ValueOriginRegistryTests.aValueWhoseAPIIsGoneIsRefused).
                _ = try await Stranger(id: 1, firstName: "Hand", lastName: "Made").update()
            }
            #expect(backup.server.requests.isEmpty)
            #expect(primary.server.requests.map { "\($0.method) \($0.target)" } == ["PUT /people/1"])
        }

        @Test func aNestedOnlyValueWithoutAnOriginIsRefusedBeforeSending() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            let error = await crudError {
                try await API.withShared(primary.api) { try await Postcard(id: 1, title: "Lost").update() }
            }
            #expect(error?.caseName == "invalidRequest")
            #expect("\(error.map { "\($0)" } ?? "")".contains("Postcard.scoped(to: parent)"))
            let listing = await crudError { try await API.withShared(primary.api) { try await Postcard.list() } }
            #expect(listing?.caseName == "invalidRequest")
            #expect(primary.server.requests.isEmpty)
        }

        /// Two `API` values on one server (the second made with `with { … }`, as DRF's trailing-slash check does)
        /// are one origin: a value read through both is not refused, and its write goes through the one read last.
        @Test func twoAPIsOnOneServerAreOneOrigin() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            let other = primary.api.with { $0.headers["X-Client"] = "other" }
            try await API.withShared(backup.api) {
                let mine = try await Traveller.using(primary.api).read(id: 1)
                _ = try await Traveller.using(other).read(id: 1)
                _ = try await mine.read()
            }
            #expect(
                primary.server.requests.map { "\($0.method) \($0.target)" }
                    == Array(repeating: "GET /people/1", count: 3))
            #expect(primary.server.requests.last?.headers["X-Client"] == "other")
            #expect(backup.server.requests.isEmpty)
        }

        @Test func theSameIdFromTwoAPIsIsRefusedAsAmbiguous() async throws {
            let (primary, backup) = try Self.servers()
            defer { primary.server.stop(); backup.server.stop() }
            let error = await crudError {
                try await API.withShared(primary.api) {
                    let mine = try await Traveller.read(id: 1)
                    _ = try await Traveller.using(backup.api).read(id: 1)
                    _ = try await mine.update()
                }
            }
            #expect(error?.caseName == "invalidRequest")
            #expect("\(error.map { "\($0)" } ?? "")".contains("several origins"))
            #expect(primary.server.requests.map(\.method) == ["GET"])
            #expect(backup.server.requests.map(\.method) == ["GET"])
        }
    }
}

@Suite struct ValueOriginRegistryTests {
    private let apiA = API(baseURL: URL(string: "https://a.example"))
    private let apiB = API(baseURL: URL(string: "https://b.example"))

    private func place(_ api: API) -> ValueOrigins.Place { .init(api: ObjectIdentifier(api), parent: []) }

    @Test func anOriginForgottenForAnotherAPIRefusesInsteadOfGoingHome() {
        let origins = ValueOrigins(generationSize: 4)
        origins.record(Traveller.self, id: "1", api: apiB, parent: [], context: nil)
        for id in 2..<20 { origins.record(Traveller.self, id: "\(id)", api: apiA, parent: [], context: nil) }
        guard case .refused = origins.resolve(Traveller.self, id: "1", home: place(apiA), context: nil) else {
            Issue.record("a forgotten value of another API must not go home")
            return
        }
        let other = ValueOrigins(generationSize: 4)
        for id in 2..<20 { other.record(Traveller.self, id: "\(id)", api: apiA, parent: [], context: nil) }
        guard case .unknown = other.resolve(Traveller.self, id: "1", home: place(apiA), context: nil) else {
            Issue.record("only the home API was forgotten: a hand-built value goes home")
            return
        }
    }

    @Test func aBlockPrefersWhatItReadItself() {
        let origins = ValueOrigins(generationSize: 64)
        origins.record(Traveller.self, id: "1", api: apiA, parent: [], context: 1)
        origins.record(Traveller.self, id: "1", api: apiB, parent: [], context: 2)
        guard case .origin(let api, _) = origins.resolve(Traveller.self, id: "1", home: place(apiA), context: 2)
        else {
            Issue.record("block 2 read it from B")
            return
        }
        #expect(api === apiB)
        guard case .refused = origins.resolve(Traveller.self, id: "1", home: place(apiA), context: nil) else {
            Issue.record("outside both blocks the origin is ambiguous")
            return
        }
    }

    @Test func aValueWhoseAPIIsGoneIsRefused() {
        let origins = ValueOrigins(generationSize: 64)
        do {
            let temporary = API(baseURL: URL(string: "https://gone.example"))
            origins.record(Traveller.self, id: "1", api: temporary, parent: [], context: nil)
        }
        guard case .refused = origins.resolve(Traveller.self, id: "1", home: place(apiA), context: nil) else {
            Issue.record("a value of an API that is gone must not go home")
            return
        }
        origins.record(Traveller.self, id: "1", api: apiB, parent: [], context: nil)
        guard case .origin(let api, _) = origins.resolve(Traveller.self, id: "1", home: place(apiA), context: nil)
        else {
            Issue.record("beside a live origin, one whose API is gone is set aside")
            return
        }
        #expect(api === apiB)
    }

    @Test func manyBlocksReadingOneIdKeepTheRecordSmall() {
        let origins = ValueOrigins(generationSize: 64)
        for block in 0..<10_000 {
            origins.record(Traveller.self, id: "1", api: apiA, parent: [], context: UInt64(block))
        }
        guard case .origin(let api, _) = origins.resolve(Traveller.self, id: "1", home: place(apiB), context: nil)
        else {
            Issue.record("one place: it goes there")
            return
        }
        #expect(api === apiA)
    }
}

/// One loopback server with its backend, person 1 and an API on it (the value-origin suites' two servers).
struct ValueOriginServers: Sendable {
    let name: String
    let backend: InMemoryBackend
    let server: LoopbackServer
    let api: API

    init(name: String) throws {
        self.name = name
        backend = InMemoryBackend.people()
        _ = backend.insert(["first_name": .string(name), "last_name": .string(name)], into: "people")
        backend.on(.post, "people/{id}/activate") { _, _ in .status(204) }
        server = LoopbackServer(backend: backend)
        try server.start()
        api = API(baseURL: server.baseURL, transport: URLSessionTransport())
    }
}

/// A model only these tests use, so no other test's values share its origins.
private struct Traveller: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
}

/// A model no test reads, for values built by hand.
private struct Stranger: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
}

/// A model that lives only under a traveller.
private struct Postcard: CRUDModel, Codable, Hashable {
    static let path = "posts"
    static let parentPath: String? = "people"
    var id: Int?
    var title: String
}
