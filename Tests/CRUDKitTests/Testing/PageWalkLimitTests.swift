import CRUDKit
import CRUDKitTesting
import Foundation
import Testing

/// A listed item for the page-walk tests.
private struct Walked: CRUDModel, Codable {
    static let path = "people"
    var id: Int?
    var name: String
}

/// `all()` ends on a server that never stops sending a `next` page (issue 12, item 4).
@Suite struct PageWalkLimitTests {
    let stubs = StubTransport()

    private func api(_ pagination: Pagination = .automatic) -> API {
        var configuration = APIConfiguration(baseURL: URL(string: backendBase)!)
        configuration.transport = stubs
        configuration.conventions = APIConventions(name: "walk", pagination: pagination)
        return API(configuration: configuration)
    }

    private static func pageNumber(_ request: StubRequest, _ name: String) -> Int {
        request.recorded.query[name].flatMap { Int($0) } ?? 1
    }

    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1)))) func respelledNextLinkForTheSamePageEnds() async throws {
        // The same page under `?x=1`, `?x=2`, … forever.
        stubs.on(.get, "people") { request in
            let next = Self.pageNumber(request, "x") + 1
            return .json(
                [["id": 1, "name": "one"]], headers: ["Link": "<\(backendBase)/people?x=\(next)>; rel=\"next\""])
        }
        let everyone = try await Walked.using(api()).all().collect()
        #expect(everyone.map(\.id) == [1])
        #expect(stubs.recorder.requests.count == 2)
    }

    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1)))) func pageNumbersOnAServerIgnoringThePageEnd() async throws {
        // Every page is full, and it is always the same page.
        stubs.on(.get, "people", .json([["id": 1, "name": "one"], ["id": 2, "name": "two"]]))
        let everyone = try await Walked.using(api(.pageNumber("page", pageSize: 2))).all().collect()
        #expect(everyone.map(\.id) == [1, 2])
        #expect(stubs.recorder.requests.count == 2)
    }

    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1)))) func endlessChainStopsAtTheDefaultCap() async throws {
        // A new item on every page, and always a next page.
        stubs.on(.get, "people") { request in
            let page = Self.pageNumber(request, "page")
            return .json(
                [["id": JSON(page), "name": "n"]],
                headers: ["Link": "<\(backendBase)/people?page=\(page + 1)>; rel=\"next\""])
        }
        var seen = 0
        let error = await #expect(throws: CRUDError.self) {
            for try await _ in Walked.using(api()).all() { seen += 1 }
        }
        #expect(seen == PageSequence<Walked>.defaultMaxPages)
        #expect(PageSequence<Walked>.defaultMaxPages == 1_000)
        guard case .invalidRequest(let reason) = error else {
            Issue.record("expected invalidRequest, got \(String(describing: error))")
            return
        }
        #expect(reason.contains("1000 pages") && reason.contains("limited(toPages:)"))
    }

    @Test(.timeLimit(.minutes(TestEnvironment.minutes(1)))) func capIsSettableAndAppliesToItemsWithoutIDs() async throws
    {
        stubs.on(.get, "people") { request in
            let page = Self.pageNumber(request, "page")
            return .json(
                [["name": "same"]], headers: ["Link": "<\(backendBase)/people?page=\(page + 1)>; rel=\"next\""])
        }
        let walk = Walked.using(api()).all().limited(toPages: 7)
        #expect(walk.maxPages == 7)
        await #expect(throws: CRUDError.self) { try await walk.collect() }
        #expect(stubs.recorder.requests.count == 7)
        let exact = try await Walked.using(api(.pageNumber("page", pageSize: 1))).all().limited(toPages: 3).prefix(3)
            .reduce(0) { count, _ in count + 1 }
        #expect(exact == 3)
    }
}
