import CRUDKitTesting
import Foundation
import Testing

@testable import CRUDKit

/// `list`, `page` and `all` against each pagination style.
@Suite struct PaginationTests {
    private func server(_ pagination: InMemoryBackend.Pagination, count: Int = 5) -> InMemoryBackend {
        let server = InMemoryBackend.people(pagination: pagination)
        server.seed(count)
        return server
    }

    @Test func automaticFollowsTheEnvelope() async throws {
        let server = server(.envelope(pageSize: 2))
        let scope = Member.using(server.api())
        let page = try await scope.page(["age__gte": "0", "page_size": "2"])
        #expect(page.items.isEmpty && page.total == 0 && page.next == nil)
        let first = try await scope.page()
        #expect(first.items.map(\.lastName) == ["1", "2"])
        #expect(first.total == 5)
        let second = try #require(try await first.nextPage())
        #expect(second.items.map(\.lastName) == ["3", "4"])
        let everyone = try await scope.all().collect()
        #expect(everyone.map(\.lastName) == ["1", "2", "3", "4", "5"])
    }

    @Test func automaticFollowsTheLinkHeaderAndTotalHeader() async throws {
        let server = server(.linkHeader(pageSize: 2))
        let scope = Member.using(server.api())
        let page = try await scope.page()
        #expect(page.total == 5)
        #expect(page.next?.url?.absoluteString == "https://api.example.com/v1/people?page=2")
        #expect(try await scope.all().collect().count == 5)
    }

    @Test func plainArrayIsOnePage() async throws {
        let server = server(.none)
        let scope = Member.using(server.api())
        let page = try await scope.page()
        #expect(page.items.count == 5 && page.next == nil && page.total == nil)
        #expect(try await scope.list().count == 5)
    }

    @Test func pageNumbersUntilAShortPage() async throws {
        let server = server(.pageNumber(pageSize: 2))
        let api = server.api(
            conventions: APIConventions(name: "pages", pagination: .pageNumber("page", pageSize: 2)))
        let everyone = try await Member.using(api).all().collect()
        #expect(everyone.count == 5)
        #expect(server.log == ["GET /v1/people", "GET /v1/people?page=2", "GET /v1/people?page=3"])
    }

    @Test func offsetsUntilAShortPage() async throws {
        let server = server(.offset(limit: 2), count: 4)
        let api = server.api(conventions: APIConventions(name: "offsets", pagination: .offset(limit: 2)))
        let everyone = try await Member.using(api).all(["q": "x"]).collect()
        #expect(everyone.count == 4)
        #expect(
            server.log == [
                "GET /v1/people?q=x&limit=2&offset=0", "GET /v1/people?q=x&limit=2&offset=2",
                "GET /v1/people?q=x&limit=2&offset=4",
            ])
    }

    @Test func allFetchesTheNextPageOnlyWhenNeeded() async throws {
        let server = server(.envelope(pageSize: 2))
        let sequence = Member.using(server.api()).all()
        #expect(server.log.isEmpty)
        var seen: [String] = []
        for try await member in sequence {
            seen.append(member.lastName)
            if seen.count == 2 { break }
        }
        #expect(server.log == ["GET /v1/people"])
    }

    @Test func allStopsWhenTheTaskIsCancelled() async throws {
        let server = server(.envelope(pageSize: 2))
        let sequence = Member.using(server.api()).all()
        let (firstItem, signal) = AsyncStream<Void>.makeStream()
        let (resume, proceed) = AsyncStream<Void>.makeStream()
        let task = Task {
            var iterator = sequence.makeAsyncIterator()
            _ = try await iterator.next()
            _ = try await iterator.next()
            signal.yield()
            for await _ in resume { break }
            return try await iterator.next()
        }
        for await _ in firstItem { break }
        task.cancel()
        proceed.yield()
        let result = await task.result
        #expect((try? result.get()) == nil)
        #expect(server.log == ["GET /v1/people"])
    }

    @Test func aNextLinkToAnotherOriginIsRefused() async throws {
        let stub = StubTransport().on(
            nil, "**",
            .json(
                text:
                    #"{"count": 3, "next": "https://evil.example.net/people?page=2", "results": [{"first_name": "A", "last_name": "B"}]}"#
            ))
        let api = API(baseURL: testBase, transport: stub)
        let error = await crudError { try await Member.using(api).all().collect() }
        #expect(error?.caseName == "invalidRequest")
        #expect(stub.recorder.count == 1)
    }

    @Test func anHTTPLinkFromAnHTTPSAPISaysWhy() async throws {
        // Django behind a TLS proxy without `SECURE_PROXY_SSL_HEADER` writes `http://` next links: never followed
        // (the token would go in clear), and the error says what to change on the server.
        let stub = StubTransport().on(
            nil, "**",
            .json(
                text:
                    #"{"next": "http://api.example.com/v1/people?page=2", "results": [{"first_name": "A", "last_name": "B"}]}"#
            ))
        let api = API(baseURL: URL(string: "https://api.example.com/v1"), transport: stub)
        let error = await crudError { try await Member.using(api).all().collect() }
        #expect(error?.caseName == "invalidRequest")
        #expect(stub.recorder.count == 1)
        #expect(error.map { "\($0)" }?.contains("SECURE_PROXY_SSL_HEADER") == true)
    }

    @Test func aNextLinkToAFetchedPageEndsTheWalk() async throws {
        let stub = StubTransport().on(
            nil, "**", .json(text: #"{"next": "/v1/people", "results": [{"first_name": "A", "last_name": "B"}]}"#))
        let api = API(baseURL: testBase, transport: stub)
        #expect(try await Member.using(api).all().collect().count == 2)
        #expect(stub.recorder.count == 2)
    }

    @Test func collectionKeyAndEnvelopePaths() async throws {
        let stub = StubTransport().on(
            nil, "**",
            .json(
                text:
                    #"{"data": {"people": [{"id": "x", "name": "A"}]}, "links": {"next": null}, "meta": {"total": 1}}"#)
        )
        let api = API(baseURL: testBase, transport: stub)
        let page = try await Keyed.using(api).page()
        #expect(page.items.map(\.name) == ["A"] && page.total == 1)  // `meta.total`, read automatically
        let jsonAPIStub = StubTransport().on(
            nil, "**", .json(text: #"{"data": [{"id": "x"}], "links": {"next": null}, "meta": {"total": 1}}"#))
        let jsonAPI = API(baseURL: testBase, conventions: .jsonAPI, transport: jsonAPIStub)
        let other = try await Plain.using(jsonAPI).page()
        #expect(other.total == 1 && other.items.count == 1 && other.next == nil)
    }
}

private struct Keyed: Enumeratable, Codable {
    static let path = "people"
    static let collectionKey: String? = "data.people"
    var id: String?
    var name: String
}

private struct Plain: Enumeratable, Codable {
    static let path = "people"
    var id: String?
}
