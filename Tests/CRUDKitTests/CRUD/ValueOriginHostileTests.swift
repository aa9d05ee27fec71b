import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

extension NetworkTests {
    /// Hostile uses of a value's origin against two loopback servers: many blocks at once, a parent read elsewhere.
    @Suite struct ValueOriginHostileTests {
        @Test func manyBlocksOnTwoAPIsWritingOneIdNeverReachTheWrongServer() async throws {
            let primary = try ValueOriginServers(name: "Primary")
            let backup = try ValueOriginServers(name: "Backup")
            defer { primary.server.stop(); backup.server.stop() }
            let refused = try await withThrowingTaskGroup(of: Int.self) { group in
                for index in 0..<200 {
                    let side = index.isMultiple(of: 2) ? primary : backup
                    group.addTask {
                        try await API.withShared(side.api) {
                            var value = try await Crowd.read(id: 1)
                            value.lastName = side.name
                            do {
                                _ = try await value.update()
                                return 0
                            } catch let error as CRUDError where error.caseName == "invalidRequest" {
                                return 1
                            }
                        }
                    }
                }
                return try await group.reduce(0, +)
            }
            for side in [primary, backup] {
                let puts = side.server.requests.filter { $0.method == "PUT" }
                #expect(puts.allSatisfy { String(decoding: $0.body, as: UTF8.self).contains(side.name) })
            }
            #expect(refused == 0, "blocks refused although each read its own value: \(refused)")
        }

        @Test func aChildCreatedUnderAParentReadElsewhereGoesToTheParentsAPI() async throws {
            let primary = try ValueOriginServers(name: "Primary")
            let backup = try ValueOriginServers(name: "Backup")
            defer { primary.server.stop(); backup.server.stop() }
            try await API.withShared(primary.api) {
                let ada = try await Crowd.using(backup.api).read(id: 1)
                let note = try await Memo.scoped(to: ada).create(Memo(title: "Hello"))
                _ = try await note.update()
            }
            #expect(primary.server.requests.isEmpty)
            #expect(backup.server.requests.map { "\($0.method) \($0.target)" }.contains("POST /people/1/posts"))
        }

        @Test func aFutureReadInABlockWritesBackInThatBlock() async throws {
            let primary = try ValueOriginServers(name: "Primary")
            let backup = try ValueOriginServers(name: "Backup")
            defer { primary.server.stop(); backup.server.stop() }
            try await API.withShared(primary.api) { _ = try await Lone.read(id: 1) }
            try await API.withShared(backup.api) {
                let future: Future<Lone> = { Lone.read(id: 1) }()
                var value = try await future.value
                value.lastName = "Future"
                _ = try await value.update()
            }
            #expect(backup.server.requests.map(\.method) == ["GET", "PUT"])
        }
    }
}

@Suite struct ValueOriginRegistryHostileTests {
    private let apiA = API(baseURL: URL(string: "https://a.example"))

    @Test func aForgottenOriginWhoseAPIIsGoneIsNotTakenForANewAPIAtItsAddress() {
        let origins = ValueOrigins(generationSize: 4)
        var address: ObjectIdentifier?
        do {
            let gone = API(baseURL: URL(string: "https://gone.example"))
            address = ObjectIdentifier(gone)
            for id in 1..<20 { origins.record(Lone.self, id: "\(id)", api: gone, parent: [], context: nil) }
        }
        var kept: [API] = []
        var reused: API?
        for _ in 0..<10_000 {
            let api = API(baseURL: URL(string: "https://new.example"))
            if ObjectIdentifier(api) == address {
                reused = api
                break
            }
            kept.append(api)
        }
        // Keep going only when the allocator reused the address (it does on Linux and Darwin in practice).
        guard let reused else { return }
        let home = ValueOrigins.Place(api: ObjectIdentifier(reused), parent: [])
        guard case .refused = origins.resolve(Lone.self, id: "1", home: home, context: nil) else {
            Issue.record("a value of a forgotten, gone API went to a new API that happens to have its address")
            return
        }
        #expect(kept.count >= 0)
    }

    @Test func originsOfAPIsThatAreGoneDoNotMakeALiveOriginTooMany() {
        let origins = ValueOrigins(generationSize: 64)
        do {
            let earlier = (0..<12).map { _ in API(baseURL: URL(string: "https://earlier.example")) }
            for api in earlier { origins.record(Lone.self, id: "1", api: api, parent: [], context: nil) }
        }
        origins.record(Lone.self, id: "1", api: apiA, parent: [], context: nil)
        let home = ValueOrigins.Place(api: ObjectIdentifier(apiA), parent: [])
        guard case .origin(let api, _) = origins.resolve(Lone.self, id: "1", home: home, context: nil) else {
            Issue.record("twelve earlier test APIs, all gone, made the one live origin 'more than 8 origins'")
            return
        }
        #expect(api === apiA)
    }

    @Test func seventyThousandDistinctReadsRollTwoGenerationsOver() {
        let origins = ValueOrigins(generationSize: 32_768)
        let clock = ContinuousClock()
        let elapsed = clock.measure {
            for id in 0..<70_000 { origins.record(Lone.self, id: "\(id)", api: apiA, parent: [], context: nil) }
        }
        let home = ValueOrigins.Place(api: ObjectIdentifier(apiA), parent: [])
        guard case .origin = origins.resolve(Lone.self, id: "69999", home: home, context: nil) else {
            Issue.record("the newest id is remembered")
            return
        }
        guard case .unknown = origins.resolve(Lone.self, id: "3", home: home, context: nil) else {
            Issue.record("a forgotten id of the home API goes home")
            return
        }
        print("70,000 distinct records: \(elapsed)")
    }
}

private struct Crowd: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
}

private struct Lone: CRUDModel, Codable, Hashable {
    static let path = "people"
    var id: Int?
    var firstName: String
    var lastName: String
}

private struct Memo: CRUDModel, Codable, Hashable {
    static let path = "posts"
    static let parentPath: String? = "people"
    var id: Int?
    var title: String
}
